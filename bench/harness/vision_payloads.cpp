#include "bench/harness/vision_payloads.h"

#include <ATen/ATen.h>

#include <algorithm>

#include "core/engine/engine_frame_impl.h"
#include "bench/harness/vision_extractor_impl.h"
#include "bench/harness/vision_payload_models_impl.h"
#include "core/util/error.h"
#include "core/vision/aliked_config.h"
#include "core/vision/dinov2_config.h"
#include "core/vision/lightglue_model_impl.h"
#include "core/vision/matcher_impl.h"
#include "core/vision/robust_estimation_impl.h"
#include "core/vision/superpoint_model_impl.h"

namespace skytrace::engine {

namespace {

std::vector<std::string> splitPlus(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t begin = 0;
  while (true) {
    const std::size_t plus = text.find('+', begin);
    parts.push_back(text.substr(begin, plus == std::string::npos ? std::string::npos : plus - begin));
    if (plus == std::string::npos) return parts;
    begin = plus + 1;
  }
}

bool isClassicalFeatures(const std::string& name) { return name == "orb" || name == "sift"; }

constexpr const char* kFeatureNames = "aliked-t16, aliked-n16, aliked-n16rot, aliked-n32, superpoint, orb, sift";

}  // namespace

FeatureMatchingModel parseFeatureMatchingModel(const std::string& text) {
  const std::vector<std::string> parts = splitPlus(text);
  const std::string form = "'" + text + "': expected FEATURES[+mnn|+lightglue] (features: " +
                           kFeatureNames + "), e.g. superpoint+lightglue";
  if (parts.size() > 2 || std::any_of(parts.begin(), parts.end(), [](const std::string& p) { return p.empty(); }))
    throw InvalidArgument("model " + form);
  FeatureMatchingModel model;
  model.features = parts[0];
  if (model.features.rfind("aliked", 0) == 0) {
    try {
      vision::alikedConfig(model.features);
    } catch (const InvalidArgument&) {
      throw InvalidArgument("unknown features '" + model.features + "' in model " + form);
    }
  } else if (model.features != "superpoint" && !isClassicalFeatures(model.features)) {
    throw InvalidArgument("unknown features '" + model.features + "' in model " + form);
  }
  if (parts.size() == 2) model.matcher = parts[1];
  if (model.matcher != "mnn" && model.matcher != "lightglue")
    throw InvalidArgument("unknown matcher '" + model.matcher + "' in model " + form);
  if (model.matcher == "lightglue" && lightGlueFamily(model.features).empty())
    throw InvalidArgument("model '" + text + "': LightGlue is published for SuperPoint and for " +
                          "128-D ALIKED descriptors (aliked-n16, aliked-n16rot, aliked-n32), not for " +
                          model.features);
  return model;
}

SatelliteModel parseSatelliteModel(const std::string& text) {
  const std::vector<std::string> parts = splitPlus(text);
  SatelliteModel model;
  if (parts[0].rfind("dinov2", 0) != 0) {
    if (parts[0] == "litesam")
      throw InvalidArgument("satellite model '" + text +
                            "': LiteSAM needs a retrieval step first, e.g. dinov2+litesam");
    model.local = parseFeatureMatchingModel(text);
    return model;
  }
  model.retrieval = parts[0] == "dinov2" ? "dinov2-vits14" : parts[0];
  vision::dinov2Config(model.retrieval);  // InvalidArgument naming the known backbones
  if (parts.size() < 2)
    throw InvalidArgument("satellite model '" + text +
                          "': RETRIEVAL+FINE needs a fine matcher, e.g. dinov2+litesam or "
                          "dinov2+aliked-n16rot");
  const std::string fine = text.substr(parts[0].size() + 1);
  if (fine == "litesam") model.dense_matcher = fine;
  else model.local = parseFeatureMatchingModel(fine);
  return model;
}

void VisionPayloadOptions::check() const {
  if (vo_keypoints < 8 || satellite_keypoints < 8)
    throw InvalidArgument("keypoint budgets must be >= 8");
  if (keyframe_interval < 1) throw InvalidArgument("keyframe interval must be >= 1");
  if (retrieval_candidates < 1) throw InvalidArgument("retrieval candidates must be >= 1");
  if (retrieval_crop_px < 14 || retrieval_crop_px % 14 != 0)
    throw InvalidArgument("the retrieval crop must be a positive multiple of 14 px (DINOv2 patches), got " +
                          std::to_string(retrieval_crop_px));
  if (fine_match_size_px < 32 || fine_match_size_px % 32 != 0)
    throw InvalidArgument("the fine-match size must be a positive multiple of 32 px (LiteSAM), got " +
                          std::to_string(fine_match_size_px));
  if (min_inliers < 4) throw InvalidArgument("min_inliers must be >= 4");
  if (!(ransac_threshold_px > 0.0)) throw InvalidArgument("RANSAC threshold must be > 0");
  if (ransac_hypotheses < 16) throw InvalidArgument("RANSAC hypotheses must be >= 16");
  parseFeatureMatchingModel(vo_model);
  parseSatelliteModel(satellite_model);
}

std::vector<std::pair<std::string, std::string>> visionPayloadWeights(
    const VisionPayloadOptions& options) {
  options.check();
  const std::string& dir = options.weights_dir;
  std::vector<std::pair<std::string, std::string>> files;
  const auto addFeatures = [&](const std::string& role, const std::string& features) {
    if (isClassicalFeatures(features)) return;
    if (features == "superpoint") {
      files.emplace_back(role, payloadWeightsPath(features, dir,
                                                  vision::superpoint::kSuperPointPublishedFile,
                                                  vision::superpoint::kSuperPointWeightsUrl));
    } else {
      files.emplace_back(role, payloadWeightsPath(features, dir,
                                                  vision::alikedConfig(features).published_file,
                                                  vision::kAlikedWeightsUrl));
    }
  };
  const auto addMatcher = [&](const std::string& role, const FeatureMatchingModel& model) {
    if (model.matcher != "lightglue") return;
    const std::string family = lightGlueFamily(model.features);
    files.emplace_back(role, payloadWeightsPath("lightglue (" + family + ")", dir,
                                                vision::lightglue::lightGlueConfig(family).published_file,
                                                vision::lightglue::kLightGlueWeightsUrl));
  };
  const FeatureMatchingModel vo = parseFeatureMatchingModel(options.vo_model);
  addFeatures("vo features", vo.features);
  addMatcher("vo matcher", vo);
  const SatelliteModel satellite = parseSatelliteModel(options.satellite_model);
  if (!satellite.retrieval.empty())
    files.emplace_back("satellite retrieval",
                       payloadWeightsPath(satellite.retrieval, dir,
                                          vision::dinov2Config(satellite.retrieval).published_file,
                                          vision::kDinov2WeightsUrl));
  if (satellite.dense_matcher == "litesam") {
    files.emplace_back("satellite fine matcher",
                       payloadWeightsPath("litesam", dir, kLiteSamCheckpointFile, kLiteSamCheckpointUrl));
  } else {
    addFeatures("satellite features", satellite.local.features);
    addMatcher("satellite matcher", satellite.local);
  }
  return files;
}

void VisionStatsSink::add(const VisionPayloadStats& d) {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.vo_frames += d.vo_frames;
  stats_.vo_keypoints += d.vo_keypoints;
  stats_.vo_pairs += d.vo_pairs;
  stats_.vo_matches += d.vo_matches;
  stats_.vo_inliers += d.vo_inliers;
  stats_.keyframes += d.keyframes;
  stats_.fixes_accepted += d.fixes_accepted;
  stats_.fix_matches += d.fix_matches;
  stats_.fix_inliers += d.fix_inliers;
  stats_.fixes_applied += d.fixes_applied;
}

VisionPayloadStats VisionStatsSink::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

namespace {

struct VisionKeyframeRequest final : KeyframeRequest {
  at::Tensor bgr;  // [H,W,3] uint8 on the VO device; complete when pushed
};

struct VisionFix final : SatelliteFix {
  int tile = -1;
  int matches = 0;
  int inliers = 0;
};

vision::RansacOptions ransacOptions(const VisionPayloadOptions& options,
                                    const vision::DeviceSpec& device) {
  vision::RansacOptions ransac;
  ransac.model = vision::GeometricModelType::Homography;
  ransac.inlier_threshold_px = options.ransac_threshold_px;
  ransac.hypotheses_per_batch = options.ransac_hypotheses;
  // The host round first (RansacOptions::host_hypotheses), then at most one device batch.
  ransac.max_hypotheses = options.ransac_hypotheses;
  ransac.device = device;
  return ransac;
}

struct PairFit {
  int matches = 0;
  int inliers = 0;
};

// Homography inliers of corresponding points [M,2] (none below 8 pairs).
PairFit fitPoints(const at::Tensor& points_a, const at::Tensor& points_b,
                  const vision::RansacOptions& ransac) {
  PairFit fit;
  fit.matches = static_cast<int>(points_a.size(0));
  if (fit.matches >= 8)
    fit.inliers = vision::estimateGeometricModel(points_a, points_b, ransac).num_inliers;
  return fit;
}

// Matches a -> b and fits b_from_a (the satellite stage's fine match to a tile).
PairFit matchAndFit(TensorPairMatcher& matcher, const ImageFeatures& a, const ImageFeatures& b,
                    const vision::RansacOptions& ransac) {
  const vision::MatchTensors matches = matcher.match(a, b);
  return fitPoints(a.features.keypoints_px.index_select(0, matches.index_a),
                   b.features.keypoints_px.index_select(0, matches.index_b), ransac);
}

ImageFeatures extractImage(TensorExtractor& extractor, const at::Tensor& bgr) {
  return {extractor.extract(bgr), static_cast<double>(bgr.size(1)), static_cast<double>(bgr.size(0))};
}

// The VO front end: the frame's local features (stage "extract") and their matches to
// the previous frame's (stage "match", MNN or LightGlue), on the front end's device. The
// VO payload runs one itself in single-device runs; frame-parallel runs have one per
// device (PayloadFactories::vo_front_end).
struct VisionPreparedFrame final : PreparedFrame {
  ImageFeatures features;
  // Pair work (not for a run's first frame): corresponding keypoints [M,2] of the
  // previous frame and of this one, on the front end's device.
  bool matched = false;
  at::Tensor previous_points, points;
};

class VisionVoFrontEnd final : public VoFrontEnd {
 public:
  VisionVoFrontEnd(const VisionPayloadOptions& options, const vision::DeviceSpec& device)
      : model_(parseFeatureMatchingModel(options.vo_model)),
        device_(device),
        extractor_(createPayloadExtractor(model_.features, options.vo_keypoints, options.weights_dir, device,
                                          options.aliked_float16)),
        matcher_(createPairMatcher(model_, options.weights_dir, options.lightglue_adaptive, device)) {}

