#include "core/engine/navigation_payloads.h"

#include <ATen/ATen.h>

#include <opencv2/core.hpp>

#include <algorithm>
#include <chrono>

#include "core/engine/engine_frame_impl.h"
#include "core/engine/pipeline.h"
#include "core/engine/video_frame_source.h"
#include "core/nav/basemap_registration.h"
#include "core/util/error.h"
#include "core/util/log.h"
#include "core/vision/robust_estimation.h"

namespace skytrace::engine {
namespace {
// RANSAC's device code and graphs before the first frame (no-op on the CPU): loading them
// when the first hard pair needs a batch stalls the other worker's launches on the GPU.
void warmUpHomographyRansac(const vision::DeviceSpec& device, double threshold_px, int max_points) {
  vision::RansacOptions ransac;
  ransac.model = vision::GeometricModelType::Homography;
  ransac.inlier_threshold_px = threshold_px;
  ransac.device = device;
  vision::warmUpRobustEstimation(ransac, max_points);
}
}  // namespace

void NavigationRunOutput::setResult(nav::NavigationResult result) {
  std::lock_guard<std::mutex> lock(mutex_);
  result_ = std::move(result);
}

std::optional<nav::NavigationResult> NavigationRunOutput::result() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return result_;
}

void NavigationRunOutput::setModel(std::string model, std::string fallback_reason) {
  std::lock_guard<std::mutex> lock(mutex_);
  vo_model_ = std::move(model);
  fallback_reason_ = std::move(fallback_reason);
}

std::string NavigationRunOutput::voModel() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return vo_model_;
}

std::string NavigationRunOutput::fallbackReason() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return fallback_reason_;
}

void NavigationRunOutput::setRegistrationModel(std::string model) {
  std::lock_guard<std::mutex> lock(mutex_);
  registration_model_ = std::move(model);
}

std::string NavigationRunOutput::registrationModel() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return registration_model_;
}

void NavigationRunOutput::setSearchProgress(int done, int total) {
  std::lock_guard<std::mutex> lock(mutex_);
  search_progress_ = {done, total};
}

std::pair<int, int> NavigationRunOutput::searchProgress() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return search_progress_;
}

namespace {

struct NavigationKeyframeRequest final : KeyframeRequest {
  nav::RegistrationRequest request;
};

struct NavigationFix final : SatelliteFix {
  nav::RegistrationFix fix;
};

class NavigationVoPayload final : public VoPayload {
 public:
  NavigationVoPayload(const nav::NavigationInputs& inputs, const nav::NavigationOptions& options,
                      std::int64_t frames_total, std::shared_ptr<NavigationRunOutput> output,
                      NavigationLiveSink* live)
      : session_(inputs, options), frames_total_(frames_total), output_(std::move(output)), live_(live) {
    warmUpHomographyRansac(options.vo.device, options.vo.ransac_threshold_px,
                           options.vo_features.max_keypoints);
    output_->setModel(session_.voModelName(), session_.fallbackReason());
    if (live_) live_->onSessionStarted(session_.voModelName(), session_.fallbackReason());
  }

  std::string name() const override { return "navigation (" + session_.voModelName() + ")"; }

  std::shared_ptr<KeyframeRequest> processFrame(const EngineFrame& frame, StageClock& clock) override {
    // The session works on host images: a view of the CPU ring slot, or a download.
    const at::Tensor host = frame.pixels->bgr.device().is_cpu() ? frame.pixels->bgr
                                                                : frame.pixels->bgr.to(at::kCPU);
    const cv::Mat image(frame.height_px, frame.width_px, CV_8UC3, host.data_ptr<std::uint8_t>());
    const double start_ms = clock.nowMs();
    const nav::FrameResult result = session_.processFrame(frame.index, frame.t_s, image);
    double at_ms = start_ms;
    for (const auto& [stage, ms] : {std::pair{Stage::Extract, result.odometry.extract_ms},
                                    std::pair{Stage::Match, result.odometry.match_ms},
                                    std::pair{Stage::Pose, result.odometry.pose_ms},
                                    std::pair{Stage::Fusion, result.fusion_ms}}) {
      clock.addMeasured(stage, at_ms, ms);
      at_ms += ms;
    }
    ++processed_;
    if (live_) live_->onFrame(result);
    localised_ = result.online.has_pose;
    std::optional<nav::RegistrationRequest> request = session_.takeRegistrationRequest();
    if (!request) return nullptr;
    // Not localised yet (or lost), one attempt at a time, as in the sequential driver: the
    // session asks again every half interval, alternating a telemetry-cropped search with
    // a whole-basemap one, because it has not seen the answer to its last attempt; here
    // that answer is still on its way, and a global search started meanwhile would keep
    // the satellite stage busy (tens of seconds on a CPU) after the first fix arrived.
    // The newest request sent is never dropped by the latest-wins queue, so "its fix is
    // back" is a reliable end of the attempt.
    if (!result.online.has_pose && awaiting_fix_for_ >= 0) {
      ++requests_held_back_;
      return nullptr;
    }
    awaiting_fix_for_ = request->frame;
    auto keyframe = std::make_shared<NavigationKeyframeRequest>();
    keyframe->frame = request->frame;
    keyframe->t_s = request->t_s;
    keyframe->request = std::move(*request);  // its image is a deep copy (session contract)
    return keyframe;
  }

