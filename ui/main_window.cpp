#include "ui/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QIcon>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QTextStream>

#include <algorithm>
#include <exception>

#include "core/geo/basemap.h"
#include "core/io/telemetry/telemetry_reader.h"
#include "core/io/telemetry/telemetry_track.h"
#include "core/io/video_source.h"
#include "ui/map_view.h"
#include "ui/trajectory_plot.h"
#include "ui/video_panel.h"

namespace skytrace::ui {
namespace {

const QString kBasemapPrefix = QStringLiteral("basemap:");
const QString kVideoPrefix = QStringLiteral("video:");
const QString kRecentKey = QStringLiteral("recentFiles");
const QString kGeometryKey = QStringLiteral("mainWindow/geometry");
const QString kStateKey = QStringLiteral("mainWindow/state");
constexpr int kStateVersion = 1;

QImage imageFromBgr(const cv::Mat& bgr) {
  if (bgr.empty() || bgr.type() != CV_8UC3) return {};
  return QImage(bgr.data, bgr.cols, bgr.rows, static_cast<qsizetype>(bgr.step),
                QImage::Format_BGR888)
      .copy();
}

}  // namespace

MainWindow::MainWindow(const MainWindowOptions& options, QWidget* parent)
    : QMainWindow(parent), options_(options) {
  setObjectName(QStringLiteral("SkytraceMainWindow"));
  QIcon icon(QStringLiteral(":/icons/skytrace.svg"));
  for (int size : {32, 64, 256})
    icon.addFile(QStringLiteral(":/icons/skytrace-%1.png").arg(size), QSize(size, size));
  setWindowIcon(icon);

  map_view_ = new MapView(this);
  setCentralWidget(map_view_);
  createActions();
  createMenus();
  createDocks();
  createStatusBar();
  retranslateUi();
  resize(1280, 800);
  if (options_.persist_settings) restoreSettings();

  connect(map_view_, &MapView::viewChanged, this, &MainWindow::updateScaleLabel);
  connect(map_view_, &MapView::cursorMoved, this, &MainWindow::updateCursorLabel);
  connect(map_view_, &MapView::loadFailed, this,
          [this](const QString& message) { reportError(tr("Cannot read basemap"), message); });
}

MainWindow::~MainWindow() = default;

void MainWindow::createActions() {
  open_basemap_action_ = new QAction(this);
  open_basemap_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
  connect(open_basemap_action_, &QAction::triggered, this, &MainWindow::chooseBasemap);

  open_video_action_ = new QAction(this);
  open_video_action_->setShortcut(QKeySequence::Open);
  connect(open_video_action_, &QAction::triggered, this, &MainWindow::chooseVideo);

  open_folder_action_ = new QAction(this);
  connect(open_folder_action_, &QAction::triggered, this, &MainWindow::chooseImageFolder);

  open_telemetry_action_ = new QAction(this);
  open_telemetry_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
  connect(open_telemetry_action_, &QAction::triggered, this, &MainWindow::chooseTelemetry);

  clear_recent_action_ = new QAction(this);
  connect(clear_recent_action_, &QAction::triggered, this, [this] {
    recent_entries_.clear();
    rebuildRecentMenu();
    if (options_.persist_settings) saveSettings();
  });

  quit_action_ = new QAction(this);
  quit_action_->setShortcut(QKeySequence::Quit);
  quit_action_->setMenuRole(QAction::QuitRole);
  connect(quit_action_, &QAction::triggered, this, &QWidget::close);

  zoom_in_action_ = new QAction(this);
  zoom_in_action_->setShortcut(QKeySequence::ZoomIn);
  connect(zoom_in_action_, &QAction::triggered, this, [this] { map_view_->zoomBy(2.0); });
  zoom_out_action_ = new QAction(this);
  zoom_out_action_->setShortcut(QKeySequence::ZoomOut);
  connect(zoom_out_action_, &QAction::triggered, this, [this] { map_view_->zoomBy(0.5); });
  zoom_fit_action_ = new QAction(this);
  zoom_fit_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
  connect(zoom_fit_action_, &QAction::triggered, map_view_, &MapView::zoomToFit);

  about_action_ = new QAction(this);
  about_action_->setMenuRole(QAction::AboutRole);
  connect(about_action_, &QAction::triggered, this, &MainWindow::showAbout);
}

void MainWindow::createMenus() {
  file_menu_ = menuBar()->addMenu(QString());
  file_menu_->addAction(open_basemap_action_);
  file_menu_->addAction(open_video_action_);
  file_menu_->addAction(open_folder_action_);
  file_menu_->addAction(open_telemetry_action_);
  recent_menu_ = file_menu_->addMenu(QString());
  file_menu_->addSeparator();
  file_menu_->addAction(quit_action_);

  view_menu_ = menuBar()->addMenu(QString());
  view_menu_->addAction(zoom_in_action_);
  view_menu_->addAction(zoom_out_action_);
  view_menu_->addAction(zoom_fit_action_);
  view_menu_->addSeparator();

  help_menu_ = menuBar()->addMenu(QString());
  help_menu_->addAction(about_action_);
}

void MainWindow::createDocks() {
  trajectory_plot_ = new TrajectoryPlot(this);
  plot_dock_ = new QDockWidget(this);
  plot_dock_->setObjectName(QStringLiteral("plotDock"));
  plot_dock_->setWidget(trajectory_plot_);
  addDockWidget(Qt::BottomDockWidgetArea, plot_dock_);

  video_panel_ = new VideoPanel(this);
  video_dock_ = new QDockWidget(this);
  video_dock_->setObjectName(QStringLiteral("videoDock"));
  video_dock_->setWidget(video_panel_);
  addDockWidget(Qt::RightDockWidgetArea, video_dock_);

  view_menu_->addAction(plot_dock_->toggleViewAction());
  view_menu_->addAction(video_dock_->toggleViewAction());
  resizeDocks({plot_dock_}, {230}, Qt::Vertical);
  resizeDocks({video_dock_}, {380}, Qt::Horizontal);
}

void MainWindow::createStatusBar() {
  cursor_label_ = new QLabel(this);
  cursor_label_->setMinimumWidth(260);
  scale_label_ = new QLabel(this);
  scale_label_->setMinimumWidth(140);
  statusBar()->addPermanentWidget(cursor_label_);
  statusBar()->addPermanentWidget(scale_label_);
}

void MainWindow::retranslateUi() {
  setWindowTitle(tr("Skytrace"));
  file_menu_->setTitle(tr("&File"));
  recent_menu_->setTitle(tr("Recent &Files"));
  view_menu_->setTitle(tr("&View"));
  help_menu_->setTitle(tr("&Help"));
  open_basemap_action_->setText(tr("Open &Basemap..."));
  open_basemap_action_->setStatusTip(tr("Open a georeferenced raster (GeoTIFF, VRT, MBTiles, ...) as a basemap"));
  open_video_action_->setText(tr("Open &Video..."));
  open_video_action_->setStatusTip(tr("Open a flight video or a folder of images"));
  open_folder_action_->setText(tr("Open Image Fol&der..."));
  open_folder_action_->setStatusTip(tr("Open a folder of images (jpg/png/tif) as a video"));
  open_telemetry_action_->setText(tr("Open Flight &Log..."));
  open_telemetry_action_->setStatusTip(
      tr("Open a flight log (DJI SRT, PX4 ULog, GPX, CSV) and show its GNSS track on the map"));
  clear_recent_action_->setText(tr("&Clear List"));
  quit_action_->setText(tr("&Quit"));
  zoom_in_action_->setText(tr("Zoom &In"));
  zoom_out_action_->setText(tr("Zoom &Out"));
  zoom_fit_action_->setText(tr("&Fit Basemap"));
  about_action_->setText(tr("&About Skytrace"));
  plot_dock_->setWindowTitle(tr("Trajectory"));
  video_dock_->setWindowTitle(tr("Video"));
  rebuildRecentMenu();
  updateScaleLabel();
  updateCursorLabel(cursor_over_map_, cursor_lat_deg_, cursor_lon_deg_);
  updateVideoCaption();
  statusBar()->showMessage(tr("Ready"), 3000);
}

void MainWindow::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange && file_menu_) retranslateUi();
  QMainWindow::changeEvent(event);
}

