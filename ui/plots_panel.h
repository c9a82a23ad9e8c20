// PlotsPanel: the plot dock. Tabs: trajectory (E/N), altitude, heading, speed,
// visual-vs-GNSS distance (flagged segments shaded), per-stage latency (stacked, p50/p99)
// and GPU memory, all following one time cursor. Data comes from a ResultsModel; the
// owner calls refreshData()/setCurrentTime() from its 40 ms view tick, so the panel
// repaints at most once per tick; only the visible tab replots (the others when shown).
// Thread: GUI thread only.
#pragma once

#include <QWidget>

#include <memory>
#include <optional>

#include "core/geo/geodesy.h"
#include "core/geo/track.h"

class QTabWidget;

namespace skytrace::ui {

class GpuMemoryPlot;
class LatencyPlot;
class ResultsModel;
class TimePlot;
class TrajectoryPlot;

class PlotsPanel : public QWidget {
  Q_OBJECT

 public:
  PlotsPanel(ResultsModel* results, QWidget* parent = nullptr);

  TrajectoryPlot* trajectoryPlot() const { return trajectory_; }
  TimePlot* altitudePlot() const { return altitude_; }
  TimePlot* headingPlot() const { return heading_; }
  TimePlot* speedPlot() const { return speed_; }
  TimePlot* discrepancyPlot() const { return discrepancy_; }
  LatencyPlot* latencyPlot() const { return latency_; }
  GpuMemoryPlot* gpuMemoryPlot() const { return gpu_memory_; }
  QTabWidget* tabs() const { return tabs_; }

  // Video frame rate (for latency bars) and duration (x range of the time plots).
  void setTimeline(double fps, double duration_s);
  // The flight log's GNSS track, plotted when the results hold none (no processing yet,
  // or a run without telemetry).
  void setTelemetryTrack(const geo::Track& track);
  // Re-reads the ResultsModel into every plot (emits each plot's dataUpdated).
  void refreshData();
  // Exports the plot on the visible tab (PNG or PDF by suffix); false on failure.
  bool exportCurrentPlot(const QString& path);

 Q_SIGNALS:
  // A plot was double-clicked at this video time.
  void timeRequested(double t_s);

 public Q_SLOTS:
  void setCurrentTime(double t_s);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void applyCursor();
  void replotVisible();
  void retranslateUi();

  ResultsModel* results_;
  QTabWidget* tabs_ = nullptr;
  TrajectoryPlot* trajectory_ = nullptr;
  TimePlot* altitude_ = nullptr;
  TimePlot* heading_ = nullptr;
  TimePlot* speed_ = nullptr;
  TimePlot* discrepancy_ = nullptr;
  LatencyPlot* latency_ = nullptr;
  GpuMemoryPlot* gpu_memory_ = nullptr;
  double fps_ = 10.0;
  double duration_s_ = 0.0;
  double cursor_t_s_ = 0.0;
  geo::Track telemetry_track_;
  bool refit_ = true;  // fit axes on the next data (after a reset)
};

}  // namespace skytrace::ui