  // Without a position, further requests are held back until the attempt on its way is
  // answered (see processFrame); under the every-keyframe policy the engine waits for it.
  bool awaitingFix() const override { return !localised_ && awaiting_fix_for_ >= 0; }

  void applyFix(const SatelliteFix& fix) override {
    const auto* navigation_fix = dynamic_cast<const NavigationFix*>(&fix);
    if (!navigation_fix) throw InvalidArgument("navigation VO payload got a fix of another payload");
    session_.addFix(navigation_fix->fix);
    if (navigation_fix->fix.frame == awaiting_fix_for_) awaiting_fix_for_ = -1;
    if (live_) live_->onFix(navigation_fix->fix);
  }

  void finish(bool completed) override {
    if (requests_held_back_ > 0)
      SKYTRACE_LOG(Info, "engine.navigation") << requests_held_back_
                                              << " registration requests held back while an attempt "
                                                 "without a position was on its way";
    output_->setResult(session_.finish(completed, std::max(frames_total_, processed_)));
  }

 private:
  nav::NavigationSession session_;
  std::int64_t frames_total_;
  std::int64_t processed_ = 0;
  std::shared_ptr<NavigationRunOutput> output_;
  NavigationLiveSink* live_;
  std::int64_t awaiting_fix_for_ = -1;  // frame of the newest request sent, until its fix is back
  bool localised_ = false;              // the last frame's online pose existed
  std::int64_t requests_held_back_ = 0;
};

class NavigationSatellitePayload final : public SatellitePayload {
 public:
  NavigationSatellitePayload(const nav::NavigationInputs& inputs, const nav::RegistrationOptions& options,
                             NavigationRunOutput& output)
      : registrar_(inputs.basemap_paths, inputs.enu, inputs.ground_up_m, inputs.camera, options),
        output_(output) {
    output.setRegistrationModel(registrar_.featuresModelName());
    warmUpHomographyRansac(options.features.device, options.ransac_threshold_px,
                           options.features.max_keypoints);
  }

  std::string name() const override { return "basemap registration"; }

  std::shared_ptr<SatelliteFix> process(const KeyframeRequest& request, StageClock& clock,
                                        const RunControl& control) override {
    const auto* keyframe = dynamic_cast<const NavigationKeyframeRequest*>(&request);
    if (!keyframe) throw InvalidArgument("registration payload got a request of another payload");
    const double start_ms = clock.nowMs();
    auto fix = std::make_shared<NavigationFix>();
    // A global search's preparation can take minutes: its progress goes to the run's
    // output (the driver reports it), and pause and cancel reach it between tiles.
    registrar_.setSearchMonitor([this, &control](int done, int total) {
      output_.setSearchProgress(done, total);
      control.checkpoint();
    });
    fix->fix = registrar_.registerFrame(keyframe->request);
    fix->frame = fix->fix.frame;
    fix->accepted = fix->fix.accepted;
    if (fix->fix.global_mode) clock.addMeasured(Stage::Retrieval, start_ms, fix->fix.retrieval_ms);
    clock.addMeasured(Stage::FineMatch, start_ms + fix->fix.retrieval_ms, fix->fix.fine_match_ms);
    return fix;
  }

 private:
  nav::BasemapRegistrar registrar_;
  NavigationRunOutput& output_;  // outlives the run's payloads
};

}  // namespace

PayloadFactories makeNavigationPayloads(const nav::NavigationInputs& inputs,
                                        const nav::NavigationOptions& options,
                                        std::int64_t frames_total,
                                        std::shared_ptr<NavigationRunOutput> output,
                                        NavigationLiveSink* live) {
  options.check();
  if (!output) throw InvalidArgument("makeNavigationPayloads: no output object");
  PayloadFactories factories;
  factories.vo = [inputs, options, frames_total, output, live](const vision::DeviceSpec& device) {
    nav::NavigationOptions on_device = options;
    on_device.vo_features.device = device;
    on_device.vo_match.device = device;
    on_device.vo.device = device;
    return std::make_unique<NavigationVoPayload>(inputs, on_device, frames_total, output, live);
  };
  if (options.registration_enabled && !inputs.basemap_paths.empty()) {
    factories.satellite = [inputs, registration = options.registration, output](const vision::DeviceSpec& device) {
      nav::RegistrationOptions on_device = registration;
      on_device.features.device = device;
      return std::make_unique<NavigationSatellitePayload>(inputs, on_device, *output);
    };
  }
  return factories;
}

