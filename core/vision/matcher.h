// Descriptor matching between two FeatureSets. The work runs on the device where the
// features live; results come back to the host as index pairs with scores.
// A Matcher is the seam where learned matchers (LightGlue) plug in later: they see
// both full FeatureSets (keypoints, descriptors, image sizes), not just descriptors.
// No torch or OpenCV types here.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/vision/torch_runtime.h"

namespace skytrace::vision {

class FeatureSet;

// Matched pairs, ordered by index_a ascending. scores[k] is the cosine similarity of
// the two descriptors for MNN (in [-1, 1]); learned matchers put their confidence.
struct Matches {
  std::vector<int> index_a;  // into the first FeatureSet
  std::vector<int> index_b;  // into the second FeatureSet
  std::vector<float> scores;

  int size() const { return static_cast<int>(index_a.size()); }
  bool empty() const { return index_a.empty(); }
};

// Mutual nearest neighbour with Lowe's ratio test and a similarity floor.
// For unit descriptors the distance is d = sqrt(2 - 2 s) (s = cosine similarity); the
// ratio test keeps a match when d_best < max_ratio * d_second (second-nearest neighbour
// in B of the descriptor from A). max_ratio = 1 disables it; min_similarity = -1 too.
struct MatchOptions {
  bool mutual = true;           // also require A's descriptor to be B's nearest
  float max_ratio = 0.9f;       // (0, 1]
  float min_similarity = 0.0f;  // [-1, 1]

  // Learned matchers ("lightglue"; ignored by "mnn"). The model runs on `device`, where
  // both feature sets must be; `features` picks the published weights
  // (<features>_lightglue.pth: "superpoint" 256-D or "aliked" 128-D descriptors).
  std::string weights_path;              // empty: the published file in the model directory
  DeviceSpec device;
  std::string features = "superpoint";
  double depth_confidence = 0.95;        // LightGlue early exit; <= 0 disables it
  double width_confidence = 0.99;        // LightGlue point pruning; <= 0 disables it
  double filter_threshold = 0.1;         // LightGlue minimum match score
  // LightGlue on CUDA in a GPU build: replay its fixed-shape parts as CUDA graphs
  // (faster; equal up to float rounding). false runs eagerly (for comparisons).
  bool use_cuda_graphs = true;
  // LightGlue on CUDA: the transformer layers in float16 (LightGlueModel::setHalfPrecision;
  // faster, scores deviate ~1e-3, docs/gpu.md). Creating the matcher on another device
  // throws InvalidArgument.
  bool half_precision = false;
  // LightGlue in float16 on CUDA in a build with Skytrace's fused kernels (fused_ops.h):
  // the rotary encoding and LayerNorm + GELU fused (faster; equal up to float16
  // rounding). false runs the LibTorch operator chains (for comparisons).
  bool fused_kernels = true;

  void check() const;  // throws InvalidArgument (MNN fields; LightGlue checks its own)
};

// Thread: create and use on one thread (learned matchers hold GPU state).
class Matcher {
 public:
  virtual ~Matcher() = default;
  virtual std::string name() const = 0;
  // Both sets must be on the same device with the same descriptor dimension
  // (InvalidArgument otherwise). Empty sets give no matches.
  virtual Matches match(const FeatureSet& a, const FeatureSet& b) = 0;
};

// "mnn" (mutual nearest neighbour) or "lightglue" (loads its weights: ModelError when
// they are missing or do not fit). Throws InvalidArgument for unknown names.
std::unique_ptr<Matcher> createMatcher(const std::string& name, const MatchOptions& options = {});

}  // namespace skytrace::vision
