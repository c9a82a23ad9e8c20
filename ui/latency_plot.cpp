#include "ui/latency_plot.h"

#include <QCoreApplication>
#include <QLocale>

#include <QEvent>
#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <array>
#include <map>

#include "core/util/statistics.h"
#include "ui/qcustomplot_include.h"

namespace skytrace::ui {
namespace {

const QColor kStageColours[engine::kStageCount] = {
    QColor(150, 150, 150), QColor(110, 170, 220), QColor(230, 90, 60),  QColor(240, 170, 40),
    QColor(120, 190, 90),  QColor(150, 110, 200), QColor(200, 90, 160), QColor(70, 190, 190)};

}  // namespace

LatencyPlot::LatencyPlot(QWidget* parent) : TimePlot(parent) {
  readout_ = new QLabel(this);
  // One line (the plot may be stacked 70 px high); the whole readout is its tooltip.
  readout_->setWordWrap(false);
  readout_->setMinimumWidth(1);
  readout_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);  // the plot takes the height
  QFont small = readout_->font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  readout_->setFont(small);
  readout_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  static_cast<QVBoxLayout*>(layout())->insertWidget(0, readout_);
  QCPBars* below = nullptr;
  for (int i = 0; i < engine::kStageCount; ++i) {
    auto* bars = new QCPBars(plot_->xAxis, plot_->yAxis);
    bars->setPen(Qt::NoPen);
    bars->setBrush(kStageColours[i]);
    bars->setStackingGap(0);
    if (below) bars->moveAbove(below);
    below = bars;
    bars_.push_back(bars);
  }
  for (QCPBars* bars : bars_) bars->removeFromLegend();  // until they have data
  retranslateUi();
}

void LatencyPlot::setSamples(const std::vector<engine::LatencySample>& samples, double fps) {
  // Per frame and stage: the summed duration (a stage may run more than once per frame).
  std::map<std::int64_t, std::array<double, engine::kStageCount>> by_frame;
  for (const engine::LatencySample& s : samples) {
    if (s.frame < 0) continue;
    auto [it, inserted] = by_frame.try_emplace(s.frame);
    if (inserted) it->second.fill(0.0);
    it->second[static_cast<int>(s.stage)] += s.duration_ms;
  }
  const double width_s = fps > 0 ? 1.0 / fps : 0.1;
  std::vector<double> totals;
  totals.reserve(by_frame.size());
  for (int stage = 0; stage < engine::kStageCount; ++stage) {
    QVector<double> keys, values;
    keys.reserve(static_cast<int>(by_frame.size()));
    values.reserve(static_cast<int>(by_frame.size()));
    for (const auto& [frame, durations] : by_frame) {
      keys << frame * width_s;
      values << durations[stage];
    }
    bars_[stage]->setWidth(width_s);
    bars_[stage]->setData(keys, values, true);
    // Stages this run does not have (no samples, or all zero) stay out of the legend.
    const bool has_data = std::any_of(values.begin(), values.end(), [](double v) { return v > 0; });
    bars_[stage]->setVisible(has_data);
    if (has_data) bars_[stage]->addToLegend();
    else bars_[stage]->removeFromLegend();
  }
  slowest_ms_ = 0.0;
  slowest_frame_ = -1;
  for (const auto& [frame, durations] : by_frame) {
    double total = 0.0;
    for (double d : durations) total += d;
    totals.push_back(total);
    if (total > slowest_ms_) {
      slowest_ms_ = total;
      slowest_frame_ = frame;
    }
  }
  frames_ = static_cast<int>(by_frame.size());
  frame_p50_ms_ = quantile(totals, 0.50);
  frame_p99_ms_ = quantile(totals, 0.99);
  stats_ = engine::computeStageStatistics(samples);
  const double axis_top_ms = std::max(1.0, std::min(1.1 * slowest_ms_, 3.0 * frame_p99_ms_));
  frames_above_axis_ = static_cast<int>(
      std::count_if(totals.begin(), totals.end(), [&](double total) { return total > axis_top_ms; }));
  plot_->yAxis->setRange(0.0, axis_top_ms);
  if (!by_frame.empty()) plot_->xAxis->setRange(0.0, std::max(1.0, (by_frame.rbegin()->first + 1) * width_s));
  retranslateUi();
  Q_EMIT dataUpdated(frames_);
}

