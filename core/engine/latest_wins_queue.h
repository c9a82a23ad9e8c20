// A bounded hand-off queue where the newest request wins: when full, push() evicts the
// OLDEST waiting item and counts it as dropped. Used to feed keyframes to the satellite
// worker, which must always work on the most recent frames and never hold up VO.
// Thread: any number of producers and consumers; all methods are thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>

namespace skytrace::engine {

template <typename T>
class LatestWinsQueue {
 public:
  explicit LatestWinsQueue(std::size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

  // Enqueues `item`; returns false when an older item had to be dropped for it.
  // After close(), items are discarded (counted as dropped).
  bool push(T item) {
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

  // Waits up to `timeout` for an item. Returns nullopt on timeout or once the queue is
  // closed and empty.
  template <typename Rep, typename Period>
  std::optional<T> popFor(std::chrono::duration<Rep, Period> timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait_for(lock, timeout, [&] { return closed_ || !items_.empty(); });
    if (items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    return item;
  }

  std::optional<T> tryPop() { return popFor(std::chrono::milliseconds(0)); }

  // Wakes all waiters; later pushes are discarded. Items already queued can still be popped.
  void close() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
    }
    ready_.notify_all();
  }

  // Re-opens a closed queue and forgets its content (restart of a run).
  void reset() {
    std::lock_guard<std::mutex> lock(mutex_);
    items_.clear();
    closed_ = false;
    dropped_ = 0;
    pushed_ = 0;
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
  std::size_t capacity() const { return capacity_; }

 private:
  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<T> items_;
  bool closed_ = false;
  std::uint64_t dropped_ = 0;
  std::uint64_t pushed_ = 0;
};

}  // namespace skytrace::engine