bool MainWindow::openBasemap(const QString& path) {
  try {
    auto basemap = std::make_shared<const geo::Basemap>(geo::Basemap::open(path.toStdString()));
    const QString crs = QString::fromStdString(basemap->crsName());
    const double gsd_m = basemap->pixelSizeM();
    const int width = basemap->width();
    const int height = basemap->height();
    map_view_->addBasemap(std::move(basemap));
    addRecentFile(path, false);
    statusBar()->showMessage(tr("Basemap %1: %2 x %3 px, %4 m/px, %5")
                                 .arg(QFileInfo(path).fileName())
                                 .arg(width)
                                 .arg(height)
                                 .arg(gsd_m, 0, 'g', 3)
                                 .arg(crs));
    return true;
  } catch (const std::exception& e) {
    reportError(tr("Cannot open basemap"), QString::fromStdString(e.what()));
    return false;
  }
}

bool MainWindow::openVideo(const QString& path) {
  try {
    std::unique_ptr<io::VideoSource> source = io::openVideoSource(path.toStdString());
    io::VideoFrame frame;
    if (!source->read(&frame))
      throw std::runtime_error(path.toStdString() + ": no frame could be decoded");
    video_ = std::move(source);
    video_path_ = path;
    video_frame_index_ = frame.index;
    video_frame_t_s_ = frame.t_s;
    video_panel_->showFrame(imageFromBgr(frame.bgr), QString());
    updateVideoCaption();
    video_dock_->show();
    addRecentFile(path, true);
    const io::VideoInfo& info = video_->info();
    statusBar()->showMessage(tr("Video %1: %2 frames, %3 fps, %4 x %5 px")
                                 .arg(QFileInfo(path).fileName())
                                 .arg(info.frame_count)
                                 .arg(info.fps, 0, 'g', 4)
                                 .arg(info.width_px)
                                 .arg(info.height_px));
    return true;
  } catch (const std::exception& e) {
    reportError(tr("Cannot open video"), QString::fromStdString(e.what()));
    return false;
  }
}

