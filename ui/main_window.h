// The Skytrace main window, the analyst's workspace: the map view in the centre, docks
// for the video, the flight's events, the plots and the timeline, menus (File, Process, Export, View,
// Playback, Help) and a status bar (messages, processing progress/ETA, device and model
// in use, cursor lat/lon, map scale).
//
// One TimeModel drives every view; one ResultsModel holds the flight's results (read
// from a results folder, or growing live while processing). Views are synchronised on a
// 40 ms tick: however fast time or results change, each view repaints at most once per
// 40 ms. Video frames are decoded on FrameLoader's thread, results folders read on a
// worker; the GUI thread only draws.
//
// Projects (.skytrace) hold the inputs and the results folder; reopening a processed
// project shows its results without recomputing. Recent projects/files and the window
// and dock layout persist in QSettings. All text goes through tr() and follows
// QEvent::LanguageChange.
//
// Errors never crash the window: in interactive mode they open a message box;
// otherwise (--screenshot, tests) they go to the status bar, stderr and errorReported(),
// with no modal dialog. File choices go through a replaceable FileChooser so that tests
// can drive menu actions without modal dialogs.
// Thread: GUI thread only.
#pragma once

#include <QMainWindow>
#include <QMessageBox>
#include <QStackedWidget>
#include <QStringList>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>

#include "core/geo/geodesy.h"
#include "core/geo/track.h"
#include "core/io/project_file.h"
#include "ui/map_view.h"

class QAction;
class QActionGroup;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QToolButton;

namespace skytrace::nav {
class CameraModel;
}
namespace skytrace::geo {
struct Track;
}
namespace skytrace::io {
struct TelemetrySeries;
struct VideoInfo;
}  // namespace skytrace::io

namespace skytrace::app {
struct FlightResults;
}  // namespace skytrace::app

namespace skytrace::ui {

class DemoBuilder;
class EventsPanel;
class FrameLoader;
class LogOffsetWidget;
class MapView;
class PlotsPanel;
class ProcessingController;
class ProcessingRunner;
class ResultsModel;
class TimeModel;
class TimelineWidget;
class TrajectoryPlot;
class VideoPanel;
class WelcomePage;
using app::FlightResults;

struct MainWindowOptions {
  bool interactive = true;       // false: no modal dialogs (batch screenshot, tests)
  bool persist_settings = true;  // false: neither read nor write QSettings
};

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(const MainWindowOptions& options = {}, QWidget* parent = nullptr);
  ~MainWindow() override;

  // Opens a basemap and adds it to the map (the first one sets the view). Returns false
  // after reporting the error.
  bool openBasemap(const QString& path);
  // Opens a video file or image folder; its first frame follows (decoded in the
  // background). Returns false after reporting the error.
  bool openVideo(const QString& path);
  // Reads a flight log (DJI SRT, PX4 ULog, ArduPilot .bin, MAVLink .tlog, GPX, CSV), puts
  // it on the video's clock as processing will (the project's offset, else the video's
  // recording time, else 0: app::placeLogOnVideoClock) and draws its GNSS track and the
  // logged position at the current time on the map (once a basemap defines the map).
  // Returns false after reporting the error.
  bool openTelemetry(const QString& path);
  // Sets the project's log clock offset (video time = log time + offset_s) and moves the
  // log's track, plots and current position with it; the next run uses it. NaN: no
  // offset given (the automatic choice).
  void setLogOffset(double offset_s);
  // Opens a .skytrace project: its basemaps, video, log, and its results when the results
  // folder exists (read in the background; resultsLoaded follows). False after reporting.
  bool openProject(const QString& path);
  // Shows a project (inputs as above) without a file (the Open Flight dialog's result).
  bool applyProject(const io::Project& project);
  // Reads a results folder in the background and shows it (resultsLoaded follows). When
  // nothing else is open (no video, basemap or log), the run's own inputs that still
  // exist open with it (report.json "inputs"); the status bar names those missing.
  bool openResults(const QString& folder);
  // "Open the Demo": opens the demo flight in `folder` (default: DemoBuilder's), building
  // it first when the folder holds none (progress on the welcome page), and processes it
  // when it has no results yet. False when it cannot start (reported).
  bool openDemo(const QString& folder = QString());
  // What the window shows in its centre: the welcome page while nothing is open (no
  // video, basemap, log or results), else the map.
  bool isWelcomeShown() const;
  WelcomePage* welcomePage() const { return welcome_page_; }

