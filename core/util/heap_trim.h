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
#include <condition_variable>
#include <mutex>
#include <thread>

namespace skytrace {

// Gives free heap pages of every arena back to the system (malloc_trim on glibc; nothing
// elsewhere). Returns true when memory was released.
bool trimHeapNow();

// Calls trimHeapNow() every `interval` on a thread of its own for as long as it lives
// (a run's scope), so that no worker's latency pays for the arena locks. Destruction
// wakes that thread and joins it (bounded by one trimHeapNow()).
// Thread: create and destroy on one thread.
class BackgroundHeapTrim {
 public:
  explicit BackgroundHeapTrim(std::chrono::milliseconds interval = std::chrono::seconds(2));
  ~BackgroundHeapTrim();
  BackgroundHeapTrim(const BackgroundHeapTrim&) = delete;
  BackgroundHeapTrim& operator=(const BackgroundHeapTrim&) = delete;

  int trims() const;  // how many times it trimmed so far

 private:
  std::chrono::milliseconds interval_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  int trims_ = 0;
  std::thread thread_;
};

}  // namespace skytrace
