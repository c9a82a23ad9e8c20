#include "core/engine/frame_feed.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "core/engine/engine_frame_impl.h"
#include "core/engine/gpu_streams_impl.h"
#include "core/util/error.h"
#include "core/util/log.h"

namespace skytrace::engine {

void FrameFeedOptions::check() const {
  if (ring_slots < 2 || ring_slots > 64)
    throw InvalidArgument("frame ring needs 2..64 slots, got " + std::to_string(ring_slots));
  if (max_frames == 0 || max_frames < -1)
    throw InvalidArgument("max_frames must be -1 (all) or >= 1");
}

namespace {
struct Slot {
  at::Tensor host;    // [H,W,3] uint8, pinned on CUDA
  at::Tensor device;  // [H,W,3] uint8 on the feed's device (== host on the CPU)
  DeviceEvent upload_start, upload_end, consumed;
  double upload_host_start_ms = 0.0;
  std::int64_t index = -1;
  double t_s = 0.0;
};
}  // namespace

struct FrameFeed::State {
  std::unique_ptr<FrameSource> source;
  FrameFeedOptions options;
  LatencySink* recorder;
  const RunControl* control;
  SteadyClockMs local_clock;  // the time base without a recorder
  std::vector<Slot> slots;

  mutable std::mutex mutex;
  std::condition_variable changed;
  std::deque<int> free_slots;
  std::deque<int> ready_slots;
  bool ended = false;     // decode thread finished (end, stop, error or cancel)
  bool stopping = false;
  std::exception_ptr error;
  FrameFeedStats stats;
  std::thread thread;
  // A pause, resume or cancel wakes whichever side waits here. Last member: it ends
  // before what it wakes.
  RunControl::Listener control_wake;

  double nowMs() const { return recorder ? recorder->nowMs() : local_clock.nowMs(); }
  bool uploads() const { return options.device.cuda; }

  void decodeLoop();
  // Holds the decode thread while the run is paused; returns false when it must stop
  // (stop() or cancel), true to go on.
  bool waitWhilePaused() {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return !(control && control->isPaused()) || stopping || control->isCancelled(); });
    return !stopping && !(control && control->isCancelled());
  }
};

FrameFeed::FrameFeed(std::unique_ptr<FrameSource> source, FrameFeedOptions options,
                     LatencySink* recorder, const RunControl* control)
    : state_(std::make_unique<State>()) {
  options.check();
  if (!source) throw InvalidArgument("FrameFeed: no frame source");
  state_->source = std::move(source);
  state_->options = options;
  state_->recorder = recorder;
  state_->control = control;
  if (control) {
    State* state = state_.get();
    state_->control_wake = control->listen([state] {
      { std::lock_guard<std::mutex> lock(state->mutex); }
      state->changed.notify_all();
    });
  }
  const FrameSourceInfo& info = state_->source->info();
  if (info.width_px < 1 || info.height_px < 1)
    throw InvalidArgument("frame source '" + info.description + "' has no frame size");
  state_->slots.resize(static_cast<std::size_t>(options.ring_slots));
  for (std::size_t i = 0; i < state_->slots.size(); ++i) {
    Slot& slot = state_->slots[i];
    slot.host = allocateHostBuffer({info.height_px, info.width_px, 3}, at::kByte, options.device,
                                   options.pinned_host_memory);
    slot.device = state_->uploads()
                      ? at::empty({info.height_px, info.width_px, 3},
                                  at::TensorOptions().dtype(at::kByte).device(atDevice(options.device)))
                      : slot.host;
    state_->free_slots.push_back(static_cast<int>(i));
  }
}

FrameFeed::~FrameFeed() { stop(); }

const FrameSourceInfo& FrameFeed::sourceInfo() const { return state_->source->info(); }

void FrameFeed::start() {
  if (state_->thread.joinable()) throw InvalidArgument("FrameFeed::start: already started");
  state_->thread = std::thread([state = state_.get()] { state->decodeLoop(); });
}

