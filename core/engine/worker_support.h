// Internal helpers shared by the engine's run modes (pipeline.cpp, sequential_run.cpp,
// satellite_worker.cpp): the inbox that carries fixes from the satellite thread to the
// VO thread, the latch that keeps the first error of a run, fix application with its
// bookkeeping, and the steady-clock seconds of a run's report.
// Thread: FixInbox and ErrorLatch are thread-safe; applyFix runs on the VO thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
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

// Fixes from the satellite workers to the VO thread. A waiting VO thread wakes when a fix
// arrives or wake() is called (a satellite worker ended, the run was paused or cancelled).
class FixInbox {
 public:
  void push(std::shared_ptr<SatelliteFix> fix) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      fixes_.push_back(std::move(fix));
    }
    arrived_.notify_all();
  }
  // Everything that arrived, at once.
  std::vector<std::shared_ptr<SatelliteFix>> takeAll() {
    std::lock_guard<std::mutex> lock(mutex_);
    return takeLocked();
  }
  // The count of wake() calls so far: read it before checking what a wake announces,
  // then pass it to takeAllWaiting (so that no wake in between is missed).
  std::uint64_t wakeCount() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return wakes_;
  }
  // Everything that arrived, waiting until something did, wake() was called since
  // wakeCount() returned `seen`, or `deadline` (time_point::max(): no deadline).
  std::vector<std::shared_ptr<SatelliteFix>> takeAllWaiting(std::uint64_t seen,
                                                            std::chrono::steady_clock::time_point deadline) {
    std::unique_lock<std::mutex> lock(mutex_);
    const auto ready = [&] { return !fixes_.empty() || wakes_ != seen; };
    if (deadline == std::chrono::steady_clock::time_point::max()) arrived_.wait(lock, ready);
    else arrived_.wait_until(lock, deadline, ready);
    return takeLocked();
  }
  void wake() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++wakes_;
    }
    arrived_.notify_all();
  }

 private:
  std::vector<std::shared_ptr<SatelliteFix>> takeLocked() {
    std::vector<std::shared_ptr<SatelliteFix>> out(fixes_.begin(), fixes_.end());
    fixes_.clear();
    return out;
  }

  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  std::deque<std::shared_ptr<SatelliteFix>> fixes_;
  std::uint64_t wakes_ = 0;
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