  std::shared_ptr<PreparedFrame> prepare(const EngineFrame& frame, StageClock& clock) override {
    auto prepared = std::make_shared<VisionPreparedFrame>();
    prepared->frame = frame.index;
    StageClock::Scope scope(clock, Stage::Extract);
    prepared->features = extractImage(*extractor_, frame.pixels->bgr);
    return prepared;
  }

  void preparePair(const PreparedFrame& previous, PreparedFrame& current, StageClock& clock) override {
    const auto* before = dynamic_cast<const VisionPreparedFrame*>(&previous);
    auto* now = dynamic_cast<VisionPreparedFrame*>(&current);
    if (!before || !now) throw InvalidArgument("vision VO front end got a prepared frame of another payload");
    // The previous frame's features may come from another GPU (~0.5 MB for 1024 ALIKED
    // keypoints; ordered before this stream's later work); on the same device .to() is
    // a no-op.
    ImageFeatures previous_features = before->features;
    const at::Device device = atDevice(device_);
    previous_features.features.keypoints_px = previous_features.features.keypoints_px.to(device);
    previous_features.features.descriptors = previous_features.features.descriptors.to(device);
    StageClock::Scope scope(clock, Stage::Match);
    const vision::MatchTensors matches = matcher_->match(previous_features, now->features);
    now->previous_points = previous_features.features.keypoints_px.index_select(0, matches.index_a);
    now->points = now->features.features.keypoints_px.index_select(0, matches.index_b);
    now->matched = true;
  }

