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
  // Cancelled here or in the parent.
  bool isCancelled() const noexcept {
    if (cancelled_.load(std::memory_order_acquire)) return true;
    const RunControl* parent = parent_.load(std::memory_order_acquire);
    return parent && parent->isCancelled();
  }

  // Makes this control also obey `parent` (null: none), e.g. a run's own control that
  // follows the front end's: checkpoint() then blocks while either is paused and throws
  // once either is cancelled. The parent is only read (an error that cancels this run
  // does not cancel the front end's control); it must outlive the workers' use of this
  // control. Set it before the workers start.
  void setParent(const RunControl* parent) noexcept { parent_.store(parent, std::memory_order_release); }

  void setPaused(bool paused) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      paused_ = paused;
    }
    changed_.notify_all();
  }
  // Paused here or in the parent.
  bool isPaused() const {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (paused_) return true;
    }
    const RunControl* parent = parent_.load(std::memory_order_acquire);
    return parent && parent->isPaused();
  }

  // Clears cancel and pause for a new run.
  void reset() {
    cancelled_.store(false, std::memory_order_release);
    setPaused(false);
  }

  // Blocks while paused (waking at least every 50 ms to notice a cancel or a parent's
  // resume); throws
  // skytrace::Cancelled when the run was cancelled. Call from worker threads.
  void checkpoint() const;

 private:
  std::atomic<bool> cancelled_{false};
  std::atomic<const RunControl*> parent_{nullptr};
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  bool paused_ = false;
};

}  // namespace skytrace::engine
