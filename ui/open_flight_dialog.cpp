#include "ui/open_flight_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMimeData>
#include <QPushButton>
#include <QVBoxLayout>

#include "core/util/error.h"
#include "core/app/flight_results.h"
#include "ui/processing_options.h"

namespace skytrace::ui {
namespace {

const QStringList kVideoSuffixes = {"mp4", "mov", "mkv", "avi", "m4v", "ts", "mts"};
const QStringList kRasterSuffixes = {"tif", "tiff", "vrt", "mbtiles", "gpkg", "jp2", "ecw", "img"};
const QStringList kLogSuffixes = {"srt", "ulg", "bin", "tlog", "gpx", "csv"};

// Camera box entries, in this order.
const io::CameraSource kCameraSources[] = {io::CameraSource::Default, io::CameraSource::File,
                                           io::CameraSource::HorizontalFov, io::CameraSource::Telemetry};

}  // namespace

InputKind classifyInputPath(const QString& path) {
  const QFileInfo info(path);
  if (info.isDir()) {
    if (app::isResultsFolder(path.toStdString())) return InputKind::ResultsFolder;
    return InputKind::ImageFolder;
  }
  const QString suffix = info.suffix().toLower();
  if (suffix == QLatin1String("skytrace")) return InputKind::Project;
  if (kVideoSuffixes.contains(suffix)) return InputKind::Video;
  if (kRasterSuffixes.contains(suffix)) return InputKind::Basemap;
  if (kLogSuffixes.contains(suffix)) return InputKind::Telemetry;
  if (suffix == QLatin1String("json")) return InputKind::CameraFile;
  return InputKind::Unknown;
}

OpenFlightDialog::OpenFlightDialog(QWidget* parent) : QDialog(parent) {
  setObjectName(QStringLiteral("openFlightDialog"));
  setAcceptDrops(true);
  auto* grid = new QGridLayout;
  int row = 0;
  auto browse_button = [this] { return new QPushButton(this); };

  video_label_ = new QLabel(this);
  video_edit_ = new QLineEdit(this);
  video_button_ = browse_button();
  folder_button_ = browse_button();
  grid->addWidget(video_label_, row, 0);
  grid->addWidget(video_edit_, row, 1);
  auto* video_buttons = new QHBoxLayout;
  video_buttons->addWidget(video_button_);
  video_buttons->addWidget(folder_button_);
  grid->addLayout(video_buttons, row++, 2);

  basemaps_label_ = new QLabel(this);
  basemap_list_ = new QListWidget(this);
  basemap_list_->setMaximumHeight(90);
  add_basemap_button_ = browse_button();
  remove_basemap_button_ = browse_button();
  auto* basemap_buttons = new QVBoxLayout;
  basemap_buttons->addWidget(add_basemap_button_);
  basemap_buttons->addWidget(remove_basemap_button_);
  basemap_buttons->addStretch();
  grid->addWidget(basemaps_label_, row, 0, Qt::AlignTop);
  grid->addWidget(basemap_list_, row, 1);
  grid->addLayout(basemap_buttons, row++, 2);

  telemetry_label_ = new QLabel(this);
  telemetry_edit_ = new QLineEdit(this);
  telemetry_button_ = browse_button();
  grid->addWidget(telemetry_label_, row, 0);
  grid->addWidget(telemetry_edit_, row, 1);
  grid->addWidget(telemetry_button_, row++, 2);

  camera_label_ = new QLabel(this);
  camera_box_ = new QComboBox(this);
  for (int i = 0; i < 4; ++i) camera_box_->addItem(QString());
  camera_file_edit_ = new QLineEdit(this);
  camera_file_button_ = browse_button();
  hfov_box_ = new QDoubleSpinBox(this);
  hfov_box_->setRange(1.5, 178.5);
  hfov_box_->setDecimals(1);
  hfov_box_->setValue(70.0);
  hfov_box_->setSuffix(QStringLiteral(" °"));
  auto* camera_row = new QHBoxLayout;
  camera_row->addWidget(camera_box_);
  camera_row->addWidget(camera_file_edit_, 1);
  camera_row->addWidget(hfov_box_);
  grid->addWidget(camera_label_, row, 0);
  grid->addLayout(camera_row, row, 1);
  grid->addWidget(camera_file_button_, row++, 2);

  model_label_ = new QLabel(this);
  processing_ = new ProcessingOptionsWidget(this);
  grid->addWidget(model_label_, row, 0, Qt::AlignTop);
  grid->addWidget(processing_, row++, 1, 1, 2);

  results_label_ = new QLabel(this);
  results_edit_ = new QLineEdit(this);
  results_button_ = browse_button();
  grid->addWidget(results_label_, row, 0);
  grid->addWidget(results_edit_, row, 1);
  grid->addWidget(results_button_, row++, 2);

  validation_label_ = new QLabel(this);
  validation_label_->setWordWrap(true);
  validation_label_->setStyleSheet(QStringLiteral("color: #c0392b;"));
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(grid);
  layout->addWidget(validation_label_);
  layout->addWidget(buttons_);
  connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);