 private:
  FeatureMatchingModel model_;
  vision::DeviceSpec device_;
  std::unique_ptr<TensorExtractor> extractor_;
  std::unique_ptr<TensorPairMatcher> matcher_;
};

class VisionVoPayload final : public VoPayload {
 public:
  VisionVoPayload(const VisionPayloadOptions& options, const vision::DeviceSpec& device,
                  std::shared_ptr<VisionStatsSink> stats)
      : options_(options), device_(device), ransac_(ransacOptions(options, device)), stats_(std::move(stats)) {
    // Device code and graphs of the RANSAC batches now, not at the first hard frame pair.
    vision::warmUpRobustEstimation(ransac_, options.vo_keypoints);
  }

  std::string name() const override { return "vision VO (" + options_.vo_model + ")"; }

  std::shared_ptr<KeyframeRequest> processFrame(const EngineFrame& frame, StageClock& clock) override {
    // The front end's models are loaded at the first frame: frame-parallel runs, which
    // never call this, have their own front ends on their devices.
    if (!front_end_) front_end_ = std::make_unique<VisionVoFrontEnd>(options_, device_);
    const std::shared_ptr<PreparedFrame> prepared = front_end_->prepare(frame, clock);
    if (previous_) front_end_->preparePair(*previous_, *prepared, clock);
    previous_ = prepared;
    // The ring slot is reused: a request keeps a copy (the engine syncs before pushing).
    return poseAndKeyframe(frame, *prepared, clock, [&] { return frame.pixels->bgr.clone(); });
  }

