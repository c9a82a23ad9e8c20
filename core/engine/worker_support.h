// Internal helpers shared by the engine's run modes (pipeline.cpp, sequential_run.cpp,
// satellite_worker.cpp): the inbox that carries fixes from the satellite thread to the
// VO thread, the latch that keeps the first error of a run, fix application with its
// bookkeeping, and the steady-clock seconds of a run's report.
// Thread: FixInbox and ErrorLatch are thread-safe; applyFix runs on the VO thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/engine/latency_recorder.h"
#include "core/engine/payload.h"
#include "core/engine/run_report.h"

namespace skytrace::engine {

// Seconds of the steady clock since `start` (RunReport's wall_s, first_frame_s, finish_s).
inline double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

class FixInbox {
 public:
  void push(std::shared_ptr<SatelliteFix> fix) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      fixes_.push_back(std::move(fix));
    }
    arrived_.notify_all();
  }
  // Everything that arrived, waiting up to `timeout` when nothing is there yet.
  std::vector<std::shared_ptr<SatelliteFix>> takeAll(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (fixes_.empty() && timeout.count() > 0)
      arrived_.wait_for(lock, timeout, [&] { return !fixes_.empty(); });
    std::vector<std::shared_ptr<SatelliteFix>> out(fixes_.begin(), fixes_.end());
    fixes_.clear();
    return out;
  }

 private:
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::deque<std::shared_ptr<SatelliteFix>> fixes_;
};

// Keeps the first error message of a run; later ones are only counted.
class ErrorLatch {
 public:
  // Returns true for the first report of the run.
  bool report(const std::string& message) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++count_;
    if (!message_.empty()) return false;
    message_ = message.empty() ? std::string("unknown error") : message;
    return true;
  }
  std::string message() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return message_;
  }
  int count() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return count_;
  }

 private:
  mutable std::mutex mutex_;
  std::string message_;
  int count_ = 0;
};

// Applies one fix on the VO thread, timing it as the "fusion" stage and updating the
// report's fix counters. `current_frame` is the last frame VO has processed.
inline void applyFix(VoPayload& vo, const SatelliteFix& fix, std::int64_t current_frame,
                     LatencySink* recorder, RunReport* report) {
  {
    ScopedStageTimer timer(recorder, fix.frame, Stage::Fusion);
    vo.applyFix(fix);
  }
  if (fix.frame < current_frame) ++report->fixes_late;
  if (!report->applied_fix_frames.empty() && fix.frame < report->applied_fix_frames.back())
    ++report->fixes_out_of_order;
  report->applied_fix_frames.push_back(fix.frame);
  ++report->fixes_applied;
}

}  // namespace skytrace::engine