  // Saves the current project; false after reporting the error.
  bool saveProject(const QString& path);
  // Processes the current project with `runner` (default: NavigationRunner, in process,
  // live; through the engine unless the project's mode is sequential).
  bool startProcessing(std::unique_ptr<ProcessingRunner> runner = nullptr);
  // Takes the processing choice (models, devices, mode) of `choice` into the current
  // project; saved with it. No effect on a run in progress.
  void setProcessingOptions(const io::Project& choice);

  // Exports, each to `path` (no dialog); false after reporting the error.
  bool exportTrack(const QString& path);  // format from the extension
  // The open flight log's GNSS positions as a track (format from the extension).
  bool exportLogTrack(const QString& path);
  bool exportReport(const QString& path);
  // The flight report (ui/flight_report.h): `path` (.html) and the PDF beside it, with
  // the map and the stacked plots as shown. False after reporting.
  bool exportFlightReport(const QString& path);
  bool exportLatencyCsv(const QString& path);
  bool exportMapImage(const QString& path);
  bool exportWindowImage(const QString& path);
  bool exportPlotImage(const QString& path);

  // File choices made by menu actions. The default opens QFileDialog; tests replace it.
  // Arguments: purpose ("open"/"save"/"folder"), caption, filter; returns "" to cancel.
  using FileChooser = std::function<QString(const QString& purpose, const QString& caption,
                                            const QString& filter)>;
  void setFileChooser(FileChooser chooser) { file_chooser_ = std::move(chooser); }
  // Questions before something would be replaced or lost (replace results, save before
  // quitting). The default asks with a message box in interactive mode and takes the
  // batch answer (go on, discard: never a dialog) otherwise; tests replace it.
  using Asker = std::function<QMessageBox::StandardButton(const QString& title, const QString& text,
                                                          QMessageBox::StandardButtons buttons)>;
  void setAsker(Asker asker) { asker_ = std::move(asker); }
  // The flight open is not saved as it is: a new flight neither saved nor processed, or
  // a project changed since it was opened or saved.
  bool hasUnsavedProject() const;

  MapView* mapView() const { return map_view_; }
  TrajectoryPlot* trajectoryPlot() const;
  PlotsPanel* plotsPanel() const { return plots_panel_; }
  EventsPanel* eventsPanel() const { return events_panel_; }
  VideoPanel* videoPanel() const { return video_panel_; }
  TimeModel* timeModel() const { return time_model_; }
  TimelineWidget* timeline() const { return timeline_; }
  LogOffsetWidget* logOffset() const { return log_offset_; }
  ResultsModel* resultsModel() const { return results_model_; }
  ProcessingController* processing() const { return processing_; }
  FrameLoader* frameLoader() const { return frame_loader_; }
  const io::Project& project() const { return project_; }
  const QString& projectPath() const { return project_path_; }
  // Most recent first; each entry is a path opened successfully.
  QStringList recentFiles() const;
  QMenu* fileMenu() const { return file_menu_; }
  QMenu* exportMenu() const { return export_menu_; }
  QAction* action(const QString& object_name) const;
  // Something is still loading or running (processing, results folder, video frame,
  // map tiles).
  bool isLoading() const;
  // Times the views were synchronised (at most one per 40 ms; for tests).
  int viewSyncCount() const { return view_sync_count_; }

  static constexpr int kMaxRecentFiles = 10;

 Q_SIGNALS:
  void errorReported(const QString& message);
  void resultsLoaded();
  void projectOpened(const QString& path);

 public Q_SLOTS:
  // Fits the map to the visual and GNSS tracks of the results shown.
  void zoomToTrack();
  void chooseFlight();
  void chooseProject();
  void chooseSaveProject();
  void chooseResults();
  void chooseBasemap();
  void chooseVideo();
  void chooseImageFolder();
  void chooseTelemetry();
  // Process > Processing Options (a modal dialog; interactive mode only).
  void chooseProcessingOptions();
  void showAbout();

