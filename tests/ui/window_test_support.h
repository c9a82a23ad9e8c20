// Shared by the tests that drive the main window offscreen.
#pragma once

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

}  // namespace skytrace::test
