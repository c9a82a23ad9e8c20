#include "ui/plots_panel.h"

#include <QEvent>
#include <QFileInfo>
#include <QTabWidget>
#include <QVBoxLayout>

#include <cmath>
#include <limits>

#include "ui/latency_plot.h"
#include "ui/qcustomplot_include.h"
#include "ui/results_model.h"
#include "ui/time_plot.h"
#include "ui/time_plot_stack.h"
#include "ui/trajectory_plot.h"

namespace skytrace::ui {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Speeds are averaged over 1 s: logs repeat positions between GNSS fixes, and frame-to-
// frame visual steps are noisy (geo::groundSpeedsMps).
constexpr double kSpeedWindowS = 1.0;

enum TrackSeries { kVisual = 0, kOdometry = 1, kGnss = 2 };

struct TrackColumns {
  QVector<double> t_s, east_m, north_m, alt_m, heading_deg, speed_mps;
};

TrackColumns columnsOf(const geo::Track& track, const geo::LocalEnuFrame& enu) {
  TrackColumns c;
  const int n = static_cast<int>(track.poses.size());
  c.t_s.reserve(n);
  for (int i = 0; i < n; ++i) {
    const geo::TrackPose& p = track.poses[i];
    const geo::EnuPoint e = enu.toEnu({p.lat_deg, p.lon_deg, std::isfinite(p.alt_m) ? p.alt_m : 0.0});
    c.t_s << p.t_s;
    c.east_m << e.east_m;
    c.north_m << e.north_m;
    c.alt_m << p.alt_m;
    double heading = std::isfinite(p.yaw_deg) ? std::fmod(p.yaw_deg + 360.0, 360.0) : kNaN;
    // Break the line where the heading wraps (359 -> 1) instead of drawing a vertical jump.
    if (i > 0 && std::isfinite(heading) && std::isfinite(c.heading_deg.back()) &&
        std::abs(heading - c.heading_deg.back()) > 180.0) {
      c.heading_deg.back() = kNaN;
    }
    c.heading_deg << heading;
  }
  const std::vector<double> speeds = geo::groundSpeedsMps(track, kSpeedWindowS);
  c.speed_mps = QVector<double>(speeds.begin(), speeds.end());
  return c;
}

}  // namespace

PlotsPanel::PlotsPanel(ResultsModel* results, QWidget* parent) : QWidget(parent), results_(results) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  tabs_ = new QTabWidget(this);
  tabs_->setDocumentMode(true);
  layout->addWidget(tabs_);

  trajectory_ = new TrajectoryPlot(this);
  auto time_plot = [this]() {
    auto* plot = new TimePlot(this);
    plot->addSeries(QColor(230, 50, 40), Qt::SolidLine, 2.0);
    plot->addSeries(QColor(120, 120, 120), Qt::DashLine, 1.5);
    plot->addSeries(QColor(255, 170, 0), Qt::SolidLine, 1.5);
    connect(plot, &TimePlot::timeRequested, this, &PlotsPanel::timeRequested);
    return plot;
  };
  altitude_ = time_plot();
  heading_ = time_plot();
  speed_ = time_plot();
  discrepancy_ = new TimePlot(this);
  discrepancy_->addSeries(QColor(170, 60, 200), Qt::SolidLine, 2.0);
  discrepancy_->addSeries(QColor(170, 60, 200, 140), Qt::DotLine, 1.2);
  connect(discrepancy_, &TimePlot::timeRequested, this, &PlotsPanel::timeRequested);
  latency_ = new LatencyPlot(this);
  connect(latency_, &TimePlot::timeRequested, this, &PlotsPanel::timeRequested);
  gpu_memory_ = new GpuMemoryPlot(this);
  connect(gpu_memory_, &TimePlot::timeRequested, this, &PlotsPanel::timeRequested);

  stack_ = new TimePlotStack(this);
  // Shown at first: what tells a spoofed or failing GNSS at a glance.
  stack_->addPlot(altitude_, QStringLiteral("altitude"), false);
  stack_->addPlot(heading_, QStringLiteral("heading"), false);
  stack_->addPlot(speed_, QStringLiteral("speed"), true);
  stack_->addPlot(discrepancy_, QStringLiteral("discrepancy"), true);
  stack_->addPlot(latency_, QStringLiteral("latency"), false);
  stack_->addPlot(gpu_memory_, QStringLiteral("gpu"), false);
  stack_->setRefit([this] { refit(); });
  tabs_->addTab(stack_, QString());
  tabs_->addTab(trajectory_, QString());
  connect(tabs_, &QTabWidget::currentChanged, this, [this] { replotVisible(); });

  connect(results_, &ResultsModel::reset, this, [this] { refit_ = true; });
  retranslateUi();
  // No data yet: the legends list nothing (TimePlot::commitData) until series fill.
  for (TimePlot* plot : {altitude_, heading_, speed_, discrepancy_}) plot->commitData();
}

