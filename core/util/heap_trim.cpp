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

void PeriodicHeapTrim::poll() {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_ < interval_) return;
  trimHeapNow();
  last_ = std::chrono::steady_clock::now();
}

}  // namespace skytrace
