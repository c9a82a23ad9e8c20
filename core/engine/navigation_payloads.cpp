#include "core/engine/navigation_payloads.h"

#include <ATen/ATen.h>

#include <opencv2/core.hpp>

#include <algorithm>
#include <chrono>

#include "core/engine/engine_frame_impl.h"
#include "core/engine/pipeline.h"
#include "core/engine/sequential_run.h"
#include "core/engine/video_frame_source.h"
#include "core/nav/basemap_registration.h"
#include "core/util/error.h"
#include "core/util/log.h"
#include "core/vision/features.h"
#include "core/vision/image_impl.h"
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

void NavigationRunOutput::setProgressCallback(
    std::function<void(std::int64_t, std::int64_t, const std::string&)> callback, std::int64_t frames_total) {
  std::lock_guard<std::mutex> lock(progress_mutex_);
  progress_ = std::move(callback);
  frames_total_ = frames_total;
}

void NavigationRunOutput::frameDone(std::int64_t frames_done) {
  constexpr auto kInterval = std::chrono::milliseconds(100);
  std::lock_guard<std::mutex> lock(progress_mutex_);
  frames_done_ = frames_done;
  const auto now = std::chrono::steady_clock::now();
  if (!progress_ || now - last_progress_ < kInterval) return;
  last_progress_ = now;
  progress_(frames_done_, frames_total_, "navigating");
}

void NavigationRunOutput::setSearchProgress(int done, int total) {
  std::lock_guard<std::mutex> lock(progress_mutex_);
  if (!progress_) return;
  progress_(frames_done_, frames_total_,
            done < total ? nav::globalSearchStage(done, total) : std::string("navigating"));
}

void NavigationRunOutput::setKeyframeTransfers(const vision::ImageTransfers& transfers) {
  std::lock_guard<std::mutex> lock(mutex_);
  keyframe_transfers_ = transfers;
}

vision::ImageTransfers NavigationRunOutput::keyframeTransfers() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return keyframe_transfers_;
}

namespace {

struct NavigationKeyframeRequest final : KeyframeRequest {
  nav::RegistrationRequest request;
};

struct NavigationFix final : SatelliteFix {
  nav::RegistrationFix fix;
};

// What a navigation front end computed for one frame: its VO features (on the front
// end's device) and their undistorted keypoints.
struct NavigationPreparedFrame final : PreparedFrame {
  nav::OdometryFrameFeatures features;
};

// Frame-parallel runs: VO's feature extraction on one device, for the frames routed there.
class NavigationVoFrontEnd final : public VoFrontEnd {
 public:
  NavigationVoFrontEnd(const nav::NavigationOptions& options, const nav::CameraModel& camera,
                       const vision::DeviceSpec& device)
      : camera_(camera) {
    vision::ExtractorOptions extractor = options.vo_features;
    extractor.device = device;
    // The same choice as the session's (same options, same weights lookup), so that the
    // front ends and the VO payload agree on the model, fallback included.
    extractor_ = vision::createFeatureExtractorOrFallback(extractor, "orb");
  }

  std::shared_ptr<PreparedFrame> prepare(const EngineFrame& frame, StageClock& clock) override {
    auto prepared = std::make_shared<NavigationPreparedFrame>();
    prepared->frame = frame.index;
    prepared->features =
        nav::extractOdometryFeatures(*extractor_, camera_, vision::imageFromTensor(frame.pixels->bgr), &clock);
    return prepared;
  }

 private:
  nav::CameraModel camera_;
  std::unique_ptr<vision::FeatureExtractor> extractor_;
};

class NavigationVoPayload final : public VoPayload {
 public:
  NavigationVoPayload(const nav::NavigationInputs& inputs, const nav::NavigationOptions& options,
                      std::int64_t frames_total, std::shared_ptr<NavigationRunOutput> output,
                      NavigationLiveSink* live)
      : session_(inputs, options),
        device_(options.vo_match.device),
        frames_total_(frames_total),
        output_(std::move(output)),
        live_(live) {
    warmUpHomographyRansac(options.vo.device, options.vo.ransac_threshold_px,
                           options.vo_features.max_keypoints);
    output_->setModel(session_.voModelName(), session_.fallbackReason());
    if (live_) live_->onSessionStarted(session_.voModelName(), session_.fallbackReason());
  }

  std::string name() const override { return "navigation (" + session_.voModelName() + ")"; }

  std::shared_ptr<KeyframeRequest> processFrame(const EngineFrame& frame, StageClock& clock) override {
    // The ring slot as it is: on the GPU the extractor reads the device frame (no copy
    // back to the host); on the CPU a view of the host slot.
    const vision::Image image = vision::imageFromTensor(frame.pixels->bgr);
    // The session marks its stages on the worker's clock (device events on the GPU).
    return afterFrame(frame, session_.processFrame(frame.index, frame.t_s, image, &clock));
  }

