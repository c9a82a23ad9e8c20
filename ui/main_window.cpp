#include "ui/main_window.h"

#include <QStatusBar>

namespace skytrace::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("Skytrace"));
  statusBar()->showMessage(tr("Ready"));
  resize(1280, 800);
}

MainWindow::~MainWindow() = default;

}  // namespace skytrace::ui
