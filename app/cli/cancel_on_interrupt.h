// While a CancelOnInterrupt lives, SIGINT (Ctrl+C) cancels a run's control. The signal
// handler only writes a byte to a pipe (async-signal-safe); a thread of this object reads
// it and calls RunControl::requestCancel, which wakes the run's waiting threads and is
// not async-signal-safe itself. The previous handler comes back on destruction.
// Thread: construct and destroy on the command's main thread; one at a time.
#pragma once

#include <csignal>
#include <thread>

#include "core/engine/run_control.h"

namespace skytrace::cli {

class CancelOnInterrupt {
 public:
  // Throws IoError when the pipe cannot be made.
  explicit CancelOnInterrupt(engine::RunControl* control);
  ~CancelOnInterrupt();
  CancelOnInterrupt(const CancelOnInterrupt&) = delete;
  CancelOnInterrupt& operator=(const CancelOnInterrupt&) = delete;

 private:
  engine::RunControl* control_;
  int pipe_[2] = {-1, -1};
  void (*previous_handler_)(int) = SIG_DFL;
  std::thread thread_;
};

}  // namespace skytrace::cli
