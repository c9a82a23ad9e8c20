#include "core/util/heap_trim.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace skytrace {

bool trimHeapNow() {
#if defined(__GLIBC__)
  return malloc_trim(0) != 0;
#else
  return false;
#endif
}

BackgroundHeapTrim::BackgroundHeapTrim(std::chrono::milliseconds interval) : interval_(interval) {
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, interval_, [this] { return stop_; })) {
      lock.unlock();
      trimHeapNow();
      lock.lock();
      ++trims_;
    }
  });
}

BackgroundHeapTrim::~BackgroundHeapTrim() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

int BackgroundHeapTrim::trims() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return trims_;
}

}  // namespace skytrace
