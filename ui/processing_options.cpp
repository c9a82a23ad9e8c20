#include "ui/processing_options.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QEvent>
#include <QGridLayout>
#include <QLayout>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

#include "core/nav/model_choice.h"
#include "core/util/error.h"
#include "core/vision/model_paths.h"
#include "core/vision/torch_runtime.h"
#include "ui/processing_choice.h"

namespace skytrace::ui {
namespace {

// "": the automatic layout of `process` (app::processingChoiceFor).
const char* const kModes[] = {"", "overlapped", "sequential", "frame-parallel"};

QComboBox* modelBox(const std::vector<std::string>& choices, QWidget* parent) {
  auto* box = new QComboBox(parent);
  box->setEditable(true);  // any spec the grammar accepts, not only the listed ones
  for (const std::string& choice : choices) box->addItem(QString::fromStdString(choice));
  box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  return box;
}

QComboBox* deviceBox(QWidget* parent) {
  auto* box = new QComboBox(parent);
  box->setEditable(true);
  box->addItems({QStringLiteral("auto"), QStringLiteral("cpu"), QStringLiteral("cuda:0"), QStringLiteral("cuda:1")});
  return box;
}

void showText(QComboBox* box, const std::string& text) {
  const QString value = QString::fromStdString(text);
  const int index = box->findText(value);
  if (index >= 0) box->setCurrentIndex(index);
  else box->setCurrentText(value);
}

}  // namespace

ProcessingOptionsWidget::ProcessingOptionsWidget(QWidget* parent) : QWidget(parent) {
  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(0, 0, 0, 0);
  vo_label_ = new QLabel(this);
  vo_model_box_ = modelBox(nav::visualOdometryModelChoices(), this);
  vo_model_box_->setObjectName(QStringLiteral("voModel"));
  vo_device_box_ = deviceBox(this);
  vo_device_box_->setObjectName(QStringLiteral("voDevice"));
  satellite_label_ = new QLabel(this);
  satellite_model_box_ = modelBox(nav::satelliteModelChoices(), this);
  satellite_model_box_->setObjectName(QStringLiteral("satelliteModel"));
  satellite_device_box_ = deviceBox(this);
  satellite_device_box_->setObjectName(QStringLiteral("satelliteDevice"));
  mode_label_ = new QLabel(this);
  mode_box_ = new QComboBox(this);
  mode_box_->setObjectName(QStringLiteral("processingMode"));
  for (const char* mode : kModes) mode_box_->addItem(QString(), QString::fromLatin1(mode));
  every_keyframe_box_ = new QCheckBox(this);
  every_keyframe_box_->setObjectName(QStringLiteral("registerEveryKeyframe"));
  half_precision_box_ = new QCheckBox(this);
  half_precision_box_->setObjectName(QStringLiteral("halfPrecision"));
  full_depth_box_ = new QCheckBox(this);
  full_depth_box_->setObjectName(QStringLiteral("lightGlueFullDepth"));
  model_folder_label_ = new QLabel(this);
  model_folder_edit_ = new QLineEdit(this);
  model_folder_edit_->setObjectName(QStringLiteral("modelFolder"));
  model_folder_button_ = new QPushButton(this);
  const QString from_environment = qEnvironmentVariable("SKYTRACE_MODEL_DIR");
  model_folder_edit_->setText(from_environment.isEmpty()
                                  ? QString::fromStdString(vision::defaultModelDirectory())
                                  : from_environment);
  model_folder_edit_->setReadOnly(!from_environment.isEmpty());
  model_folder_button_->setEnabled(from_environment.isEmpty());
  auto apply_folder = [this] {
    const QString folder = model_folder_edit_->text().trimmed();
    if (folder.toStdString() == vision::defaultModelDirectory() || model_folder_edit_->isReadOnly()) return;
    vision::setDefaultModelDirectory(folder.toStdString());
    Q_EMIT modelFolderChanged(folder);
    updateNote();
  };
  connect(model_folder_edit_, &QLineEdit::editingFinished, this, apply_folder);
  connect(model_folder_button_, &QPushButton::clicked, this, [this, apply_folder] {
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Model Folder"), model_folder_edit_->text());
    if (folder.isEmpty()) return;
    model_folder_edit_->setText(folder);
    apply_folder();
  });
  note_label_ = new QLabel(this);
  note_label_->setWordWrap(true);
  note_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  note_label_->setStyleSheet(QStringLiteral("color: #b35900;"));
  problem_label_ = new QLabel(this);
  problem_label_->setWordWrap(true);
  problem_label_->setStyleSheet(QStringLiteral("color: #b00020;"));

  grid->addWidget(vo_label_, 0, 0);
  grid->addWidget(vo_model_box_, 0, 1);
  grid->addWidget(vo_device_box_, 0, 2);
  grid->addWidget(satellite_label_, 1, 0);
  grid->addWidget(satellite_model_box_, 1, 1);
  grid->addWidget(satellite_device_box_, 1, 2);
  grid->addWidget(mode_label_, 2, 0);
  grid->addWidget(mode_box_, 2, 1, 1, 2);
  grid->addWidget(every_keyframe_box_, 3, 1, 1, 2);
  grid->addWidget(half_precision_box_, 4, 1, 1, 2);
  grid->addWidget(full_depth_box_, 5, 1, 1, 2);
  grid->addWidget(model_folder_label_, 6, 0);
  grid->addWidget(model_folder_edit_, 6, 1);
  grid->addWidget(model_folder_button_, 6, 2);
  grid->addWidget(note_label_, 7, 0, 1, 3);
  grid->addWidget(problem_label_, 8, 0, 1, 3);
  grid->setColumnStretch(1, 1);

  for (QComboBox* box : {vo_model_box_, vo_device_box_, satellite_model_box_, satellite_device_box_})
    connect(box, &QComboBox::currentTextChanged, this, &ProcessingOptionsWidget::updateNote);
  connect(mode_box_, &QComboBox::currentIndexChanged, this, &ProcessingOptionsWidget::updateModeDependents);
  connect(mode_box_, &QComboBox::currentIndexChanged, this, &ProcessingOptionsWidget::updateNote);
  connect(every_keyframe_box_, &QCheckBox::toggled, this, &ProcessingOptionsWidget::changed);
  connect(half_precision_box_, &QCheckBox::toggled, this, &ProcessingOptionsWidget::changed);
  connect(full_depth_box_, &QCheckBox::toggled, this, &ProcessingOptionsWidget::changed);
  connect(vo_model_box_, &QComboBox::currentTextChanged, this, &ProcessingOptionsWidget::updateMatcherDependents);
  setProject(io::Project());
  retranslateUi();
}

void ProcessingOptionsWidget::setProject(const io::Project& project) {
  // Unset fields show what processing will use: the defaults of core/app.
  const std::string default_model = app::FlightRequest().feature_model;
  const auto or_default = [](const std::string& value, const std::string& fallback) {
    return value.empty() ? fallback : value;
  };
  showText(vo_model_box_, or_default(project.effectiveVoModel(), default_model));
  showText(satellite_model_box_, or_default(project.effectiveSatelliteModel(), default_model));
  showText(vo_device_box_, or_default(project.effectiveVoDevice(), "auto"));
  showText(satellite_device_box_, or_default(project.effectiveSatelliteDevice(), "auto"));
  mode_box_->setCurrentIndex(std::max(0, mode_box_->findData(QString::fromStdString(project.processing_mode))));
  every_keyframe_box_->setChecked(project.register_every_keyframe);
  half_precision_box_->setChecked(project.half_precision);
  full_depth_box_->setChecked(project.lightglue_depth == "full");
  updateModeDependents();
  updateMatcherDependents();
  updateNote();
}

void ProcessingOptionsWidget::applyTo(io::Project* project) const {
  const std::string vo_model = vo_model_box_->currentText().trimmed().toStdString();
  project->vo_model = vo_model;
  project->satellite_model = satellite_model_box_->currentText().trimmed().toStdString();
  // Older readers know feature_model/device only: both stages' features, VO's device.
  project->feature_model = vo_model.substr(0, vo_model.find('+'));
  project->vo_device = vo_device_box_->currentText().trimmed().toStdString();
  project->satellite_device = satellite_device_box_->currentText().trimmed().toStdString();
  if (!project->vo_device.empty() && project->vo_device != "auto") project->device = project->vo_device;
  project->processing_mode = mode_box_->currentData().toString().toStdString();
  // Kept as shown in either mode (the sequential driver ignores it), so switching the
  // mode back and forth does not lose the choice.
  project->register_every_keyframe = every_keyframe_box_->isChecked();
  project->half_precision = half_precision_box_->isChecked();
  // Kept while another VO model is shown, as the keyframe policy is.
  project->lightglue_depth = full_depth_box_->isChecked() ? "full" : "";
}

QString ProcessingOptionsWidget::problem() const { return problem_label_->text(); }

QString ProcessingOptionsWidget::weightsNote() const { return note_label_->text(); }

QString ProcessingOptionsWidget::problemFor(const io::Project& project) {
  try {
    if (project.effectiveVoModel().empty()) throw InvalidArgument("no visual odometry model chosen");
    processingChoiceFor(project, vision::cudaDeviceCount());
    return {};
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
}

QString ProcessingOptionsWidget::weightsNoteFor(const io::Project& project) {
  std::vector<MissingWeights> missing;
  try {
    missing = missingWeights(processingChoiceFor(project, vision::cudaDeviceCount()).options);
  } catch (const Error&) {
    return {};  // an invalid choice is a problem, not a note
  }
  // One consequence for the whole run: when a stage cannot run, processing stops, and
  // another stage's fallback to ORB never happens.
  const bool stops = std::any_of(missing.begin(), missing.end(), [](const MissingWeights& m) { return !m.falls_back; });
  QStringList lines;
  for (const MissingWeights& m : missing) {
    if (stops && m.falls_back) continue;
    const QString stage = m.stage == "visual odometry" ? tr("Visual odometry") : tr("Satellite stage");
    lines << QStringLiteral("%1: %2").arg(stage, QString::fromStdString(m.message));
  }
  if (lines.isEmpty()) return {};
  lines << (stops ? tr("Processing stops with this error: choose the Model folder that holds the file, or "
                       "another model.")
                  : tr("Processing uses ORB instead, or choose the Model folder that holds the file."));
  return lines.join(QLatin1Char('\n'));
}

void ProcessingOptionsWidget::updateNote() {
  io::Project project;
  applyTo(&project);
  const QString note = weightsNoteFor(project);
  note_label_->setText(note);
  note_label_->setVisible(!note.isEmpty());
  const QString problem = problemFor(project);
  problem_label_->setText(problem);
  problem_label_->setVisible(!problem.isEmpty());
  Q_EMIT changed();
}

void ProcessingOptionsWidget::updateModeDependents() {
  // The keyframe policy is the engine's; the sequential driver registers every keyframe.
  every_keyframe_box_->setEnabled(mode_box_->currentData().toString() != QLatin1String("sequential"));
}

void ProcessingOptionsWidget::updateMatcherDependents() {
  // Full depth is a LightGlue choice: "FEATURES+lightglue".
  full_depth_box_->setEnabled(vo_model_box_->currentText().trimmed().endsWith(QLatin1String("+lightglue")));
}

void ProcessingOptionsWidget::retranslateUi() {
  vo_label_->setText(tr("Visual odometry:"));
  vo_model_box_->setToolTip(tr("FEATURES[+MATCHER], e.g. orb, aliked-n16rot, superpoint+lightglue"));
  satellite_label_->setText(tr("Satellite stage:"));
  satellite_model_box_->setToolTip(tr("FEATURES, or RETRIEVAL+FINE, e.g. dinov2+litesam, vlad+litesam"));
  for (QComboBox* box : {vo_device_box_, satellite_device_box_})
    box->setToolTip(tr("auto, cpu or cuda:N"));
  mode_label_->setText(tr("Mode:"));
  model_folder_label_->setText(tr("Model folder:"));
  model_folder_button_->setText(tr("Browse..."));
  model_folder_edit_->setToolTip(model_folder_edit_->isReadOnly()
                                     ? tr("Set by SKYTRACE_MODEL_DIR, which wins over this setting")
                                     : tr("Where weight files are looked for (the folder and its sub-folders), for "
                                          "every project"));
  mode_box_->setItemText(0, tr("Automatic (frame-parallel on two or more GPUs, overlapped on one, "
                               "sequential on the CPU)"));
  mode_box_->setItemText(1, tr("Overlapped (engine: decode, VO and satellite threads)"));
  mode_box_->setItemText(2, tr("Sequential (one thread)"));
  mode_box_->setItemText(3, tr("Frame-parallel (engine over every GPU)"));
  every_keyframe_box_->setText(tr("Register every keyframe (offline: VO waits for the satellite stage)"));
  every_keyframe_box_->setToolTip(
      tr("Off (live use): visual odometry never waits; while the satellite stage is busy, only the "
         "newest keyframe is kept and older registration requests are dropped.\n"
         "On (offline review): visual odometry waits until the satellite stage has room, so every "
         "keyframe is registered; processing then runs at the pace of the slower stage.\n"
         "Overlapped mode only: the sequential mode always registers every keyframe."));
  half_precision_box_->setText(tr("Float16 on the GPU (faster, not exact)"));
  half_precision_box_->setToolTip(
      tr("SuperPoint, LightGlue, DINOv2 and LiteSAM run in float16 on a GPU (ALIKED keeps its faster "
         "float32 kernels); keypoints and match scores deviate slightly from float32. No effect on the CPU."));
  full_depth_box_->setText(tr("LightGlue: every layer on every point"));
  full_depth_box_->setToolTip(
      tr("Off: LightGlue stops early on easy frame pairs and drops unmatchable points, as the original.\n"
         "On: every layer runs on every point, one fixed-shape pass (a CUDA graph on a GPU): the same "
         "time for every frame."));
}

void ProcessingOptionsWidget::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange) retranslateUi();
  QWidget::changeEvent(event);
}

