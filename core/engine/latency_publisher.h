// Qt-side consumer of a LatencyRecorder: drains it on a timer (default every 40 ms) and
// emits the new samples in one batch, so live plots get at most 25 signals per second
// however fast the pipeline runs. Keeps the whole history for reports.
// Thread: lives in, and is driven by, the thread that owns it (the GUI thread); it is
// the recorder's only consumer while it runs.
#pragma once

#include <QObject>
#include <QTimer>
#include <QVector>

#include <vector>

#include "core/engine/latency_recorder.h"

namespace skytrace::engine {

class LatencyPublisher : public QObject {
  Q_OBJECT

 public:
  explicit LatencyPublisher(LatencyRecorder* recorder, QObject* parent = nullptr,
                            int interval_ms = 40);

  void start();
  // Stops the timer after a last drain (so no sample is lost at the end of a run).
  void stop();
  // Drains now and emits if anything was new; returns the number of new samples.
  int flush();

  const std::vector<LatencySample>& history() const { return history_; }
  void clearHistory() { history_.clear(); }

 Q_SIGNALS:
  void samplesReady(const QVector<skytrace::engine::LatencySample>& samples);

 private:
  LatencyRecorder* recorder_;
  QTimer timer_;
  std::vector<LatencySample> history_;
  std::vector<LatencySample> scratch_;
};

}  // namespace skytrace::engine

Q_DECLARE_METATYPE(skytrace::engine::LatencySample)
