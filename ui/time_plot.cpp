#include "ui/time_plot.h"

#include <QDateTime>
#include <QFileInfo>
#include <QLocale>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ui/qcustomplot_include.h"
#include "ui/time_model.h"

namespace skytrace::ui {
namespace {

// Labels a time axis of seconds after `origin` (Unix seconds) with UTC clock times, at
// steps a clock reader expects (1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15, 30 min, ...)
// and at round UTC times, not at round offsets from the origin.
class UtcTimeTicker : public QCPAxisTicker {
 public:
  explicit UtcTimeTicker(double origin_unix_s) : origin_(origin_unix_s) {}

 protected:
  double getTickStep(const QCPRange& range) override {
    static const double kSteps[] = {0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800,
                                    3600, 7200, 10800, 21600, 43200, 86400};
    const double target = range.size() / std::max(1, tickCount());
    for (double step : kSteps)
      if (step >= target) return step_ = step;
    return step_ = 86400.0 * std::ceil(target / 86400.0);
  }
  int getSubTickCount(double) override { return 0; }
  QVector<double> createTickVector(double step, const QCPRange& range) override {
    QVector<double> ticks;
    if (!(step > 0.0)) return ticks;
    const double first = std::ceil((range.lower + origin_) / step) * step - origin_;
    for (int k = 0; k < 1000; ++k) {
      const double t = first + k * step;
      if (t > range.upper) break;
      ticks << t;
    }
    return ticks;
  }
  QString getTickLabel(double tick, const QLocale&, QChar, int) override {
    return utcDateTime(origin_ + tick).toString(step_ < 1.0 ? QStringLiteral("HH:mm:ss.z") : QStringLiteral("HH:mm:ss"));
  }

 private:
  double origin_;
  double step_ = 1.0;
};

}  // namespace

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
  // One row, so that a plot stacked at a small height keeps its data visible.
  plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
  plot_->legend->setWrap(8);
  plot_->legend->setRowSpacing(0);
  plot_->legend->setColumnSpacing(6);
  plot_->legend->setIconSize(16, 8);
  plot_->legend->setBrush(QColor(255, 255, 255, 200));
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

  hover_line_ = new QCPItemStraightLine(plot_);
  hover_line_->setPen(QPen(QColor(90, 90, 90, 160), 1.0, Qt::DashLine));
  hover_line_->setSelectable(false);
  hover_line_->setVisible(false);
  hover_text_ = new QCPItemText(plot_);
  hover_text_->setClipToAxisRect(true);
  hover_text_->position->setType(QCPItemPosition::ptAxisRectRatio);
  hover_text_->position->setCoords(0.005, 0.02);
  hover_text_->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
  hover_text_->setTextAlignment(Qt::AlignLeft);
  hover_text_->setFont(QFont(font().family(), 8));
  hover_text_->setBrush(QColor(255, 255, 255, 220));
  hover_text_->setPadding(QMargins(4, 2, 4, 2));
  hover_text_->setSelectable(false);
  hover_text_->setVisible(false);
  plot_->setMouseTracking(true);
  connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
    const bool inside = plot_->axisRect()->rect().contains(event->position().toPoint());
    const double t_s = inside ? plot_->xAxis->pixelToCoord(event->position().x())
                              : std::numeric_limits<double>::quiet_NaN();
    setHoverTime(t_s);
    Q_EMIT hovered(t_s);
  });
  connect(plot_, &QCustomPlot::legendClick, this,
          [this](QCPLegend*, QCPAbstractLegendItem* item, QMouseEvent*) { toggleSeries(item); });
}

void TimePlot::leaveEvent(QEvent* event) {
  setHoverTime(std::numeric_limits<double>::quiet_NaN());
  Q_EMIT hovered(std::numeric_limits<double>::quiet_NaN());
  QWidget::leaveEvent(event);
}

