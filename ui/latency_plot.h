// LatencyPlot: per-frame pipeline latency, one stacked bar per frame (stages in engine
// order, one colour each) over video time, with a p50/p99 readout per stage and for the
// whole frame. The value axis ends at three times the frame p99 (or just above the
// slowest frame, when lower), so that the typical frame stays readable next to one-off
// work (model loading, graph captures, a global search); the readout names the slowest
// frame and how many frames run past the axis. Live: setSamples is called with the
// growing history (at most every 40 ms).
// Thread: GUI thread only.
#pragma once

#include <vector>

#include "core/engine/latency_recorder.h"
#include "ui/time_plot.h"

class QCPBars;
class QLabel;

namespace skytrace::ui {

class LatencyPlot : public TimePlot {
  Q_OBJECT

 public:
  explicit LatencyPlot(QWidget* parent = nullptr);

  // All samples so far; frame i is drawn at t = i / fps.
  void setSamples(const std::vector<engine::LatencySample>& samples, double fps);
  int barCount() const;  // frames with at least one sample
  QString readoutText() const;
  double axisTopMs() const;  // where the value axis ends

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void retranslateUi();

  std::vector<QCPBars*> bars_;  // one per engine::Stage, stacked in order
  QLabel* readout_ = nullptr;
  std::vector<engine::StageStatistics> stats_;
  double frame_p50_ms_ = 0.0, frame_p99_ms_ = 0.0;
  double slowest_ms_ = 0.0;
  std::int64_t slowest_frame_ = -1;
  int frames_above_axis_ = 0;
  int frames_ = 0;
};

// GPU memory in use (MiB) per frame, from the latency samples' device_bytes_in_use.
class GpuMemoryPlot : public TimePlot {
  Q_OBJECT

 public:
  explicit GpuMemoryPlot(QWidget* parent = nullptr);
  void setSamples(const std::vector<engine::LatencySample>& samples, double fps);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void retranslateUi();
  bool has_data_ = false;
};

// A stage's name for the analyst, translated ("Features", "Fine matching"); the files
// keep engine::stageName's stable keys.
QString stageDisplayName(engine::Stage stage);

}  // namespace skytrace::ui
