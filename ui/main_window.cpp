#include "ui/main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QIcon>
#include <QInputDialog>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QRegularExpression>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTextStream>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>

#include "core/app/flight_processing.h"
#include "core/app/flight_results.h"
#include "core/app/photo_log.h"
#include "core/engine/latency_recorder.h"
#include "core/geo/basemap.h"
#include "core/geo/geodesy.h"
#include "core/geo/track_io.h"
#include "core/io/telemetry/telemetry_reader.h"
#include "core/io/telemetry/telemetry_track.h"
#include "core/nav/camera_model.h"
#include "core/nav/camera_pose.h"
#include "core/util/atomic_file.h"
#include "core/vision/model_paths.h"
#include "core/vision/torch_runtime.h"
#include "ui/demo_builder.h"
#include "ui/events_panel.h"
#include "ui/flight_report.h"
#include "ui/frame_loader.h"
#include "ui/log_offset_widget.h"
#include "ui/map_view.h"
#include "ui/navigation_runner.h"
#include "ui/open_flight_dialog.h"
#include "ui/plots_panel.h"
#include "ui/processing_choice.h"
#include "ui/processing_controller.h"
#include "ui/processing_options.h"
#include "ui/results_model.h"
#include "ui/time_model.h"
#include "ui/time_plot_stack.h"
#include "ui/timeline_widget.h"
#include "ui/video_panel.h"
#include "ui/welcome_page.h"

namespace skytrace::ui {
namespace {

const QString kProjectKind = QStringLiteral("project");
const QString kResultsKind = QStringLiteral("results");
const QString kBasemapKind = QStringLiteral("basemap");
const QString kVideoKind = QStringLiteral("video");
const QString kRecentKey = QStringLiteral("recentFiles");
const QString kGeometryKey = QStringLiteral("mainWindow/geometry");
const QString kStateKey = QStringLiteral("mainWindow/state");
const QString kShownPlotsKey = QStringLiteral("plots/shown");      // the stacked time plots shown
const QString kPlotSplitterKey = QStringLiteral("plots/splitter");  // their heights
const QString kModelFolderKey = QStringLiteral("models/folder");    // vision::setDefaultModelDirectory
const QString kLastFolderKey = QStringLiteral("files/lastFolder");  // where file dialogs open
const QString kSpeedKey = QStringLiteral("playback/speed");
const QString kColouringKey = QStringLiteral("map/trackColouring");  // TrackColouring
constexpr int kStateVersion = 3;  // 3: the events dock, the stacked plots
constexpr int kSyncIntervalMs = 40;  // at most one repaint per view per 40 ms

const QString kResultPrefix = QStringLiteral("result:");
const QColor kVisualColour(230, 50, 40);
const QColor kOdometryColour(200, 200, 200);
const QColor kGnssColour(255, 196, 0);
// The logged position at the current video time (MainWindow::showLogPositionAtCurrentTime).
const QString kLogNowOverlay = QStringLiteral("gnss-now");
const QColor kAcceptedColour(60, 220, 90);
const QColor kRejectedColour(255, 60, 60);

// Green (good) -> yellow -> red (bad) for value in [0, 1].
QColor rampColour(double value) {
  const double v = std::clamp(std::isfinite(value) ? value : 1.0, 0.0, 1.0);
  return v < 0.5 ? QColor::fromRgbF(2.0 * v, 0.85, 0.15) : QColor::fromRgbF(1.0, 0.85 * (2.0 - 2.0 * v), 0.15);
}

std::vector<geo::GeoPoint> geoPointsOf(const std::vector<geo::TrackPose>& poses) {
  std::vector<geo::GeoPoint> points;
  points.reserve(poses.size());
  for (const geo::TrackPose& p : poses) points.push_back({p.lat_deg, p.lon_deg, 0.0});
  return points;
}

std::vector<double> timesOf(const std::vector<geo::TrackPose>& poses) {
  std::vector<double> t;
  t.reserve(poses.size());
  for (const geo::TrackPose& p : poses) t.push_back(p.t_s);
  return t;
}

// The ground footprint (image corners on the ground plane at ground_alt_m) of a camera
// at `pose`; empty when unknown (no altitude, camera below ground, corner rays above
// the horizon or absurdly far).
std::vector<geo::GeoPoint> footprintOf(const nav::CameraModel& camera, const geo::TrackPose& pose,
                                       double ground_alt_m) {
  if (!std::isfinite(pose.alt_m) || !std::isfinite(ground_alt_m) || pose.alt_m <= ground_alt_m + 1.0) return {};
  const geo::LocalEnuFrame enu({pose.lat_deg, pose.lon_deg, ground_alt_m});
  nav::CameraPose camera_pose;
  camera_pose.position_enu = {0.0, 0.0, pose.alt_m - ground_alt_m};
  camera_pose.yaw_deg = std::isfinite(pose.yaw_deg) ? pose.yaw_deg : 0.0;
  camera_pose.pitch_deg = std::isfinite(pose.pitch_deg) ? pose.pitch_deg : -90.0;
  camera_pose.roll_deg = std::isfinite(pose.roll_deg) ? pose.roll_deg : 0.0;
  const double w = camera.width_px - 1.0, h = camera.height_px - 1.0;
  const double max_range_m = 20.0 * (pose.alt_m - ground_alt_m);
  std::vector<geo::GeoPoint> corners;
  for (const cv::Point2d& pixel : {cv::Point2d(0, 0), cv::Point2d(w, 0), cv::Point2d(w, h), cv::Point2d(0, h)}) {
    cv::Vec3d p_in_enu;
    if (!nav::groundFromPixel(camera, camera_pose, pixel, 0.0, &p_in_enu)) return {};
    if (std::hypot(p_in_enu[0], p_in_enu[1]) > max_range_m) return {};
    corners.push_back(enu.toGeo({p_in_enu[0], p_in_enu[1], 0.0}));
  }
  return corners;
}

}  // namespace

MainWindow::MainWindow(const MainWindowOptions& options, QWidget* parent)
    : QMainWindow(parent), options_(options) {
  setObjectName(QStringLiteral("SkytraceMainWindow"));
  QIcon icon(QStringLiteral(":/icons/skytrace.svg"));
  for (int size : {32, 64, 256})
    icon.addFile(QStringLiteral(":/icons/skytrace-%1.png").arg(size), QSize(size, size));
  setWindowIcon(icon);
  setAcceptDrops(true);

  map_view_ = new MapView(this);
  welcome_page_ = new WelcomePage(this);
  centre_ = new QStackedWidget(this);
  centre_->addWidget(welcome_page_);
  centre_->addWidget(map_view_);
  setCentralWidget(centre_);
  demo_builder_ = new DemoBuilder(this);
  createModels();
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
  connect(map_view_, &MapView::timeClicked, time_model_, &TimeModel::seekToTime);
  connect(plots_panel_, &PlotsPanel::timeRequested, time_model_, &TimeModel::seekToTime);
  connect(welcome_page_, &WelcomePage::openFlightRequested, open_flight_action_, &QAction::trigger);
  connect(welcome_page_, &WelcomePage::openProjectRequested, open_project_action_, &QAction::trigger);
  connect(welcome_page_, &WelcomePage::openResultsRequested, open_results_action_, &QAction::trigger);
  connect(welcome_page_, &WelcomePage::openDemoRequested, this, [this] { openDemo(); });
  connect(welcome_page_, &WelcomePage::recentRequested, this, &MainWindow::openRecent);
  connect(demo_builder_, &DemoBuilder::progress, welcome_page_, &WelcomePage::setDemoProgress);
  connect(demo_builder_, &DemoBuilder::failed, this, [this](const QString& message) {
    welcome_page_->setDemoProgress(-1, QString());
    reportError(tr("Cannot build the demo"), message);
  });
  connect(demo_builder_, &DemoBuilder::finished, this, [this](const QString& project) {
    welcome_page_->setDemoProgress(-1, QString());
    openDemoProject(project);
  });
  welcome_page_->setRecentEntries(recent_entries_);
  updateActions();
}

MainWindow::~MainWindow() = default;

void MainWindow::createModels() {
  time_model_ = new TimeModel(this);
  results_model_ = new ResultsModel(this);
  frame_loader_ = new FrameLoader(this);
  processing_ = new ProcessingController(results_model_, this);
  sync_timer_.setSingleShot(true);
  sync_timer_.setInterval(kSyncIntervalMs);
  connect(&sync_timer_, &QTimer::timeout, this, &MainWindow::syncViews);

  connect(time_model_, &TimeModel::currentFrameChanged, this, [this] { scheduleSync(true, false); });
  connect(time_model_, &TimeModel::timelineChanged, this, [this] {
    plots_panel_->setTimeline(time_model_->fps(), time_model_->durationS(), time_model_->startUnixS());
  });
  connect(results_model_, &ResultsModel::changed, this, [this] { scheduleSync(false, true); });
  connect(frame_loader_, &FrameLoader::frameReady, this, &MainWindow::onFrameReady);
  connect(frame_loader_, &FrameLoader::dataEnds, this, [this](int frames_held, const QString& message) {
    // A truncated file: the timeline offers the frames it holds, and says so.
    video_frame_count_ = frames_held;
    time_model_->setFrameCount(frames_held);
    statusBar()->showMessage(tr("%1 holds %2 of the %3 frames its container announces: %4")
                                 .arg(QFileInfo(video_path_).fileName())
                                 .arg(frames_held)
                                 .arg(announced_frame_count_)
                                 .arg(message),
                             30000);
    if (shown_frame_ >= 0) video_panel_->setCaption(frameCaption(shown_frame_, shown_frame_t_s_));
  });
  connect(frame_loader_, &FrameLoader::failed, this, [this](int index, const QString& message) {
    // Never leave an earlier frame under the requested frame's label.
    shown_frame_ = -1;
    failed_frame_ = index;
    video_panel_->showMessage(QFileInfo(video_path_).fileName() + QStringLiteral(": ") + message);
    statusBar()->showMessage(message, 15000);
  });

  connect(processing_, &ProcessingController::started, this, &MainWindow::updateProcessingState);
  connect(processing_, &ProcessingController::pausedChanged, this, &MainWindow::updateProcessingState);
  connect(processing_, &ProcessingController::progressChanged, this,
          [this](double fraction, double eta_s, const QString& stage) {
            progress_bar_->setValue(static_cast<int>(std::lround(fraction * 1000)));
            const QString eta = eta_s < 0 ? tr("ETA -")
                                          : tr("ETA %1:%2")
                                                .arg(static_cast<int>(eta_s) / 60)
                                                .arg(static_cast<int>(eta_s) % 60, 2, 10, QLatin1Char('0'));
            // A paused run reports the stage it stopped in: say that it is paused.
            const QString doing = processing_->isPaused() ? tr("paused") : stage;
            eta_label_->setText(doing.isEmpty() ? eta : doing + QStringLiteral(" · ") + eta);
          });
  connect(processing_, &ProcessingController::finished, this, [this](bool completed, const QString& dir) {
    updateProcessingState();
    statusBar()->showMessage(completed ? tr("Processing finished: %1").arg(dir)
                                       : tr("Processing cancelled; partial results in %1").arg(dir));
    if (isResultsFolder(dir.toStdString())) openResults(dir);
  });
  connect(processing_, &ProcessingController::failed, this, [this](const QString& message) {
    updateProcessingState();
    reportError(tr("Processing failed"), message);  // once per run; the results shown stay
    // A run that failed before computing anything (e.g. missing weights) brings back the
    // results folder it would have replaced, so nothing disappears from the views.
    const std::string folder = project_.results_dir;
    if (results_model_->results().empty() && !folder.empty() && isResultsFolder(folder))
      openResults(QString::fromStdString(folder));
  });
  connect(processing_, &ProcessingController::warningReported, this, [this](const QString& message) {
    statusBar()->showMessage(message, 15000);  // never modal: the run goes on
    if (!options_.interactive) QTextStream(stderr) << "skytrace: warning: " << message << "\n";
  });
}

QAction* MainWindow::action(const QString& object_name) const {
  return findChild<QAction*>(object_name);
}

void MainWindow::createActions() {
  auto make = [this](const char* name, const QKeySequence& shortcut = {}) {
    auto* a = new QAction(this);
    a->setObjectName(QString::fromLatin1(name));
    if (!shortcut.isEmpty()) a->setShortcut(shortcut);
    addAction(a);  // shortcuts work while menus are hidden (full screen)
    return a;
  };
  open_flight_action_ = make("openFlight", QKeySequence(Qt::CTRL | Qt::Key_N));
  connect(open_flight_action_, &QAction::triggered, this, &MainWindow::chooseFlight);
  open_project_action_ = make("openProject", QKeySequence::Open);
  connect(open_project_action_, &QAction::triggered, this, &MainWindow::chooseProject);
  save_project_action_ = make("saveProject", QKeySequence::Save);
  connect(save_project_action_, &QAction::triggered, this, [this] {
    if (project_path_.isEmpty()) chooseSaveProject();
    else saveProject(project_path_);
  });
  save_project_as_action_ = make("saveProjectAs", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
  connect(save_project_as_action_, &QAction::triggered, this, &MainWindow::chooseSaveProject);
  open_results_action_ = make("openResults", QKeySequence(Qt::CTRL | Qt::Key_R));
  connect(open_results_action_, &QAction::triggered, this, &MainWindow::chooseResults);
  open_basemap_action_ = make("openBasemap", QKeySequence(Qt::CTRL | Qt::Key_B));
  connect(open_basemap_action_, &QAction::triggered, this, &MainWindow::chooseBasemap);
  open_video_action_ = make("openVideo", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  connect(open_video_action_, &QAction::triggered, this, &MainWindow::chooseVideo);
  open_folder_action_ = make("openImageFolder");
  connect(open_folder_action_, &QAction::triggered, this, &MainWindow::chooseImageFolder);
  open_telemetry_action_ = make("openTelemetry", QKeySequence(Qt::CTRL | Qt::Key_L));
  connect(open_telemetry_action_, &QAction::triggered, this, &MainWindow::chooseTelemetry);
  clear_recent_action_ = make("clearRecent");
  connect(clear_recent_action_, &QAction::triggered, this, [this] {
    recent_entries_.clear();
    rebuildRecentMenu();
    if (options_.persist_settings) saveSettings();
  });
  quit_action_ = make("quit", QKeySequence::Quit);
  quit_action_->setMenuRole(QAction::QuitRole);
  connect(quit_action_, &QAction::triggered, this, &QWidget::close);

  process_action_ = make("process", QKeySequence(Qt::Key_F5));
  connect(process_action_, &QAction::triggered, this, [this] { startProcessing(); });
  processing_options_action_ = make("processingOptions");
  connect(processing_options_action_, &QAction::triggered, this, &MainWindow::chooseProcessingOptions);
  pause_action_ = make("pauseProcessing", QKeySequence(Qt::Key_F6));
  pause_action_->setCheckable(true);
  connect(pause_action_, &QAction::triggered, processing_, &ProcessingController::setPaused);
  cancel_action_ = make("cancelProcessing", QKeySequence(Qt::SHIFT | Qt::Key_F5));
  connect(cancel_action_, &QAction::triggered, processing_, &ProcessingController::cancel);

  auto export_action = [&](const char* name, const QKeySequence& key, auto method, QString (*caption)(),
                           const char* filter) {
    QAction* a = make(name, key);
    connect(a, &QAction::triggered, this, [this, method, caption, filter] {
      const QString path = chooseFile(QStringLiteral("save"), caption(), tr(filter));
      if (!path.isEmpty() && (this->*method)(path)) statusBar()->showMessage(tr("Exported %1").arg(path), 5000);
    });
    return a;
  };
  export_track_action_ = export_action(
      "exportTrack", QKeySequence(Qt::CTRL | Qt::Key_E), &MainWindow::exportTrack,
      [] { return tr("Export Track"); },
      QT_TR_NOOP("GeoJSON (*.geojson);;GPX (*.gpx);;KML (*.kml);;GeoPackage (*.gpkg);;CSV (*.csv)"));
  export_log_track_action_ = export_action(
      "exportLogTrack", {}, &MainWindow::exportLogTrack, [] { return tr("Export Flight Log as Track"); },
      QT_TR_NOOP("GeoJSON (*.geojson);;GPX (*.gpx);;KML (*.kml);;GeoPackage (*.gpkg);;CSV (*.csv)"));
  export_report_action_ = export_action("exportReport", {}, &MainWindow::exportReport,
                                        [] { return tr("Export Report"); }, QT_TR_NOOP("JSON (*.json)"));
  export_flight_report_action_ =
      export_action("exportFlightReport", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R), &MainWindow::exportFlightReport,
                    [] { return tr("Export Flight Report"); }, QT_TR_NOOP("HTML and PDF (*.html)"));
  export_latency_action_ = export_action("exportLatency", {}, &MainWindow::exportLatencyCsv,
                                         [] { return tr("Export Latency"); }, QT_TR_NOOP("CSV (*.csv)"));
  export_map_action_ = export_action("exportMapImage", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M),
                                     &MainWindow::exportMapImage, [] { return tr("Export Map View"); },
                                     QT_TR_NOOP("PNG image (*.png);;JPEG image (*.jpg)"));
  export_window_action_ = export_action("exportWindowImage", {}, &MainWindow::exportWindowImage,
                                        [] { return tr("Export Window"); },
                                        QT_TR_NOOP("PNG image (*.png);;JPEG image (*.jpg)"));
  export_plot_action_ = export_action("exportPlotImage", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P),
                                      &MainWindow::exportPlotImage, [] { return tr("Export Plot"); },
                                      QT_TR_NOOP("PNG image (*.png);;PDF document (*.pdf)"));

