// Pause / resume / cancel of one processing run, shared between the thread that controls
// the run (GUI, CLI signal handler) and the workers. Workers call checkpoint() between
// units of work: it blocks while paused and throws skytrace::Cancelled once cancelled.
// Thread: all methods are thread-safe; requestCancel() is also async-signal-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace skytrace::engine {

class RunControl {
 public:
  void requestCancel() noexcept {
    cancelled_.store(true, std::memory_order_release);
    // Signal-handler safe: no lock here; waiters poll with a bounded wait.
  }
  bool isCancelled() const noexcept { return cancelled_.load(std::memory_order_acquire); }

  void setPaused(bool paused) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      paused_ = paused;
    }
    changed_.notify_all();
  }
  bool isPaused() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return paused_;
  }

  // Clears cancel and pause for a new run.
  void reset() {
    cancelled_.store(false, std::memory_order_release);
    setPaused(false);
  }

  // Blocks while paused (waking at least every 50 ms to notice a cancel); throws
  // skytrace::Cancelled when the run was cancelled. Call from worker threads.
  void checkpoint() const;

 private:
  std::atomic<bool> cancelled_{false};
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  bool paused_ = false;
};

}  // namespace skytrace::engine