void PlotsPanel::setTimeline(double fps, double duration_s, double start_unix_s) {
  fps_ = fps > 0 ? fps : 10.0;
  duration_s_ = duration_s;
  for (TimePlot* plot : {altitude_, heading_, speed_, discrepancy_, static_cast<TimePlot*>(latency_),
                         static_cast<TimePlot*>(gpu_memory_)})
    plot->setTimeOrigin(start_unix_s);
  refit_ = true;
  refreshData();
}

void PlotsPanel::setTelemetryTrack(const geo::Track& track) {
  telemetry_track_ = track;
  refit_ = true;
  refreshData();
}

void PlotsPanel::setCurrentTime(double t_s) {
  cursor_t_s_ = t_s;
  applyCursor();
}

void PlotsPanel::applyCursor() {
  trajectory_->setCursorTime(cursor_t_s_);
  for (TimePlot* plot : {altitude_, heading_, speed_, discrepancy_, static_cast<TimePlot*>(latency_),
                         static_cast<TimePlot*>(gpu_memory_)})
    plot->setCursorTime(cursor_t_s_);
  replotVisible();
}

void PlotsPanel::replotVisible() {
  trajectory_->replotIfVisible();
  for (TimePlot* plot : {altitude_, heading_, speed_, discrepancy_, static_cast<TimePlot*>(latency_),
                         static_cast<TimePlot*>(gpu_memory_)})
    plot->replotIfVisible();
}

QStringList PlotsPanel::plotNames() {
  return {QStringLiteral("trajectory"), QStringLiteral("altitude"), QStringLiteral("heading"),
          QStringLiteral("speed"),      QStringLiteral("discrepancy"), QStringLiteral("latency"),
          QStringLiteral("gpu")};
}

bool PlotsPanel::showPlots(const QStringList& names) {
  for (const QString& name : names)
    if (!plotNames().contains(name)) return false;
  if (names == QStringList{QStringLiteral("trajectory")}) {
    tabs_->setCurrentWidget(trajectory_);
    return true;
  }
  QStringList time_plots = names;
  time_plots.removeAll(QStringLiteral("trajectory"));
  stack_->setShownKeys(time_plots);
  tabs_->setCurrentWidget(stack_);
  return true;
}

void PlotsPanel::refit() {
  trajectory_->rescale();
  for (TimePlot* plot : {altitude_, heading_, speed_, discrepancy_}) plot->rescale(duration_s_);
  // The latency and memory plots keep their own value axes; every plot shows the flight.
  double end_s = duration_s_;
  if (end_s <= 0.0) {
    for (const geo::Track* track : {&results_->results().primaryTrack(), static_cast<const geo::Track*>(&telemetry_track_)})
      if (!track->poses.empty()) end_s = std::max(end_s, track->poses.back().t_s);
  }
  if (end_s > 0.0)
    for (TimePlot* plot : {altitude_, heading_, speed_, discrepancy_, static_cast<TimePlot*>(latency_),
                           static_cast<TimePlot*>(gpu_memory_)})
      plot->plot()->xAxis->setRange(0.0, end_s);
  replotVisible();
}

