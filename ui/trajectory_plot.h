// TrajectoryPlot: the flight seen from above, East/North metres in the flight's local
// ENU frame (QCustomPlot curves, equal axis scales, drag/zoom): the visual track, the raw
// VO track and the GNSS track, with a marker at the current time. Export to PNG/PDF.
// Thread: GUI thread only.
#pragma once

#include <QVector>
#include <QWidget>

class QCustomPlot;
class QCPCurve;

namespace skytrace::ui {

class TrajectoryPlot : public QWidget {
  Q_OBJECT

 public:
  enum Series { Visual = 0, Odometry = 1, Gnss = 2, SeriesCount = 3 };

  explicit TrajectoryPlot(QWidget* parent = nullptr);

  QCustomPlot* plot() const { return plot_; }
  QCPCurve* curve(Series series) const { return curves_[series]; }
  // Points of a series: east/north metres and their times (parallel).
  void setSeries(Series series, const QVector<double>& t_s, const QVector<double>& east_m,
                 const QVector<double>& north_m);
  int pointCount(Series series) const;
  // Moves the marker to the visual (else odometry, else GNSS) point nearest to t_s.
  void setCursorTime(double t_s);
  // Fits the view to all points with equal metres per pixel on both axes.
  void rescale();
  bool exportImage(const QString& path);
  void replotIfVisible();
  void commitData();

 Q_SIGNALS:
  void dataUpdated(int points);

 protected:
  void changeEvent(QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void retranslateUi();

  QCustomPlot* plot_ = nullptr;
  QCPCurve* curves_[SeriesCount] = {};
  QVector<double> t_s_[SeriesCount];
  QCPCurve* marker_ = nullptr;
};

}  // namespace skytrace::ui