void TimePlot::toggleSeries(QCPAbstractLegendItem* item) {
  auto* plottable_item = qobject_cast<QCPPlottableLegendItem*>(item);
  if (!plottable_item) return;
  QCPAbstractPlottable* plottable = plottable_item->plottable();
  plottable->setVisible(!plottable->visible());
  plottable_item->setTextColor(plottable->visible() ? Qt::black : QColor(170, 170, 170));
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

bool TimePlot::isSeriesShown(int index) const { return graphs_.at(index)->visible(); }

void TimePlot::setSeriesShown(int index, bool shown) {
  QCPGraph* graph = graphs_.at(index);
  if (graph->visible() == shown) return;
  if (QCPPlottableLegendItem* item = plot_->legend->itemWithPlottable(graph)) {
    toggleSeries(item);
  } else {
    graph->setVisible(shown);
  }
}

void TimePlot::setHoverTime(double t_s) {
  if (!std::isfinite(t_s) || graphs_.empty()) {
    if (hover_line_->visible()) {
      hover_line_->setVisible(false);
      hover_text_->setVisible(false);
      replotIfVisible();
    }
    return;
  }
  hover_line_->point1->setCoords(t_s, 0);
  hover_line_->point2->setCoords(t_s, 1);
  hover_line_->setVisible(true);
  const QLocale locale;
  QStringList lines{tr("t = %1 s").arg(locale.toString(t_s, 'f', 2))};
  if (std::isfinite(start_unix_s_)) {
    const QDateTime utc = utcDateTime(start_unix_s_ + t_s);
    lines.front() += QStringLiteral("  ") + tr("%1 UTC").arg(utc.toString(QStringLiteral("HH:mm:ss.zzz")));
  }
  for (QCPGraph* graph : graphs_) {
    if (!graph->visible() || graph->dataCount() == 0 || graph->name().isEmpty()) continue;
    // The nearest sample within half a second (none: the series has no value there).
    auto it = graph->data()->findBegin(t_s, true);  // the last sample before t_s, if any
    auto best = graph->data()->constEnd();
    double best_dt = 0.5;
    for (int k = 0; k < 2 && it != graph->data()->constEnd(); ++k, ++it) {
      if (std::abs(it->key - t_s) <= best_dt) {
        best_dt = std::abs(it->key - t_s);
        best = it;
      }
    }
    if (best != graph->data()->constEnd() && std::isfinite(best->value))
      lines << QStringLiteral("%1: %2").arg(graph->name(), locale.toString(best->value, 'f', 2));
  }
  hover_text_->setText(lines.join(QLatin1Char('\n')));
  hover_text_->setVisible(true);
  replotIfVisible();
}

QString TimePlot::hoverText() const { return hover_text_->visible() ? hover_text_->text() : QString(); }

void TimePlot::setLeftMargin(int px) {
  if (px > 0) {
    plot_->axisRect()->setAutoMargins(QCP::msRight | QCP::msTop | QCP::msBottom);
    QMargins margins = plot_->axisRect()->margins();
    margins.setLeft(px);
    plot_->axisRect()->setMargins(margins);
  } else {
    plot_->axisRect()->setAutoMargins(QCP::msAll);
  }
}

void TimePlot::setTimeAxisLabelled(bool labelled) {
  time_axis_labelled_ = labelled;
  plot_->xAxis->setTickLabels(labelled);
  applyTimeTitle();
}

void TimePlot::setTimeOrigin(double start_unix_s) {
  if (std::isfinite(start_unix_s) == std::isfinite(start_unix_s_) &&
      (!std::isfinite(start_unix_s) || start_unix_s == start_unix_s_))
    return;
  start_unix_s_ = start_unix_s;
  if (std::isfinite(start_unix_s_)) {
    plot_->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new UtcTimeTicker(start_unix_s_)));
  } else {
    plot_->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  }
  applyTimeTitle();
  replotIfVisible();
}

QStringList TimePlot::timeTickLabels() const {
  QVector<double> ticks;
  QVector<QString> labels;
  plot_->xAxis->ticker()->generate(plot_->xAxis->range(), plot_->locale(), plot_->xAxis->numberFormat().at(0),
                                   plot_->xAxis->numberPrecision(), ticks, nullptr, &labels);
  return QStringList(labels.begin(), labels.end());
}

void TimePlot::applyTimeTitle() {
  const QString title = std::isfinite(start_unix_s_) ? tr("Time [UTC]") : time_title_;
  plot_->xAxis->setLabel(time_axis_labelled_ ? title : QString());
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
  time_title_ = x_title;
  applyTimeTitle();
  plot_->yAxis->setLabel(y_title);
}

void TimePlot::rescale(double duration_s) {
  std::vector<double> values;
  for (QCPGraph* graph : graphs_) {
    if (!graph->visible()) continue;
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
      if (std::isfinite(it->value)) values.push_back(it->value);
  }
  if (!values.empty()) {
    std::sort(values.begin(), values.end());
    // Quantiles by position (index q * (n - 1), rounded down): of 101 samples, 0.995
    // picks the second largest, so one spike stays out of the fit.
    auto quantile = [&](double q) { return values[static_cast<std::size_t>(q * (values.size() - 1))]; };
    const double low = quantile(0.005), high = quantile(0.995);
    const double spread = high - low;
    const double lower = values.front() >= low - 0.5 * spread ? values.front() : low - 0.1 * spread;
    const double upper = values.back() <= high + 0.5 * spread ? values.back() : high + 0.1 * spread;
    // A flat series (one sample, a constant) gets a readable span around its value, not
    // ticks a millionth apart.
    const bool flat = upper - lower <= 1e-9 * std::max(1.0, std::abs(upper));
    const double margin = flat ? std::max(1.0, 0.1 * std::abs(upper)) : 0.05 * (upper - lower);
    plot_->yAxis->setRange(lower - margin, upper + margin);
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
  // The legend lists the series that have data, in series order (a log-only flight has
  // no visual series to explain); a hidden series keeps its greyed entry.
  std::vector<QCPGraph*> wanted, listed;
  for (QCPGraph* graph : graphs_) {
    if (graph->dataCount() > 0 && !graph->name().isEmpty()) wanted.push_back(graph);
    if (plot_->legend->hasItemWithPlottable(graph)) listed.push_back(graph);
  }
  if (wanted != listed) {
    for (QCPGraph* graph : listed) graph->removeFromLegend();
    for (QCPGraph* graph : wanted) {
      graph->addToLegend();
      plot_->legend->itemWithPlottable(graph)->setTextColor(graph->visible() ? Qt::black : QColor(170, 170, 170));
    }
    plot_->legend->setVisible(plot_->legend->itemCount() > 0);
    replotIfVisible();
  }
  Q_EMIT dataUpdated(points);
}

}  // namespace skytrace::ui
