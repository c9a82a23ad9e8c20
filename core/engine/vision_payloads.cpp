#include "core/engine/vision_payloads.h"

#include <ATen/ATen.h>

#include <algorithm>

#include "core/engine/engine_frame_impl.h"
#include "core/engine/vision_extractor_impl.h"
#include "core/util/error.h"
#include "core/vision/matcher_impl.h"
#include "core/vision/robust_estimation_impl.h"

namespace skytrace::engine {

void VisionPayloadOptions::check() const {
  if (vo_keypoints < 8 || satellite_keypoints < 8)
    throw InvalidArgument("keypoint budgets must be >= 8");
  if (keyframe_interval < 1) throw InvalidArgument("keyframe interval must be >= 1");
  if (retrieval_candidates < 1) throw InvalidArgument("retrieval candidates must be >= 1");
  if (min_inliers < 4) throw InvalidArgument("min_inliers must be >= 4");
  if (!(ransac_threshold_px > 0.0)) throw InvalidArgument("RANSAC threshold must be > 0");
  if (ransac_hypotheses < 16) throw InvalidArgument("RANSAC hypotheses must be >= 16");
}

void VisionStatsSink::add(const VisionPayloadStats& d) {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.vo_pairs += d.vo_pairs;
  stats_.vo_matches += d.vo_matches;
  stats_.vo_inliers += d.vo_inliers;
  stats_.keyframes += d.keyframes;
  stats_.fixes_accepted += d.fixes_accepted;
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
  int inliers = 0;
};

vision::RansacOptions ransacOptions(const VisionPayloadOptions& options,
                                    const vision::DeviceSpec& device) {
  vision::RansacOptions ransac;
  ransac.model = vision::GeometricModelType::Homography;
  ransac.inlier_threshold_px = options.ransac_threshold_px;
  ransac.hypotheses_per_batch = options.ransac_hypotheses;
  ransac.max_hypotheses = options.ransac_hypotheses;  // one batch: fixed work per frame
  ransac.device = device;
  return ransac;
}

struct PairFit {
  int matches = 0;
  int inliers = 0;
};

// Matches a -> b and fits b_from_a; marks the "match" and "pose" stages on `clock`
// unless it is null.
PairFit matchAndFit(const TensorFeatures& a, const TensorFeatures& b,
                    const vision::RansacOptions& ransac, StageClock* clock) {
  PairFit fit;
  vision::MatchTensors matches;
  {
    if (clock) clock->begin(Stage::Match);
    matches = vision::matchMutualNearestNeighbours(a.descriptors, b.descriptors, vision::MatchOptions{});
    if (clock) clock->end(Stage::Match);
  }
  {
    if (clock) clock->begin(Stage::Pose);
    fit.matches = static_cast<int>(matches.index_a.size(0));
    if (fit.matches >= 8) {
      const at::Tensor points_a = a.keypoints_px.index_select(0, matches.index_a);
      const at::Tensor points_b = b.keypoints_px.index_select(0, matches.index_b);
      fit.inliers = vision::estimateGeometricModel(points_a, points_b, ransac).num_inliers;
    }
    if (clock) clock->end(Stage::Pose);
  }
  return fit;
}

class VisionVoPayload final : public VoPayload {
 public:
  VisionVoPayload(const VisionPayloadOptions& options, const vision::DeviceSpec& device,
                  std::shared_ptr<VisionStatsSink> stats)
      : options_(options),
        extractor_(createTensorExtractor(options.vo_model, options.vo_keypoints,
                                         options.weights_dir, device)),
        ransac_(ransacOptions(options, device)),
        stats_(std::move(stats)) {}

  std::string name() const override { return "vision VO (" + options_.vo_model + ")"; }

  std::shared_ptr<KeyframeRequest> processFrame(const EngineFrame& frame, StageClock& clock) override {
    const at::Tensor& bgr = frame.pixels->bgr;
    TensorFeatures features;
    {
      StageClock::Scope scope(clock, Stage::Extract);
      features = extractor_->extract(bgr);
    }
    VisionPayloadStats delta;
    if (previous_.descriptors.defined()) {
      const PairFit fit = matchAndFit(previous_, features, ransac_, &clock);
      delta.vo_pairs = 1;
      delta.vo_matches = fit.matches;
      delta.vo_inliers = fit.inliers;
    }
    previous_ = features;
    if (stats_) stats_->add(delta);
    if (frame.index % options_.keyframe_interval != 0) return nullptr;
    auto request = std::make_shared<VisionKeyframeRequest>();
    request->frame = frame.index;
    request->t_s = frame.t_s;
    request->bgr = bgr.clone();  // the ring slot is reused; the engine syncs before pushing
    return request;
  }