ProcessingOptionsDialog::ProcessingOptionsDialog(QWidget* parent) : QDialog(parent) {
  auto* layout = new QVBoxLayout(this);
  widget_ = new ProcessingOptionsWidget(this);
  layout->addWidget(widget_);
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  layout->addWidget(buttons_);
  connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(widget_, &ProcessingOptionsWidget::changed, this, &ProcessingOptionsDialog::updateState);
  retranslateUi();
  updateState();
  resize(640, sizeHint().height());
}

void ProcessingOptionsDialog::updateState() {
  buttons_->button(QDialogButtonBox::Ok)->setEnabled(widget_->problem().isEmpty());
  fitHeightToContents(this);
}

void fitHeightToContents(QWidget* window) {
  QLayout* layout = window->layout();
  if (!layout) return;
  // A note just shown or hidden reaches the cached size hints with its posted layout
  // request: deliver those now.
  QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
  const int needed = layout->hasHeightForWidth() ? layout->totalHeightForWidth(window->width())
                                                 : layout->totalSizeHint().height();
  const int height = std::max(needed, window->minimumSizeHint().height());
  if (height != window->height()) window->resize(window->width(), height);
}

void ProcessingOptionsDialog::retranslateUi() { setWindowTitle(tr("Processing Options")); }

void ProcessingOptionsDialog::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange) retranslateUi();
  QDialog::changeEvent(event);
}

}  // namespace skytrace::ui
