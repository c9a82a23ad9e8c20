// While a CancelOnInterrupt lives, SIGINT (Ctrl+C) and SIGTERM (what `kill`, Slurm and
// Kubernetes send to stop a job) cancel a run's control: the run stops and keeps what it
// computed. The signal handler only writes a byte to a pipe (async-signal-safe); a thread
// of this object reads it and calls RunControl::requestCancel, which wakes the run's
// waiting threads and is not async-signal-safe itself. The previous handlers come back on
// destruction. The exit code of a cancelled command is 128 + the signal (130 for SIGINT,
// 143 for SIGTERM; stopSignalExitCode).
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
  void (*previous_sigint_)(int) = SIG_DFL;
  void (*previous_sigterm_)(int) = SIG_DFL;
  std::thread thread_;
};

// The exit code of a command cancelled by a stop signal: 128 + the last one received in
// this process (SIGTERM: 143), 130 (SIGINT) when none was.
int stopSignalExitCode();

}  // namespace skytrace::cli
