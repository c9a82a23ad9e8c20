// The Skytrace main window: menus, map view, plot area, status bar.
// Thread: GUI thread only.
#pragma once

#include <QMainWindow>

namespace skytrace::ui {

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;
};

}  // namespace skytrace::ui
