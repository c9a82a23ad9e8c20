// The Skytrace main window: menus (File, View, Help), the map view in the centre, a
// trajectory plot dock (QCustomPlot), a video dock, and a status bar with the cursor's
// lat/lon and the map scale. Remembers recent files and its geometry/dock layout in
// QSettings. All text goes through tr() and follows QEvent::LanguageChange.
//
// Errors (a bad basemap or video) never crash the window: in interactive mode they open
// a message box; otherwise (--screenshot, tests) they go to the status bar, stderr and
// errorReported(), with no modal dialog.
// Thread: GUI thread only.
#pragma once

#include <QMainWindow>
#include <QStringList>

#include <memory>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;

namespace skytrace::io {
class VideoSource;
}

namespace skytrace::ui {

class MapView;
class TrajectoryPlot;
class VideoPanel;

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
  // Opens a video file or image folder and shows its first frame. Returns false after
  // reporting the error.
  bool openVideo(const QString& path);
  // Reads a flight log (DJI SRT, PX4 ULog, GPX, CSV) and draws its GNSS track on the map
  // (drawn once a basemap defines the map). Returns false after reporting the error.
  bool openTelemetry(const QString& path);

  MapView* mapView() const { return map_view_; }
  TrajectoryPlot* trajectoryPlot() const { return trajectory_plot_; }
  VideoPanel* videoPanel() const { return video_panel_; }
  // Most recent first; each entry is a path opened successfully.
  QStringList recentFiles() const;
  QMenu* fileMenu() const { return file_menu_; }

  static constexpr int kMaxRecentFiles = 10;

 Q_SIGNALS:
  void errorReported(const QString& message);

 public Q_SLOTS:
  void chooseBasemap();
  void chooseVideo();
  void chooseImageFolder();
  void chooseTelemetry();
  void showAbout();

 protected:
  void closeEvent(QCloseEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  void createActions();
  void createMenus();
  void createDocks();
  void createStatusBar();
  void retranslateUi();
  void restoreSettings();
  void saveSettings() const;
  void addRecentFile(const QString& path, bool is_video);
  void rebuildRecentMenu();
  void openRecent(const QString& entry);
  void reportError(const QString& title, const QString& message);
  void updateScaleLabel();
  void updateCursorLabel(bool over_map, double lat_deg, double lon_deg);
  void updateVideoCaption();

  MainWindowOptions options_;
  MapView* map_view_ = nullptr;
  TrajectoryPlot* trajectory_plot_ = nullptr;
  VideoPanel* video_panel_ = nullptr;
  QDockWidget* plot_dock_ = nullptr;
  QDockWidget* video_dock_ = nullptr;
  QLabel* cursor_label_ = nullptr;
  QLabel* scale_label_ = nullptr;

  QMenu* file_menu_ = nullptr;
  QMenu* recent_menu_ = nullptr;
  QMenu* view_menu_ = nullptr;
  QMenu* help_menu_ = nullptr;
  QAction* open_basemap_action_ = nullptr;
  QAction* open_video_action_ = nullptr;
  QAction* open_folder_action_ = nullptr;
  QAction* open_telemetry_action_ = nullptr;
  QAction* clear_recent_action_ = nullptr;
  QAction* quit_action_ = nullptr;
  QAction* zoom_in_action_ = nullptr;
  QAction* zoom_out_action_ = nullptr;
  QAction* zoom_fit_action_ = nullptr;
  QAction* about_action_ = nullptr;

  // Entries "basemap:PATH" or "video:PATH" (the kind decides how to reopen them).
  QStringList recent_entries_;

  std::unique_ptr<io::VideoSource> video_;
  QString video_path_;
  int video_frame_index_ = -1;
  double video_frame_t_s_ = 0.0;
  bool cursor_over_map_ = false;
  double cursor_lat_deg_ = 0.0;
  double cursor_lon_deg_ = 0.0;
};

}  // namespace skytrace::ui
