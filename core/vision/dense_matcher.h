// Detector-free ("dense") matching of two images: the model finds corresponding points
// itself, no keypoints are given. Used by the satellite stage to match a video frame
// against a basemap tile. Implementations: "litesam" (boyagesmile/LiteSAM).
// Coordinates: pixels of each ORIGINAL image (x right, y down, OpenCV convention);
// images are resized/cropped to what the model needs internally and points mapped back.
// No torch types here.
#pragma once

#include <opencv2/core.hpp>

#include <memory>
#include <string>
#include <vector>

#include "core/vision/torch_runtime.h"

namespace skytrace::vision {

// Point pairs: points_a[k] in the first image corresponds to points_b[k] in the second.
// confidence[k] in (0, 1] (LiteSAM: the coarse dual-softmax score). Ordered as the model
// returns them (LiteSAM: by coarse cell of the first image, row-major).
struct DenseMatches {
  std::vector<cv::Point2f> points_a;
  std::vector<cv::Point2f> points_b;
  std::vector<float> confidence;

  int size() const { return static_cast<int>(points_a.size()); }
  bool empty() const { return points_a.empty(); }
};

struct DenseMatcherOptions {
  std::string model = "litesam";
  // Empty: the published file name (LiteSAM: mloftr.ckpt) in the model directory. A
  // PyTorch-Lightning checkpoint ("state_dict" with "matcher." keys), a bare state dict
  // (.pth) or .safetensors.
  std::string weights_path;
  DeviceSpec device;
  // Each image is scaled so that its long side is this many pixels (0: keep the size),
  // then each side is rounded DOWN to a multiple of 32 (the model's requirement; the
  // aspect ratio changes by less than 32 px per side, as in the original data loaders).
  int resize_long_side_px = 512;
  // Coarse confidence threshold (the original's MATCH_COARSE.THR).
  float coarse_threshold = 0.2f;
  // Fold MobileOne's training-time branches into single convolutions (faster; outputs
  // equal up to float rounding).
  bool reparameterize_backbone = true;
  // On CUDA in a GPU build: replay the model's fixed-shape parts as CUDA graphs (faster;
  // equal up to float rounding). false runs eagerly (for comparisons).
  bool use_cuda_graphs = true;
  // On CUDA where built: LiteSAM's coarse and fine matching steps through Skytrace's fused
  // kernels (LiteSamModel::setFusedKernelsEnabled; the same matches up to float rounding).
  // false runs LibTorch's operators (for comparisons).
  bool fused_kernels = true;
  // LiteSAM on CUDA: the backbone, the coarse transformer and the FPN in float16
  // (LiteSamModel::setHalfPrecision; faster, matches deviate slightly, docs/gpu.md).
  // Creating the matcher on another device throws InvalidArgument.
  bool half_precision = false;

  void check() const;  // throws InvalidArgument
};

// Thread: create and use on one thread (GPU state is per thread); different instances
// may run on different threads.
class DenseMatcher {
 public:
  virtual ~DenseMatcher() = default;
  virtual std::string name() const = 0;
  // a, b: CV_8UC1 or CV_8UC3 (BGR), any size (at least 32 x 32 after resizing).
  // Throws InvalidArgument for unusable images, skytrace::Error on failure.
  virtual DenseMatches match(const cv::Mat& a, const cv::Mat& b) = 0;
};

// Creates the matcher named by options.model, loading its weights (ModelError naming the
// expected file and where the authors publish it when absent).
std::unique_ptr<DenseMatcher> createDenseMatcher(const DenseMatcherOptions& options);

// Names accepted by createDenseMatcher, for --help texts.
std::vector<std::string> availableDenseMatcherModels();

}  // namespace skytrace::vision