  void applyFix(const SatelliteFix& fix) override {
    if (!dynamic_cast<const VisionFix*>(&fix))
      throw InvalidArgument("vision VO payload got a fix of another payload");
    VisionPayloadStats delta;
    delta.fixes_applied = 1;
    if (stats_) stats_->add(delta);
  }

 private:
  VisionPayloadOptions options_;
  std::unique_ptr<TensorExtractor> extractor_;
  vision::RansacOptions ransac_;
  std::shared_ptr<VisionStatsSink> stats_;
  TensorFeatures previous_;
};

class VisionSatellitePayload final : public SatellitePayload {
 public:
  VisionSatellitePayload(const VisionPayloadOptions& options, const vision::DeviceSpec& device,
                         const std::vector<HostImage>& tiles, std::shared_ptr<VisionStatsSink> stats)
      : options_(options),
        device_(device),
        extractor_(createTensorExtractor(options.satellite_model, options.satellite_keypoints,
                                         options.weights_dir, device)),
        ransac_(ransacOptions(options, device)),
        stats_(std::move(stats)) {
    if (tiles.empty()) throw InvalidArgument("satellite payload: no basemap tiles");
    std::vector<at::Tensor> globals;
    for (const HostImage& tile : tiles) {
      const at::Tensor host =
          at::from_blob(const_cast<std::uint8_t*>(tile.bgr.data()), {tile.height_px, tile.width_px, 3},
                        at::TensorOptions().dtype(at::kByte));
      tiles_.push_back(extractor_->extract(host.to(atDevice(device))));
      globals.push_back(globalDescriptor(tiles_.back()));
    }
    tile_globals_ = at::stack(globals);  // [T,D]
  }

  std::string name() const override { return "vision satellite (" + options_.satellite_model + ")"; }

  std::shared_ptr<SatelliteFix> process(const KeyframeRequest& request, StageClock& clock) override {
    const auto* keyframe = dynamic_cast<const VisionKeyframeRequest*>(&request);
    if (!keyframe) throw InvalidArgument("vision satellite payload got a request of another payload");
    TensorFeatures features;
    std::vector<std::int64_t> candidates;
    {
      StageClock::Scope scope(clock, Stage::Retrieval);
      features = extractor_->extract(keyframe->bgr.to(atDevice(device_)));
      const at::Tensor similarity = at::mv(tile_globals_, globalDescriptor(features));
      const int k = std::min<int>(options_.retrieval_candidates, static_cast<int>(tiles_.size()));
      const at::Tensor best = std::get<1>(similarity.topk(k)).to(at::kCPU);
      candidates.assign(best.data_ptr<std::int64_t>(), best.data_ptr<std::int64_t>() + k);
    }
    auto fix = std::make_shared<VisionFix>();
    fix->frame = request.frame;
    {
      StageClock::Scope scope(clock, Stage::FineMatch);
      for (const std::int64_t tile : candidates) {
        const PairFit fit =
            matchAndFit(features, tiles_[static_cast<std::size_t>(tile)], ransac_, nullptr);
        if (fit.inliers > fix->inliers) {
          fix->inliers = fit.inliers;
          fix->tile = static_cast<int>(tile);
        }
      }
    }
    fix->accepted = fix->inliers >= options_.min_inliers;
    VisionPayloadStats delta;
    delta.keyframes = 1;
    delta.fixes_accepted = fix->accepted ? 1 : 0;
    delta.fix_inliers = fix->inliers;
    if (stats_) stats_->add(delta);
    return fix;
  }

 private:
  static at::Tensor globalDescriptor(const TensorFeatures& features) {
    if (features.descriptors.size(0) == 0)
      return at::zeros({features.descriptors.size(1)}, features.descriptors.options());
    const at::Tensor mean = features.descriptors.mean(0);
    return mean / mean.norm().clamp_min(1e-12);
  }

  VisionPayloadOptions options_;
  vision::DeviceSpec device_;
  std::unique_ptr<TensorExtractor> extractor_;
  vision::RansacOptions ransac_;
  std::shared_ptr<VisionStatsSink> stats_;
  std::vector<TensorFeatures> tiles_;
  at::Tensor tile_globals_;
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
  if (tiles && !tiles->empty()) {
    factories.satellite = [options, tiles, stats](const vision::DeviceSpec& device)
        -> std::unique_ptr<SatellitePayload> {
      return std::make_unique<VisionSatellitePayload>(options, device, *tiles, stats);
    };
  }
  return factories;
}

}  // namespace skytrace::engine
