// Shared by the tests that drive the main window offscreen.
#pragma once

#include <QSignalSpy>
#include <QString>
#include <QTest>

#include "ui/main_window.h"

namespace skytrace::test {

// A window as --screenshot runs it: no modal dialog (errors go to errorReported and the
// status bar) and no settings read or written.
inline ui::MainWindowOptions batchOptions() {
  ui::MainWindowOptions options;
  options.interactive = false;
  options.persist_settings = false;
  return options;
}

// Opens a project and waits until its results are shown and nothing is loading any
// more (results read, map tiles, video frame); false when any step fails or times out.
inline bool openProjectAndWait(ui::MainWindow& window, const QString& project, int timeout_ms = 20000) {
  QSignalSpy loaded(&window, &ui::MainWindow::resultsLoaded);
  if (!window.openProject(project) || !loaded.wait(timeout_ms)) return false;
  return QTest::qWaitFor([&window] { return !window.isLoading(); }, timeout_ms);
}

// The same for a results folder (its inputs open with it).
inline bool openResultsAndWait(ui::MainWindow& window, const QString& folder, int timeout_ms = 20000) {
  QSignalSpy loaded(&window, &ui::MainWindow::resultsLoaded);
  if (!window.openResults(folder) || !loaded.wait(timeout_ms)) return false;
  return QTest::qWaitFor([&window] { return !window.isLoading(); }, timeout_ms);
}

}  // namespace skytrace::test
