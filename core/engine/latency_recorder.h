// Per-frame, per-stage latency of the pipeline. Producers (the VO worker, the satellite
// worker, the decode thread) push samples without locks; one consumer (the report
// writer, or LatencyPublisher on the GUI side) drains them. Durations come from device
// events on GPU and from the steady clock on CPU; the recorder only stores them.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace skytrace::engine {

enum class Stage : std::uint8_t {
  Decode,
  Upload,
  Extract,
  Match,
  Pose,
  Retrieval,
  FineMatch,
  Fusion,
};
constexpr int kStageCount = 8;

// Stable names used in report.json and the CSV: "decode", "upload", "extract", "match",
// "pose", "retrieval", "fine_match", "fusion".
const char* stageName(Stage stage);

struct LatencySample {
  std::int64_t frame = -1;    // video frame index
  Stage stage = Stage::Decode;
  double start_ms = 0.0;      // steady-clock start, ms since the recorder's epoch
  double duration_ms = 0.0;
  std::int8_t device = -1;    // -1 = CPU, else CUDA ordinal
  std::int64_t device_bytes_in_use = -1;  // GPU memory in use after the stage, -1 unknown
};

// Bounded multi-producer / single-consumer queue of samples (Vyukov-style sequence
// slots). push() never blocks: when the consumer lags and the ring is full the sample
// is dropped and counted. Thread: push from any thread; drain from ONE thread at a time.
class LatencyRecorder {
 public:
  explicit LatencyRecorder(std::size_t capacity = 1 << 14);  // rounded up to a power of 2
  ~LatencyRecorder();
  LatencyRecorder(const LatencyRecorder&) = delete;
  LatencyRecorder& operator=(const LatencyRecorder&) = delete;

  // Milliseconds of the steady clock since this recorder was created.
  double nowMs() const;

  // Returns false (and counts a drop) when the ring is full.
  bool push(const LatencySample& sample);

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

// Measures one CPU stage with the steady clock and pushes it on destruction.
// Thread: the thread doing the work.
class ScopedStageTimer {
 public:
  ScopedStageTimer(LatencyRecorder* recorder, std::int64_t frame, Stage stage);
  ~ScopedStageTimer();
  ScopedStageTimer(const ScopedStageTimer&) = delete;
  ScopedStageTimer& operator=(const ScopedStageTimer&) = delete;

 private:
  LatencyRecorder* recorder_;
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
