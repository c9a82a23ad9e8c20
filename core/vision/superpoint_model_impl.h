// Internal (torch allowed; core/vision sources, tests, bench): the SuperPoint network of
// magicleap/SuperGluePretrainedNetwork (models/superpoint.py, commit ddcf11f), ported to
// ATen for inference with the published weights (superpoint_v1.pth), loaded unchanged
// by their original names (conv1a.weight ... convDb.bias).
//
// Input: grayscale float32 [1,1,H,W] in [0,1] (uint8 / 255, SuperGlue's frame2tensor).
// The encoder pools three times (floor), so the dense maps cover the top-left
// 8*floor(H/8) x 8*floor(W/8) pixels, exactly as the original.
// Keypoints: (x, y) pixel coordinates of heatmap pixels (integer-valued floats; pixel
// centres at integers, the OpenCV convention), order as the original: torch.topk by
// score (descending) when more than max_keypoints candidates exist, else row-major.
// No OpenCV here: part of the tensor-only target core_vision_tensor.
// Thread: create and use on one thread; const methods hold no per-call state.
#pragma once

#include <ATen/ATen.h>

#include <memory>
#include <string>
#include <tuple>

#include "core/vision/checkpoint_impl.h"
#include "core/vision/cuda_graph_impl.h"

namespace skytrace::vision::superpoint {

// models/superpoint.py default_config (max_keypoints -1 = keep all candidates).
struct SuperPointConfig {
  int descriptor_dim = 256;
  int nms_radius = 4;                 // pixels, max-pool window 2r+1
  float keypoint_threshold = 0.005f;  // heatmap value after NMS must exceed it
  int max_keypoints = -1;             // -1: all; else the top-k by score
  int remove_borders = 4;             // pixels dropped at each image border

  void check() const;  // throws InvalidArgument
};

// Conv outputs BEFORE their ReLU (full tensors, for parity tests).
struct DenseTrace {
  at::Tensor conv1a, conv1b, conv2b, conv3b, conv4b, convPa, convDa;
  at::Tensor descriptors_raw;  // convDb output before normalisation [1,D,H/8,W/8]
};

struct DenseOutput {
  at::Tensor semi;         // detector logits [1,65,H/8,W/8] (channel 64 = dustbin)
  at::Tensor descriptors;  // [1,D,H/8,W/8], L2-normalised over channels
};

struct SuperPointOutput {
  at::Tensor keypoints_px;  // [N,2] float32 (x, y)
  at::Tensor scores;        // [N] float32 heatmap value after NMS
  at::Tensor descriptors;   // [N,D] float32, L2-normalised rows
};

// Full-resolution heatmap [1,8h,8w] from logits [1,65,h,w]: softmax over the 65
// channels, dustbin dropped, depth-to-space (channel k of cell (i,j) -> pixel
// (8i + k/8, 8j + k%8)).
at::Tensor heatmapFromLogits(const at::Tensor& semi);

// The original's simple_nms on [1,H,W] scores (max-pool based, two suppression rounds);
// non-maxima are set to 0.
at::Tensor simpleNms(const at::Tensor& scores, int nms_radius);

// Keypoints and scores from an NMS'ed heatmap [1,H,W]: threshold, border removal,
// top-k; keypoints [N,2] (x, y) float32, scores [N]. One host synchronisation (the
// candidate count, as torch.nonzero in the original).
std::pair<at::Tensor, at::Tensor> selectKeypoints(const at::Tensor& heatmap_nms,
                                                  const SuperPointConfig& config);

// selectKeypoints without host synchronisation (for CUDA graphs), max_keypoints > 0:
// k = min(max_keypoints, H*W) rows (keypoints [k,2], scores [k]) and the number of
// valid leading rows (int64 scalar tensor); those rows are selectKeypoints' result
// (top-k order when there are more candidates than k, else row-major).
std::tuple<at::Tensor, at::Tensor, at::Tensor> selectKeypointsFixed(
    const at::Tensor& heatmap_nms, const SuperPointConfig& config);

// The original's sample_descriptors (s = 8): bilinear grid_sample (align_corners=True)
// of dense descriptors [1,D,h,w] at keypoints [N,2] (x, y pixels), then L2
// normalisation. Returns [N,D].
at::Tensor sampleDescriptors(const at::Tensor& keypoints_px, const at::Tensor& descriptors);

class SuperPointModel {
 public:
  // Binds `weights` (strict: every key and shape of superpoint_v1.pth with
  // descriptor_dim channels in convDb). Throws ModelError naming the file and problems.
  SuperPointModel(const StateDict& weights, at::Device device, int descriptor_dim = 256);

  at::Device device() const { return device_; }
  int descriptorDim() const { return descriptor_dim_; }