  zoom_in_action_ = make("zoomIn", QKeySequence::ZoomIn);
  connect(zoom_in_action_, &QAction::triggered, this, [this] { map_view_->zoomBy(2.0); });
  zoom_out_action_ = make("zoomOut", QKeySequence::ZoomOut);
  connect(zoom_out_action_, &QAction::triggered, this, [this] { map_view_->zoomBy(0.5); });
  zoom_fit_action_ = make("zoomFit", QKeySequence(Qt::CTRL | Qt::Key_0));
  connect(zoom_fit_action_, &QAction::triggered, map_view_, &MapView::zoomToFit);
  zoom_track_action_ = make("zoomTrack", QKeySequence(Qt::CTRL | Qt::Key_T));
  connect(zoom_track_action_, &QAction::triggered, this, &MainWindow::zoomToTrack);
  follow_action_ = make("followCamera", QKeySequence(Qt::Key_F));
  follow_action_->setCheckable(true);
  follow_action_->setChecked(true);
  overlay_action_ = make("featureOverlay", QKeySequence(Qt::Key_K));
  overlay_action_->setCheckable(true);
  overlay_action_->setChecked(true);
  connect(overlay_action_, &QAction::toggled, this, [this](bool on) { video_panel_->setOverlayVisible(on); });
  legend_action_ = make("mapLegend", QKeySequence(Qt::Key_L));
  legend_action_->setCheckable(true);
  legend_action_->setChecked(true);
  connect(legend_action_, &QAction::toggled, map_view_, &MapView::setLegendVisible);
  measure_action_ = make("measure", QKeySequence(Qt::CTRL | Qt::Key_M));
  measure_action_->setCheckable(true);
  connect(measure_action_, &QAction::toggled, map_view_, &MapView::setMeasuring);
  connect(map_view_, &MapView::measuringChanged, this, [this](bool on) {
    measure_action_->setChecked(on);
    showMeasurement();
  });
  connect(map_view_, &MapView::measurementChanged, this, &MainWindow::showMeasurement);
  colour_group_ = new QActionGroup(this);
  colour_plain_action_ = make("colourPlain");
  colour_sigma_action_ = make("colourUncertainty");
  colour_discrepancy_action_ = make("colourDiscrepancy");
  for (QAction* a : {colour_plain_action_, colour_sigma_action_, colour_discrepancy_action_}) {
    a->setCheckable(true);
    colour_group_->addAction(a);
  }
  colour_plain_action_->setChecked(true);
  connect(colour_group_, &QActionGroup::triggered, this, [this](QAction* a) {
    colouring_ = a == colour_sigma_action_         ? TrackColouring::Uncertainty
                 : a == colour_discrepancy_action_ ? TrackColouring::Discrepancy
                                                   : TrackColouring::Plain;
    showResultsOnMap();
  });

  play_action_ = make("play", QKeySequence(Qt::Key_Space));
  connect(play_action_, &QAction::triggered, time_model_, &TimeModel::togglePlay);
  step_forward_action_ = make("stepForward", QKeySequence(Qt::Key_Right));
  connect(step_forward_action_, &QAction::triggered, time_model_, &TimeModel::stepForward);
  step_back_action_ = make("stepBack", QKeySequence(Qt::Key_Left));
  connect(step_back_action_, &QAction::triggered, time_model_, &TimeModel::stepBackward);
  faster_action_ = make("faster", QKeySequence(Qt::Key_BracketRight));
  connect(faster_action_, &QAction::triggered, this, [this] { time_model_->setSpeed(time_model_->speed() * 2); });
  slower_action_ = make("slower", QKeySequence(Qt::Key_BracketLeft));
  connect(slower_action_, &QAction::triggered, this, [this] { time_model_->setSpeed(time_model_->speed() / 2); });
  jump_action_ = make("jumpToTime", QKeySequence(Qt::CTRL | Qt::Key_J));
  connect(jump_action_, &QAction::triggered, this, [this] {
    timeline_dock_->show();
    timeline_->timeEdit()->setFocus();
    timeline_->timeEdit()->selectAll();
  });

  about_action_ = make("about");
  about_action_->setMenuRole(QAction::AboutRole);
  connect(about_action_, &QAction::triggered, this, &MainWindow::showAbout);
}