  // Frame-parallel runs: a front end on any device extracted the features; they join
  // the matcher's device (a copy between GPUs), and the frame's pixels stay where the
  // front end has them (a registration request copies them there).
  std::shared_ptr<KeyframeRequest> processPrepared(const EngineFrame& frame, const PreparedFrame& prepared,
                                                   StageClock& clock) override {
    const auto* front = dynamic_cast<const NavigationPreparedFrame*>(&prepared);
    if (!front) throw InvalidArgument("navigation VO payload got a frame prepared by another front end");
    nav::OdometryFrameFeatures features = front->features;
    features.features = vision::featuresOnDevice(features.features, device_);
    const vision::Image image = vision::imageFromTensor(frame.pixels->bgr);
    return afterFrame(frame,
                      session_.processExtractedFrame(frame.index, frame.t_s, image, std::move(features), &clock));
  }

  // Without a position, further requests are held back until the attempt on its way is
  // answered (see afterFrame); under the every-keyframe policy the engine waits for it.
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
  // The frame's result to the live sink and progress; its registration request, if any.
  std::shared_ptr<KeyframeRequest> afterFrame(const EngineFrame& frame, const nav::FrameResult& result) {
    ++processed_;
    if (live_) live_->onFrame(result);
    output_->frameDone(frame.index + 1);
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
    // A frame-parallel front end's pixels (another GPU): the request's copy was made on
    // that GPU's current stream of this thread, which the engine does not wait for. Moved
    // here (a copy ordered after it, completed on this thread's stream, which the engine
    // waits for), the keyframe lives on the VO device as in the other layouts.
    if (request->image.device() != device_) request->image = request->image.to(device_);
    auto keyframe = std::make_shared<NavigationKeyframeRequest>();
    keyframe->frame = request->frame;
    keyframe->t_s = request->t_s;
    keyframe->request = std::move(*request);  // its image is a deep copy (session contract)
    return keyframe;
  }

  nav::NavigationSession session_;
  vision::DeviceSpec device_;  // the matcher's: where VO's features must be
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
  // `first_request_height_m`: nav::firstRequestHeightM of the run.
  NavigationSatellitePayload(const nav::NavigationInputs& inputs, const nav::RegistrationOptions& options,
                             double first_request_height_m, NavigationRunOutput& output)
      : registrar_(inputs.basemap_paths, inputs.enu, inputs.ground_up_m, inputs.camera, options),
        output_(output),
        idle_preparation_(options.features.device.cuda) {
    // The wait for the first keyframe is idle time too: the global search starts there,
    // its map tiles being read from now on.
    if (idle_preparation_) {
      registrar_.expectFirstRequestHeight(first_request_height_m);
      registrar_.prepareWhileIdle(kIdlePreparationMaxTiles);
    }
    output.setRegistrationModel(registrar_.featuresModelName());
    warmUpHomographyRansac(options.features.device, options.ransac_threshold_px,
                           options.features.max_keypoints);
  }

  std::string name() const override { return "basemap registration"; }

  std::shared_ptr<SatelliteFix> process(const KeyframeRequest& request, StageClock& clock,
                                        const RunControl& control) override {
    const auto* keyframe = dynamic_cast<const NavigationKeyframeRequest*>(&request);
    if (!keyframe) throw InvalidArgument("registration payload got a request of another payload");
    auto fix = std::make_shared<NavigationFix>();
    // A global search's preparation can take minutes: its progress goes to the run's
    // output (the driver reports it), and pause and cancel reach it between tiles.
    registrar_.setSearchMonitor([this, &control](int done, int total) {
      output_.setSearchProgress(done, total);
      control.checkpoint();
    });
    fix->fix = registrar_.registerFrame(keyframe->request, &clock);
    output_.setKeyframeTransfers(registrar_.keyframeTransfers());
    fix->frame = fix->fix.frame;
    fix->accepted = fix->fix.accepted;
    return fix;
  }

  // On a GPU, the global search the latest keyframe (before the first: the first) would
  // need is prepared between keyframes (one map tile per call), so that a global search
  // after repeated rejections does not stop VO for its preparation (0.8-1.1 s on an H100
  // for the 23 tiles of a 20 s flight's map). Not on the CPU, where that work would take
  // cores from VO.
  bool prepareWhileIdle(const RunControl& control) override {
    if (!idle_preparation_) return false;
    registrar_.setSearchMonitor([&control](int, int) { control.checkpoint(); });
    return registrar_.prepareWhileIdle(kIdlePreparationMaxTiles);
  }