  // image: [1,1,H,W] float32 on device(), H and W >= 8. Throws InvalidArgument.
  // Outputs (and a trace) are float32 also in half precision.
  DenseOutput dense(const at::Tensor& image, DenseTrace* trace = nullptr) const;

  // Dense maps, heatmap, NMS, selection and descriptor sampling. On CUDA with
  // max_keypoints > 0 replayed as a CUDA graph per input shape and config (see
  // cuda_graph_impl.h; setCudaGraphsEnabled(false) switches it off) with one host
  // synchronisation (the keypoint count); eager otherwise.
  SuperPointOutput forward(const at::Tensor& image, const SuperPointConfig& config) const;

  // forward() from 8-bit pixels on device(): [H,W] gray or [H,W,3] BGR, converted as the
  // original demo (OpenCV's BGR2GRAY in its fixed point, then / 255: inputFromPixels)
  // inside the same graph. Throws InvalidArgument.
  SuperPointOutput forwardPixels(const at::Tensor& pixels, const SuperPointConfig& config) const;
  // [1,1,H,W] float32 in [0,1] from [H,W] / [H,W,1] gray or [H,W,3] BGR uint8 pixels; a BGR
  // frame's gray equals cv::cvtColor(BGR2GRAY)'s byte for byte.
  static at::Tensor inputFromPixels(const at::Tensor& pixels);

  // The graph body: forward() with max_keypoints > 0 and no host synchronisation:
  // min(max_keypoints, H*W) rows, of which the first *count (int64 scalar on the device)
  // are forward()'s keypoints.
  SuperPointOutput forwardFixedCount(const at::Tensor& image, const SuperPointConfig& config,
                                     at::Tensor* count) const;

  void setCudaGraphsEnabled(bool enabled);
  bool cudaGraphsEnabled() const;
  int failedCudaGraphCaptures() const;

  // CUDA only: the convolutions in float16 on tensor cores, channels-last, each with its
  // bias and ReLU in cuDNN's fused convolution where cuDNN runs it (probed here, per
  // layer); the logits and descriptor maps come back as float32 before the softmax, NMS,
  // selection and sampling. Faster, not exact (deviations on the parity fixture:
  // docs/gpu.md). Throws InvalidArgument on another device. Drops captured graphs.
  // false casts the weights back to float32, with their float16 rounding: load the model
  // again for the exact float32 weights.
  void setHalfPrecision(bool enabled);
  bool halfPrecision() const { return half_precision_; }

  // CUDA in a build with the fused kernels (fused_ops.h): simple_nms as one fused operator
  // (five kernels instead of about thirty) and, in half precision, the encoder's 2x2 max
  // pools without ATen's index output: the same values (comparisons only). On by default
  // where built; false keeps the ATen operators (for comparisons). Drops captured graphs.
  void setFusedKernelsEnabled(bool enabled);
  bool fusedKernelsEnabled() const { return fused_kernels_; }

 private:
  struct Conv {
    at::Tensor weight, bias;
    int64_t padding = 0;
    bool fused_relu = false;  // relu(conv) through cudnn_convolution_relu (half precision)
    at::Tensor operator()(const at::Tensor& x) const;
    at::Tensor withRelu(const at::Tensor& x) const;  // relu(conv(x))
  };
  void checkImage(const at::Tensor& image) const;  // throws InvalidArgument
  void checkInputs(const at::Tensor& image, const SuperPointConfig& config) const;
  // simpleNms(heatmap) through the fused operator where enabled.
  at::Tensor nms(const at::Tensor& heatmap, int nms_radius) const;
  // forward() on an image ([1,1,H,W] float32) or on pixels (forwardPixels).
  SuperPointOutput forwardFrom(const at::Tensor& input, const SuperPointConfig& config, bool pixels) const;
  void bindConv(StateDictBinder& binder, const std::string& name, int64_t in, int64_t out,
                int64_t kernel, Conv* conv);

  at::Device device_;
  int descriptor_dim_;
  Conv conv1a_, conv1b_, conv2a_, conv2b_, conv3a_, conv3b_, conv4a_, conv4b_;
  Conv convPa_, convPb_, convDa_, convDb_;
  bool half_precision_ = false;
  bool fused_kernels_ = false;  // set in the constructor: CUDA and fused::built()
  ModelGraphs graphs_{"SuperPoint"};  // a copy starts with an empty cache
};

// Loads superpoint_v1.pth (or a .safetensors with the same keys) onto `device`.
SuperPointModel loadSuperPointModel(const std::string& weights_path, at::Device device,
                                    int descriptor_dim = 256);

// The published weights file and where the authors publish it.
inline constexpr const char* kSuperPointPublishedFile = "superpoint_v1.pth";
inline constexpr const char* kSuperPointWeightsUrl =
    "https://github.com/magicleap/SuperGluePretrainedNetwork/tree/master/models/weights";

}  // namespace skytrace::vision::superpoint