void PlotsPanel::refreshData() {
  const FlightResults& r = results_->results();
  const geo::Track& primary = r.primaryTrack();
  const geo::Track& gnss = r.gnss.poses.empty() ? telemetry_track_ : r.gnss;
  const geo::Track& reference = primary.poses.empty() ? gnss : primary;
  const geo::TrackPose origin = reference.poses.empty() ? geo::TrackPose{} : reference.poses.front();
  const geo::LocalEnuFrame enu({origin.lat_deg, origin.lon_deg, 0.0});

  const TrackColumns columns[3] = {columnsOf(primary, enu), columnsOf(r.odometry, enu), columnsOf(gnss, enu)};
  const TrajectoryPlot::Series series[3] = {TrajectoryPlot::Visual, TrajectoryPlot::Odometry, TrajectoryPlot::Gnss};
  for (int s = 0; s < 3; ++s) {
    const TrackColumns& c = columns[s];
    trajectory_->setSeries(series[s], c.t_s, c.east_m, c.north_m);
    altitude_->setSeriesData(s, c.t_s, c.alt_m);
    heading_->setSeriesData(s, c.t_s, c.heading_deg);
    speed_->setSeriesData(s, c.t_s, c.speed_mps);
  }

  QVector<double> d_t, d_m, d_3sigma;
  for (const DiscrepancyRecord& d : r.discrepancy) {
    d_t << d.t_s;
    d_m << d.distance_m;
    d_3sigma << 3.0 * d.sigma_m;
  }
  discrepancy_->setSeriesData(0, d_t, d_m);
  discrepancy_->setSeriesData(1, d_t, d_3sigma);
  std::vector<std::pair<double, double>> spans;
  for (const FlaggedSegment& segment : r.flagged_segments) spans.emplace_back(segment.start_s, segment.end_s);
  discrepancy_->setShadedSpans(spans, QColor(230, 40, 40, 60));
  latency_->setSamples(r.latency, fps_);
  gpu_memory_->setSamples(r.latency, fps_);

  // Live runs keep refitting as the flight grows; finished results fit once (the
  // analyst's zoom then stays).
  if (refit_ || results_->isLive()) {
    refit();
    refit_ = false;
  }
  trajectory_->commitData();
  for (TimePlot* plot : {altitude_, heading_, speed_, discrepancy_}) plot->commitData();
  applyCursor();
}

bool PlotsPanel::exportCurrentPlot(const QString& path) {
  if (tabs_->currentWidget() == trajectory_) return trajectory_->exportImage(path);
  const std::string& folder = results_->results().folder;
  const QString flight = folder.empty() ? tr("the flight being processed")
                                        : QFileInfo(QString::fromStdString(folder)).fileName();
  return stack_->exportImage(path, tr("Skytrace: %1").arg(flight));
}

void PlotsPanel::retranslateUi() {
  tabs_->setTabText(tabs_->indexOf(stack_), tr("Time Plots"));
  tabs_->setTabText(tabs_->indexOf(trajectory_), tr("Trajectory"));
  stack_->setPlotTitle(altitude_, tr("Altitude"));
  stack_->setPlotTitle(heading_, tr("Heading"));
  stack_->setPlotTitle(speed_, tr("Speed"));
  stack_->setPlotTitle(discrepancy_, tr("GNSS discrepancy"));
  stack_->setPlotTitle(latency_, tr("Latency"));
  stack_->setPlotTitle(gpu_memory_, tr("GPU memory"));
  const QString time_title = tr("Video time [s]");
  // Short value titles: stacked plots can be 70 px high.
  altitude_->setAxisTitles(time_title, tr("Altitude [m]"));
  heading_->setAxisTitles(time_title, tr("Heading [deg]"));
  speed_->setAxisTitles(time_title, tr("Speed [m/s]"));
  discrepancy_->setAxisTitles(time_title, tr("To GNSS [m]"));
  for (TimePlot* plot : {altitude_, heading_, speed_}) {
    plot->setSeriesName(kVisual, tr("Visual"));
    plot->setSeriesName(kOdometry, tr("Raw visual odometry"));
    plot->setSeriesName(kGnss, tr("GNSS"));
  }
  discrepancy_->setSeriesName(0, tr("Distance"));
  discrepancy_->setSeriesName(1, tr("3 sigma"));
  replotVisible();
}

void PlotsPanel::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange) retranslateUi();
  QWidget::changeEvent(event);
}

}  // namespace skytrace::ui
