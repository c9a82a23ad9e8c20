// The bounded hand-off of keyframe requests from the VO worker to the satellite worker,
// with the two ways a producer can meet a full queue (the Pipeline's KeyframePolicy):
//   pushEvictingOldest()   latest wins: the OLDEST waiting item is evicted and counted as
//                          dropped; never blocks (live use: VO never waits);
//   pushWaitingForRoom()   back-pressure: blocks until a consumer pops or the queue is
//                          closed; each wake() meanwhile runs the caller's callback
//                          (e.g. RunControl::checkpoint, wired by a RunControl listener);
//                          nothing is evicted (offline use: every keyframe registered).
// Every pushed item ends up either queued or counted in droppedCount() (evicted,
// discarded after close(), or abandoned by a throwing wait callback).
// Thread: any number of producers and consumers; all methods are thread-safe; nothing
// polls (condition variables: waiters wake on push, pop, close() and wake()).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>

namespace skytrace::engine {

template <typename T>
class KeyframeQueue {
 public:
  explicit KeyframeQueue(std::size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

  // Latest wins: enqueues `item`; when full, evicts the oldest waiting item first.
  // Returns false when an item was dropped for it, or when the queue is closed (then
  // `item` itself is discarded). Never blocks beyond the queue's mutex.
  bool pushEvictingOldest(T item) {
    bool dropped = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (closed_) {
        ++dropped_;
        return false;
      }
      if (items_.size() >= capacity_) {
        items_.pop_front();
        ++dropped_;
        dropped = true;
      }
      items_.push_back(std::move(item));
      ++pushed_;
    }
    ready_.notify_one();
    return !dropped;
  }

  // Back-pressure: waits while the queue is full, then enqueues `item` (true). Wakes as
  // soon as a consumer pops or close() is called; returns false promptly once the queue
  // is closed (`item` discarded, counted as dropped). Each wake() while it waits runs
  // `on_wake()` (without the queue's lock held), e.g. the VO thread's
  // RunControl::checkpoint(), which may block while paused or throw Cancelled: an
  // exception from it propagates with `item` discarded (counted as dropped) and the
  // queue unchanged. A wake() after the previous on_wake() began is never missed. Time
  // spent waiting for room (excluding on_wake's own time) is added to waitedForRoom().
  template <typename Callback>
  bool pushWaitingForRoom(T item, Callback&& on_wake) {
    std::unique_lock<std::mutex> lock(mutex_);
    const auto hasRoom = [&] { return closed_ || items_.size() < capacity_; };
    std::uint64_t seen = wakes_;
    while (!hasRoom()) {
      const auto wait_start = std::chrono::steady_clock::now();
      room_.wait(lock, [&] { return hasRoom() || wakes_ != seen; });
      waited_ += std::chrono::steady_clock::now() - wait_start;
      if (hasRoom()) break;
      seen = wakes_;
      lock.unlock();
      try {
        on_wake();
      } catch (...) {
        lock.lock();
        ++dropped_;
        throw;
      }
      lock.lock();
    }
    if (closed_) {
      ++dropped_;
      return false;
    }
    items_.push_back(std::move(item));
    ++pushed_;
    lock.unlock();
    ready_.notify_one();
    return true;
  }

  // Waits up to `timeout` for an item. Returns nullopt on timeout or once the queue is
  // closed and empty. A pop makes room for one waiting producer.
  template <typename Rep, typename Period>
  std::optional<T> popFor(std::chrono::duration<Rep, Period> timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait_for(lock, timeout, [&] { return closed_ || !items_.empty(); });
    return popLocked(&lock);
  }

  // The count of wake() calls so far: pass it to popUntilWoken, read before checking
  // what a wake announces (so that no wake in between is missed).
  std::uint64_t wakeCount() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return wakes_;
  }
  // Waits for an item; returns nullopt once the queue is closed and empty, or when
  // wake() was called since wakeCount() returned `seen`.
  std::optional<T> popUntilWoken(std::uint64_t seen) {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return closed_ || !items_.empty() || wakes_ != seen; });
    return popLocked(&lock);
  }

  // Wakes every waiting producer (which runs its on_wake) and popUntilWoken consumer,
  // e.g. on a pause or cancel of the run. Changes nothing else.
  void wake() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++wakes_;
    }
    ready_.notify_all();
    room_.notify_all();
  }

  std::optional<T> tryPop() { return popFor(std::chrono::milliseconds(0)); }

  // Wakes all waiting consumers and producers; later pushes are discarded. Items
  // already queued can still be popped.
  void close() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
    room_.notify_all();
  }

  // Re-opens a closed queue and forgets its content and counters (restart of a run).
  // Call only while no producer is waiting.
  void reset() {
    std::lock_guard<std::mutex> lock(mutex_);
    items_.clear();
    closed_ = false;
    dropped_ = 0;
    wakes_ = 0;
    pushed_ = 0;
    waited_ = std::chrono::steady_clock::duration::zero();
  }

  bool isClosed() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return closed_;
  }

  std::size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return items_.size();
  }
  std::uint64_t droppedCount() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return dropped_;
  }
  std::uint64_t pushedCount() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return pushed_;
  }
  // Total time producers spent blocked in pushWaitingForRoom (summed over producers).
  std::chrono::steady_clock::duration waitedForRoom() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return waited_;
  }
  std::size_t capacity() const { return capacity_; }

 private:
  std::optional<T> popLocked(std::unique_lock<std::mutex>* lock) {
    if (items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    lock->unlock();
    room_.notify_one();
    return item;
  }

  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;  // an item arrived, closed, or wake()
  std::condition_variable room_;   // an item was taken, closed, or wake()
  std::deque<T> items_;
  bool closed_ = false;
  std::uint64_t dropped_ = 0;
  std::uint64_t pushed_ = 0;
  std::uint64_t wakes_ = 0;
  std::chrono::steady_clock::duration waited_{};
};

}  // namespace skytrace::engine
