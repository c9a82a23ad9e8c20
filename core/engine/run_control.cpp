#include "core/engine/run_control.h"

#include "core/util/error.h"

namespace skytrace::engine {

void RunControl::checkpoint() const {
  const RunControl* parent = parent_.load(std::memory_order_acquire);
  std::unique_lock<std::mutex> lock(mutex_);
  while ((paused_ || (parent && parent->isPaused())) && !isCancelled()) {
    changed_.wait_for(lock, std::chrono::milliseconds(50));
  }
  if (isCancelled()) throw Cancelled();
}

}  // namespace skytrace::engine
