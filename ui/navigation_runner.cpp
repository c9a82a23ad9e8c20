#include "ui/navigation_runner.h"

#include <QCoreApplication>

#include <memory>

#include "core/app/flight_processing.h"
#include "core/nav/camera_pose.h"
#include "core/util/error.h"

namespace skytrace::ui {
namespace {

// The GUI's view of a run: each frame's result and fix as live updates, progress,
// warnings, the ground height, the latency samples and pause/cancel, all through the
// ProcessingSink (thread-safe; it queues everything to the GUI thread). The live calls
// come from the engine's VO worker (overlapped) or the processing thread (sequential),
// one at a time.
class SinkObserver final : public app::FlightObserver {
 public:
  explicit SinkObserver(ProcessingSink& sink) : sink_(sink) {}

  void onSetup(const app::FlightSetup& setup) override {
    enu_ = std::make_unique<geo::LocalEnuFrame>(setup.enu);
    frames_total_ = setup.frames_total;
    sink_.groundAltitude(setup.ground_alt_m);
  }
  void onProgress(std::int64_t frames_done, std::int64_t frames_total, const std::string& stage) override {
    sink_.progress(frames_done, frames_total, stage);
  }
  void onWarning(const std::string& text) override { sink_.warning(text); }
  bool wantsLiveResults() const override { return true; }
  bool wantsLatencyBatches() const override { return true; }
  void onLatencyBatch(std::vector<engine::LatencySample> batch) override { sink_.latencySamples(std::move(batch)); }
  const engine::RunControl* control() const override { return &sink_.control(); }

  void onSessionStarted(const std::string&, const std::string& fallback_reason) override {
    if (!fallback_reason.empty()) sink_.warning(fallback_reason);
  }

  void onFrame(const nav::FrameResult& r) override {
    LiveFrameUpdate update;
    update.frame = r.frame;
    update.t_s = r.t_s;
    update.odometry_lost = r.odometry_lost;
    if (r.online.has_pose) {
      update.has_pose = true;
      update.online = nav::trackPoseFromCameraPose(r.online.pose, *enu_, r.frame);
      update.online.t_s = r.t_s;
      update.online.sigma_m = r.online.sigma_m;
      update.online.source = geo::PoseSource::Visual;
    }
    // The VO inliers for the video overlay: this frame's keypoints and where they were
    // in the reference keyframe.
    update.keypoints_px.reserve(int(r.odometry.inlier_frame_px.size()));
    for (const cv::Point2f& p : r.odometry.inlier_frame_px) update.keypoints_px.append(QPointF(p.x, p.y));
    update.matches_from_px.reserve(int(r.odometry.inlier_reference_px.size()));
    for (const cv::Point2f& p : r.odometry.inlier_reference_px) update.matches_from_px.append(QPointF(p.x, p.y));
    sink_.frameProcessed(update);
    sink_.progress(r.frame + 1, frames_total_, "navigating");
  }

  void onFix(const nav::RegistrationFix& fix) override {
    RegistrationFixRecord record;
    record.frame = fix.frame;
    record.t_s = fix.t_s;
    record.accepted = fix.accepted;
    record.reason = fix.reason;
    record.mode = fix.global_mode ? "global" : "prior";
    record.inliers = fix.inliers;
    record.inlier_ratio = fix.inlier_ratio;
    record.sigma_m = fix.sigma_m;
    if (fix.has_pose) {
      const geo::TrackPose p = nav::trackPoseFromCameraPose(fix.pose, *enu_, fix.frame);
      record.lat_deg = p.lat_deg;
      record.lon_deg = p.lon_deg;
      record.alt_m = p.alt_m;
      record.yaw_deg = p.yaw_deg;
    }
    sink_.fixComputed(record);
  }

 private:
  ProcessingSink& sink_;
  std::unique_ptr<geo::LocalEnuFrame> enu_;  // set in onSetup, before any live call
  std::int64_t frames_total_ = 0;
};

}  // namespace

void NavigationRunner::run(const io::Project& project, ProcessingSink& sink) {
  std::vector<std::string> warnings;
  app::FlightRequest request = app::flightRequestFromProject(project, &warnings);
  request.skytrace_version = QCoreApplication::applicationVersion().toStdString();
  for (const std::string& w : warnings) sink.warning(w);
  SinkObserver observer(sink);
  const app::FlightOutcome outcome = app::processFlight(request, observer);
  if (outcome.cancelled) throw Cancelled();
}

}  // namespace skytrace::ui
