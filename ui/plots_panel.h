// PlotsPanel: the plot dock. Two tabs: the trajectory (E/N), and the time plots stacked
// over one linked time axis (TimePlotStack): altitude, heading, speed, visual-vs-GNSS
// distance (flagged segments shaded), per-stage latency (stacked bars, p50/p99) and GPU
// memory, each shown or hidden by its button, all following one time cursor. Data comes
// from a ResultsModel; the owner calls refreshData()/setCurrentTime() from its 40 ms view
// tick, so the panel repaints at most once per tick; only what is visible replots.
// Thread: GUI thread only.
#pragma once

#include <QWidget>

#include <limits>

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
class TimePlotStack;
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
  TimePlotStack* stack() const { return stack_; }

  // The plot names of `skytrace --plot`: trajectory, altitude, heading, speed,
  // discrepancy, latency, gpu.
  static QStringList plotNames();
  // Shows these plots: "trajectory" alone is the trajectory tab; time plots are shown in
  // the stack, alone (the others hidden). False (nothing changed) for an unknown name.
  bool showPlots(const QStringList& names);
  // Refits every plot to its data and the whole flight (Reset Zoom).
  void refit();

  // Video frame rate (for latency bars), duration (x range of the time plots) and UTC
  // of t_s = 0 (Unix seconds; NaN: unknown, the time axes show video seconds).
  void setTimeline(double fps, double duration_s,
                   double start_unix_s = std::numeric_limits<double>::quiet_NaN());
  // The flight log's GNSS track, plotted when the results hold none (no processing yet,
  // or a run without telemetry).
  void setTelemetryTrack(const geo::Track& track);
  // Re-reads the ResultsModel into every plot (emits each plot's dataUpdated).
  void refreshData();
  // Exports what the visible tab shows, titled with the flight (PNG or PDF by suffix): the
  // trajectory, or every shown time plot one under the other; false on failure.
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
  TimePlotStack* stack_ = nullptr;
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