void MainWindow::createMenus() {
  file_menu_ = menuBar()->addMenu(QString());
  file_menu_->addAction(open_flight_action_);
  file_menu_->addAction(open_project_action_);
  file_menu_->addAction(save_project_action_);
  file_menu_->addAction(save_project_as_action_);
  file_menu_->addSeparator();
  file_menu_->addAction(open_results_action_);
  file_menu_->addAction(open_basemap_action_);
  file_menu_->addAction(open_video_action_);
  file_menu_->addAction(open_folder_action_);
  file_menu_->addAction(open_telemetry_action_);
  recent_menu_ = file_menu_->addMenu(QString());
  file_menu_->addSeparator();
  file_menu_->addAction(quit_action_);

  process_menu_ = menuBar()->addMenu(QString());
  process_menu_->addAction(process_action_);
  process_menu_->addAction(pause_action_);
  process_menu_->addAction(cancel_action_);
  process_menu_->addSeparator();
  process_menu_->addAction(processing_options_action_);

  export_menu_ = menuBar()->addMenu(QString());
  export_menu_->addAction(export_track_action_);
  export_menu_->addAction(export_log_track_action_);
  export_menu_->addAction(export_flight_report_action_);
  export_menu_->addAction(export_report_action_);
  export_menu_->addAction(export_latency_action_);
  export_menu_->addSeparator();
  export_menu_->addAction(export_map_action_);
  export_menu_->addAction(export_plot_action_);
  export_menu_->addAction(export_window_action_);

  view_menu_ = menuBar()->addMenu(QString());
  view_menu_->addAction(zoom_in_action_);
  view_menu_->addAction(zoom_out_action_);
  view_menu_->addAction(zoom_fit_action_);
  view_menu_->addAction(zoom_track_action_);
  view_menu_->addAction(follow_action_);
  view_menu_->addSeparator();
  colour_menu_ = view_menu_->addMenu(QString());
  colour_menu_->addAction(colour_plain_action_);
  colour_menu_->addAction(colour_sigma_action_);
  colour_menu_->addAction(colour_discrepancy_action_);
  view_menu_->addAction(legend_action_);
  view_menu_->addAction(measure_action_);
  view_menu_->addAction(overlay_action_);
  view_menu_->addSeparator();

  playback_menu_ = menuBar()->addMenu(QString());
  playback_menu_->addAction(play_action_);
  playback_menu_->addAction(step_back_action_);
  playback_menu_->addAction(step_forward_action_);
  playback_menu_->addAction(slower_action_);
  playback_menu_->addAction(faster_action_);
  playback_menu_->addAction(jump_action_);

  help_menu_ = menuBar()->addMenu(QString());
  help_menu_->addAction(about_action_);
}

void MainWindow::createDocks() {
  plots_panel_ = new PlotsPanel(results_model_, this);
  plot_dock_ = new QDockWidget(this);
  plot_dock_->setObjectName(QStringLiteral("plotDock"));
  plot_dock_->setWidget(plots_panel_);
  addDockWidget(Qt::BottomDockWidgetArea, plot_dock_);

  video_panel_ = new VideoPanel(this);
  video_dock_ = new QDockWidget(this);
  video_dock_->setObjectName(QStringLiteral("videoDock"));
  video_dock_->setWidget(video_panel_);
  addDockWidget(Qt::RightDockWidgetArea, video_dock_);

  events_panel_ = new EventsPanel(results_model_, time_model_, this);
  events_dock_ = new QDockWidget(this);
  events_dock_->setObjectName(QStringLiteral("eventsDock"));
  events_dock_->setWidget(events_panel_);
  addDockWidget(Qt::RightDockWidgetArea, events_dock_);
  splitDockWidget(video_dock_, events_dock_, Qt::Vertical);

  timeline_ = new TimelineWidget(time_model_, this);
  log_offset_ = new LogOffsetWidget(this);
  auto* timeline_box = new QWidget(this);
  auto* timeline_layout = new QVBoxLayout(timeline_box);
  timeline_layout->setContentsMargins(0, 0, 0, 0);
  timeline_layout->setSpacing(0);
  timeline_layout->addWidget(timeline_);
  timeline_layout->addWidget(log_offset_);
  connect(log_offset_, &LogOffsetWidget::offsetEdited, this, &MainWindow::setLogOffset);
  connect(log_offset_, &LogOffsetWidget::automaticRequested, this, [this] { setLogOffset(NAN); });
  timeline_dock_ = new QDockWidget(this);
  timeline_dock_->setObjectName(QStringLiteral("timelineDock"));
  timeline_dock_->setWidget(timeline_box);
  timeline_dock_->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetClosable);
  addDockWidget(Qt::BottomDockWidgetArea, timeline_dock_);
  splitDockWidget(plot_dock_, timeline_dock_, Qt::Vertical);
  connect(events_panel_, &EventsPanel::timeRequested, time_model_, &TimeModel::seekToTime);
  connect(events_panel_, &EventsPanel::eventsChanged, this,
          [this] { timeline_->setMarkers(events_panel_->markers()); });

  view_menu_->addAction(plot_dock_->toggleViewAction());
  view_menu_->addAction(video_dock_->toggleViewAction());
  view_menu_->addAction(events_dock_->toggleViewAction());
  view_menu_->addAction(timeline_dock_->toggleViewAction());
  resizeDocks({plot_dock_}, {330}, Qt::Vertical);
  resizeDocks({video_dock_}, {420}, Qt::Horizontal);
  resizeDocks({video_dock_, events_dock_}, {300, 150}, Qt::Vertical);
}

void MainWindow::createStatusBar() {
  progress_bar_ = new QProgressBar(this);
  progress_bar_->setRange(0, 1000);
  progress_bar_->setMaximumWidth(160);
  progress_bar_->setTextVisible(false);
  eta_label_ = new QLabel(this);
  eta_label_->setObjectName(QStringLiteral("etaLabel"));
  pause_button_ = new QToolButton(this);
  pause_button_->setDefaultAction(pause_action_);
  cancel_button_ = new QToolButton(this);
  cancel_button_->setDefaultAction(cancel_action_);
  engine_label_ = new QLabel(this);
  cursor_label_ = new QLabel(this);
  cursor_label_->setMinimumWidth(220);
  scale_label_ = new QLabel(this);
  scale_label_->setMinimumWidth(120);
  statusBar()->addPermanentWidget(progress_bar_);
  statusBar()->addPermanentWidget(eta_label_);
  statusBar()->addPermanentWidget(pause_button_);
  statusBar()->addPermanentWidget(cancel_button_);
  statusBar()->addPermanentWidget(engine_label_);
  statusBar()->addPermanentWidget(cursor_label_);
  statusBar()->addPermanentWidget(scale_label_);
  // A long message is cut where the permanent labels begin: its tooltip holds all of it.
  connect(statusBar(), &QStatusBar::messageChanged, statusBar(), &QWidget::setToolTip);
  updateProcessingState();
}

void MainWindow::retranslateUi() {
  setWindowTitle(project_path_.isEmpty() ? tr("Skytrace")
                                         : tr("%1 - Skytrace").arg(QFileInfo(project_path_).fileName()));
  file_menu_->setTitle(tr("&File"));
  recent_menu_->setTitle(tr("Recent &Files"));
  process_menu_->setTitle(tr("&Process"));
  export_menu_->setTitle(tr("E&xport"));
  view_menu_->setTitle(tr("&View"));
  colour_menu_->setTitle(tr("&Colour Track By"));
  playback_menu_->setTitle(tr("Play&back"));
  help_menu_->setTitle(tr("&Help"));
  open_flight_action_->setText(tr("Open &Flight..."));
  open_flight_action_->setStatusTip(tr("Choose video, basemaps, flight log, camera and model for a new project"));
  open_project_action_->setText(tr("&Open Project..."));
  save_project_action_->setText(tr("&Save Project"));
  save_project_as_action_->setText(tr("Save Project &As..."));
  open_results_action_->setText(tr("Open &Results Folder..."));
  open_results_action_->setStatusTip(tr("Show a folder written by skytrace-cli process"));
  open_basemap_action_->setText(tr("Open &Basemap..."));
  open_basemap_action_->setStatusTip(tr("Open a georeferenced raster (GeoTIFF, VRT, MBTiles, ...) as a basemap"));
  open_video_action_->setText(tr("Open &Video..."));
  open_video_action_->setStatusTip(tr("Open a flight video or a folder of images"));
  open_folder_action_->setText(tr("Open Image Fol&der..."));
  open_folder_action_->setStatusTip(tr("Open a folder of images (jpg/png/tif) as a video"));
  open_telemetry_action_->setText(tr("Open Flight &Log..."));
  open_telemetry_action_->setStatusTip(
      tr("Open a flight log (DJI SRT, PX4 ULog, ArduPilot .bin, MAVLink .tlog, GPX, CSV) and show its GNSS track on the map"));
  clear_recent_action_->setText(tr("&Clear List"));
  quit_action_->setText(tr("&Quit"));
  process_action_->setText(tr("&Process Flight"));
  process_action_->setStatusTip(tr("Compute the visual track of the open project"));
  processing_options_action_->setText(tr("Processing &Options..."));
  processing_options_action_->setStatusTip(
      tr("Choose the models and devices of visual odometry and the satellite stage, and the mode"));
  pause_action_->setText(tr("P&ause"));
  cancel_action_->setText(tr("&Cancel"));
  export_track_action_->setText(tr("&Track..."));
  export_log_track_action_->setText(tr("&Flight Log as Track..."));
  export_log_track_action_->setStatusTip(
      tr("Write the open flight log's GNSS positions as a track, with their UTC times where the log has them"));
  export_report_action_->setText(tr("&Report (report.json)..."));
  export_flight_report_action_->setText(tr("&Flight Report (HTML and PDF)..."));
  export_flight_report_action_->setStatusTip(
      tr("Write a report to send: the map and plots as shown, summary, flagged GNSS, events and settings"));
  export_latency_action_->setText(tr("&Latency CSV..."));
  export_map_action_->setText(tr("&Map View as Image..."));
  export_plot_action_->setText(tr("Current &Plot as Image..."));
  export_window_action_->setText(tr("&Window as Image..."));
  zoom_in_action_->setText(tr("Zoom &In"));
  zoom_out_action_->setText(tr("Zoom &Out"));
  zoom_fit_action_->setText(tr("&Fit Basemap"));
  zoom_track_action_->setText(tr("Zoom to &Track"));
  follow_action_->setText(tr("F&ollow Camera"));
  overlay_action_->setText(tr("&Keypoints and Matches in Video"));
  legend_action_->setText(tr("Map &Legend"));
  measure_action_->setText(tr("&Measure Distance and Area"));
  measure_action_->setStatusTip(
      tr("Click points on the map to measure the path between them and the area they enclose"));
  colour_plain_action_->setText(tr("&Plain"));
  colour_sigma_action_->setText(tr("&Uncertainty (sigma)"));
  colour_discrepancy_action_->setText(tr("&GNSS Discrepancy"));
  play_action_->setText(tr("&Play/Pause"));
  step_back_action_->setText(tr("Step &Back"));
  step_forward_action_->setText(tr("Step &Forward"));
  slower_action_->setText(tr("&Slower"));
  faster_action_->setText(tr("F&aster"));
  jump_action_->setText(tr("&Jump to Time..."));
  about_action_->setText(tr("&About Skytrace"));
  plot_dock_->setWindowTitle(tr("Plots"));
  video_dock_->setWindowTitle(tr("Video"));
  events_dock_->setWindowTitle(tr("Events"));
  timeline_dock_->setWindowTitle(tr("Timeline"));
  progress_bar_->setToolTip(tr("Processing progress"));
  rebuildRecentMenu();
  updateScaleLabel();
  updateCursorLabel(cursor_over_map_, cursor_lat_deg_, cursor_lon_deg_);
  updateEngineLabel();
  updateProcessingState();
  statusBar()->showMessage(tr("Ready"), 3000);
}