  std::shared_ptr<KeyframeRequest> processPrepared(const EngineFrame& frame, const PreparedFrame& prepared,
                                                   StageClock& clock) override {
    // `frame` is the front end's own copy of the pixels: a request keeps it as it is.
    return poseAndKeyframe(frame, prepared, clock, [&] { return frame.pixels->bgr; });
  }

  void applyFix(const SatelliteFix& fix) override {
    if (!dynamic_cast<const VisionFix*>(&fix))
      throw InvalidArgument("vision VO payload got a fix of another payload");
    VisionPayloadStats delta;
    delta.fixes_applied = 1;
    if (stats_) stats_->add(delta);
  }

 private:
  // The order-dependent part, on the VO device: the pose of the pair the front end matched
  // (RANSAC, stage "pose"), then every keyframe_interval-th frame becomes a keyframe
  // request with `request_pixels()`.
  template <typename RequestPixels>
  std::shared_ptr<KeyframeRequest> poseAndKeyframe(const EngineFrame& frame, const PreparedFrame& prepared,
                                                   StageClock& clock, const RequestPixels& request_pixels) {
    const auto* front = dynamic_cast<const VisionPreparedFrame*>(&prepared);
    if (!front) throw InvalidArgument("vision VO payload got a prepared frame of another payload");
    VisionPayloadStats delta;
    delta.vo_frames = 1;
    delta.vo_keypoints = front->features.features.keypoints_px.size(0);
    if (front->matched) {
      const at::Device device = atDevice(device_);
      PairFit fit;
      {
        StageClock::Scope scope(clock, Stage::Pose);
        fit = fitPoints(front->previous_points.to(device), front->points.to(device), ransac_);
      }
      delta.vo_pairs = 1;
      delta.vo_matches = fit.matches;
      delta.vo_inliers = fit.inliers;
    }
    if (stats_) stats_->add(delta);
    if (frame.index % options_.keyframe_interval != 0) return nullptr;
    auto request = std::make_shared<VisionKeyframeRequest>();
    request->frame = frame.index;
    request->t_s = frame.t_s;
    request->bgr = request_pixels();
    return request;
  }

