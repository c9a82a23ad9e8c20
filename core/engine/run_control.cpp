#include "core/engine/run_control.h"

#include "core/util/error.h"

namespace skytrace::engine {

void RunControl::checkpoint() const {
  std::unique_lock<std::mutex> lock(mutex_);
  while (paused_ && !isCancelled()) {
    changed_.wait_for(lock, std::chrono::milliseconds(50));
  }
  if (isCancelled()) throw Cancelled();
}

}  // namespace skytrace::engine
