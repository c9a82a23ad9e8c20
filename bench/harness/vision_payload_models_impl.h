// Internal (torch allowed; core/engine sources only): the learned models of the vision
// payloads at tensor level, fed straight from device pixels (no host round trip, no
// OpenCV, so that they build on the CUDA machine): SuperPoint as a TensorExtractor,
// MNN / LightGlue as pair matchers, DINOv2 tile retrieval and LiteSAM tile matching.
// Weights are located by payloadWeightsPath (published file names).
// Thread: every object is created and used on one thread (its worker's current stream).
#pragma once

#include <ATen/ATen.h>

#include <memory>
#include <string>
#include <vector>

#include "bench/harness/vision_extractor_impl.h"
#include "bench/harness/vision_payloads.h"
#include "core/vision/matcher_impl.h"
#include "core/vision/torch_runtime.h"

namespace skytrace::engine {

// The LiteSAM release checkpoint and where it is published: the values of
// vision::kLiteSamPublishedFile / kLiteSamWeightsUrl (litesam_matcher.h pulls in OpenCV,
// which the GPU-only engine build lacks); tests/engine/test_vision_payloads checks that
// they agree.
inline constexpr const char* kLiteSamCheckpointFile = "mloftr.ckpt";
inline constexpr const char* kLiteSamCheckpointUrl =
    "https://github.com/boyagesmile/LiteSAM (README: Google Drive link, file mloftr.ckpt)";

// `weights_dir`/`published_file` when weights_dir is set (ModelError naming that path,
// the published file and `where_published` when it is absent), else the model directory
// (vision::resolveWeightsPath). `model_label` names the model in messages.
std::string payloadWeightsPath(const std::string& model_label, const std::string& weights_dir,
                               const std::string& published_file,
                               const std::string& where_published);

// Local features of one image and the size LightGlue normalises keypoints by.
struct ImageFeatures {
  TensorFeatures features;
  double width_px = 0, height_px = 0;
};

// Grayscale [1,1,H,W] float32 in [0,1] from BGR [H,W,3] uint8 on any device: OpenCV's
// 8-bit BGR2GRAY in its fixed-point form (the same bytes), / 255 as SuperGlue's
// frame2tensor.
at::Tensor grayFloatImage(const at::Tensor& bgr_hwc_u8);

// "superpoint" (SuperPoint with the original's detection settings, top `keypoints`) or
// any model createTensorExtractor knows (`aliked_float16` as there).
std::unique_ptr<TensorExtractor> createPayloadExtractor(const std::string& model, int keypoints,
                                                        const std::string& weights_dir,
                                                        const vision::DeviceSpec& device,
                                                        bool aliked_float16 = false);

// The LightGlue weights family of a features model ("superpoint", "aliked" for 128-D
// ALIKED variants), or "" when LightGlue is not published for it.
std::string lightGlueFamily(const std::string& features);

// Matches a -> b (indices into a's and b's keypoints, on the device).
class TensorPairMatcher {
 public:
  virtual ~TensorPairMatcher() = default;
  virtual vision::MatchTensors match(const ImageFeatures& a, const ImageFeatures& b) = 0;
};

// "mnn" (mutual nearest neighbours, default MatchOptions) or "lightglue" (weights for
// model.features: superpoint_lightglue.pth or aliked_lightglue.pth; `adaptive` switches
// early exit and pruning on with the original's confidences, else every layer runs).
std::unique_ptr<TensorPairMatcher> createPairMatcher(const FeatureMatchingModel& model,
                                                     const std::string& weights_dir,
                                                     bool adaptive,
                                                     const vision::DeviceSpec& device);

// DINOv2 global descriptors of square image crops: the centred square of side
// min(H, W), resized to crop_px (area averaging when shrinking, bilinear when enlarging,
// rounded to 8 bits as an image would be), ImageNet-normalised RGB, the backbone in
// float32 (fused attention where LibTorch has it), CLS + GeM(p = 3) pooling. Descriptors
// are [D] / [B,D] float32 unit vectors on the device.
class TileRetrieval {
 public:
  TileRetrieval(const std::string& model, const std::string& weights_dir, int crop_px,
                const vision::DeviceSpec& device);
  ~TileRetrieval();
  // bgr: [H,W,3] uint8 on the device.
  at::Tensor describe(const at::Tensor& bgr);
  // Several images in one batch (all crops have the same size).
  at::Tensor describeBatch(const std::vector<at::Tensor>& bgr_images);

 private:
  at::Tensor crop(const at::Tensor& bgr) const;  // [crop,crop,3] uint8 RGB
  struct Model;
  std::unique_ptr<Model> model_;
  int crop_px_;
};

// LiteSAM on square pairs: both images as grayscale resized to size_px x size_px
// (area averaging when shrinking, bilinear when enlarging), matched points scaled back
// per axis to each original image's pixels. MobileOne reparameterised.
class DenseTileMatcher {
 public:
  struct Input {
    at::Tensor gray;  // [1,1,S,S] float32 in [0,1]
    double scale_x = 1, scale_y = 1;  // original pixels per model pixel
  };
  struct Result {
    at::Tensor points_a, points_b;  // [M,2] float32, original pixels (x, y)
  };

  DenseTileMatcher(const std::string& model, const std::string& weights_dir, int size_px,
                   const vision::DeviceSpec& device);
  ~DenseTileMatcher();
  Input prepare(const at::Tensor& bgr) const;  // bgr: [H,W,3] uint8 on the device
  Result match(const Input& a, const Input& b) const;

 private:
  struct Model;
  std::unique_ptr<Model> model_;
  int size_px_;
};

// Resizes [B,C,H,W] float to size x size: adaptive average pooling (area interpolation)
// when neither side grows, bilinear (align_corners false) otherwise.
at::Tensor resizeSquare(const at::Tensor& image, int size_px);

}  // namespace skytrace::engine
