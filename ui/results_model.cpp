#include "ui/results_model.h"

#include <algorithm>

namespace skytrace::ui {
namespace {
constexpr int kChangeIntervalMs = 40;
}

ResultsModel::ResultsModel(QObject* parent) : QObject(parent) {
  qRegisterMetaType<LiveFrameUpdate>();
  qRegisterMetaType<RegistrationFixRecord>();
  qRegisterMetaType<FlightResults>();
  qRegisterMetaType<QVector<engine::LatencySample>>();
  change_timer_.setSingleShot(true);
  change_timer_.setInterval(kChangeIntervalMs);
  connect(&change_timer_, &QTimer::timeout, this, &ResultsModel::emitChanged);
}

const LiveFrameUpdate* ResultsModel::overlayFor(std::int64_t frame) const {
  const auto it = overlays_.find(frame);
  return it == overlays_.end() ? nullptr : &it->second;
}

void ResultsModel::setResults(const FlightResults& results) {
  results_ = results;
  live_ = false;
  overlays_.clear();
  Q_EMIT reset();
  change_timer_.stop();
  emitChanged();
}

void ResultsModel::beginLive(const QString& device, const QString& feature_model) {
  results_ = FlightResults();
  results_.device = device.toStdString();
  results_.feature_model = feature_model.toStdString();
  results_.online.name = "online";
  results_.odometry.name = "odometry";
  live_ = true;
  overlays_.clear();
  Q_EMIT reset();
  scheduleChanged();
}

void ResultsModel::addFrame(const LiveFrameUpdate& update) {
  if (update.has_pose) results_.online.poses.push_back(update.online);
  if (update.has_odometry) results_.odometry.poses.push_back(update.odometry);
  if (update.odometry_lost) {
    // Frames come in order: a lost frame right after the last lost one extends its run.
    std::vector<geo::FrameSpan>& lost = results_.odometry_lost;
    geo::addFrameToRuns(lost, update.frame, update.t_s, !lost.empty() && lost.back().end_frame == update.frame - 1);
  }
  if (!update.keypoints_px.isEmpty()) {
    overlays_[update.frame] = update;
    while (overlays_.size() > kKeptOverlays) overlays_.erase(overlays_.begin());
  }
  scheduleChanged();
}

void ResultsModel::addFix(const RegistrationFixRecord& fix) {
  // Fixes come late and out of order: keep them sorted by frame.
  auto it = std::upper_bound(results_.fixes.begin(), results_.fixes.end(), fix.frame,
                             [](std::int64_t f, const RegistrationFixRecord& r) { return f < r.frame; });
  results_.fixes.insert(it, fix);
  scheduleChanged();
}

void ResultsModel::addLatency(const QVector<engine::LatencySample>& samples) {
  results_.latency.insert(results_.latency.end(), samples.begin(), samples.end());
  scheduleChanged();
}

void ResultsModel::setGroundAltitude(double alt_m) {
  results_.ground_alt_m = alt_m;
  scheduleChanged();
}

void ResultsModel::endLive() {
  live_ = false;
  scheduleChanged();
}

void ResultsModel::clear() { setResults(FlightResults()); }

void ResultsModel::scheduleChanged() {
  if (!change_timer_.isActive()) change_timer_.start();  // throttle: never postponed further
}

void ResultsModel::emitChanged() {
  ++change_count_;
  Q_EMIT changed();
}

}  // namespace skytrace::ui
