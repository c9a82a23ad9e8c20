// Pause / resume / cancel of one processing run, shared between the thread that controls
// the run (GUI, CLI) and the workers. Workers call checkpoint() between units of work: it
// blocks while paused and throws skytrace::Cancelled once cancelled. A worker that waits
// for something else (a free ring slot, a keyframe, a fix) registers a listener, which
// every change of cancel or pause calls, here or in the parent, so that its wait ends at
// once: nothing re-checks the control on a timer.
// Thread: all methods are thread-safe. Not async-signal-safe: a signal handler hands
// the signal to a thread that calls requestCancel (app/cli's CancelOnInterrupt).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

namespace skytrace::engine {

class RunControl {
 public:
  // A registration of a wake-up function with a control (RunControl::listen); it ends
  // with this object. Movable, not copyable.
  class Listener {
   public:
    Listener() = default;
    Listener(Listener&& other) noexcept { *this = std::move(other); }
    Listener& operator=(Listener&& other) noexcept;
    ~Listener() { reset(); }
    Listener(const Listener&) = delete;
    Listener& operator=(const Listener&) = delete;
    // Ends the registration; returns once no call of the function is in progress.
    void reset();

   private:
    friend class RunControl;
    Listener(const RunControl* control, std::uint64_t id) : control_(control), id_(id) {}
    const RunControl* control_ = nullptr;
    std::uint64_t id_ = 0;
  };

  RunControl() = default;
  ~RunControl() { parent_listener_.reset(); }
  RunControl(const RunControl&) = delete;
  RunControl& operator=(const RunControl&) = delete;

  void requestCancel();
  // Cancelled here or in the parent.
  bool isCancelled() const noexcept {
    if (cancelled_.load(std::memory_order_acquire)) return true;
    const RunControl* parent = parent_.load(std::memory_order_acquire);
    return parent && parent->isCancelled();
  }

  // Makes this control also obey `parent` (null: none), e.g. a run's own control that
  // follows the front end's: checkpoint() then blocks while either is paused, throws
  // once either is cancelled, and the parent's changes reach this control's listeners.
  // The parent is only read (an error that cancels this run does not cancel the front
  // end's control); it must outlive this control or the next setParent. Set it before
  // the workers start.
  void setParent(const RunControl* parent);

  void setPaused(bool paused);
  // Paused here or in the parent.
  bool isPaused() const noexcept {
    if (paused_.load(std::memory_order_acquire)) return true;
    const RunControl* parent = parent_.load(std::memory_order_acquire);
    return parent && parent->isPaused();
  }

  // Clears cancel and pause for a new run.
  void reset();

  // Blocks while paused (woken by a resume or a cancel here or in the parent); throws
  // skytrace::Cancelled when the run was cancelled. Call from worker threads.
  void checkpoint() const;

  // Registers `wake`, called after every change of cancel or pause here or in the
  // parent, on the thread that made the change, never two calls at once for one
  // control. Typical use: lock the waiter's mutex, then notify its condition variable
  // (whose predicate reads isCancelled / isPaused). `wake` must not call listen or
  // reset a Listener; create the Listener before taking the mutex `wake` locks.
  [[nodiscard]] Listener listen(std::function<void()> wake) const;

 private:
  void notifyChange() const;  // wakes checkpoint() and every listener

  std::atomic<bool> cancelled_{false};
  std::atomic<bool> paused_{false};
  std::atomic<const RunControl*> parent_{nullptr};
  mutable std::mutex mutex_;  // checkpoint's wait
  mutable std::condition_variable changed_;
  mutable std::mutex listeners_mutex_;  // held while listeners are called
  mutable std::map<std::uint64_t, std::function<void()>> listeners_;
  mutable std::uint64_t next_listener_id_ = 1;
  Listener parent_listener_;  // this control's registration with its parent (last member)
};

}  // namespace skytrace::engine