bool MainWindow::openTelemetry(const QString& path) {
  try {
    const io::TelemetrySeries series = io::readTelemetry(path.toStdString());
    const geo::Track track = io::gnssTrackFromTelemetry(series);
    if (track.poses.empty()) {
      throw std::runtime_error(path.toStdString() + ": the log holds no GNSS positions");
    }
    MapView::TrackOverlay overlay;
    overlay.name = QStringLiteral("gnss:") + QFileInfo(path).absoluteFilePath();
    overlay.color = QColor(255, 196, 0);  // logged GNSS: amber
    overlay.points.reserve(track.poses.size());
    for (const geo::TrackPose& pose : track.poses) {
      overlay.points.push_back({pose.lat_deg, pose.lon_deg, 0.0});
    }
    map_view_->setTrackOverlay(overlay);
    const QString where = map_view_->hasView()
                              ? QString()
                              : tr(" (shown once a basemap is open)");
    statusBar()->showMessage(tr("Flight log %1: %2 GNSS positions over %3 s%4")
                                 .arg(QFileInfo(path).fileName())
                                 .arg(track.poses.size())
                                 .arg(track.poses.back().t_s - track.poses.front().t_s, 0, 'f', 1)
                                 .arg(where));
    return true;
  } catch (const std::exception& e) {
    reportError(tr("Cannot open flight log"), QString::fromStdString(e.what()));
    return false;
  }
}

void MainWindow::chooseTelemetry() {
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Open Flight Log"), QString(),
      tr("Flight logs (*.srt *.SRT *.ulg *.gpx *.csv);;All files (*)"));
  if (!path.isEmpty()) openTelemetry(path);
}

void MainWindow::updateVideoCaption() {
  if (!video_ || video_frame_index_ < 0) return;
  video_panel_->showFrame(video_panel_->frame(),
                          tr("%1 - frame %2 of %3, t = %4 s")
                              .arg(QFileInfo(video_path_).fileName())
                              .arg(video_frame_index_)
                              .arg(video_->info().frame_count)
                              .arg(video_frame_t_s_, 0, 'f', 3));
}

void MainWindow::chooseBasemap() {
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Open Basemap"), QString(),
      tr("Rasters (*.tif *.tiff *.vrt *.mbtiles *.gpkg *.jp2 *.jpg *.png);;All files (*)"));
  if (!path.isEmpty()) openBasemap(path);
}

void MainWindow::chooseVideo() {
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Open Video"), QString(),
      tr("Videos (*.mp4 *.mov *.mkv *.avi *.m4v *.ts);;All files (*)"));
  if (!path.isEmpty()) openVideo(path);
}

