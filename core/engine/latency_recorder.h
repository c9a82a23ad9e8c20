// Per-frame, per-stage latency of the pipeline. Producers (the VO worker, the satellite
// worker, the decode thread) push samples without locks; one consumer (the report
// writer, or LatencyPublisher on the GUI side) drains them. Durations come from device
// events on GPU and from the steady clock on CPU; the recorder only stores them.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/util/stage.h"

namespace skytrace::engine {

// The stages (core/util/stage.h), named here as the engine's.
using skytrace::kStageCount;
using skytrace::Stage;
using skytrace::stageName;

struct LatencySample {
  std::int64_t frame = -1;    // video frame index
  Stage stage = Stage::Decode;
  double start_ms = 0.0;      // steady-clock start, ms since the recorder's epoch
  double duration_ms = 0.0;
  std::int8_t device = -1;    // -1 = CPU, else CUDA ordinal
  std::int64_t device_bytes_in_use = -1;  // GPU memory in use after the stage, -1 unknown
};

// Where the producers of a run (StageClock, FrameFeed, the workers) put their samples.
// Thread: push and nowMs from any thread.
class LatencySink {
 public:
  virtual ~LatencySink() = default;
  // Milliseconds of the steady clock since the sink's epoch (the time base of start_ms).
  virtual double nowMs() const = 0;
  // Returns false when the sample could not be kept (counted by the sink).
  virtual bool push(const LatencySample& sample) = 0;
};

// Bounded multi-producer / single-consumer queue of samples (Vyukov-style sequence
// slots). push() never blocks: when the consumer lags and the ring is full the sample
// is dropped and counted. Thread: push from any thread; drain from ONE thread at a time.
class LatencyRecorder final : public LatencySink {
 public:
  explicit LatencyRecorder(std::size_t capacity = 1 << 14);  // rounded up to a power of 2
  ~LatencyRecorder();
  LatencyRecorder(const LatencyRecorder&) = delete;
  LatencyRecorder& operator=(const LatencyRecorder&) = delete;

  // Milliseconds of the steady clock since this recorder was created.
  double nowMs() const override;

  // Returns false (and counts a drop) when the ring is full.
  bool push(const LatencySample& sample) override;

  // Appends every sample pushed so far (in ring order) to `out`; returns how many.
  std::size_t drain(std::vector<LatencySample>* out);

  std::uint64_t droppedCount() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  struct Slot;
  std::unique_ptr<Slot[]> slots_;
  std::size_t mask_;
  alignas(64) std::atomic<std::uint64_t> enqueue_pos_{0};
  alignas(64) std::uint64_t dequeue_pos_ = 0;  // consumer-owned
  std::atomic<std::uint64_t> dropped_{0};
  std::int64_t epoch_ns_;
};

// Every sample of one run, in arrival order and without a bound (a few per frame: an
// hour of video is a few MB), each also pushed on to a live recorder when one is given
// (the GUI's, which a LatencyPublisher drains in 40 ms batches), by the producer's thread
// at the moment it is measured. Start times are on the live recorder's clock when there
// is one, so both see the same numbers.
// Thread: push from any thread (a mutex); samples() once the producers are done.
class LatencyLog final : public LatencySink {
 public:
  explicit LatencyLog(LatencyRecorder* live = nullptr);
  double nowMs() const override;
  bool push(const LatencySample& sample) override;
  std::vector<LatencySample> samples() const;

 private:
  LatencyRecorder* live_;
  LatencyRecorder own_clock_{2};
  mutable std::mutex mutex_;
  std::vector<LatencySample> samples_;
};

// Measures one CPU stage with the steady clock and pushes it on destruction.
// Thread: the thread doing the work.
class ScopedStageTimer {
 public:
  ScopedStageTimer(LatencySink* recorder, std::int64_t frame, Stage stage);
  ~ScopedStageTimer();
  ScopedStageTimer(const ScopedStageTimer&) = delete;
  ScopedStageTimer& operator=(const ScopedStageTimer&) = delete;

 private:
  LatencySink* recorder_;
  LatencySample sample_;
};

// Order statistics of one stage over a set of samples.
struct StageStatistics {
  Stage stage = Stage::Decode;
  std::size_t count = 0;
  double mean_ms = 0.0;
  double p50_ms = 0.0;
  double p99_ms = 0.0;
  double max_ms = 0.0;
};

// Statistics per stage that has samples (nearest-rank percentiles), in Stage order.
std::vector<StageStatistics> computeStageStatistics(const std::vector<LatencySample>& samples);

// CSV with header `frame,stage,start_ms,duration_ms,device,device_bytes_in_use`,
// written atomically. Throws IoError.
void writeLatencyCsv(const std::string& path, const std::vector<LatencySample>& samples);

}  // namespace skytrace::engine