  VisionPayloadOptions options_;
  vision::DeviceSpec device_;
  vision::RansacOptions ransac_;
  std::shared_ptr<VisionStatsSink> stats_;
  std::unique_ptr<VisionVoFrontEnd> front_end_;  // single-device runs
  std::shared_ptr<PreparedFrame> previous_;      // single-device runs: the last frame's
};

// The global descriptor of the "FEATURES" satellite model: the mean of the local
// descriptors, L2-normalised (zeros without features).
at::Tensor meanDescriptor(const TensorFeatures& features) {
  if (features.descriptors.size(0) == 0)
    return at::zeros({features.descriptors.size(1)}, features.descriptors.options());
  const at::Tensor mean = features.descriptors.mean(0);
  return mean / mean.norm().clamp_min(1e-12);
}

class VisionSatellitePayload final : public SatellitePayload {
 public:
  VisionSatellitePayload(const VisionPayloadOptions& options, const vision::DeviceSpec& device,
                         const std::vector<HostImage>& tiles, std::shared_ptr<VisionStatsSink> stats)
      : options_(options),
        model_(parseSatelliteModel(options.satellite_model)),
        device_(device),
        ransac_(ransacOptions(options, device)),
        stats_(std::move(stats)) {
    if (tiles.empty()) throw InvalidArgument("satellite payload: no basemap tiles");
    // RANSAC's device code and graphs now: loading them at the first keyframe that needs
    // a batch stalls the VO worker's launches on a shared GPU for ~100 ms (measured).
    vision::warmUpRobustEstimation(ransac_, std::max(options.satellite_keypoints, 1024));
    std::vector<at::Tensor> pixels;
    for (const HostImage& tile : tiles) {
      const at::Tensor host =
          at::from_blob(const_cast<std::uint8_t*>(tile.bgr.data()), {tile.height_px, tile.width_px, 3},
                        at::TensorOptions().dtype(at::kByte));
      pixels.push_back(host.to(atDevice(device)));
    }
    if (!model_.retrieval.empty()) {
      retrieval_ = std::make_unique<TileRetrieval>(model_.retrieval, options.weights_dir,
                                                   options.retrieval_crop_px, device);
      tile_globals_ = retrieval_->describeBatch(pixels);  // [T,D]
    }
    if (!model_.dense_matcher.empty()) {
      dense_ = std::make_unique<DenseTileMatcher>(model_.dense_matcher, options.weights_dir,
                                                  options.fine_match_size_px, device);
      for (const at::Tensor& tile : pixels) tile_inputs_.push_back(dense_->prepare(tile));
    } else {
      extractor_ = createPayloadExtractor(model_.local.features, options.satellite_keypoints,
                                          options.weights_dir, device, options.aliked_float16);
      matcher_ = createPairMatcher(model_.local, options.weights_dir, options.lightglue_adaptive, device);
      std::vector<at::Tensor> globals;
      for (const at::Tensor& tile : pixels) {
        tile_features_.push_back(extractImage(*extractor_, tile));
        globals.push_back(meanDescriptor(tile_features_.back().features));
      }
      if (!retrieval_) tile_globals_ = at::stack(globals);  // [T,D]
    }
    warmUp(pixels.front());
  }

  std::string name() const override { return "vision satellite (" + options_.satellite_model + ")"; }