void MainWindow::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange && file_menu_) retranslateUi();
  QMainWindow::changeEvent(event);
}

// ---- opening -------------------------------------------------------------------------

bool MainWindow::openBasemap(const QString& path) {
  try {
    auto basemap = std::make_shared<const geo::Basemap>(geo::Basemap::open(path.toStdString()));
    const QString crs = QString::fromStdString(basemap->crsName());
    const double gsd_m = basemap->pixelSizeM();
    const int width = basemap->width();
    const int height = basemap->height();
    basemap_boxes_.push_back(basemap->footprint().bbox);
    map_view_->addBasemap(std::move(basemap));
    addRecentFile(path, kBasemapKind);
    const std::string absolute = QFileInfo(path).absoluteFilePath().toStdString();
    if (std::find(project_.basemap_paths.begin(), project_.basemap_paths.end(), absolute) ==
        project_.basemap_paths.end())
      project_.basemap_paths.push_back(absolute);
    statusBar()->showMessage(tr("Basemap %1: %2 x %3 px, %4 m/px, %5")
                                 .arg(QFileInfo(path).fileName())
                                 .arg(width)
                                 .arg(height)
                                 .arg(QLocale().toString(gsd_m, 'g', 3))
                                 .arg(crs));
    showResultsOnMap();
    if (telemetry_) checkLogAgainstBasemaps(log_track_);
    updateActions();
    return true;
  } catch (const std::exception& e) {
    reportError(tr("Cannot open basemap"), QString::fromStdString(e.what()));
    return false;
  }
}

bool MainWindow::openVideo(const QString& path) {
  try {
    const io::VideoInfo info = frame_loader_->open(path);
    video_info_ = std::make_shared<const io::VideoInfo>(info);
    video_path_ = path;
    video_frame_count_ = announced_frame_count_ = info.frame_count;
    project_.video_path = QFileInfo(path).absoluteFilePath().toStdString();
    shown_frame_ = requested_frame_ = failed_frame_ = -1;
    video_panel_->clear();
    video_dock_->show();
    addRecentFile(path, kVideoKind);
    // UTC of frame 0: the results' (from a log that states it), else the video's own
    // recording time (MP4 movie header, a photo folder's EXIF), as processFlight dates tracks.
    const geo::Track& primary = results_model_->results().primaryTrack();
    const double start_unix_s =
        std::isfinite(primary.start_unix_s) ? primary.start_unix_s : info.creation_unix_s;
    time_model_->setTimeline(info.frame_count, info.fps, start_unix_s, info.frame_times_s);
    placeLog();  // the video's recording time may place the log
    scheduleSync(true, false);  // requests frame 0
    statusBar()->showMessage(tr("Video %1: %2 frames, %3 fps, %4 x %5 px")
                                 .arg(QFileInfo(path).fileName())
                                 .arg(info.frame_count)
                                 .arg(QLocale().toString(info.fps, 'g', 4))
                                 .arg(info.width_px)
                                 .arg(info.height_px));
    updateFootprintCamera();
    updateActions();
    return true;
  } catch (const std::exception& e) {
    reportError(tr("Cannot open video"), QString::fromStdString(e.what()));
    return false;
  }
}

bool MainWindow::openTelemetry(const QString& path) {
  try {
    // A log file, or a folder of photos as its own log (their EXIF GPS), as `process` reads it.
    auto series = std::make_shared<io::TelemetrySeries>(app::readFlightLog(path.toStdString()));
    if (series->positionCount() == 0) {
      throw std::runtime_error(path.toStdString() + ": the log holds no GNSS positions");
    }
    const std::string absolute = QFileInfo(path).absoluteFilePath().toStdString();
    // An offset given for another log does not carry over to this one.
    if (project_.telemetry_path != absolute) project_.telemetry_time_offset_s.reset();
    if (telemetry_) map_view_->removeTrackOverlay(QStringLiteral("gnss:") + QString::fromStdString(telemetry_->source_path));
    telemetry_ = series;
    telemetry_->source_path = absolute;
    project_.telemetry_path = absolute;
    placeLog();
    const geo::Track& track = log_track_;
    const QString where = map_view_->isGridView() ? tr(" (on a grid: no basemap)") : QString();
    statusBar()->showMessage(tr("Flight log %1: %2 GNSS positions over %3 s%4")
                                 .arg(QFileInfo(path).fileName())
                                 .arg(track.poses.size())
                                 .arg(QLocale().toString(track.poses.back().t_s - track.poses.front().t_s, 'f', 1))
                                 .arg(where));
    if (!frame_loader_->isOpen() && results_model_->results().empty()) useLogAsTimeline(track);
    checkLogAgainstBasemaps(track);
    updateActions();
    return true;
  } catch (const std::exception& e) {
    reportError(tr("Cannot open flight log"), QString::fromStdString(e.what()));
    return false;
  }
}

void MainWindow::useLogAsTimeline(const geo::Track& gnss) {
  if (gnss.poses.size() < 2) return;
  std::vector<double> times;
  times.reserve(gnss.poses.size());
  for (const geo::TrackPose& p : gnss.poses)
    if (times.empty() || p.t_s > times.back()) times.push_back(p.t_s);  // strictly increasing
  const double span_s = times.back() - times.front();
  const double rate = span_s > 0.0 ? (times.size() - 1) / span_s : 1.0;
  const int count = static_cast<int>(times.size());
  time_model_->setTimeline(count, rate, gnss.start_unix_s, std::move(times));
  map_view_->zoomToGeoPoints(geoPointsOf(gnss.poses));
}

void MainWindow::checkLogAgainstBasemaps(const geo::Track& gnss) {
  if (basemap_boxes_.empty() || gnss.poses.empty()) return;
  double nearest_m = std::numeric_limits<double>::infinity();
  for (const geo::TrackPose& p : gnss.poses) {
    for (const geo::GeoBBox& box : basemap_boxes_) {
      if (box.contains(p.lat_deg, p.lon_deg)) return;  // the log reaches a basemap
      const geo::GeoPoint centre{0.5 * (box.min_lat_deg + box.max_lat_deg), 0.5 * (box.min_lon_deg + box.max_lon_deg), 0.0};
      nearest_m = std::min(nearest_m, geo::horizontalDistanceM({p.lat_deg, p.lon_deg, 0.0}, centre));
    }
  }
  statusBar()->showMessage(tr("The flight log never passes over the basemaps: its nearest position is %1 from a "
                              "basemap's centre. Is it the log of this flight, and the right map?")
                               .arg(lengthText(nearest_m)),
                           15000);
}

void MainWindow::setLogOffset(double offset_s) {
  if (std::isfinite(offset_s)) {
    project_.telemetry_time_offset_s = offset_s;
  } else {
    project_.telemetry_time_offset_s.reset();
  }
  placeLog();
}

void MainWindow::placeLog() {
  if (!telemetry_) {
    log_track_ = geo::Track();
    log_offset_->showOffset(false, 0.0, QString());
    map_view_->removeTrackOverlay(kLogNowOverlay);
    return;
  }
  std::vector<std::string> warnings;  // the run reports them; here the source label says it
  const std::string source = app::placeLogOnVideoClock(project_.telemetry_time_offset_s,
                                                       video_info_ ? *video_info_ : io::VideoInfo(),
                                                       telemetry_.get(), &warnings);
  log_track_ = io::gnssTrackFromTelemetry(*telemetry_);
  const geo::Track& track = log_track_;
  MapView::TrackOverlay overlay;
  overlay.name = QStringLiteral("gnss:") + QString::fromStdString(telemetry_->source_path);
  overlay.color = kGnssColour;  // logged GNSS: amber
  overlay.points = geoPointsOf(track.poses);
  overlay.t_s = timesOf(track.poses);
  overlay.z = 1;
  map_view_->setTrackOverlay(overlay);
  updateMapLegend();
  plots_panel_->setTelemetryTrack(track);
  log_offset_->showOffset(true, telemetry_->time_offset_s, QString::fromStdString(source));
  // A log with UTC dates the timeline when the results do not.
  if (frame_loader_->isOpen() && std::isfinite(track.start_unix_s) &&
      !std::isfinite(results_model_->results().primaryTrack().start_unix_s)) {
    time_model_->setStartUnixS(track.start_unix_s);
  }
  showLogPositionAtCurrentTime();
}

void MainWindow::showLogPositionAtCurrentTime() {
  const std::optional<io::TelemetrySample> now =
      telemetry_ ? telemetry_->interpolate(time_model_->currentTimeS()) : std::nullopt;
  if (!now || !now->hasPosition()) {
    map_view_->removeTrackOverlay(kLogNowOverlay);
    return;
  }
  MapView::TrackOverlay marker;
  marker.name = kLogNowOverlay;
  marker.color = kGnssColour;
  marker.points = {{now->lat_deg, now->lon_deg, 0.0}};
  marker.line_style = Qt::NoPen;
  marker.marker = MapView::Marker::Dot;
  marker.marker_px = 11;
  marker.z = 6;
  map_view_->setTrackOverlay(marker);
}

bool MainWindow::applyProject(const io::Project& project) {
  try {
    project.check();
  } catch (const std::exception& e) {
    reportError(tr("Cannot open project"), QString::fromStdString(e.what()));
    return false;
  }
  map_view_->clearBasemaps();
  basemap_boxes_.clear();
  map_view_->clearTrackOverlays();
  plots_panel_->setTelemetryTrack(geo::Track());
  results_model_->clear();
  log_offset_->setMeasuredOffset(NAN, NAN);
  telemetry_.reset();
  log_track_ = geo::Track();
  project_ = io::Project();
  bool ok = true;
  for (const std::string& basemap : project.basemap_paths) ok = openBasemap(QString::fromStdString(basemap)) && ok;
  ok = openVideo(QString::fromStdString(project.video_path)) && ok;
  if (!project.telemetry_path.empty()) ok = openTelemetry(QString::fromStdString(project.telemetry_path)) && ok;
  project_ = project;  // as chosen, also when an input failed (the analyst can fix it)
  placeLog();          // with the project's offset
  updateFootprintCamera();
  if (!project.results_dir.empty() && isResultsFolder(project.results_dir))
    ok = openResults(QString::fromStdString(project.results_dir)) && ok;
  updateEngineLabel();
  updateActions();
  retranslateUi();
  return ok;
}