void MainWindow::chooseImageFolder() {
  const QString path = QFileDialog::getExistingDirectory(this, tr("Open Image Folder"));
  if (!path.isEmpty()) openVideo(path);
}

void MainWindow::showAbout() {
  QMessageBox::about(
      this, tr("About Skytrace"),
      tr("<h3>Skytrace %1</h3><p>Visual geolocalisation of UAV flight video against "
         "georeferenced basemaps.</p><p>Qt %2</p>")
          .arg(QCoreApplication::applicationVersion(), QString::fromLatin1(qVersion())));
}

QStringList MainWindow::recentFiles() const {
  QStringList files;
  for (const QString& entry : recent_entries_) files << entry.section(':', 1);
  return files;
}

void MainWindow::addRecentFile(const QString& path, bool is_video) {
  const QString entry = (is_video ? kVideoPrefix : kBasemapPrefix) + QFileInfo(path).absoluteFilePath();
  recent_entries_.removeAll(entry);
  recent_entries_.prepend(entry);
  while (recent_entries_.size() > kMaxRecentFiles) recent_entries_.removeLast();
  rebuildRecentMenu();
  if (options_.persist_settings) QSettings().setValue(kRecentKey, recent_entries_);
}

void MainWindow::rebuildRecentMenu() {
  recent_menu_->clear();
  for (int i = 0; i < recent_entries_.size(); ++i) {
    const QString& entry = recent_entries_[i];
    const QString path = entry.section(':', 1);
    const QString label = entry.startsWith(kVideoPrefix) ? tr("&%1 %2 (video)") : tr("&%1 %2 (basemap)");
    QAction* action = recent_menu_->addAction(label.arg(i + 1).arg(QDir::toNativeSeparators(path)));
    connect(action, &QAction::triggered, this, [this, entry] { openRecent(entry); });
  }
  recent_menu_->addSeparator();
  recent_menu_->addAction(clear_recent_action_);
  clear_recent_action_->setEnabled(!recent_entries_.isEmpty());
}

void MainWindow::openRecent(const QString& entry) {
  const QString path = entry.section(':', 1);
  if (entry.startsWith(kVideoPrefix))
    openVideo(path);
  else
    openBasemap(path);
}

void MainWindow::restoreSettings() {
  QSettings settings;
  recent_entries_ = settings.value(kRecentKey).toStringList();
  recent_entries_.erase(std::remove_if(recent_entries_.begin(), recent_entries_.end(),
                                       [](const QString& e) {
                                         return !e.startsWith(kBasemapPrefix) &&
                                                !e.startsWith(kVideoPrefix);
                                       }),
                        recent_entries_.end());
  rebuildRecentMenu();
  restoreGeometry(settings.value(kGeometryKey).toByteArray());
  restoreState(settings.value(kStateKey).toByteArray(), kStateVersion);
}

void MainWindow::saveSettings() const {
  QSettings settings;
  settings.setValue(kRecentKey, recent_entries_);
  settings.setValue(kGeometryKey, saveGeometry());
  settings.setValue(kStateKey, saveState(kStateVersion));
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (options_.persist_settings) saveSettings();
  QMainWindow::closeEvent(event);
}

void MainWindow::reportError(const QString& title, const QString& message) {
  statusBar()->showMessage(message);
  Q_EMIT errorReported(message);
  if (options_.interactive) {
    QMessageBox::critical(this, title, message);
  } else {
    QTextStream(stderr) << "skytrace: " << title << ": " << message << "\n";
  }
}

void MainWindow::updateScaleLabel() {
  if (!map_view_->hasView()) {
    scale_label_->setText(tr("No map"));
    return;
  }
  scale_label_->setText(tr("Scale %1 m/px").arg(map_view_->metresPerPixel(), 0, 'g', 3));
}

void MainWindow::updateCursorLabel(bool over_map, double lat_deg, double lon_deg) {
  cursor_over_map_ = over_map;
  cursor_lat_deg_ = lat_deg;
  cursor_lon_deg_ = lon_deg;
  if (!over_map) {
    cursor_label_->setText(tr("Lat -, Lon -"));
    return;
  }
  cursor_label_->setText(tr("Lat %1°, Lon %2°").arg(lat_deg, 0, 'f', 6).arg(lon_deg, 0, 'f', 6));
}

}  // namespace skytrace::ui
