// The bounded hand-off of keyframe requests from the VO worker to the satellite worker,
// with the two ways a producer can meet a full queue (the Pipeline's KeyframePolicy):
//   pushEvictingOldest()   latest wins: the OLDEST waiting item is evicted and counted as
//                          dropped; never blocks (live use: VO never waits);
//   pushWaitingForRoom()   back-pressure: blocks until a consumer pops (or the queue is
//                          closed), running a caller's callback periodically meanwhile;
//                          nothing is evicted (offline use: every keyframe registered).
// Every pushed item ends up either queued or counted in droppedCount() (evicted,
// discarded after close(), or abandoned by a throwing wait callback).
// Thread: any number of producers and consumers; all methods are thread-safe; no
// busy-waiting (condition variables; a waiting producer wakes on pop, close() or its
// callback interval).
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
  // is closed (`item` discarded, counted as dropped). While it waits, `while_waiting()`
  // runs every `callback_interval` (without the queue's lock held), e.g. the VO
  // thread's RunControl::checkpoint(), which may block while paused or throw Cancelled:
  // an exception from it propagates with `item` discarded (counted as dropped) and the
  // queue unchanged. Time spent waiting for room (excluding the callback's own time) is
  // added to waitedForRoom().
  template <typename Rep, typename Period, typename Callback>
  bool pushWaitingForRoom(T item, std::chrono::duration<Rep, Period> callback_interval,
                          Callback&& while_waiting) {
    std::unique_lock<std::mutex> lock(mutex_);
    const auto hasRoom = [&] { return closed_ || items_.size() < capacity_; };
    while (!hasRoom()) {
      const auto wait_start = std::chrono::steady_clock::now();
      const bool woke = room_.wait_for(lock, callback_interval, hasRoom);
      waited_ += std::chrono::steady_clock::now() - wait_start;
      if (woke) break;
      lock.unlock();
      try {
        while_waiting();
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
    if (items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    lock.unlock();
    room_.notify_one();
    return item;
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
  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;  // an item arrived, or closed
  std::condition_variable room_;   // an item was taken, or closed
  std::deque<T> items_;
  bool closed_ = false;
  std::uint64_t dropped_ = 0;
  std::uint64_t pushed_ = 0;
  std::chrono::steady_clock::duration waited_{};
};

}  // namespace skytrace::engine