  connect(video_button_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Flight Video"), QString(), tr("Videos (*.mp4 *.mov *.mkv *.avi *.m4v *.ts);;All files (*)"));
    if (!path.isEmpty()) video_edit_->setText(path);
  });
  connect(folder_button_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getExistingDirectory(this, tr("Image Folder"));
    if (!path.isEmpty()) video_edit_->setText(path);
  });
  connect(add_basemap_button_, &QPushButton::clicked, this, [this] {
    const QStringList paths = QFileDialog::getOpenFileNames(
        this, tr("Basemaps"), QString(),
        tr("Rasters (*.tif *.tiff *.vrt *.mbtiles *.gpkg *.jp2 *.jpg *.png);;All files (*)"));
    for (const QString& path : paths) basemap_list_->addItem(path);
    updateState();
  });
  connect(remove_basemap_button_, &QPushButton::clicked, this, [this] {
    delete basemap_list_->currentItem();
    updateState();
  });
  connect(telemetry_button_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Flight Log"), QString(), tr("Flight logs (*.srt *.SRT *.ulg *.bin *.BIN *.tlog *.gpx *.csv);;All files (*)"));
    if (!path.isEmpty()) telemetry_edit_->setText(path);
  });
  connect(camera_file_button_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Camera File"), QString(),
                                                      tr("Camera JSON (*.json);;All files (*)"));
    if (!path.isEmpty()) {
      camera_file_edit_->setText(path);
      camera_box_->setCurrentIndex(1);
    }
  });
  connect(results_button_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getExistingDirectory(this, tr("Results Folder"));
    if (!path.isEmpty()) results_edit_->setText(path);
  });
  for (QLineEdit* edit : {video_edit_, telemetry_edit_, camera_file_edit_, results_edit_})
    connect(edit, &QLineEdit::textChanged, this, &OpenFlightDialog::updateState);
  connect(camera_box_, &QComboBox::currentIndexChanged, this, &OpenFlightDialog::updateState);
  connect(processing_, &ProcessingOptionsWidget::changed, this, &OpenFlightDialog::updateState);
  connect(hfov_box_, &QDoubleSpinBox::valueChanged, this, &OpenFlightDialog::updateState);
  retranslateUi();
  resize(720, sizeHint().height());
}

void OpenFlightDialog::setProject(const io::Project& project) {
  video_edit_->setText(QString::fromStdString(project.video_path));
  basemap_list_->clear();
  for (const std::string& path : project.basemap_paths) basemap_list_->addItem(QString::fromStdString(path));
  telemetry_edit_->setText(QString::fromStdString(project.telemetry_path));
  offset_log_ = project.telemetry_path;
  telemetry_time_offset_s_ = project.telemetry_time_offset_s;
  for (int i = 0; i < 4; ++i)
    if (kCameraSources[i] == project.camera.source) camera_box_->setCurrentIndex(i);
  camera_file_edit_->setText(QString::fromStdString(project.camera.file_path));
  if (project.camera.hfov_deg > 0) hfov_box_->setValue(project.camera.hfov_deg);
  processing_->setProject(project);
  results_edit_->setText(QString::fromStdString(project.results_dir));
  updateState();
}

