#include "ui/time_plot.h"

#include <QFileInfo>
#include <QVBoxLayout>

#include <cmath>

#include "ui/qcustomplot_include.h"

namespace skytrace::ui {

TimePlot::TimePlot(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot_);
  plot_->setMinimumHeight(140);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->axisRect()->setRangeDrag(Qt::Horizontal | Qt::Vertical);
  plot_->axisRect()->setRangeZoom(Qt::Horizontal | Qt::Vertical);
  plot_->legend->setVisible(true);
  plot_->legend->setFont(QFont(font().family(), 8));
  plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  plot_->setNoAntialiasingOnDrag(true);

  cursor_ = new QCPItemStraightLine(plot_);
  cursor_->setPen(QPen(QColor(255, 64, 200), 1.5));
  cursor_->point1->setCoords(0, 0);
  cursor_->point2->setCoords(0, 1);
  cursor_->setSelectable(false);

  connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent* event) {
    Q_EMIT timeRequested(plot_->xAxis->pixelToCoord(event->position().x()));
  });
}

int TimePlot::addSeries(const QColor& colour, Qt::PenStyle style, double width, bool dots) {
  QCPGraph* graph = plot_->addGraph();
  graph->setPen(QPen(colour, width, style));
  if (dots) {
    graph->setLineStyle(QCPGraph::lsNone);
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, 4));
  }
  graph->setAdaptiveSampling(true);
  graphs_.push_back(graph);
  return static_cast<int>(graphs_.size()) - 1;
}

void TimePlot::setSeriesName(int index, const QString& name) { graphs_.at(index)->setName(name); }

void TimePlot::setSeriesData(int index, const QVector<double>& t_s, const QVector<double>& values) {
  graphs_.at(index)->setData(t_s, values, true);
}

int TimePlot::pointCount(int index) const { return graphs_.at(index)->dataCount(); }

void TimePlot::setShadedSpans(const std::vector<std::pair<double, double>>& spans, const QColor& colour) {
  for (QCPItemRect* rect : spans_) plot_->removeItem(rect);
  spans_.clear();
  for (const auto& [start_s, end_s] : spans) {
    auto* rect = new QCPItemRect(plot_);
    rect->topLeft->setTypeX(QCPItemPosition::ptPlotCoords);
    rect->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
    rect->bottomRight->setTypeX(QCPItemPosition::ptPlotCoords);
    rect->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
    rect->topLeft->setCoords(start_s, 0.0);
    rect->bottomRight->setCoords(std::max(end_s, start_s + 1e-3), 1.0);
    rect->setPen(Qt::NoPen);
    rect->setBrush(colour);
    rect->setLayer(QStringLiteral("background"));
    rect->setSelectable(false);
    spans_.push_back(rect);
  }
}

void TimePlot::setAxisTitles(const QString& x_title, const QString& y_title) {
  plot_->xAxis->setLabel(x_title);
  plot_->yAxis->setLabel(y_title);
}

void TimePlot::rescale(double duration_s) {
  bool found = false;
  QCPRange y;
  for (QCPGraph* graph : graphs_) {
    bool ok = false;
    const QCPRange r = graph->getValueRange(ok);
    if (!ok) continue;
    y = found ? QCPRange(std::min(y.lower, r.lower), std::max(y.upper, r.upper)) : r;
    found = true;
  }
  if (found) {
    const double margin = std::max(0.05 * y.size(), 1e-6);
    plot_->yAxis->setRange(y.lower - margin, y.upper + margin);
  }
  if (duration_s > 0.0) plot_->xAxis->setRange(0.0, duration_s);
}

void TimePlot::setCursorTime(double t_s) {
  cursor_t_s_ = t_s;
  cursor_->point1->setCoords(t_s, 0);
  cursor_->point2->setCoords(t_s, 1);
}

bool TimePlot::exportImage(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  const int w = std::max(plot_->width(), 800), h = std::max(plot_->height(), 400);
  if (suffix == QLatin1String("pdf")) return plot_->savePdf(path, w, h);
  return plot_->savePng(path, w, h);
}

void TimePlot::replotIfVisible() {
  if (isVisible()) plot_->replot(QCustomPlot::rpQueuedReplot);
}

void TimePlot::commitData() {
  int points = 0;
  for (QCPGraph* graph : graphs_) points += graph->dataCount();
  Q_EMIT dataUpdated(points);
}

}  // namespace skytrace::ui