int LatencyPlot::barCount() const { return frames_; }

double LatencyPlot::axisTopMs() const { return plot_->yAxis->range().upper; }

QString LatencyPlot::readoutText() const { return readout_->text(); }

void LatencyPlot::retranslateUi() {
  setAxisTitles(tr("Video time [s]"), tr("Latency [ms]"));
  for (int i = 0; i < engine::kStageCount; ++i) bars_[i]->setName(stageDisplayName(static_cast<engine::Stage>(i)));
  if (frames_ == 0) {
    readout_->setText(tr("No latency samples yet."));
    readout_->setToolTip(QString());
    return;
  }
  QStringList parts;
  const QLocale locale;
  parts << tr("Frame: p50 %1 ms, p99 %2 ms (%3 frames), slowest %4 ms (frame %5)")
               .arg(locale.toString(frame_p50_ms_, 'f', 1), locale.toString(frame_p99_ms_, 'f', 1),
                    locale.toString(frames_), locale.toString(slowest_ms_, 'f', 1))
               .arg(slowest_frame_);
  if (frames_above_axis_ > 0) parts << tr("frames above the axis: %1").arg(frames_above_axis_);
  for (const engine::StageStatistics& s : stats_)
    parts << tr("%1: p50 %2 / p99 %3 ms")
                 .arg(stageDisplayName(s.stage), locale.toString(s.p50_ms, 'f', 1), locale.toString(s.p99_ms, 'f', 1));
  readout_->setText(parts.join(QStringLiteral(" · ")));
  readout_->setToolTip(parts.join(QLatin1Char('\n')));
}

QString stageDisplayName(engine::Stage stage) {
  switch (stage) {
    case engine::Stage::Decode: return QCoreApplication::translate("skytrace::ui::LatencyPlot", "Decode");
    case engine::Stage::Upload: return QCoreApplication::translate("skytrace::ui::LatencyPlot", "Upload");
    case engine::Stage::Extract: return QCoreApplication::translate("skytrace::ui::LatencyPlot", "Features");
    case engine::Stage::Match: return QCoreApplication::translate("skytrace::ui::LatencyPlot", "Matching");
    case engine::Stage::Pose: return QCoreApplication::translate("skytrace::ui::LatencyPlot", "Pose");
    case engine::Stage::Retrieval: return QCoreApplication::translate("skytrace::ui::LatencyPlot", "Retrieval");
    case engine::Stage::FineMatch: return QCoreApplication::translate("skytrace::ui::LatencyPlot", "Fine matching");
    case engine::Stage::Fusion: return QCoreApplication::translate("skytrace::ui::LatencyPlot", "Fusion");
  }
  return QString::fromLatin1(engine::stageName(stage));
}

void LatencyPlot::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange) retranslateUi();
  TimePlot::changeEvent(event);
}

GpuMemoryPlot::GpuMemoryPlot(QWidget* parent) : TimePlot(parent) {
  addSeries(QColor(120, 190, 90), Qt::SolidLine, 1.5);
  retranslateUi();
}

void GpuMemoryPlot::setSamples(const std::vector<engine::LatencySample>& samples, double fps) {
  std::map<std::int64_t, double> mib_by_frame;
  for (const engine::LatencySample& s : samples) {
    if (s.frame < 0 || s.device_bytes_in_use < 0) continue;
    double& mib = mib_by_frame[s.frame];
    mib = std::max(mib, s.device_bytes_in_use / (1024.0 * 1024.0));
  }
  QVector<double> t_s, mib;
  for (const auto& [frame, value] : mib_by_frame) {
    t_s << frame / (fps > 0 ? fps : 10.0);
    mib << value;
  }
  has_data_ = !mib.isEmpty();
  setSeriesData(0, t_s, mib);
  rescale(0.0);
  if (has_data_) plot_->xAxis->setRange(0.0, t_s.back() + 1.0);
  retranslateUi();
  commitData();
}

void GpuMemoryPlot::retranslateUi() {
  setAxisTitles(tr("Video time [s]"), tr("GPU memory [MiB]"));
  setSeriesName(0, has_data_ ? tr("GPU memory") : tr("GPU memory (no GPU samples: CPU run)"));
}

void GpuMemoryPlot::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange) retranslateUi();
  TimePlot::changeEvent(event);
}

}  // namespace skytrace::ui
