#include "core/engine/latency_recorder.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/util/atomic_file.h"
#include "core/util/statistics.h"

namespace skytrace::engine {

namespace {
std::int64_t steadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::size_t roundUpToPowerOfTwo(std::size_t n) {
  std::size_t p = 2;
  while (p < n) p <<= 1;
  return p;
}

}  // namespace

struct LatencyRecorder::Slot {
  std::atomic<std::uint64_t> sequence{0};
  LatencySample sample;
};

LatencyRecorder::LatencyRecorder(std::size_t capacity)
    : mask_(roundUpToPowerOfTwo(capacity) - 1) {
  slots_ = std::make_unique<Slot[]>(mask_ + 1);
  for (std::size_t i = 0; i <= mask_; ++i) slots_[i].sequence.store(i, std::memory_order_relaxed);
}

LatencyRecorder::~LatencyRecorder() = default;

SteadyClockMs::SteadyClockMs() : epoch_ns_(steadyNowNs()) {}

double SteadyClockMs::nowMs() const { return static_cast<double>(steadyNowNs() - epoch_ns_) * 1e-6; }

double LatencyRecorder::nowMs() const { return clock_.nowMs(); }

bool LatencyRecorder::push(const LatencySample& sample) {
  std::uint64_t pos = enqueue_pos_.load(std::memory_order_relaxed);
  for (;;) {
    Slot& slot = slots_[pos & mask_];
    const std::uint64_t seq = slot.sequence.load(std::memory_order_acquire);
    const auto diff = static_cast<std::int64_t>(seq) - static_cast<std::int64_t>(pos);
    if (diff == 0) {
      if (enqueue_pos_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
        slot.sample = sample;
        slot.sequence.store(pos + 1, std::memory_order_release);
        return true;
      }
    } else if (diff < 0) {
      dropped_.fetch_add(1, std::memory_order_relaxed);  // full: the consumer lags
      return false;
    } else {
      pos = enqueue_pos_.load(std::memory_order_relaxed);
    }
  }
}

std::size_t LatencyRecorder::drain(std::vector<LatencySample>* out) {
  std::size_t n = 0;
  for (;;) {
    Slot& slot = slots_[dequeue_pos_ & mask_];
    const std::uint64_t seq = slot.sequence.load(std::memory_order_acquire);
    if (seq != dequeue_pos_ + 1) return n;  // empty, or a producer is mid-write
    out->push_back(slot.sample);
    slot.sequence.store(dequeue_pos_ + mask_ + 1, std::memory_order_release);
    ++dequeue_pos_;
    ++n;
  }
}

LatencyLog::LatencyLog(LatencyBatchListener* listener, double batch_interval_ms)
    : listener_(listener), batch_interval_ms_(batch_interval_ms) {}

double LatencyLog::nowMs() const { return clock_.nowMs(); }

std::vector<LatencySample> LatencyLog::takeBatch(std::unique_lock<std::mutex>* listener_lock) {
  if (handed_over_ == samples_.size()) return {};
  std::vector<LatencySample> batch(samples_.begin() + static_cast<std::ptrdiff_t>(handed_over_), samples_.end());
  handed_over_ = samples_.size();
  // Taken before mutex_ is released: batches reach the listener in the order they were cut.
  *listener_lock = std::unique_lock<std::mutex>(listener_mutex_);
  return batch;
}

bool LatencyLog::push(const LatencySample& sample) {
  std::vector<LatencySample> batch;
  std::unique_lock<std::mutex> listener_lock;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    samples_.push_back(sample);
    if (listener_) {
      const double now_ms = nowMs();
      if (now_ms - last_batch_ms_ >= batch_interval_ms_) {
        last_batch_ms_ = now_ms;
        batch = takeBatch(&listener_lock);
      }
    }
  }
  if (!batch.empty()) listener_->onLatencyBatch(std::move(batch));
  return true;
}

void LatencyLog::flush() {
  if (!listener_) return;
  std::vector<LatencySample> batch;
  std::unique_lock<std::mutex> listener_lock;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    last_batch_ms_ = nowMs();
    batch = takeBatch(&listener_lock);
  }
  if (!batch.empty()) listener_->onLatencyBatch(std::move(batch));
}

std::vector<LatencySample> LatencyLog::samples() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return samples_;
}

ScopedStageTimer::ScopedStageTimer(LatencySink* recorder, std::int64_t frame, Stage stage)
    : recorder_(recorder) {
  sample_.frame = frame;
  sample_.stage = stage;
  if (recorder_) sample_.start_ms = recorder_->nowMs();
}

ScopedStageTimer::~ScopedStageTimer() {
  if (!recorder_) return;
  sample_.duration_ms = recorder_->nowMs() - sample_.start_ms;
  recorder_->push(sample_);
}

std::vector<StageStatistics> computeStageStatistics(const std::vector<LatencySample>& samples) {
  std::map<int, std::vector<double>> by_stage;
  for (const auto& s : samples) by_stage[static_cast<int>(s.stage)].push_back(s.duration_ms);
  std::vector<StageStatistics> result;
  for (auto& [stage, durations] : by_stage) {
    std::sort(durations.begin(), durations.end());
    StageStatistics stats;
    stats.stage = static_cast<Stage>(stage);
    stats.count = durations.size();
    double sum = 0.0;
    for (double d : durations) sum += d;
    stats.mean_ms = sum / static_cast<double>(durations.size());
    stats.p50_ms = quantile(durations, 0.50);
    stats.p99_ms = quantile(durations, 0.99);
    stats.max_ms = durations.back();
    result.push_back(stats);
  }
  return result;
}

void writeLatencyCsv(const std::string& path, const std::vector<LatencySample>& samples) {
  std::string text = "frame,stage,start_ms,duration_ms,device,device_bytes_in_use\n";
  char line[160];
  for (const auto& s : samples) {
    std::snprintf(line, sizeof(line), "%" PRId64 ",%s,%.4f,%.4f,%s,%" PRId64 "\n", s.frame,
                  stageName(s.stage), s.start_ms, s.duration_ms,
                  s.device < 0 ? "cpu" : ("cuda:" + std::to_string(s.device)).c_str(),
                  s.device_bytes_in_use);
    text += line;
  }
  writeFileAtomically(path, text);
}

}  // namespace skytrace::engine