bool MainWindow::openProject(const QString& path) {
  io::Project project;
  try {
    project = io::readProjectFile(path.toStdString());
  } catch (const std::exception& e) {
    reportError(tr("Cannot open project"), QString::fromStdString(e.what()));
    return false;
  }
  project_path_ = QFileInfo(path).absoluteFilePath();
  const bool ok = applyProject(project);
  saved_project_ = project;
  addRecentFile(path, kProjectKind);
  Q_EMIT projectOpened(project_path_);
  return ok;
}

bool MainWindow::saveProject(const QString& path) {
  try {
    io::Project project = project_;
    if (project.results_dir.empty()) project.results_dir = io::defaultResultsDir(path.toStdString());
    io::writeProjectFile(path.toStdString(), project);
    project_ = project;
    saved_project_ = project;
    project_path_ = QFileInfo(path).absoluteFilePath();
    addRecentFile(path, kProjectKind);
    retranslateUi();
    statusBar()->showMessage(tr("Project saved: %1").arg(path), 5000);
    return true;
  } catch (const std::exception& e) {
    reportError(tr("Cannot save project"), QString::fromStdString(e.what()));
    return false;
  }
}

bool MainWindow::openResults(const QString& folder) {
  if (!isResultsFolder(folder.toStdString())) {
    reportError(tr("Cannot open results"),
                tr("%1 is not a results folder (it holds neither track.csv nor report.json)").arg(folder));
    return false;
  }
  results_loading_ = true;
  const quint64 generation = ++results_generation_;
  auto* watcher = new QFutureWatcher<std::pair<FlightResults, QString>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, folder, generation] {
    watcher->deleteLater();
    if (generation != results_generation_) return;  // a newer folder was asked for
    results_loading_ = false;
    const auto [results, error] = watcher->result();
    if (!error.isEmpty()) {
      reportError(tr("Cannot open results"), error);
      return;
    }
    addRecentFile(folder, kResultsKind);
    const bool nothing_open = !frame_loader_->isOpen() && map_view_->basemapCount() == 0 && !telemetry_;
    const QStringList missing = nothing_open ? openInputsOf(results) : QStringList();
    project_.results_dir = QFileInfo(folder).absoluteFilePath().toStdString();
    onResultsRead(results);
    if (!missing.isEmpty())
      statusBar()->showMessage(tr("Shown without these inputs of the run, which no longer exist: %1")
                                   .arg(missing.join(QStringLiteral(", "))),
                               15000);
  });
  watcher->setFuture(QtConcurrent::run([folder]() -> std::pair<FlightResults, QString> {
    try {
      return {readResultsFolder(folder.toStdString()), QString()};
    } catch (const std::exception& e) {
      return {FlightResults(), QString::fromStdString(e.what())};
    }
  }));
  return true;
}

QStringList MainWindow::openInputsOf(const FlightResults& results) {
  const app::ResultsInputs& inputs = results.inputs;
  QStringList missing;
  auto exists = [&missing](const std::string& path) {
    if (path.empty()) return false;
    if (QFileInfo::exists(QString::fromStdString(path))) return true;
    missing << QString::fromStdString(path);
    return false;
  };
  for (const std::string& basemap : inputs.basemaps)
    if (exists(basemap)) openBasemap(QString::fromStdString(basemap));
  if (exists(inputs.video)) openVideo(QString::fromStdString(inputs.video));
  if (exists(inputs.telemetry) && openTelemetry(QString::fromStdString(inputs.telemetry)) &&
      inputs.telemetry_time_offset_s) {
    setLogOffset(*inputs.telemetry_time_offset_s);  // the offset the run was given
  }
  // Processing again uses the run's camera: its file, else the model the run wrote.
  const QString folder_camera = QString::fromStdString(results.folder) + QStringLiteral("/camera.json");
  if (!inputs.camera.empty() && QFileInfo(QString::fromStdString(inputs.camera)).isFile()) {
    project_.camera = {io::CameraSource::File, inputs.camera, 0.0};
  } else if (QFileInfo(folder_camera).isFile()) {
    project_.camera = {io::CameraSource::File, folder_camera.toStdString(), 0.0};
  }
  return missing;
}

void MainWindow::zoomToTrack() {
  const FlightResults& r = results_model_->results();
  std::vector<geo::GeoPoint> points = geoPointsOf(r.primaryTrack().poses);
  const std::vector<geo::GeoPoint> gnss = geoPointsOf(r.gnss.poses);
  points.insert(points.end(), gnss.begin(), gnss.end());
  map_view_->zoomToGeoPoints(points);
}

void MainWindow::onResultsRead(const FlightResults& results) {
  results_model_->setResults(results);
  log_offset_->setMeasuredOffset(results.log_alignment.estimated ? results.log_alignment.best_time_offset_s : NAN,
                                 results.log_alignment.sigma_s);
  zoomToTrack();  // the flight, not the whole basemap
  updateFootprintCamera();
  ensureTimeline();
  if (map_view_->isGridView() && !results.primaryTrack().poses.empty())
    statusBar()->showMessage(tr("Results shown on a grid; open a basemap to see the imagery under them"));
  for (const std::string& warning : results.warnings)
    statusBar()->showMessage(QString::fromStdString(warning), 8000);
  updateEngineLabel();
  updateActions();
  scheduleSync(true, true);
  Q_EMIT resultsLoaded();
}

void MainWindow::ensureTimeline() {
  const FlightResults& results = results_model_->results();
  const geo::Track& track = results.primaryTrack();
  if (frame_loader_->isOpen()) {
    // The video defines the timeline; the results' start time (the log's, else the video's
    // recording time) dates it.
    if (std::isfinite(track.start_unix_s) && track.start_unix_s != time_model_->startUnixS()) {
      time_model_->setStartUnixS(track.start_unix_s);  // what the processing dated the flight by
    }
    return;
  }
  if (track.poses.size() < 2) return;
  const geo::TrackPose& first = track.poses.front();
  const geo::TrackPose& last = track.poses.back();
  const double fps = (last.frame > first.frame && last.t_s > first.t_s)
                         ? (last.frame - first.frame) / (last.t_s - first.t_s)
                         : (track.poses.size() - 1) / std::max(1e-3, last.t_s - first.t_s);
  time_model_->setTimeline(static_cast<int>(std::max<std::int64_t>(last.frame, 0)) + 1, fps, track.start_unix_s);
}

void MainWindow::updateFootprintCamera() {
  footprint_camera_.reset();
  try {
    const FlightResults& results = results_model_->results();
    const std::string results_camera = results.folder.empty() ? std::string() : results.folder + "/camera.json";
    if (!results_camera.empty() && QFileInfo::exists(QString::fromStdString(results_camera))) {
      footprint_camera_ = std::make_shared<nav::CameraModel>(nav::readCameraFile(results_camera));
    } else if (frame_loader_->isOpen()) {
      // The camera processing will use, by core/app's one rule (file, field of view,
      // camera.json beside the video, else 70 deg).
      const io::VideoInfo info = io::openVideoSource(project_.video_path)->info();
      std::string source;
      footprint_camera_ = std::make_shared<nav::CameraModel>(
          app::resolveCamera(app::flightRequestFromProject(project_, nullptr), info, &source));
    }
  } catch (const std::exception& e) {
    statusBar()->showMessage(tr("No camera footprint: %1").arg(QString::fromStdString(e.what())), 5000);
  }
}

// ---- view synchronisation ------------------------------------------------------------

void MainWindow::scheduleSync(bool time_changed, bool results_changed) {
  sync_time_ = sync_time_ || time_changed;
  sync_results_ = sync_results_ || results_changed;
  if (!sync_timer_.isActive()) sync_timer_.start();  // throttle, never postpone
}

void MainWindow::syncViews() {
  const bool time_changed = sync_time_, results_changed = sync_results_;
  sync_time_ = sync_results_ = false;
  ++view_sync_count_;
  if (results_changed) {
    if (results_model_->isLive()) {
      // Follow the newest processed frame unless the analyst scrubbed away from it.
      const geo::Track& track = results_model_->results().primaryTrack();
      if (!track.poses.empty() && track.poses.back().frame > last_live_frame_) {
        if (time_model_->currentFrame() >= last_live_frame_ - 1 && !time_model_->isPlaying())
          time_model_->setCurrentFrame(static_cast<int>(track.poses.back().frame));
        last_live_frame_ = track.poses.back().frame;
      }
    }
    showResultsOnMap();
    plots_panel_->refreshData();
    events_panel_->refresh();
  }
  const int frame = time_model_->currentFrame();
  showCameraAtCurrentTime();
  showLogPositionAtCurrentTime();
  plots_panel_->setCurrentTime(time_model_->currentTimeS());
  if ((time_changed || results_changed) && frame_loader_->isOpen() && frame != requested_frame_) {
    requested_frame_ = frame;
    frame_loader_->request(frame);
  }
  if (results_changed && shown_frame_ >= 0) showVideoOverlayFor(shown_frame_);
}

void MainWindow::onFrameReady(int index, double t_s, const QImage& image) {
  shown_frame_ = index;
  shown_frame_t_s_ = t_s;
  video_panel_->showFrame(image, frameCaption(index, t_s));
  showVideoOverlayFor(index);
}

QString MainWindow::frameCaption(int index, double t_s) const {
  return video_frame_count_ < announced_frame_count_
          ? tr("%1 - frame %2 of %3 (the file is cut short: its container announces %5), t = %4 s")
                .arg(QFileInfo(video_path_).fileName())
                .arg(index)
                .arg(video_frame_count_)
                .arg(QLocale().toString(t_s, 'f', 3))
                .arg(announced_frame_count_)
          : tr("%1 - frame %2 of %3, t = %4 s")
                .arg(QFileInfo(video_path_).fileName())
                .arg(index)
                .arg(video_frame_count_)
                .arg(QLocale().toString(t_s, 'f', 3));
}

void MainWindow::showVideoOverlayFor(int frame) {
  const LiveFrameUpdate* overlay = results_model_->overlayFor(frame);
  if (overlay) {
    QVector<QLineF> matches;
    for (int i = 0; i < overlay->matches_from_px.size() && i < overlay->keypoints_px.size(); ++i)
      matches << QLineF(overlay->keypoints_px[i], overlay->matches_from_px[i]);
    video_panel_->setFeatureOverlay(overlay->keypoints_px, matches);
  } else {
    video_panel_->setFeatureOverlay({}, {});
  }
  const std::vector<RegistrationFixRecord>& fixes = results_model_->results().fixes;
  const auto it = std::lower_bound(fixes.begin(), fixes.end(), static_cast<std::int64_t>(frame),
                                   [](const RegistrationFixRecord& f, std::int64_t v) { return f.frame < v; });
  if (it != fixes.end() && it->frame == frame) {
    if (it->setAsideByTrack())
      video_panel_->setBadge(tr("Registered on the basemap (%1, %2 inliers), set aside: the track passes %3 m away")
                                 .arg(QString::fromStdString(it->mode))
                                 .arg(it->inliers)
                                 .arg(QLocale().toString(it->track_offset_m, 'f', 1)),
                             EventsPanel::colourOf(app::FlightEventKind::FixFarFromTrack));
    else if (it->accepted)
      video_panel_->setBadge(tr("Registered on the basemap (%1, %2 inliers)")
                                 .arg(QString::fromStdString(it->mode))
                                 .arg(it->inliers),
                             kAcceptedColour);
    else
      video_panel_->setBadge(tr("Registration rejected: %1").arg(rejectionReasonText(QString::fromStdString(it->reason))),
                             kRejectedColour);
  } else {
    video_panel_->setBadge(QString(), QColor());
  }
}