void FrameFeed::State::decodeLoop() {
  try {
    c10::InferenceMode inference_guard;
    const DeviceStream copy_stream = DeviceStream::create(options.device, StreamPriority::Normal);
    const FrameSourceInfo& info = source->info();
    const std::size_t stride = static_cast<std::size_t>(info.width_px) * 3;
    std::int64_t produced = 0;
    while (options.max_frames < 0 || produced < options.max_frames) {
      int slot_index = -1;
      {
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [&] { return !free_slots.empty() || stopping || (control && control->isCancelled()); });
        if (stopping || (control && control->isCancelled())) break;
        slot_index = free_slots.front();
        free_slots.pop_front();
      }
      if (!waitWhilePaused()) {
        std::lock_guard<std::mutex> lock(mutex);
        free_slots.push_front(slot_index);
        break;
      }
      Slot& slot = slots[static_cast<std::size_t>(slot_index)];
      slot.upload_end.synchronize();  // the host buffer's previous upload is done
      const double decode_start_ms = nowMs();
      std::int64_t index = -1;
      double t_s = 0.0;
      const bool got = source->read(&index, &t_s, slot.host.data_ptr<std::uint8_t>(), stride);
      if (!got) break;
      if (recorder)
        recorder->push({index, Stage::Decode, decode_start_ms, nowMs() - decode_start_ms, -1, -1});
      slot.index = index;
      slot.t_s = t_s;
      if (uploads()) {
        StreamGuard guard(copy_stream);
        slot.consumed.block(copy_stream);  // the consumer is done with the device buffer
        slot.upload_host_start_ms = nowMs();
        slot.upload_start.record(copy_stream);
        slot.device.copy_(slot.host, /*non_blocking=*/true);
        slot.upload_end.record(copy_stream);
      }
      ++produced;
      {
        std::lock_guard<std::mutex> lock(mutex);
        ready_slots.push_back(slot_index);
        ++stats.frames_decoded;
        stats.max_ready_slots = std::max(stats.max_ready_slots, static_cast<int>(ready_slots.size()));
      }
      changed.notify_all();
    }
    // Uploads still in flight (frames decoded but never consumed) must finish before
    // the slots' device memory can be freed or reused.
    copy_stream.synchronize();
  } catch (...) {
    std::lock_guard<std::mutex> lock(mutex);
    error = std::current_exception();
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    ended = true;
  }
  changed.notify_all();
}

std::optional<FeedFrame> FrameFeed::next(const DeviceStream& consumer) {
  State& s = *state_;
  int slot_index = -1;
  {
    std::unique_lock<std::mutex> lock(s.mutex);
    s.changed.wait(lock, [&] { return !s.ready_slots.empty() || s.ended || (s.control && s.control->isCancelled()); });
    if (s.ready_slots.empty()) {
      if (s.error) std::rethrow_exception(s.error);
      return std::nullopt;
    }
    slot_index = s.ready_slots.front();
    s.ready_slots.pop_front();
  }
  Slot& slot = s.slots[static_cast<std::size_t>(slot_index)];
  slot.upload_end.block(consumer);  // device-side wait for the upload
  FeedFrame out;
  out.slot = slot_index;
  out.frame.index = slot.index;
  out.frame.t_s = slot.t_s;
  out.frame.width_px = static_cast<int>(slot.device.size(1));
  out.frame.height_px = static_cast<int>(slot.device.size(0));
  out.frame.device = s.options.device;
  out.frame.pixels = std::make_shared<const EngineFrame::Pixels>(EngineFrame::Pixels{slot.device});
  return out;
}

std::optional<std::pair<double, double>> FrameFeed::uploadTiming(const FeedFrame& frame) const {
  if (!state_->uploads()) return std::nullopt;
  const Slot& slot = state_->slots.at(static_cast<std::size_t>(frame.slot));
  slot.upload_end.synchronize();
  return std::make_pair(slot.upload_host_start_ms, slot.upload_start.elapsedMsUntil(slot.upload_end));
}

void FrameFeed::release(const FeedFrame& frame, const DeviceStream& consumer) {
  State& s = *state_;
  if (frame.slot < 0 || frame.slot >= static_cast<int>(s.slots.size()))
    throw InvalidArgument("FrameFeed::release: not a frame of this feed");
  if (s.uploads()) s.slots[static_cast<std::size_t>(frame.slot)].consumed.record(consumer);
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.free_slots.push_back(frame.slot);
  }
  s.changed.notify_all();
}

void FrameFeed::stop() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->stopping = true;
  }
  state_->changed.notify_all();
  if (state_->thread.joinable()) state_->thread.join();
}

FrameFeedStats FrameFeed::stats() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->stats;
}

}  // namespace skytrace::engine