io::Project OpenFlightDialog::project() const {
  io::Project p;
  p.video_path = video_edit_->text().trimmed().toStdString();
  for (int i = 0; i < basemap_list_->count(); ++i) p.basemap_paths.push_back(basemap_list_->item(i)->text().toStdString());
  p.telemetry_path = telemetry_edit_->text().trimmed().toStdString();
  // The log's clock offset (set under the timeline) stays with the log it was set for.
  if (p.telemetry_path == offset_log_) p.telemetry_time_offset_s = telemetry_time_offset_s_;
  p.camera.source = kCameraSources[std::max(0, camera_box_->currentIndex())];
  p.camera.file_path = camera_file_edit_->text().trimmed().toStdString();
  p.camera.hfov_deg = hfov_box_->value();
  processing_->applyTo(&p);
  p.results_dir = results_edit_->text().trimmed().toStdString();
  return p;
}

QStringList OpenFlightDialog::addPaths(const QStringList& paths) {
  QStringList unplaced;
  for (const QString& path : paths) {
    switch (classifyInputPath(path)) {
      case InputKind::Video:
      case InputKind::ImageFolder: video_edit_->setText(path); break;
      case InputKind::Basemap: basemap_list_->addItem(path); break;
      case InputKind::Telemetry: telemetry_edit_->setText(path); break;
      case InputKind::CameraFile:
        camera_file_edit_->setText(path);
        camera_box_->setCurrentIndex(1);
        break;
      case InputKind::ResultsFolder: results_edit_->setText(path); break;
      case InputKind::Project:
      case InputKind::Unknown: unplaced << path; break;
    }
  }
  updateState();
  return unplaced;
}

QString OpenFlightDialog::modelNote() const { return processing_->weightsNote(); }

QString OpenFlightDialog::validationMessage() const {
  const io::Project p = project();
  try {
    p.check();
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return ProcessingOptionsWidget::problemFor(p);
}

void OpenFlightDialog::updateState() {
  const io::CameraSource camera = kCameraSources[std::max(0, camera_box_->currentIndex())];
  camera_file_edit_->setVisible(camera == io::CameraSource::File);
  camera_file_button_->setEnabled(camera == io::CameraSource::File);
  hfov_box_->setVisible(camera == io::CameraSource::HorizontalFov);
  remove_basemap_button_->setEnabled(basemap_list_->count() > 0);
  const QString problem = validationMessage();
  validation_label_->setText(problem);
  buttons_->button(QDialogButtonBox::Ok)->setEnabled(problem.isEmpty());
  fitHeightToContents(this);
}

void OpenFlightDialog::retranslateUi() {
  setWindowTitle(tr("Open Flight"));
  video_label_->setText(tr("Video:"));
  video_edit_->setPlaceholderText(tr("Flight video or folder of images"));
  video_button_->setText(tr("File..."));
  folder_button_->setText(tr("Folder..."));
  basemaps_label_->setText(tr("Basemaps:"));
  basemap_list_->setToolTip(tr("Georeferenced rasters, drawn in this order (drop files here)"));
  add_basemap_button_->setText(tr("Add..."));
  remove_basemap_button_->setText(tr("Remove"));
  telemetry_label_->setText(tr("Flight log:"));
  telemetry_edit_->setPlaceholderText(
      tr("Optional: DJI SRT, PX4 ULog, ArduPilot .bin, MAVLink .tlog, GPX, CSV or a photo folder"));
  telemetry_button_->setText(tr("Browse..."));
  camera_label_->setText(tr("Camera:"));
  camera_box_->setItemText(0, tr("Processing default"));
  camera_box_->setItemText(1, tr("From a camera file"));
  camera_box_->setItemText(2, tr("From the horizontal field of view"));
  camera_box_->setItemText(3, tr("From the flight log's camera model"));
  camera_file_button_->setText(tr("Browse..."));
  hfov_box_->setToolTip(tr("Horizontal field of view"));
  model_label_->setText(tr("Processing:"));
  results_label_->setText(tr("Results folder:"));
  results_edit_->setPlaceholderText(tr("Default: <project name>_results beside the project"));
  results_button_->setText(tr("Browse..."));
  updateState();
}

void OpenFlightDialog::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange) retranslateUi();
  QDialog::changeEvent(event);
}

void OpenFlightDialog::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void OpenFlightDialog::dropEvent(QDropEvent* event) {
  QStringList paths;
  for (const QUrl& url : event->mimeData()->urls())
    if (url.isLocalFile()) paths << url.toLocalFile();
  addPaths(paths);
  event->acceptProposedAction();
}

}  // namespace skytrace::ui
