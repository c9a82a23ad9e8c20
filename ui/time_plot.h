// TimePlot: one QCustomPlot over the flight's video time (x = t_s, seconds) with a
// vertical cursor at the current time, optional shaded time spans (flagged segments),
// drag/zoom, double-click to seek, a hover read-out (each shown series' value at the
// time under the mouse), legend entries that hide and show their series on a click,
// and export to PNG/PDF. Several series share it. Its value axis fits the data robustly:
// a few far outliers (one 600 m/s speed spike) run off the axis instead of squashing it.
// Thread: GUI thread only.
#pragma once

#include <QVector>
#include <QWidget>

#include <limits>
#include <utility>
#include <vector>

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemRect;
class QCPItemText;
class QCPAbstractLegendItem;

namespace skytrace::ui {

class TimePlot : public QWidget {
  Q_OBJECT

 public:
  explicit TimePlot(QWidget* parent = nullptr);

  QCustomPlot* plot() const { return plot_; }

  // Adds a series (a line, or dots when `dots`); returns its index.
  int addSeries(const QColor& colour, Qt::PenStyle style = Qt::SolidLine, double width = 1.5,
                bool dots = false);
  void setSeriesName(int index, const QString& name);
  // Replaces a series' points (t_s ascending; NaN values leave gaps).
  void setSeriesData(int index, const QVector<double>& t_s, const QVector<double>& values);
  int seriesCount() const { return static_cast<int>(graphs_.size()); }
  int pointCount(int index) const;
  // Shaded vertical spans [start_s, end_s] (e.g. flagged discrepancy segments).
  void setShadedSpans(const std::vector<std::pair<double, double>>& spans, const QColor& colour);
  int shadedSpanCount() const { return static_cast<int>(spans_.size()); }
  // x_title names video seconds (used while the time origin is unknown).
  void setAxisTitles(const QString& x_title, const QString& y_title);
  // UTC of t_s = 0 (Unix seconds). Finite: the time axis is labelled with UTC clock times
  // at round steps (whole seconds, minutes, ...) and titled "Time [UTC]", and the hover
  // read-out gives the UTC time too. NaN (the default): video seconds.
  void setTimeOrigin(double start_unix_s);
  double timeOrigin() const { return start_unix_s_; }
  // The time axis' tick labels for its current range, as drawn.
  QStringList timeTickLabels() const;

  // Fits both axes to the data (x over [0, duration_s] when duration_s > 0). The value
  // axis covers the shown series' 0.5-99.5 % quantiles, widened to their extremes unless
  // those lie further out than half the quantiles' span again.
  void rescale(double duration_s);
  bool isSeriesShown(int index) const;
  void setSeriesShown(int index, bool shown);

  // The hover read-out at t_s (NaN hides it): a thin line and each shown series' value
  // at the nearest sample. The plot sets it under the mouse and emits hovered; a stack
  // of plots sets it on the others.
  void setHoverTime(double t_s);
  QString hoverText() const;
  // Stacked plots line up: a fixed left margin (pixels, <= 0: automatic) and the x axis'
  // tick labels and title only where wanted (the bottom plot).
  void setLeftMargin(int px);
  void setTimeAxisLabelled(bool labelled);
  void setCursorTime(double t_s);
  double cursorTime() const { return cursor_t_s_; }

  // Writes the plot as PNG or PDF (chosen by the suffix) at its current size; false on
  // failure.
  bool exportImage(const QString& path);

  // Replots when visible (queued: many calls within one event loop pass cost one).
  void replotIfVisible();
  // Finishes the data update: emits dataUpdated with the total number of points.
  void commitData();

 Q_SIGNALS:
  // New data was set (total points over all series).
  void dataUpdated(int points);
  // The user double-clicked at time t_s.
  void timeRequested(double t_s);
  // The mouse is over time t_s (NaN: it left the plot).
  void hovered(double t_s);

 protected:
  void leaveEvent(QEvent* event) override;

  QCustomPlot* plot_ = nullptr;
  std::vector<QCPGraph*> graphs_;
  std::vector<QCPItemRect*> spans_;
  QCPItemStraightLine* cursor_ = nullptr;
  double cursor_t_s_ = 0.0;

 private:
  void toggleSeries(QCPAbstractLegendItem* item);

  QCPItemStraightLine* hover_line_ = nullptr;
  QCPItemText* hover_text_ = nullptr;
  void applyTimeTitle();

  QString time_title_;
  double start_unix_s_ = std::numeric_limits<double>::quiet_NaN();
  bool time_axis_labelled_ = true;
};

}  // namespace skytrace::ui