 protected:
  void closeEvent(QCloseEvent* event) override;
  void changeEvent(QEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  enum class TrackColouring { Plain, Uncertainty, Discrepancy };

  void createModels();
  void createActions();
  void createMenus();
  void createDocks();
  void createStatusBar();
  void retranslateUi();
  void restoreSettings();
  void saveSettings() const;
  void addRecentFile(const QString& path, const QString& kind);
  void rebuildRecentMenu();
  void openRecent(const QString& entry);
  void reportError(const QString& title, const QString& message);
  void updateScaleLabel();
  void updateCursorLabel(bool over_map, double lat_deg, double lon_deg);
  void updateEngineLabel();
  void updateProcessingState();
  void updateActions();
  QString chooseFile(const QString& purpose, const QString& caption, const QString& filter);
  void openDroppedPaths(const QStringList& paths);

  // View synchronisation (one tick per 40 ms at most).
  void scheduleSync(bool time_changed, bool results_changed);
  void syncViews();
  void showResultsOnMap();
  // The map legend: an entry per kind of overlay on the map, and the track's colour scale.
  void updateMapLegend();
  void updateCentre();  // welcome page or map
  QMessageBox::StandardButton ask(const QString& title, const QString& text, QMessageBox::StandardButtons buttons,
                                  QMessageBox::StandardButton batch_answer);
  // Saves the project about to be processed (a new flight beside its video, under a name
  // no other project has) and fills in its results folder; false when it cannot be saved.
  bool saveForProcessing(io::Project* project);
  bool openDemoProject(const QString& project);
  // A log opened without a video is reviewed on its own: its GNSS samples are the frames
  // of the timeline.
  void useLogAsTimeline(const geo::Track& gnss);
  // The status bar says so when the log's GNSS track lies off every basemap.
  void checkLogAgainstBasemaps(const geo::Track& gnss);
  void showMeasurement();
  void showCameraAtCurrentTime();
  // Places the open log on the video's clock (placeLogOnVideoClock) and redraws it.
  void placeLog();
  // The logged position at the current video time, as a marker (none outside the log).
  void showLogPositionAtCurrentTime();
  void showVideoOverlayFor(int frame);
  void onFrameReady(int index, double t_s, const QImage& image);
  // "flight.mp4 - frame 5 of 78 (the file is cut short: ...), t = 0.500 s".
  QString frameCaption(int index, double t_s) const;
  // Writes `track` in the format of the path's extension; throws what exportTrack throws,
  // or std::runtime_error for an unknown extension.
  void writeTrackFile(const geo::Track& track, const QString& path) const;
  void onResultsRead(const FlightResults& results);
  // Opens the run's inputs that still exist; returns those that do not.
  QStringList openInputsOf(const FlightResults& results);
  void updateFootprintCamera();
  void ensureTimeline();

  MainWindowOptions options_;
  QStackedWidget* centre_ = nullptr;
  WelcomePage* welcome_page_ = nullptr;
  DemoBuilder* demo_builder_ = nullptr;
  MapView* map_view_ = nullptr;
  PlotsPanel* plots_panel_ = nullptr;
  EventsPanel* events_panel_ = nullptr;
  VideoPanel* video_panel_ = nullptr;
  TimelineWidget* timeline_ = nullptr;
  LogOffsetWidget* log_offset_ = nullptr;
  QDockWidget* plot_dock_ = nullptr;
  QDockWidget* video_dock_ = nullptr;
  QDockWidget* events_dock_ = nullptr;
  QDockWidget* timeline_dock_ = nullptr;
  QLabel* cursor_label_ = nullptr;
  QLabel* scale_label_ = nullptr;
  QLabel* engine_label_ = nullptr;
  QProgressBar* progress_bar_ = nullptr;
  QLabel* eta_label_ = nullptr;
  QToolButton* pause_button_ = nullptr;
  QToolButton* cancel_button_ = nullptr;

  TimeModel* time_model_ = nullptr;
  ResultsModel* results_model_ = nullptr;
  FrameLoader* frame_loader_ = nullptr;
  ProcessingController* processing_ = nullptr;

  QMenu* file_menu_ = nullptr;
  QMenu* recent_menu_ = nullptr;
  QMenu* process_menu_ = nullptr;
  QMenu* export_menu_ = nullptr;
  QMenu* view_menu_ = nullptr;
  QMenu* colour_menu_ = nullptr;
  QMenu* playback_menu_ = nullptr;
  QMenu* help_menu_ = nullptr;
  QAction* open_flight_action_ = nullptr;
  QAction* open_project_action_ = nullptr;
  QAction* save_project_action_ = nullptr;
  QAction* save_project_as_action_ = nullptr;
  QAction* open_results_action_ = nullptr;
  QAction* open_basemap_action_ = nullptr;
  QAction* open_video_action_ = nullptr;
  QAction* open_folder_action_ = nullptr;
  QAction* open_telemetry_action_ = nullptr;
  QAction* clear_recent_action_ = nullptr;
  QAction* quit_action_ = nullptr;
  QAction* process_action_ = nullptr;
  QAction* processing_options_action_ = nullptr;
  QAction* pause_action_ = nullptr;
  QAction* cancel_action_ = nullptr;
  QAction* export_track_action_ = nullptr;
  QAction* export_log_track_action_ = nullptr;
  QAction* export_report_action_ = nullptr;
  QAction* export_flight_report_action_ = nullptr;
  QAction* export_latency_action_ = nullptr;
  QAction* export_map_action_ = nullptr;
  QAction* export_window_action_ = nullptr;
  QAction* export_plot_action_ = nullptr;
  QAction* zoom_in_action_ = nullptr;
  QAction* zoom_out_action_ = nullptr;
  QAction* zoom_fit_action_ = nullptr;
  QAction* zoom_track_action_ = nullptr;
  QAction* follow_action_ = nullptr;
  QAction* overlay_action_ = nullptr;
  QAction* legend_action_ = nullptr;
  QAction* measure_action_ = nullptr;
  QActionGroup* colour_group_ = nullptr;
  QAction* colour_plain_action_ = nullptr;
  QAction* colour_sigma_action_ = nullptr;
  QAction* colour_discrepancy_action_ = nullptr;
  QAction* play_action_ = nullptr;
  QAction* step_forward_action_ = nullptr;
  QAction* step_back_action_ = nullptr;
  QAction* faster_action_ = nullptr;
  QAction* slower_action_ = nullptr;
  QAction* jump_action_ = nullptr;
  QAction* about_action_ = nullptr;

  // Entries "KIND:PATH", KIND one of project, results, basemap, video.
  QStringList recent_entries_;
  FileChooser file_chooser_;
  Asker asker_;
  QString last_folder_;  // of the last file chosen in a dialog
  io::Project saved_project_;  // the project as last opened or saved
  std::vector<geo::GeoBBox> basemap_boxes_;  // WGS84 footprints of the open basemaps

  io::Project project_;
  QString project_path_;
  bool results_loading_ = false;
  quint64 results_generation_ = 0;
  TrackColouring colouring_ = TrackColouring::Plain;
  // The colour scale of the visual track when coloured by a value (the map legend shows it).
  std::optional<MapView::LegendRamp> track_colour_ramp_;
  std::shared_ptr<const nav::CameraModel> footprint_camera_;
  std::int64_t last_live_frame_ = -1;

  QString video_path_;
  std::shared_ptr<const io::VideoInfo> video_info_;  // the open video's, for placing the log
  std::shared_ptr<io::TelemetrySeries> telemetry_;   // the open flight log, on the video's clock
  // The open log's GNSS positions on the video's clock (placeLog keeps it current).
  geo::Track log_track_;
  int video_frame_count_ = 0;      // frames the timeline offers: those the file holds
  int announced_frame_count_ = 0;  // frames its container announces (more when truncated)
  int requested_frame_ = -1;
  int shown_frame_ = -1;
  int failed_frame_ = -1;  // the last frame the loader could not decode
  double shown_frame_t_s_ = 0.0;

  QTimer sync_timer_;
  bool sync_time_ = false;
  bool sync_results_ = false;
  int view_sync_count_ = 0;

  bool cursor_over_map_ = false;
  double cursor_lat_deg_ = 0.0;
  double cursor_lon_deg_ = 0.0;
};

}  // namespace skytrace::ui
