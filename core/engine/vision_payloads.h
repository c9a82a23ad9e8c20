// The vision-only workload: what the engine's GPU benchmark runs, with no GDAL and no
// navigation state (so it builds on the CUDA machine, see scripts/gpu/engine/).
//   VO:        extract features of the frame, match them to the previous frame's (MNN),
//              fit a homography (batched LO-RANSAC); every `keyframe_interval`-th frame
//              becomes a keyframe request carrying a device copy of its pixels.
//   Satellite: extract the keyframe (its own extractor and budget), rank the basemap
//              tiles by a global descriptor ("retrieval": the mean of the local
//              descriptors, L2-normalised; no DINOv2 in this build), match to the best
//              candidates and fit tile_from_frame homographies ("fine_match"); the fix
//              is the best candidate, accepted with >= min_inliers inliers.
// Extractors: "aliked-t16|n16|n16rot|n32" (tensor path, every build) or "orb"/"sift"
// (OpenCV, the main build only). No torch types here.
// Thread: the factories create each payload on its worker thread; stats are shared.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/engine/payload.h"
#include "core/engine/synthetic_frame_source.h"

namespace skytrace::engine {

struct VisionPayloadOptions {
  std::string vo_model = "aliked-n16rot";
  int vo_keypoints = 1024;
  std::string satellite_model = "aliked-n16rot";
  int satellite_keypoints = 2048;
  std::string weights_dir;        // ALIKED weights; empty: the model directory
  int keyframe_interval = 1;      // every n-th frame is a keyframe (>= 1)
  int retrieval_candidates = 1;   // tiles fine-matched per keyframe (>= 1)
  int min_inliers = 20;
  double ransac_threshold_px = 3.0;
  int ransac_hypotheses = 1024;

  void check() const;  // throws InvalidArgument
};

// Counters filled by the payloads (thread-safe), to show the workload did real work.
struct VisionPayloadStats {
  std::int64_t vo_pairs = 0;           // frame pairs matched
  std::int64_t vo_matches = 0;         // sum over pairs
  std::int64_t vo_inliers = 0;         // sum over pairs
  std::int64_t keyframes = 0;          // processed by the satellite payload
  std::int64_t fixes_accepted = 0;
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
// any sizes). `stats` may be null.
PayloadFactories makeVisionPayloads(const VisionPayloadOptions& options,
                                    std::shared_ptr<const std::vector<HostImage>> tiles,
                                    std::shared_ptr<VisionStatsSink> stats);

}  // namespace skytrace::engine
