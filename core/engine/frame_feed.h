// The frame feed: a decode thread reads frames from a FrameSource into a ring of host
// buffers (page-locked on CUDA) and uploads each with an asynchronous copy on its own
// copy stream; events guard the reuse of both the host and the device buffer of a slot:
//   - before decoding into a slot's host buffer, the decode thread waits (host) for the
//     slot's previous upload to finish;
//   - the consumer's stream waits (on the device) for the upload before it reads;
//   - the copy stream waits (on the device) for the consumer's "consumed" event before
//     it overwrites the slot's device buffer.
// No pageable copy on the hot path. On the CPU the same ring runs without copies (the
// device buffer is the host buffer). Frames come out in source order.
// Thread: constructed, started, drained (next/uploadMs/release) and stopped by ONE
// consumer thread (the VO worker); the decode thread is internal.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "core/engine/engine_frame.h"
#include "core/engine/frame_source.h"
#include "core/engine/gpu_streams.h"
#include "core/engine/latency_recorder.h"
#include "core/engine/run_control.h"

namespace skytrace::engine {

struct FrameFeedOptions {
  vision::DeviceSpec device;    // where frames are uploaded
  int ring_slots = 4;           // >= 2
  bool pinned_host_memory = true;  // CUDA only; false = pageable (for comparisons)
  std::int64_t max_frames = -1;    // stop after this many (-1: the whole source)

  void check() const;  // throws InvalidArgument
};

// A frame taken from the feed; give it back with release().
struct FeedFrame {
  EngineFrame frame;
  int slot = -1;
};

struct FrameFeedStats {
  std::int64_t frames_decoded = 0;
  int max_ready_slots = 0;   // how far decoding ran ahead of the consumer
};

class FrameFeed {
 public:
  // `recorder` receives decode samples (may be null); `control` (may be null) pauses and
  // cancels the decode thread.
  FrameFeed(std::unique_ptr<FrameSource> source, FrameFeedOptions options,
            LatencySink* recorder, const RunControl* control);
  ~FrameFeed();  // stop()
  FrameFeed(const FrameFeed&) = delete;
  FrameFeed& operator=(const FrameFeed&) = delete;

  const FrameSourceInfo& sourceInfo() const;

  void start();

  // The next frame in order, its upload ordered before `consumer`'s later work. Waits,
  // waking every 50 ms to notice a cancel (then returns nullopt). nullopt at the end.
  // Rethrows an error of the decode thread (e.g. an unreadable video).
  std::optional<FeedFrame> next(const DeviceStream& consumer);

  // Host-time start and device duration of the frame's upload in ms (after the
  // consumer's work on it was waited for); nullopt on the CPU (no copy).
  std::optional<std::pair<double, double>> uploadTiming(const FeedFrame& frame) const;

  // Returns the slot to the ring after `consumer`'s work enqueued so far.
  void release(const FeedFrame& frame, const DeviceStream& consumer);

  // Stops the decode thread and joins it (bounded by one source read).
  void stop();

  FrameFeedStats stats() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace skytrace::engine
