// The vision-only workload: what the engine's GPU benchmark runs, with no GDAL and no
// navigation state.
//   VO:        extract local features of the frame, match them to the previous frame's
//              (MNN or LightGlue), fit a homography (batched LO-RANSAC); every
//              `keyframe_interval`-th frame becomes a keyframe request carrying a device
//              copy of its pixels. Stages: extract, match, pose. Frame-parallel runs
//              (PayloadFactories::vo_front_end): the front ends extract and match on
//              their devices, VO fits the pose.
//   Satellite: rank the basemap tiles by a global descriptor ("retrieval"), then match
//              the keyframe to the best candidates and fit tile_from_frame homographies
//              ("fine_match"); the fix is the best candidate, accepted with
//              >= min_inliers RANSAC inliers. Two kinds (see SatelliteModel):
//                FEATURES[+MATCHER]  the keyframe's local features (its own extractor and
//                                    budget, counted in retrieval) and the mean of their
//                                    descriptors as the global descriptor;
//                RETRIEVAL+FINE      DINOv2 on a square centre crop of the keyframe
//                                    (retrieval_crop_px, CLS + GeM) against the tiles'
//                                    descriptors (computed once per payload), then LiteSAM
//                                    on fine_match_size_px square pairs (keyframe vs tile)
//                                    or local features + matcher (tile features computed
//                                    once per payload).
//              A new satellite payload runs one retrieval and one fine match on its
//              first tile, so that one-time costs (CUDA graph capture, cuDNN algorithm
//              choice) are not timed as the first keyframe.
// Model names: features "aliked-t16|n16|n16rot|n32", "superpoint" (tensor path, every
// build) or "orb"/"sift" (OpenCV, the main build only); matchers "mnn" (default) or
// "lightglue" (SuperPoint or 128-D ALIKED); retrieval "dinov2" (= dinov2-vits14) or any
// DINOv2 backbone name; dense matcher "litesam".
// Weights: weights_dir/<published file name> (superpoint_v1.pth, superpoint_lightglue.pth,
// aliked_lightglue.pth, aliked-*.pth, dinov2_vits14_pretrain.pth, mloftr.ckpt), or the
// model directory when weights_dir is empty.
// No torch types here.
// Thread: the factories create each payload on its worker thread; stats are shared.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/engine/payload.h"
#include "core/engine/synthetic_frame_source.h"

namespace skytrace::engine {

// A local-feature pipeline, parsed from "FEATURES[+mnn|+lightglue]".
struct FeatureMatchingModel {
  std::string features;         // "aliked-n16rot", "superpoint", "orb", ...
  std::string matcher = "mnn";  // "mnn" or "lightglue"
};

// The satellite stage, parsed from "FEATURES[+MATCHER]" or "RETRIEVAL+FINE".
struct SatelliteModel {
  std::string retrieval;       // "" = mean local descriptor; else a DINOv2 model name
  std::string dense_matcher;   // "litesam", or "" = local features (`local`)
  FeatureMatchingModel local;  // used when dense_matcher is empty
};

// Parse and validate model names; throw InvalidArgument naming the accepted forms.
FeatureMatchingModel parseFeatureMatchingModel(const std::string& text);
SatelliteModel parseSatelliteModel(const std::string& text);

struct VisionPayloadOptions {
  std::string vo_model = "aliked-n16rot";         // FEATURES[+mnn|+lightglue]
  int vo_keypoints = 1024;
  std::string satellite_model = "aliked-n16rot";  // FEATURES[+MATCHER] or RETRIEVAL+FINE
  int satellite_keypoints = 2048;                 // local features of the satellite stage
  std::string weights_dir;        // published file names inside; empty: the model directory
  int keyframe_interval = 1;      // every n-th frame is a keyframe (>= 1)
  int retrieval_candidates = 1;   // tiles fine-matched per keyframe (>= 1)
  int retrieval_crop_px = 224;    // DINOv2 input: square crop side, a multiple of 14
  int fine_match_size_px = 512;   // LiteSAM input: square side, a multiple of 32
  // LightGlue's early exit and point pruning (the original's defaults 0.95 / 0.99). Off
  // by default: every layer runs on every point, a fixed amount of work per pair that
  // does not depend on the weights (random benchmark weights never exit early).
  bool lightglue_adaptive = false;
  int min_inliers = 20;
  double ransac_threshold_px = 3.0;
  int ransac_hypotheses = 1024;
  // ALIKED extractors (VO and satellite) run their dense part in float16 on tensor cores
  // (AlikedModel::setHalfPrecision; CUDA only, the payload factories throw on the CPU).
  // No effect on other models.
  bool aliked_float16 = false;

  void check() const;  // throws InvalidArgument (also for unknown model names)
};

// The weight files the payloads of `options` load, as (role, path) pairs, e.g.
// ("vo features", "/models/superpoint_v1.pth"). Throws ModelError naming the expected
// file, where it was looked for and where the authors publish it when one is missing,
// so that a benchmark fails before it starts rather than in a worker thread.
// Classical features (orb, sift) need no file.
std::vector<std::pair<std::string, std::string>> visionPayloadWeights(
    const VisionPayloadOptions& options);

// Counters filled by the payloads (thread-safe), to show the workload did real work.
struct VisionPayloadStats {
  std::int64_t vo_frames = 0;          // frames whose features were extracted
  std::int64_t vo_keypoints = 0;       // sum over frames
  std::int64_t vo_pairs = 0;           // frame pairs matched
  std::int64_t vo_matches = 0;         // sum over pairs
  std::int64_t vo_inliers = 0;         // sum over pairs
  std::int64_t keyframes = 0;          // processed by the satellite payload
  std::int64_t fixes_accepted = 0;
  std::int64_t fix_matches = 0;        // sum over keyframes (best candidate)
  std::int64_t fix_inliers = 0;        // sum over keyframes (best candidate)
  std::int64_t fixes_applied = 0;      // on the VO side
};

class VisionStatsSink {
 public:
  void add(const VisionPayloadStats& delta);
  VisionPayloadStats snapshot() const;

 private:
  mutable std::mutex mutex_;
  VisionPayloadStats stats_;
};

// `tiles`: the basemap-like tiles the satellite payload registers against (8-bit BGR,
// any sizes). `stats` may be null. Throws InvalidArgument for bad options; weights are
// loaded when a factory runs (ModelError there; see visionPayloadWeights to check first).
PayloadFactories makeVisionPayloads(const VisionPayloadOptions& options,
                                    std::shared_ptr<const std::vector<HostImage>> tiles,
                                    std::shared_ptr<VisionStatsSink> stats);

}  // namespace skytrace::engine