  std::shared_ptr<SatelliteFix> process(const KeyframeRequest& request, StageClock& clock,
                                        const RunControl&) override {
    const auto* keyframe = dynamic_cast<const VisionKeyframeRequest*>(&request);
    if (!keyframe) throw InvalidArgument("vision satellite payload got a request of another payload");
    const at::Tensor bgr = keyframe->bgr.to(atDevice(device_));
    ImageFeatures features;  // local features of the keyframe, when the model uses them
    std::vector<std::int64_t> candidates;
    {
      StageClock::Scope scope(clock, Stage::Retrieval);
      at::Tensor global;
      if (retrieval_) {
        global = retrieval_->describe(bgr);
      } else {
        features = extractImage(*extractor_, bgr);
        global = meanDescriptor(features.features);
      }
      const at::Tensor similarity = at::mv(tile_globals_, global);
      const int k = std::min<int>(options_.retrieval_candidates, static_cast<int>(similarity.size(0)));
      const at::Tensor best = std::get<1>(similarity.topk(k)).to(at::kCPU);
      candidates.assign(best.data_ptr<std::int64_t>(), best.data_ptr<std::int64_t>() + k);
    }
    auto fix = std::make_shared<VisionFix>();
    fix->frame = request.frame;
    {
      StageClock::Scope scope(clock, Stage::FineMatch);
      DenseTileMatcher::Input frame_input;
      if (dense_) frame_input = dense_->prepare(bgr);
      else if (!features.features.descriptors.defined()) features = extractImage(*extractor_, bgr);
      for (const std::int64_t tile : candidates) {
        const auto t = static_cast<std::size_t>(tile);
        PairFit fit;
        if (dense_) {
          const DenseTileMatcher::Result matched = dense_->match(frame_input, tile_inputs_[t]);
          fit = fitPoints(matched.points_a, matched.points_b, ransac_);  // tile_from_frame
        } else {
          fit = matchAndFit(*matcher_, features, tile_features_[t], ransac_);
        }
        if (fix->tile < 0 || fit.inliers > fix->inliers) {
          fix->tile = static_cast<int>(tile);
          fix->matches = fit.matches;
          fix->inliers = fit.inliers;
        }
      }
    }
    fix->accepted = fix->inliers >= options_.min_inliers;
    VisionPayloadStats delta;
    delta.keyframes = 1;
    delta.fixes_accepted = fix->accepted ? 1 : 0;
    delta.fix_matches = fix->matches;
    delta.fix_inliers = fix->inliers;
    if (stats_) stats_->add(delta);
    return fix;
  }

 private:
  // One retrieval and one fine match with the first tile as the keyframe, so that
  // one-time costs (CUDA graph capture, cuDNN algorithm choice, allocator growth) are
  // paid when the payload is created rather than by the first keyframe's timing.
  // Statistics are not touched.
  void warmUp(const at::Tensor& tile) {
    if (retrieval_) retrieval_->describe(tile);
    if (dense_) {
      dense_->match(tile_inputs_.front(), tile_inputs_.front());
    } else {
      const ImageFeatures features = extractImage(*extractor_, tile);
      matcher_->match(features, tile_features_.front());
    }
  }

  VisionPayloadOptions options_;
  SatelliteModel model_;
  vision::DeviceSpec device_;
  vision::RansacOptions ransac_;
  std::shared_ptr<VisionStatsSink> stats_;
  std::unique_ptr<TileRetrieval> retrieval_;     // RETRIEVAL+FINE
  std::unique_ptr<DenseTileMatcher> dense_;      // ...+litesam
  std::vector<DenseTileMatcher::Input> tile_inputs_;
  std::unique_ptr<TensorExtractor> extractor_;   // local features (FEATURES, or the fine step)
  std::unique_ptr<TensorPairMatcher> matcher_;
  std::vector<ImageFeatures> tile_features_;
  at::Tensor tile_globals_;                      // [T,D] unit rows
};

}  // namespace

PayloadFactories makeVisionPayloads(const VisionPayloadOptions& options,
                                    std::shared_ptr<const std::vector<HostImage>> tiles,
                                    std::shared_ptr<VisionStatsSink> stats) {
  options.check();
  PayloadFactories factories;
  factories.vo = [options, stats](const vision::DeviceSpec& device) -> std::unique_ptr<VoPayload> {
    return std::make_unique<VisionVoPayload>(options, device, stats);
  };
  factories.vo_front_end = [options](const vision::DeviceSpec& device) -> std::unique_ptr<VoFrontEnd> {
    return std::make_unique<VisionVoFrontEnd>(options, device);
  };
  if (tiles && !tiles->empty()) {
    factories.satellite = [options, tiles, stats](const vision::DeviceSpec& device)
        -> std::unique_ptr<SatellitePayload> {
      return std::make_unique<VisionSatellitePayload>(options, device, *tiles, stats);
    };
  }
  return factories;
}

}  // namespace skytrace::engine