void MainWindow::showResultsOnMap() {
  map_view_->removeTrackOverlaysWithPrefix(kResultPrefix);
  track_colour_ramp_.reset();
  const FlightResults& r = results_model_->results();
  if (r.empty() && r.gnss.poses.empty()) {
    map_view_->setCameraMarker(std::nullopt);
    updateMapLegend();
    return;
  }
  auto colour_ramp = [](const QString& title, double worst_m) {
    MapView::LegendRamp ramp;
    ramp.title = title;
    ramp.low_label = lengthText(0.0);
    ramp.high_label = lengthText(worst_m);
    for (int i = 0; i <= 8; ++i) ramp.stops.push_back(rampColour(i / 8.0));
    return ramp;
  };
  auto track_overlay = [&](const char* name, const geo::Track& track, const QColor& colour) {
    MapView::TrackOverlay o;
    o.name = kResultPrefix + QLatin1String(name);
    o.points = geoPointsOf(track.poses);
    o.t_s = timesOf(track.poses);
    o.color = colour;
    o.split_gap_s = trackSplitGapS(o.t_s);
    return o;
  };
  // Flagged discrepancy segments: a wide translucent band under everything.
  const geo::Track& primary = r.primaryTrack();
  for (std::size_t i = 0; i < r.flagged_segments.size(); ++i) {
    geo::Track part;
    for (const geo::TrackPose& p : primary.poses)
      if (p.t_s >= r.flagged_segments[i].start_s - 1e-6 && p.t_s <= r.flagged_segments[i].end_s + 1e-6)
        part.poses.push_back(p);
    MapView::TrackOverlay band = track_overlay("flagged", part, QColor(255, 30, 30, 110));
    band.name += QString::number(i);
    band.width_px = 16;
    band.casing = false;
    band.t_s.clear();
    band.z = -10;
    map_view_->setTrackOverlay(band);
  }
  if (!r.gnss.poses.empty()) {
    MapView::TrackOverlay gnss = track_overlay("gnss", r.gnss, kGnssColour);
    gnss.width_px = 2;
    gnss.z = 1;
    map_view_->setTrackOverlay(gnss);
  }
  if (!r.odometry.poses.empty()) {
    MapView::TrackOverlay odometry = track_overlay("odometry", r.odometry, kOdometryColour);
    odometry.line_style = Qt::DashLine;
    odometry.width_px = 2;
    odometry.z = 2;
    map_view_->setTrackOverlay(odometry);
  }
  if (!primary.poses.empty()) {
    MapView::TrackOverlay visual = track_overlay("visual", primary, kVisualColour);
    visual.z = 3;
    if (colouring_ == TrackColouring::Uncertainty) {
      double worst = 10.0;  // metres mapped to red (at least 10 m)
      for (const geo::TrackPose& p : primary.poses)
        if (std::isfinite(p.sigma_m)) worst = std::max(worst, std::min(p.sigma_m, 100.0));
      for (const geo::TrackPose& p : primary.poses) visual.point_colors.push_back(rampColour(p.sigma_m / worst));
      track_colour_ramp_ = colour_ramp(tr("Visual track: uncertainty (1 sigma)"), worst);
    } else if (colouring_ == TrackColouring::Discrepancy && !r.discrepancy.empty()) {
      double worst = 10.0;
      for (const DiscrepancyRecord& d : r.discrepancy) worst = std::max(worst, std::min(d.distance_m, 200.0));
      for (const geo::TrackPose& p : primary.poses) {
        const auto it = std::lower_bound(r.discrepancy.begin(), r.discrepancy.end(), p.frame,
                                         [](const DiscrepancyRecord& d, std::int64_t f) { return d.frame < f; });
        visual.point_colors.push_back(it != r.discrepancy.end() && it->frame == p.frame
                                          ? rampColour(it->distance_m / worst)
                                          : QColor(150, 150, 150));
      }
      track_colour_ramp_ = colour_ramp(tr("Visual track: distance to GNSS"), worst);
    }
    map_view_->setTrackOverlay(visual);
  }
  MapView::TrackOverlay accepted, set_aside, rejected;
  accepted.name = kResultPrefix + QStringLiteral("fixes-accepted");
  accepted.color = kAcceptedColour;
  accepted.marker = MapView::Marker::Ring;
  accepted.marker_px = 9;
  set_aside.name = kResultPrefix + QStringLiteral("fixes-set-aside");
  set_aside.color = EventsPanel::colourOf(app::FlightEventKind::FixFarFromTrack);
  set_aside.marker = MapView::Marker::Ring;
  set_aside.marker_px = 9;
  rejected.name = kResultPrefix + QStringLiteral("fixes-rejected");
  rejected.color = kRejectedColour;
  rejected.marker = MapView::Marker::Cross;
  for (MapView::TrackOverlay* o : {&accepted, &set_aside, &rejected}) {
    o->line_style = Qt::NoPen;
    o->z = 4;
  }
  for (const RegistrationFixRecord& fix : r.fixes) {
    if (!fix.hasPosition()) continue;
    MapView::TrackOverlay& o = fix.setAsideByTrack() ? set_aside : fix.accepted ? accepted : rejected;
    o.points.push_back({fix.lat_deg, fix.lon_deg, 0.0});
    o.t_s.push_back(fix.t_s);
  }
  for (const MapView::TrackOverlay* o : {&accepted, &set_aside, &rejected})
    if (!o->points.empty()) map_view_->setTrackOverlay(*o);
  updateMapLegend();
}

void MainWindow::updateMapLegend() {
  bool has_visual = false, has_odometry = false, has_gnss = false, has_accepted = false, has_set_aside = false,
       has_rejected = false, has_flagged = false;
  for (const MapView::TrackOverlay& o : map_view_->trackOverlays()) {
    has_visual = has_visual || o.name == kResultPrefix + QLatin1String("visual");
    has_odometry = has_odometry || o.name == kResultPrefix + QLatin1String("odometry");
    has_gnss = has_gnss || o.name == kResultPrefix + QLatin1String("gnss") || o.name.startsWith(QLatin1String("gnss:"));
    has_accepted = has_accepted || o.name == kResultPrefix + QLatin1String("fixes-accepted");
    has_set_aside = has_set_aside || o.name == kResultPrefix + QLatin1String("fixes-set-aside");
    has_rejected = has_rejected || o.name == kResultPrefix + QLatin1String("fixes-rejected");
    has_flagged = has_flagged || o.name.startsWith(kResultPrefix + QLatin1String("flagged"));
  }
  std::vector<MapView::LegendEntry> entries;
  using Entry = MapView::LegendEntry;
  if (has_visual && !track_colour_ramp_) entries.push_back(Entry{tr("Visual track"), kVisualColour});
  if (has_odometry) entries.push_back(Entry{tr("Raw visual odometry"), kOdometryColour, Qt::DashLine, 2.0});
  if (has_gnss) entries.push_back(Entry{tr("Logged GNSS"), kGnssColour, Qt::SolidLine, 2.0});
  if (has_flagged) entries.push_back(Entry{tr("GNSS flagged"), QColor(255, 30, 30, 110), Qt::SolidLine, 9.0});
  if (has_accepted)
    entries.push_back(Entry{tr("Registration accepted"), kAcceptedColour, Qt::NoPen, 0.0, MapView::Marker::Ring});
  if (has_set_aside)
    entries.push_back(Entry{tr("Registration set aside by the track"),
                            EventsPanel::colourOf(app::FlightEventKind::FixFarFromTrack), Qt::NoPen, 0.0,
                            MapView::Marker::Ring});
  if (has_rejected)
    entries.push_back(Entry{tr("Registration rejected"), kRejectedColour, Qt::NoPen, 0.0, MapView::Marker::Cross});
  map_view_->setLegend(std::move(entries), has_visual ? track_colour_ramp_ : std::nullopt);
}

void MainWindow::showMeasurement() {
  if (!map_view_->isMeasuring()) {
    statusBar()->clearMessage();
    return;
  }
  const std::size_t points = map_view_->measurePoints().size();
  if (points < 2) {
    statusBar()->showMessage(
        tr("Measuring: click points on the map; Backspace removes the last one, Esc ends measuring"));
  } else if (points == 2) {
    statusBar()->showMessage(tr("Distance %1").arg(lengthText(map_view_->measuredLengthM())));
  } else {
    statusBar()->showMessage(tr("Path %1, enclosed area %2")
                                 .arg(lengthText(map_view_->measuredLengthM()), areaText(map_view_->measuredAreaM2())));
  }
}

void MainWindow::showCameraAtCurrentTime() {
  const FlightResults& r = results_model_->results();
  const geo::Track& track = r.primaryTrack();
  const double t_s = time_model_->currentTimeS();
  const int index = poseIndexAt(track, t_s);
  const double tolerance_s = std::max(1.0, 2.0 / time_model_->fps());
  if (index < 0 || std::abs(track.poses[index].t_s - t_s) > tolerance_s) {
    map_view_->setCameraMarker(std::nullopt);
    return;
  }
  const geo::TrackPose& pose = track.poses[index];
  MapView::CameraMarker marker;
  marker.position = {pose.lat_deg, pose.lon_deg, 0.0};
  marker.yaw_deg = pose.yaw_deg;
  if (footprint_camera_) marker.footprint = footprintOf(*footprint_camera_, pose, r.ground_alt_m);
  map_view_->setCameraMarker(marker);
  if (follow_action_->isChecked() && time_model_->isPlaying()) map_view_->keepInView(marker.position);
}

// ---- processing ----------------------------------------------------------------------

bool MainWindow::startProcessing(std::unique_ptr<ProcessingRunner> runner) {
  io::Project project = project_;
  if (project.video_path.empty()) {
    reportError(tr("Cannot process"), tr("Open a flight first: File > Open Flight chooses its video and basemaps."));
    return false;
  }
  try {
    io::Project checked = project;
    if (checked.results_dir.empty()) checked.results_dir = "-";  // chosen below, with the project's name
    checked.check();
  } catch (const std::exception& e) {
    reportError(tr("Cannot process"), QString::fromStdString(e.what()));
    return false;
  }
  // Nothing is replaced without a question (none in batch mode: --process replaces, as
  // skytrace-cli process does).
  if (!project.results_dir.empty() && isResultsFolder(project.results_dir) &&
      ask(tr("Replace the Results?"),
          tr("%1 holds the results of an earlier run. Processing again replaces them.")
              .arg(QDir::toNativeSeparators(QString::fromStdString(project.results_dir))),
          QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Yes) != QMessageBox::Yes) {
    return false;
  }
  // Every processed flight is a project on disk.
  saveForProcessing(&project);
  project_ = project;
  if (!runner) runner = std::make_unique<NavigationRunner>();
  const QString name = QString::fromStdString(runner->name());
  last_live_frame_ = -1;
  if (!processing_->start(project, std::move(runner))) return false;
  statusBar()->showMessage(tr("Processing %1 with %2...")
                               .arg(QFileInfo(QString::fromStdString(project.video_path)).fileName(), name));
  updateEngineLabel();
  return true;
}

