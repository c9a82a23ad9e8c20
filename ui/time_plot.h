// TimePlot: one QCustomPlot over the flight's video time (x = t_s, seconds) with a
// vertical cursor at the current time, optional shaded time spans (flagged segments),
// drag/zoom, double-click to seek, and export to PNG/PDF. Several series share it.
// Thread: GUI thread only.
#pragma once

#include <QVector>
#include <QWidget>

#include <utility>
#include <vector>

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemRect;

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
  void setAxisTitles(const QString& x_title, const QString& y_title);

  // Fits both axes to the data (x over [0, duration_s] when duration_s > 0).
  void rescale(double duration_s);
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

 protected:
  QCustomPlot* plot_ = nullptr;
  std::vector<QCPGraph*> graphs_;
  std::vector<QCPItemRect*> spans_;
  QCPItemStraightLine* cursor_ = nullptr;
  double cursor_t_s_ = 0.0;
};

}  // namespace skytrace::ui
