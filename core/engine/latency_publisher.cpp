#include "core/engine/latency_publisher.h"

namespace skytrace::engine {

LatencyPublisher::LatencyPublisher(LatencyRecorder* recorder, QObject* parent, int interval_ms)
    : QObject(parent), recorder_(recorder) {
  qRegisterMetaType<LatencySample>();
  timer_.setInterval(interval_ms);
  connect(&timer_, &QTimer::timeout, this, &LatencyPublisher::flush);
}

void LatencyPublisher::start() { timer_.start(); }

void LatencyPublisher::stop() {
  timer_.stop();
  flush();
}

int LatencyPublisher::flush() {
  scratch_.clear();
  recorder_->drain(&scratch_);
  if (scratch_.empty()) return 0;
  history_.insert(history_.end(), scratch_.begin(), scratch_.end());
  Q_EMIT samplesReady(QVector<LatencySample>(scratch_.begin(), scratch_.end()));
  return static_cast<int>(scratch_.size());
}

}  // namespace skytrace::engine
