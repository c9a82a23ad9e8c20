// Internal (torch allowed): ALIKED's fused CUDA operators, the tensor-level face of
// aliked_cuda_kernels.cu. They compute what chains of ATen operators in aliked_model.cpp,
// aliked_layers.cpp, aliked_dkd.cpp and aliked_sddh.cpp compute, in float32, without the
// full-resolution intermediate tensors (the 128-channel descriptor map is never built)
// and with a few kernels instead of hundreds: AlikedModel uses them on CUDA for float32
// models (AlikedModel::setFusedKernelsEnabled(false) to compare).
// Results equal the ATen path up to float rounding (order of sums, FMA contraction):
// tests/vision/test_vision_cuda.cpp compares both paths and the CPU.
//
// Built only with the CUDA kernels (SKYTRACE_ALIKED_CUDA_KERNELS, the GPU builds that have
// nvcc); elsewhere built() is false and every operator throws.
// Inputs: float32 CUDA tensors, batch 1, on the current stream's device. Every operator
// enqueues on the current CUDA stream without host synchronisation (capturable in a CUDA
// graph) and throws InvalidArgument on unexpected shapes, types or devices.
#pragma once

#include <ATen/ATen.h>

#include <array>

namespace skytrace::vision::aliked::fused {

// Whether this build has the kernels.
bool built();

// BatchNorm (as per-channel scale and shift) + SELU, optionally after adding a residual:
// selu(shift[c] + x * scale[c] (+ residual)). x [1,C,H,W] contiguous; scale, shift C values;
// residual undefined or like x. Returns a new tensor like x.
at::Tensor scaleShiftSelu(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift,
                          const at::Tensor& residual = at::Tensor());

// The SELU gate of a level projection [1,C,h,w] (contiguous), returned channels-last (the
// same logical tensor, at::MemoryFormat::ChannelsLast): a pixel's channels are contiguous
// for the aggregated reads below.
at::Tensor seluChannelsLast(const at::Tensor& level);

// The four gated levels (channels-last, dim/4 <= 32 channels each; level 0 at the padded
// frame's resolution, the others at 1/2, 1/8, 1/32) and the frame geometry.
struct Levels {
  std::array<at::Tensor, 4> channels_last;
  int64_t pad_left = 0, pad_top = 0;
  int64_t height = 0, width = 0;  // unpadded
};

// ALIKED's score head over the aggregated levels (cat of the levels upsampled with
// align_corners, the head's 1x1, SELU, three 3x3 with SELUs between, sigmoid), cropped to
// the unpadded frame: [1,1,H,W]. head: the four weights score_head.{0,2,4,6}.
at::Tensor scoreMap(const Levels& levels, const std::array<at::Tensor, 4>& head);

// (DKD's NMS scores: vision::fused::nmsScores, shared with SuperPoint.)

struct RefinedPeaks {
  at::Tensor keypoints;     // [N,2] in [-1,1]
  at::Tensor keypoints_px;  // [N,2] (k+1)/2 * (W-1, H-1)
  at::Tensor scores;        // [N]
  at::Tensor dispersity;    // [N]
};
// DKD's soft-argmax refinement of peaks (flat indices [N] long into the [1,1,H,W] map)
// over a (2*radius+1)^2 window, radius 1..4.
RefinedPeaks refinePeaks(const at::Tensor& score_map, const at::Tensor& indices, int64_t radius,
                         double temperature);

// A 3x3 deformable convolution's sampled columns (stride 1, padding 1, dilation 1):
// input [1,C,H,W], offset [1,18,H,W] (clamped to +-max_offset) -> [1, C, 3H, 3W], to be
// convolved with the weight at stride 3 (see deform_conv_impl.h for the semantics).
at::Tensor deformableColumns(const at::Tensor& input, const at::Tensor& offset, double max_offset);

// SDDH's patches of the L2-normalised aggregated map: [N, dim, K, K] at the truncated
// keypoint pixels (keypoints [N,2] in [-1,1]), zero outside.
at::Tensor descriptorPatches(const Levels& levels, const at::Tensor& keypoints, int64_t kernel_size);

struct DescriptorSamples {
  at::Tensor sampled;  // [N, M, dim]: bilinear samples of the normalised map
  at::Tensor offsets;  // [N, M, 2] clamped offsets (x, y) in pixels
};
// SDDH's samples at keypoint + offset: raw_offsets [N, 2M] (the offset head's output:
// M x offsets, then M y offsets), clamped to +-max_offset.
DescriptorSamples descriptorSamples(const Levels& levels, const at::Tensor& keypoints,
                                    const at::Tensor& raw_offsets, double max_offset);

}  // namespace skytrace::vision::aliked::fused