void MainWindow::updateProcessingState() {
  const bool running = processing_->isRunning();
  for (QWidget* w : std::initializer_list<QWidget*>{progress_bar_, eta_label_, pause_button_, cancel_button_})
    if (w) w->setVisible(running);
  if (!running && progress_bar_) progress_bar_->setValue(0);
  pause_action_->setEnabled(running);
  pause_action_->setChecked(running && processing_->isPaused());
  pause_action_->setText(processing_->isPaused() ? tr("&Resume") : tr("P&ause"));
  cancel_action_->setEnabled(running);
  process_action_->setEnabled(!running);
}

void MainWindow::updateEngineLabel() {
  // The results' own record while they are shown, else what the project will run.
  const FlightResults& r = results_model_->results();
  // What the project will run, resolved by the rules of `process` (core/app).
  const PlannedProcessing planned = plannedProcessing(project_, vision::cudaDeviceCount());
  const QString device = QString::fromStdString(!r.device.empty() ? r.device : planned.device);
  QString model = QString::fromStdString(!r.feature_model.empty() ? r.feature_model : planned.vo_model);
  if (!r.fallback_reason.empty()) model += tr(" (fallback)");
  const QString satellite =
      QString::fromStdString(!r.registration_model.empty() ? r.registration_model : planned.satellite_model);
  const std::string mode = !r.mode.empty() ? r.mode : planned.mode;
  const QString mode_text = mode == "sequential"       ? tr("sequential")
                            : mode == "frame-parallel" ? tr("frame-parallel")
                                                       : tr("overlapped");
  // Compact, so that the status messages keep the room; the tooltip names each part.
  engine_label_->setText(QStringLiteral("%1 · %2 · %3 · %4").arg(device, model, satellite, mode_text));
  QString tip = tr("Device: %1\nVisual odometry: %2\nSatellite stage: %3\nMode: %4").arg(device, model, satellite, mode_text);
  if (!r.fallback_reason.empty()) tip += QStringLiteral("\n") + QString::fromStdString(r.fallback_reason);
  engine_label_->setToolTip(tip);
}

void MainWindow::setProcessingOptions(const io::Project& choice) {
  project_.feature_model = choice.feature_model;
  project_.device = choice.device;
  project_.vo_model = choice.vo_model;
  project_.satellite_model = choice.satellite_model;
  project_.vo_device = choice.vo_device;
  project_.satellite_device = choice.satellite_device;
  project_.processing_mode = choice.processing_mode;
  project_.register_every_keyframe = choice.register_every_keyframe;
  project_.half_precision = choice.half_precision;
  project_.lightglue_depth = choice.lightglue_depth;
  updateEngineLabel();
}

void MainWindow::chooseProcessingOptions() {
  if (!options_.interactive) return;  // no modal dialogs in batch mode
  ProcessingOptionsDialog dialog(this);
  dialog.setProject(project_);
  if (dialog.exec() != QDialog::Accepted) return;
  io::Project choice = project_;
  dialog.applyTo(&choice);
  setProcessingOptions(choice);
}

bool MainWindow::openDemo(const QString& folder) {
  const QString where = folder.isEmpty() ? DemoBuilder::defaultFolder() : folder;
  const QString project = DemoBuilder::projectIn(where);
  if (!project.isEmpty()) return openDemoProject(project);
  statusBar()->showMessage(tr("Building the demo flight in %1").arg(QDir::toNativeSeparators(where)));
  return demo_builder_->start(where);
}

bool MainWindow::openDemoProject(const QString& project) {
  if (!openProject(project)) return false;
  // A demo without results is processed right away: the point is to see Skytrace work.
  if (project_.results_dir.empty() || !isResultsFolder(project_.results_dir)) return startProcessing();
  return true;
}

bool MainWindow::saveForProcessing(io::Project* project) {
  QString path = project_path_;
  if (path.isEmpty()) {
    const QFileInfo video(QString::fromStdString(project->video_path));
    const QString base = video.absolutePath() + QLatin1Char('/') + video.completeBaseName();
    path = base + QStringLiteral(".skytrace");
    for (int i = 2; QFileInfo::exists(path); ++i) path = QStringLiteral("%1-%2.skytrace").arg(base).arg(i);
  }
  if (project->results_dir.empty()) project->results_dir = io::defaultResultsDir(path.toStdString());
  try {
    io::writeProjectFile(path.toStdString(), *project);
  } catch (const std::exception& e) {
    // The run goes on (its results folder is what matters); the analyst can save elsewhere.
    statusBar()->showMessage(tr("The project could not be saved (%1); save it with File > Save Project As")
                                 .arg(QString::fromStdString(e.what())),
                             10000);
    return false;
  }
  project_path_ = QFileInfo(path).absoluteFilePath();
  saved_project_ = *project;
  addRecentFile(path, kProjectKind);
  retranslateUi();  // the title names the project
  return true;
}

bool MainWindow::hasUnsavedProject() const {
  if (project_.video_path.empty()) return false;
  if (project_path_.isEmpty()) return project_.results_dir.empty() || !isResultsFolder(project_.results_dir);
  return project_ != saved_project_;
}

QMessageBox::StandardButton MainWindow::ask(const QString& title, const QString& text,
                                            QMessageBox::StandardButtons buttons,
                                            QMessageBox::StandardButton batch_answer) {
  if (asker_) return asker_(title, text, buttons);
  if (!options_.interactive) return batch_answer;
  return QMessageBox::question(this, title, text, buttons);
}

bool MainWindow::isWelcomeShown() const { return centre_->currentWidget() == welcome_page_; }

void MainWindow::updateCentre() {
  const bool nothing_open = map_view_->basemapCount() == 0 && !frame_loader_->isOpen() && !telemetry_ &&
                            results_model_->results().empty() && !results_loading_ && !processing_->isRunning();
  centre_->setCurrentWidget(nothing_open ? static_cast<QWidget*>(welcome_page_) : map_view_);
}

void MainWindow::updateActions() {
  updateCentre();
  const FlightResults& r = results_model_->results();
  export_track_action_->setEnabled(!r.primaryTrack().poses.empty());
  export_log_track_action_->setEnabled(telemetry_ != nullptr);
  export_report_action_->setEnabled(!r.report_json.empty());
  export_flight_report_action_->setEnabled(!r.empty() && !r.folder.empty());
  export_latency_action_->setEnabled(!r.latency.empty());
  export_map_action_->setEnabled(map_view_->hasView());
}

bool MainWindow::isLoading() const {
  return results_loading_ || processing_->isRunning() || sync_timer_.isActive() || !map_view_->isIdle() ||
         (frame_loader_->isOpen() && shown_frame_ != requested_frame_ && failed_frame_ != requested_frame_);
}

// ---- exports -------------------------------------------------------------------------

void MainWindow::writeTrackFile(const geo::Track& track, const QString& path) const {
  const std::optional<geo::TrackFormat> format = geo::trackFormatFromPath(path.toStdString());
  if (!format)
    throw std::runtime_error(tr("%1: unknown track format (use .geojson, .gpx, .kml, .gpkg or .csv)").arg(path).toStdString());
  geo::exportTrack(track, path.toStdString(), *format);
}

bool MainWindow::exportTrack(const QString& path) {
  const geo::Track& track = results_model_->results().primaryTrack();
  try {
    if (track.poses.empty()) throw std::runtime_error(tr("there is no visual track yet: process the flight or open its results").toStdString());
    writeTrackFile(track, path);
    return true;
  } catch (const std::exception& e) {
    reportError(tr("Cannot export track"), QString::fromStdString(e.what()));
    return false;
  }
}

bool MainWindow::exportLogTrack(const QString& path) {
  try {
    if (!telemetry_) throw std::runtime_error(tr("no flight log is open: open one with File > Open Flight Log...").toStdString());
    // The log's own positions and times (on the video's clock; absolute times unchanged).
    const geo::Track& track = log_track_;
    if (track.poses.empty())
      throw std::runtime_error(tr("%1 holds no GNSS positions").arg(QString::fromStdString(telemetry_->source_path)).toStdString());
    writeTrackFile(track, path);
    return true;
  } catch (const std::exception& e) {
    reportError(tr("Cannot export flight log"), QString::fromStdString(e.what()));
    return false;
  }
}

bool MainWindow::exportReport(const QString& path) {
  try {
    const std::string& report = results_model_->results().report_json;
    if (report.empty()) throw std::runtime_error(tr("there is no report yet: process the flight first").toStdString());
    writeFileAtomically(path.toStdString(), report);
    return true;
  } catch (const std::exception& e) {
    reportError(tr("Cannot export report"), QString::fromStdString(e.what()));
    return false;
  }
}

bool MainWindow::exportFlightReport(const QString& path) {
  const FlightResults& results = results_model_->results();
  if (results.empty() || results.folder.empty()) {
    reportError(tr("Cannot write the flight report"), tr("there are no results yet: process the flight first"));
    return false;
  }
  QString html_path = path;
  if (QFileInfo(html_path).suffix().isEmpty()) html_path += QStringLiteral(".html");
  const QImage map = map_view_->hasView() ? map_view_->grab().toImage() : QImage();
  const QImage plots = plots_panel_->stack()->image(
      tr("Skytrace: %1").arg(QFileInfo(QString::fromStdString(results.folder)).fileName()));
  QString error;
  if (!FlightReport::write(results, map, plots, QCoreApplication::applicationVersion(), html_path, &error)) {
    reportError(tr("Cannot write the flight report"), error);
    return false;
  }
  return true;
}

bool MainWindow::exportLatencyCsv(const QString& path) {
  try {
    const std::vector<engine::LatencySample>& samples = results_model_->results().latency;
    if (samples.empty()) throw std::runtime_error(tr("there are no latency samples yet").toStdString());
    engine::writeLatencyCsv(path.toStdString(), samples);
    return true;
  } catch (const std::exception& e) {
    reportError(tr("Cannot export latency"), QString::fromStdString(e.what()));
    return false;
  }
}

bool MainWindow::exportMapImage(const QString& path) {
  if (map_view_->grab().save(path)) return true;
  reportError(tr("Cannot export image"), tr("%1 could not be written").arg(path));
  return false;
}

bool MainWindow::exportWindowImage(const QString& path) {
  if (grab().save(path)) return true;
  reportError(tr("Cannot export image"), tr("%1 could not be written").arg(path));
  return false;
}

