// Items 0..count-1 made in order on a thread of their own, ahead of the caller who takes
// them in the same order: slow reads (basemap windows through GDAL) overlap the caller's
// work on the items already made. At most `ahead` items wait untaken, which bounds the
// memory. The registrar prefetches a global search's map tiles this way while its own
// thread extracts their features (core/nav/basemap_registration.cpp).
// Threads: `make` runs on the prefetch thread only (it may keep state there, such as
// its own file handles); the constructor, take() and the destructor belong to one
// caller thread. The destructor stops after the item under way and joins: it never
// terminates the thread, and waits at most for one `make`.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "core/util/check.h"

namespace skytrace {

template <typename T>
class OrderedPrefetch {
 public:
  using Make = std::function<T(std::size_t index)>;

  // Starts making items 0..count-1 with `make` (ahead >= 1).
  OrderedPrefetch(std::size_t count, std::size_t ahead, Make make)
      : count_(count), ahead_(ahead), make_(std::move(make)) {
    checkArgument(ahead_ >= 1, "prefetch: read at least one item ahead");
    checkArgument(static_cast<bool>(make_), "prefetch: nothing makes the items");
    thread_ = std::thread([this] { run(); });
  }

  ~OrderedPrefetch() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }

  OrderedPrefetch(const OrderedPrefetch&) = delete;
  OrderedPrefetch& operator=(const OrderedPrefetch&) = delete;

  std::size_t count() const { return count_; }
  // The index the next take() returns (== count() when every item is taken).
  std::size_t nextIndex() const { return taken_; }

  // The next item, waiting until it is made. Rethrows what `make` threw for it; the
  // prefetch then makes nothing more (the caller starts a new one to try again).
  T take() {
    checkArgument(taken_ < count_, "prefetch: every item is taken");
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return !ready_.empty() || error_; });
    if (ready_.empty()) std::rethrow_exception(error_);
    T item = std::move(ready_.front());
    ready_.pop_front();
    ++taken_;
    lock.unlock();
    changed_.notify_all();  // room for one more
    return item;
  }

 private:
  void run() {
    for (std::size_t index = 0; index < count_; ++index) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [this] { return stop_ || ready_.size() < ahead_; });
        if (stop_) return;
      }
      std::optional<T> item;
      try {
        item.emplace(make_(index));
      } catch (...) {
        {
          const std::lock_guard<std::mutex> lock(mutex_);
          error_ = std::current_exception();
        }
        changed_.notify_all();
        return;
      }
      {
        const std::lock_guard<std::mutex> lock(mutex_);
        ready_.push_back(std::move(*item));
      }
      changed_.notify_all();
    }
  }

  const std::size_t count_;
  const std::size_t ahead_;
  Make make_;                // called on thread_ only
  std::size_t taken_ = 0;    // the caller's
  std::mutex mutex_;
  std::condition_variable changed_;  // an item made, taken, failed, or stop
  std::deque<T> ready_;      // made, not taken (guarded by mutex_)
  std::exception_ptr error_; // what make threw (guarded by mutex_)
  bool stop_ = false;        // guarded by mutex_
  std::thread thread_;       // last: starts after the members above exist
};

}  // namespace skytrace