NavigationEngineRun runNavigationEngine(const std::string& video_path, nav::NavigationInputs inputs,
                                        const nav::NavigationOptions& options,
                                        const DevicePlacement& placement,
                                        const ProgressCallback& progress,
                                        const NavigationEngineHooks& hooks,
                                        KeyframePolicy keyframe_policy, int satellite_sm_limit) {
  if (hooks.poll_interval_ms < 1 || hooks.poll_interval_ms > 1000)
    throw InvalidArgument("runNavigationEngine: poll_interval_ms must be in [1, 1000], got " +
                          std::to_string(hooks.poll_interval_ms));
  std::int64_t frames_total = 0;
  {
    const VideoFrameSource probe(video_path);  // fails early on an unreadable video
    const FrameSourceInfo& info = probe.info();
    nav::checkVideoFrameSize(video_path, info.width_px, info.height_px);
    if (info.width_px != inputs.camera.width_px || info.height_px != inputs.camera.height_px)
      throw InvalidArgument(video_path + ": frames are " + std::to_string(info.width_px) + "x" +
                            std::to_string(info.height_px) + " but the camera model is " +
                            std::to_string(inputs.camera.width_px) + "x" +
                            std::to_string(inputs.camera.height_px));
    frames_total = info.frame_count;
  }
  auto output = std::make_shared<NavigationRunOutput>();
  LatencyRecorder recorder(1 << 16);
  PipelineOptions pipeline_options;
  pipeline_options.placement = placement;
  pipeline_options.mode_name = "overlapped";
  pipeline_options.keyframe_policy = keyframe_policy;
  pipeline_options.satellite_sm_limit = satellite_sm_limit;
  auto video_end = std::make_shared<VideoEndNote>();
  Pipeline pipeline(pipeline_options,
                    [video_path, video_end] { return std::make_unique<VideoFrameSource>(video_path, video_end); },
                    makeNavigationPayloads(inputs, options, frames_total, output, hooks.live), &recorder);
  NavigationEngineRun run;
  std::int64_t frames_done = 0;
  // Takes the new samples, forwards them, and counts frames (from any stage's frame).
  auto drain = [&] {
    const std::size_t before = run.samples.size();
    recorder.drain(&run.samples);
    for (std::size_t i = before; i < run.samples.size(); ++i) {
      frames_done = std::max(frames_done, run.samples[i].frame + 1);
      if (hooks.latency_forward) hooks.latency_forward->push(run.samples[i]);
    }
  };
  using Clock = std::chrono::steady_clock;
  constexpr auto kProgressInterval = std::chrono::milliseconds(100);
  auto last_progress = Clock::now() - kProgressInterval;
  bool cancel_requested = false;
  bool paused = false;
  pipeline.start();
  while (!pipeline.wait(hooks.poll_interval_ms)) {
    drain();
    if (cancel_requested) continue;
    if (hooks.control && hooks.control->isCancelled()) {
      cancel_requested = true;
      pipeline.cancel();
      continue;
    }
    if (hooks.control && hooks.control->isPaused() != paused) {
      paused = !paused;
      pipeline.setPaused(paused);
    }
    if (Clock::now() - last_progress >= kProgressInterval) {
      last_progress = Clock::now();
      const double fraction =
          frames_total > 0 ? std::min(1.0, double(frames_done) / double(frames_total)) : 0.0;
      const auto [search_done, search_total] = output->searchProgress();
      const std::string stage = search_done < search_total
                                    ? nav::globalSearchStage(search_done, search_total)
                                    : std::string("navigating");
      if (!reportProgress(progress, fraction, stage)) {
        cancel_requested = true;
        pipeline.cancel();
      }
    }
  }
  drain();
  run.report = pipeline.report();
  if (!run.report.error.empty()) throw Error(run.report.error);
  std::optional<nav::NavigationResult> result = output->result();
  if (!result && run.report.cancelled) throw Cancelled();  // cancelled before the first frame
  if (!result) throw Error("navigation run ended without a result");
  run.result = std::move(*result);
  run.result.registration_features_model = output->registrationModel();
  nav::markVideoEndedEarly(video_path, video_end->reason(), &run.result);
  run.vo_model = output->voModel();
  run.fallback_reason = output->fallbackReason();
  return run;
}

std::vector<nav::StageSummary> stageSummaries(const std::vector<LatencySample>& samples) {
  std::vector<nav::StageSummary> summaries;
  for (const StageStatistics& s : computeStageStatistics(samples)) {
    nav::StageSummary summary;
    summary.stage = stageName(s.stage);
    summary.count = s.count;
    summary.mean_ms = s.mean_ms;
    summary.p50_ms = s.p50_ms;
    summary.p99_ms = s.p99_ms;
    summary.max_ms = s.max_ms;
    summaries.push_back(summary);
  }
  return summaries;
}

}  // namespace skytrace::engine
