// Per-frame, per-stage latency of the pipeline. Producers (the decode thread, the VO
// worker, the satellite worker) push samples through a LatencySink: a run's LatencyLog
// keeps every one and hands them to a listener (the GUI's live plot) in batches;
// LatencyRecorder is a bounded lock-free queue for a single consumer. Durations come
// from device events on a GPU and from the steady clock on the CPU (StageClock); the
// recorders only store them.
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

// Milliseconds of the steady clock since this object was made: the time base of a run's
// samples (LatencySample::start_ms). Thread: any.
class SteadyClockMs {
 public:
  SteadyClockMs();
  double nowMs() const;

 private:
  std::int64_t epoch_ns_;
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
  SteadyClockMs clock_;
};

// Takes a run's latency samples in batches while it runs (the GUI's live latency plot).
// Thread: called by whichever thread completes a batch (a producer: the decode, VO or
// satellite thread) or calls LatencyLog::flush; never by two threads at once, and
// batches arrive in the order their samples were pushed. Keep it short (hand the batch
// to another thread); it must not push to the log that calls it.
class LatencyBatchListener {
 public:
  virtual ~LatencyBatchListener() = default;
  virtual void onLatencyBatch(std::vector<LatencySample> batch) = 0;
};

// Every sample of one run, in arrival order and without a bound (a few per frame: an
// hour of video is a few MB): the run's one recorder, which latency.csv, report.json and
// the live plot all read. With a listener, the samples also go out in batches as they
// arrive: the push that finds `batch_interval_ms` passed since the last batch hands over
// everything not yet handed over (so a listener is called at most 1000 / interval times
// a second however fast the run goes), and flush() hands over the rest. Nothing polls.
// Thread: push and nowMs from any thread (a mutex); flush and samples once the producers
// are done.
class LatencyLog final : public LatencySink {
 public:
  explicit LatencyLog(LatencyBatchListener* listener = nullptr, double batch_interval_ms = 40.0);
  double nowMs() const override;
  bool push(const LatencySample& sample) override;
  // Hands the samples not yet handed over to the listener (none: no call).
  void flush();
  std::vector<LatencySample> samples() const;

 private:
  // Called with mutex_ held; returns with the batch and listener_mutex_ taken, or empty.
  std::vector<LatencySample> takeBatch(std::unique_lock<std::mutex>* listener_lock);

  LatencyBatchListener* const listener_;
  const double batch_interval_ms_;
  const SteadyClockMs clock_;
  mutable std::mutex mutex_;     // samples_, handed_over_, last_batch_ms_
  std::mutex listener_mutex_;    // one listener call at a time; taken after mutex_
  std::vector<LatencySample> samples_;
  std::size_t handed_over_ = 0;  // samples_[0, handed_over_) went to the listener
  double last_batch_ms_ = 0.0;
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
