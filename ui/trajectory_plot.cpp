#include "ui/trajectory_plot.h"

#include <QEvent>
#include <QFileInfo>
#include <QVBoxLayout>

#include <algorithm>

#include "ui/qcustomplot_include.h"

namespace skytrace::ui {

TrajectoryPlot::TrajectoryPlot(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot_);
  plot_->setMinimumHeight(140);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->setNoAntialiasingOnDrag(true);

  const QPen pens[SeriesCount] = {QPen(QColor(230, 50, 40), 2), QPen(QColor(120, 120, 120), 1.5, Qt::DashLine),
                                  QPen(QColor(255, 170, 0), 1.5)};
  for (int i = 0; i < SeriesCount; ++i) {
    curves_[i] = new QCPCurve(plot_->xAxis, plot_->yAxis);
    curves_[i]->setPen(pens[i]);
  }
  marker_ = new QCPCurve(plot_->xAxis, plot_->yAxis);
  marker_->setLineStyle(QCPCurve::lsNone);
  marker_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::black, 1.5),
                                           QColor(255, 64, 200), 10));
  marker_->removeFromLegend();
  plot_->legend->setVisible(true);
  plot_->legend->setFont(QFont(font().family(), 8));
  plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  plot_->xAxis->setRange(-100, 100);
  plot_->yAxis->setRange(-100, 100);
  retranslateUi();
}

void TrajectoryPlot::retranslateUi() {
  plot_->xAxis->setLabel(tr("East [m]"));
  plot_->yAxis->setLabel(tr("North [m]"));
  curves_[Visual]->setName(tr("Visual track"));
  curves_[Odometry]->setName(tr("Raw visual odometry"));
  curves_[Gnss]->setName(tr("GNSS track"));
  plot_->replot();
}

void TrajectoryPlot::setSeries(Series series, const QVector<double>& t_s, const QVector<double>& east_m,
                               const QVector<double>& north_m) {
  t_s_[series] = t_s;
  curves_[series]->setData(t_s, east_m, north_m, true);
}

int TrajectoryPlot::pointCount(Series series) const { return curves_[series]->dataCount(); }

void TrajectoryPlot::setCursorTime(double t_s) {
  for (int s : {Visual, Odometry, Gnss}) {
    const QVector<double>& times = t_s_[s];
    if (times.isEmpty()) continue;
    const int k = static_cast<int>(std::lower_bound(times.begin(), times.end(), t_s) - times.begin());
    const int index = std::clamp(k, 0, static_cast<int>(times.size()) - 1);
    const auto point = curves_[s]->data()->at(index);
    marker_->setData(QVector<double>{point->key, }, QVector<double>{point->value});
    return;
  }
  marker_->data()->clear();
}

void TrajectoryPlot::rescale() {
  bool found = false;
  QCPRange x, y;
  for (QCPCurve* curve : curves_) {
    bool ok_x = false, ok_y = false;
    const QCPRange rx = curve->getKeyRange(ok_x), ry = curve->getValueRange(ok_y);
    if (!ok_x || !ok_y) continue;
    x = found ? QCPRange(std::min(x.lower, rx.lower), std::max(x.upper, rx.upper)) : rx;
    y = found ? QCPRange(std::min(y.lower, ry.lower), std::max(y.upper, ry.upper)) : ry;
    found = true;
  }
  if (!found) return;
  x.lower -= 0.05 * x.size() + 1.0;
  x.upper += 0.05 * x.size() + 1.0;
  y.lower -= 0.05 * y.size() + 1.0;
  y.upper += 0.05 * y.size() + 1.0;
  plot_->xAxis->setRange(x);
  plot_->yAxis->setRange(y);
  // Equal scale: widen the axis that has fewer metres per pixel.
  const QRect area = plot_->axisRect()->rect();
  if (area.width() > 10 && area.height() > 10) {
    const double mx = x.size() / area.width(), my = y.size() / area.height();
    if (mx > my) plot_->yAxis->setScaleRatio(plot_->xAxis, 1.0);
    else plot_->xAxis->setScaleRatio(plot_->yAxis, 1.0);
  }
}

bool TrajectoryPlot::exportImage(const QString& path) {
  const int w = std::max(plot_->width(), 600), h = std::max(plot_->height(), 600);
  if (QFileInfo(path).suffix().toLower() == QLatin1String("pdf")) return plot_->savePdf(path, w, h);
  return plot_->savePng(path, w, h);
}

void TrajectoryPlot::replotIfVisible() {
  if (isVisible()) plot_->replot(QCustomPlot::rpQueuedReplot);
}

void TrajectoryPlot::commitData() {
  int points = 0;
  for (QCPCurve* curve : curves_) points += curve->dataCount();
  Q_EMIT dataUpdated(points);
}

void TrajectoryPlot::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange) retranslateUi();
  QWidget::changeEvent(event);
}

void TrajectoryPlot::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  plot_->yAxis->setScaleRatio(plot_->xAxis, 1.0);
}

}  // namespace skytrace::ui