bool MainWindow::exportPlotImage(const QString& path) {
  if (plots_panel_->exportCurrentPlot(path)) return true;
  reportError(tr("Cannot export image"), tr("%1 could not be written").arg(path));
  return false;
}

// ---- file choices --------------------------------------------------------------------

QString MainWindow::chooseFile(const QString& purpose, const QString& caption, const QString& filter) {
  if (file_chooser_) return file_chooser_(purpose, caption, filter);
  if (!options_.interactive) return {};
  // Every dialog starts in the folder of the last file chosen (remembered across sessions).
  QString path;
  if (purpose == QLatin1String("folder")) {
    path = QFileDialog::getExistingDirectory(this, caption, last_folder_);
  } else if (purpose == QLatin1String("save")) {
    QString selected;
    path = QFileDialog::getSaveFileName(this, caption, last_folder_, filter, &selected);
    // Append the chosen filter's extension when the name has none ("Track" -> Track.gpx).
    const int star = selected.indexOf(QLatin1String("*."));
    if (!path.isEmpty() && QFileInfo(path).suffix().isEmpty() && star >= 0)
      path += selected.mid(star + 1, selected.indexOf(QRegularExpression(QStringLiteral("[ )]")), star) - star - 1);
  } else {
    path = QFileDialog::getOpenFileName(this, caption, last_folder_, filter);
  }
  if (!path.isEmpty())
    last_folder_ = purpose == QLatin1String("folder") ? path : QFileInfo(path).absolutePath();
  return path;
}

void MainWindow::chooseFlight() {
  OpenFlightDialog dialog(this);
  dialog.setProject(project_);
  if (dialog.exec() != QDialog::Accepted) return;
  project_path_.clear();
  applyProject(dialog.project());
}

void MainWindow::chooseProject() {
  const QString path = chooseFile(QStringLiteral("open"), tr("Open Project"),
                                  tr("Skytrace projects (*.skytrace);;All files (*)"));
  if (!path.isEmpty()) openProject(path);
}

void MainWindow::chooseSaveProject() {
  QString path = chooseFile(QStringLiteral("save"), tr("Save Project"), tr("Skytrace projects (*.skytrace)"));
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".skytrace");
  saveProject(path);
}

void MainWindow::chooseResults() {
  const QString path = chooseFile(QStringLiteral("folder"), tr("Open Results Folder"), QString());
  if (!path.isEmpty()) openResults(path);
}

void MainWindow::chooseTelemetry() {
  const QString path = chooseFile(QStringLiteral("open"), tr("Open Flight Log"),
                                  tr("Flight logs (*.srt *.SRT *.ulg *.bin *.BIN *.tlog *.gpx *.csv);;All files (*)"));
  if (!path.isEmpty()) openTelemetry(path);
}

void MainWindow::chooseBasemap() {
  const QString path = chooseFile(
      QStringLiteral("open"), tr("Open Basemap"),
      tr("Rasters (*.tif *.tiff *.vrt *.mbtiles *.gpkg *.jp2 *.jpg *.png);;All files (*)"));
  if (!path.isEmpty()) openBasemap(path);
}

void MainWindow::chooseVideo() {
  const QString path = chooseFile(QStringLiteral("open"), tr("Open Video"),
                                  tr("Videos (*.mp4 *.mov *.mkv *.avi *.m4v *.ts);;All files (*)"));
  if (!path.isEmpty()) openVideo(path);
}

void MainWindow::chooseImageFolder() {
  const QString path = chooseFile(QStringLiteral("folder"), tr("Open Image Folder"), QString());
  if (!path.isEmpty()) openVideo(path);
}

void MainWindow::showAbout() {
  QMessageBox::about(
      this, tr("About Skytrace"),
      tr("<h3>Skytrace %1</h3><p>Visual geolocalisation of UAV flight video against "
         "georeferenced basemaps.</p><p>Qt %2</p>")
          .arg(QCoreApplication::applicationVersion(), QString::fromLatin1(qVersion())));
}

// ---- drag and drop -------------------------------------------------------------------

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  QStringList paths;
  for (const QUrl& url : event->mimeData()->urls())
    if (url.isLocalFile()) paths << url.toLocalFile();
  event->acceptProposedAction();
  openDroppedPaths(paths);
}

void MainWindow::openDroppedPaths(const QStringList& paths) {
  if (paths.size() == 1 && classifyInputPath(paths.first()) == InputKind::Project) {
    openProject(paths.first());
    return;
  }
  if (paths.size() == 1 && classifyInputPath(paths.first()) == InputKind::ResultsFolder) {
    openResults(paths.first());
    return;
  }
  if (options_.interactive) {  // the Open Flight dialog, filled with the dropped files
    OpenFlightDialog dialog(this);
    dialog.setProject(project_);
    dialog.addPaths(paths);
    if (dialog.exec() == QDialog::Accepted) applyProject(dialog.project());
    return;
  }
  for (const QString& path : paths) {
    switch (classifyInputPath(path)) {
      case InputKind::Basemap: openBasemap(path); break;
      case InputKind::Video:
      case InputKind::ImageFolder: openVideo(path); break;
      case InputKind::Telemetry: openTelemetry(path); break;
      case InputKind::ResultsFolder: openResults(path); break;
      case InputKind::Project: openProject(path); break;
      case InputKind::CameraFile:
        project_.camera.source = io::CameraSource::File;
        project_.camera.file_path = QFileInfo(path).absoluteFilePath().toStdString();
        updateFootprintCamera();
        break;
      case InputKind::Unknown:
        reportError(tr("Cannot open"), tr("%1: unknown kind of file").arg(path));
        break;
    }
  }
}

// ---- recent files and settings -------------------------------------------------------

QStringList MainWindow::recentFiles() const {
  QStringList files;
  for (const QString& entry : recent_entries_) files << entry.section(':', 1);
  return files;
}

void MainWindow::addRecentFile(const QString& path, const QString& kind) {
  const QString entry = kind + QLatin1Char(':') + QFileInfo(path).absoluteFilePath();
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
    const QString kind = entry.section(':', 0, 0);
    const QString path = QDir::toNativeSeparators(entry.section(':', 1));
    QString label;
    if (kind == kProjectKind) label = tr("&%1 %2 (project)");
    else if (kind == kResultsKind) label = tr("&%1 %2 (results)");
    else if (kind == kVideoKind) label = tr("&%1 %2 (video)");
    else label = tr("&%1 %2 (basemap)");
    QAction* a = recent_menu_->addAction(label.arg(i + 1).arg(path));
    connect(a, &QAction::triggered, this, [this, entry] { openRecent(entry); });
  }
  recent_menu_->addSeparator();
  recent_menu_->addAction(clear_recent_action_);
  clear_recent_action_->setEnabled(!recent_entries_.isEmpty());
  if (welcome_page_) welcome_page_->setRecentEntries(recent_entries_);
}

void MainWindow::openRecent(const QString& entry) {
  const QString kind = entry.section(':', 0, 0);
  const QString path = entry.section(':', 1);
  if (kind == kProjectKind) openProject(path);
  else if (kind == kResultsKind) openResults(path);
  else if (kind == kVideoKind) openVideo(path);
  else openBasemap(path);
}

void MainWindow::restoreSettings() {
  QSettings settings;
  recent_entries_ = settings.value(kRecentKey).toStringList();
  const QStringList kinds{kProjectKind, kResultsKind, kBasemapKind, kVideoKind};
  recent_entries_.erase(std::remove_if(recent_entries_.begin(), recent_entries_.end(),
                                       [&](const QString& e) { return !kinds.contains(e.section(':', 0, 0)); }),
                        recent_entries_.end());
  rebuildRecentMenu();
  vision::setDefaultModelDirectory(settings.value(kModelFolderKey).toString().toStdString());
  restoreGeometry(settings.value(kGeometryKey).toByteArray());
  restoreState(settings.value(kStateKey).toByteArray(), kStateVersion);
  last_folder_ = settings.value(kLastFolderKey).toString();
  time_model_->setSpeed(settings.value(kSpeedKey, 1.0).toDouble());
  const int colouring = settings.value(kColouringKey, 0).toInt();
  QAction* colour_action = colouring == int(TrackColouring::Uncertainty)   ? colour_sigma_action_
                           : colouring == int(TrackColouring::Discrepancy) ? colour_discrepancy_action_
                                                                           : colour_plain_action_;
  if (!colour_action->isChecked()) colour_action->trigger();
  if (settings.contains(kShownPlotsKey)) plots_panel_->stack()->setShownKeys(settings.value(kShownPlotsKey).toStringList());
  plots_panel_->stack()->splitter()->restoreState(settings.value(kPlotSplitterKey).toByteArray());
}

void MainWindow::saveSettings() const {
  QSettings settings;
  settings.setValue(kRecentKey, recent_entries_);
  settings.setValue(kGeometryKey, saveGeometry());
  settings.setValue(kStateKey, saveState(kStateVersion));
  settings.setValue(kModelFolderKey, QString::fromStdString(vision::defaultModelDirectory()));
  settings.setValue(kLastFolderKey, last_folder_);
  settings.setValue(kSpeedKey, time_model_->speed());
  settings.setValue(kColouringKey, int(colouring_));
  settings.setValue(kShownPlotsKey, plots_panel_->stack()->shownKeys());
  settings.setValue(kPlotSplitterKey, plots_panel_->stack()->splitter()->saveState());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (hasUnsavedProject()) {
    const QMessageBox::StandardButton answer =
        ask(tr("Save the Project?"),
            project_path_.isEmpty()
                ? tr("The flight %1 is not saved as a project. Save it before quitting?")
                      .arg(QFileInfo(QString::fromStdString(project_.video_path)).fileName())
                : tr("%1 has changed. Save it before quitting?").arg(QFileInfo(project_path_).fileName()),
            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Discard);
    if (answer == QMessageBox::Cancel) {
      event->ignore();
      return;
    }
    if (answer == QMessageBox::Save) {
      if (project_path_.isEmpty()) chooseSaveProject();
      else saveProject(project_path_);
      if (hasUnsavedProject()) {  // not saved (cancelled or failed): stay
        event->ignore();
        return;
      }
    }
  }
  if (processing_->isRunning()) processing_->cancel();  // the destructor waits for it
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
  scale_label_->setText(tr("Scale %1 m/px").arg(QLocale().toString(map_view_->metresPerPixel(), 'g', 3)));
}

void MainWindow::updateCursorLabel(bool over_map, double lat_deg, double lon_deg) {
  cursor_over_map_ = over_map;
  cursor_lat_deg_ = lat_deg;
  cursor_lon_deg_ = lon_deg;
  if (!over_map) {
    cursor_label_->setText(tr("Lat -, Lon -"));
    return;
  }
  cursor_label_->setText(tr("Lat %1°, Lon %2°").arg(QLocale().toString(lat_deg, 'f', 6), QLocale().toString(lon_deg, 'f', 6)));
}

TrajectoryPlot* MainWindow::trajectoryPlot() const { return plots_panel_->trajectoryPlot(); }

}  // namespace skytrace::ui