 private:
  // A global search of more tiles is prepared when a global request needs it (its memory
  // and time are then the user's choice of map, not idle-time work).
  static constexpr std::size_t kIdlePreparationMaxTiles = 256;
  nav::BasemapRegistrar registrar_;
  NavigationRunOutput& output_;  // outlives the run's payloads
  bool idle_preparation_;
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
  factories.vo_front_end = [options, camera = inputs.camera](const vision::DeviceSpec& device) {
    return std::make_unique<NavigationVoFrontEnd>(options, camera, device);
  };
  if (options.registration_enabled && !inputs.basemap_paths.empty()) {
    factories.satellite = [inputs, registration = options.registration,
                           first_height_m = nav::firstRequestHeightM(inputs),
                           output](const vision::DeviceSpec& device) {
      nav::RegistrationOptions on_device = registration;
      on_device.features.device = device;
      return std::make_unique<NavigationSatellitePayload>(inputs, on_device, first_height_m, *output);
    };
  }
  return factories;
}

const char* navigationLayoutName(NavigationLayout layout) {
  switch (layout) {
    case NavigationLayout::Sequential:
      return "sequential";
    case NavigationLayout::Overlapped:
      return "overlapped";
    case NavigationLayout::FrameParallel:
      return "frame-parallel";
  }
  return "overlapped";
}

void NavigationEngineOptions::check() const {
  if (satellite_sm_limit < 0)
    throw InvalidArgument("satellite SM limit must be >= 0, got " + std::to_string(satellite_sm_limit));
  if (layout == NavigationLayout::Sequential && !extra_satellite_devices.empty())
    throw InvalidArgument("more registration devices need the overlapped layout");
  if ((layout == NavigationLayout::FrameParallel) != !front_end_devices.empty())
    throw InvalidArgument(layout == NavigationLayout::FrameParallel
                              ? "the frame-parallel layout needs at least one front-end device"
                              : "front-end devices need the frame-parallel layout");
}

PipelineOptions navigationPipelineOptions(const NavigationEngineOptions& engine_options) {
  engine_options.check();
  if (engine_options.layout == NavigationLayout::Sequential)
    throw InvalidArgument("the sequential layout runs without the engine's pipeline");
  PipelineOptions options;
  options.placement = engine_options.placement;
  options.mode_name = navigationLayoutName(engine_options.layout);
  options.keyframe_policy = engine_options.keyframe_policy;
  options.satellite_sm_limit = engine_options.satellite_sm_limit;
  options.extra_satellite_devices = engine_options.extra_satellite_devices;
  options.front_end_devices = engine_options.front_end_devices;
  return options;
}

NavigationEngineRun runNavigationEngine(const std::string& video_path, nav::NavigationInputs inputs,
                                        const nav::NavigationOptions& options,
                                        const NavigationEngineOptions& engine_options,
                                        const NavigationEngineHooks& hooks) {
  engine_options.check();
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
  output->setProgressCallback(hooks.progress, frames_total);
  // The run's one recorder: every sample as it is measured, in batches to the listener.
  LatencyLog samples(hooks.latency_listener);
  const PayloadFactories payloads = makeNavigationPayloads(inputs, options, frames_total, output, hooks.live);
  auto video_end = std::make_shared<VideoEndNote>();
  NavigationEngineRun run;
  if (engine_options.layout == NavigationLayout::Sequential) {
    SequentialOptions sequential;
    sequential.device = engine_options.placement.vo;
    sequential.satellite_device = engine_options.placement.satellite;
    VideoFrameSource source(video_path, video_end);
    run.report = runSequential(sequential, source, payloads, &samples, hooks.control);
  } else {
    PipelineOptions pipeline_options = navigationPipelineOptions(engine_options);
    pipeline_options.control = hooks.control;
    Pipeline pipeline(pipeline_options,
                      [video_path, video_end] { return std::make_unique<VideoFrameSource>(video_path, video_end); },
                      payloads, &samples);
    pipeline.start();
    // The workers end on their own (end of video, error) or on hooks.control; this
    // thread only waits (bounded waits, so that a stuck run stays visible in a debugger).
    while (!pipeline.wait(60'000)) {
    }
    run.report = pipeline.report();
  }
  samples.flush();  // the producers are done: the listener gets the last batch
  run.samples = samples.samples();
  if (!run.report.error.empty()) throw Error(run.report.error);
  std::optional<nav::NavigationResult> result = output->result();
  if (!result && run.report.cancelled) throw Cancelled();  // cancelled before the first frame
  if (!result) throw Error("navigation run ended without a result");
  run.result = std::move(*result);
  run.result.registration_features_model = output->registrationModel();
  run.result.keyframe_transfers = output->keyframeTransfers();
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
