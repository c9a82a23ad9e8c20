// WelcomePage: what the window shows while nothing is open: the ways in (Open Flight,
// Open Project, Open Results Folder, Open the Demo), the recent projects and results
// folders (one click reopens them), and the demo's progress while it is being built.
// It only asks; MainWindow does the opening.
// Thread: GUI thread only.
#pragma once

#include <QStringList>
#include <QWidget>

class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;

namespace skytrace::ui {

class WelcomePage : public QWidget {
  Q_OBJECT

 public:
  explicit WelcomePage(QWidget* parent = nullptr);

  // The recent entries as MainWindow keeps them ("kind:path", most recent first); only
  // projects and results folders are listed.
  void setRecentEntries(const QStringList& entries);
  // The demo's build: percent in [0, 100] with the stage; percent < 0 hides the bar.
  void setDemoProgress(int percent, const QString& stage);

  QPushButton* openFlightButton() const { return open_flight_; }
  QPushButton* openProjectButton() const { return open_project_; }
  QPushButton* openResultsButton() const { return open_results_; }
  QPushButton* openDemoButton() const { return open_demo_; }
  QListWidget* recentList() const { return recent_; }
  QProgressBar* demoProgress() const { return demo_progress_; }

 Q_SIGNALS:
  void openFlightRequested();
  void openProjectRequested();
  void openResultsRequested();
  void openDemoRequested();
  // A recent entry ("kind:path") was chosen.
  void recentRequested(const QString& entry);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void retranslateUi();

  QLabel* title_ = nullptr;
  QLabel* intro_ = nullptr;
  QLabel* recent_title_ = nullptr;
  QLabel* no_recent_ = nullptr;
  QPushButton* open_flight_ = nullptr;
  QPushButton* open_project_ = nullptr;
  QPushButton* open_results_ = nullptr;
  QPushButton* open_demo_ = nullptr;
  QProgressBar* demo_progress_ = nullptr;
  QLabel* demo_stage_ = nullptr;
  QListWidget* recent_ = nullptr;
  QStringList recent_entries_;
};

}  // namespace skytrace::ui
