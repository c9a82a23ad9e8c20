// Returning freed heap memory to the operating system during long runs.
//
// glibc keeps what a thread frees in that thread's arena, and raises its mmap threshold
// each time a large block is freed, so that later frame-sized blocks (a 640x360 BGR frame
// is 0.7 MB) come from the arenas too. Over a long video with decode, VO, registration
// and LibTorch threads the resident set then grows with the run although the live heap
// does not (measured: +145 KB per frame at 640x360, overlapped, ORB). Trimming every
// arena now and then gives those pages back.
// Thread: any; trimNow locks each arena in turn (a few ms with many threads).
#pragma once

#include <chrono>

namespace skytrace {

// Gives free heap pages of every arena back to the system (malloc_trim on glibc; nothing
// elsewhere). Returns true when memory was released.
bool trimHeapNow();

// Calls trimHeapNow() at most once per `interval` from the thread that polls it.
class PeriodicHeapTrim {
 public:
  explicit PeriodicHeapTrim(std::chrono::milliseconds interval = std::chrono::seconds(2)) : interval_(interval) {}
  // Trims when the interval has passed since the last trim (or since construction).
  void poll();

 private:
  std::chrono::milliseconds interval_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace skytrace
