// Internal (CUDA builds only): raw launchers of ALIKED's fused CUDA kernels
// (aliked_cuda_kernels.cu). No ATen here: aliked_fused_ops.cpp checks shapes, allocates
// and passes pointers. All tensors are float32, batch 1, contiguous in the layout each
// launcher names; every launcher enqueues on `stream` (capturable in a CUDA graph: no
// allocation, no synchronisation) and returns cudaGetLastError() after the launch.
// The formulas, and where they follow ATen's or torchvision's order of operations, are
// documented with the tensor-level API in aliked_fused_ops.h.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace skytrace::vision::aliked::cuda {

// y[c,p] = selu(shift[c] + x[c,p] * scale[c] (+ residual[c,p])); residual may be null.
cudaError_t launchScaleShiftSelu(const float* x, const float* scale, const float* shift,
                                 const float* residual, float* y, int channels, int64_t plane,
                                 cudaStream_t stream);

// y[p,c] = selu(x[c,p]): NCHW [channels, plane] -> channels-last [plane, channels].
cudaError_t launchSeluChannelsLast(const float* x, float* y, int channels, int64_t plane,
                                   cudaStream_t stream);

// The four aggregated levels, channels-last, and the frame they are upsampled to.
struct LevelsView {
  const float* data[4];   // [h_i * w_i, channels]
  int h[4], w[4];         // level sizes; level 0 is the padded frame
  float scale_h[4], scale_w[4];  // align_corners source scales (h_i-1)/(Hp-1), (w_i-1)/(Wp-1)
  int channels;           // per level (dim / 4), at most 32
  int pad_left, pad_top;  // replicate padding of the frame
  int height, width;      // unpadded frame
};

// ALIKED's score head on the aggregated levels: 1x1 (4*channels -> 8), SELU, 3x3 (8->4),
// SELU, 3x3 (4->4), SELU, 3x3 (4->1), sigmoid; zero padding of each 3x3 at the padded
// frame's border; output cropped to the unpadded frame [height, width].
// w0 [8, 4*channels], w1 [4,8,3,3], w2 [4,4,3,3], w3 [1,4,3,3]. Levels 1-3 are projected
// to the head's 8 channels before they are upsampled (into `scratch`, 16-byte aligned, of
// scoreHeadScratchFloats(levels) floats), as the ATen path's scoreMap() does.
int64_t scoreHeadScratchFloats(const LevelsView& levels);
cudaError_t launchScoreHead(const LevelsView& levels, const float* w0, const float* w1,
                            const float* w2, const float* w3, float* scratch, float* score,
                            cudaStream_t stream);

// DKD's soft-argmax refinement of `count` peaks (flat indices into [height, width]):
// keypoints [count,2] in [-1,1], keypoints_px [count,2], scores [count], dispersity [count].
cudaError_t launchRefinePeaks(const float* score, int height, int width, const int64_t* indices,
                              int count, int radius, float inverse_temperature, float* keypoints,
                              float* keypoints_px, float* scores, float* dispersity,
                              cudaStream_t stream);

// Sampled columns of a 3x3 deformable convolution (stride 1, padding 1, dilation 1):
// input [channels, height, width], offset [18, height, width] (dy, dx per tap, clamped to
// +-max_offset here) -> columns [channels, 3*height, 3*width] where
// columns[c, 3*oy + i, 3*ox + j] = bilinear(input[c], oy-1+i+dy, ox-1+j+dx) (torchvision's
// zero-outside bilinear_interpolate), so that a 3x3 convolution with stride 3 over the
// columns is the deformable convolution.
cudaError_t launchDeformableColumns(const float* input, const float* offset, float* columns,
                                    int channels, int height, int width, float max_offset,
                                    cudaStream_t stream);

// SDDH's reads of the L2-normalised aggregated descriptor map (never materialised).
// keypoints [count,2] in [-1,1]. Patches: the kernel_size^2 pixels at the truncated
// keypoint pixel (zero outside) -> out [count, 4*channels, kernel_size, kernel_size].
cudaError_t launchDescriptorPatches(const LevelsView& levels, const float* keypoints, int count,
                                    int kernel_size, float* out, cudaStream_t stream);
// Samples: bilinear (grid_sample, align_corners, zeros) at keypoint + clamped offset, with
// raw_offsets [count, 2*samples] (x offsets first, then y) -> out [count, samples,
// 4*channels] and clamped offsets [count, samples, 2] (x, y).
cudaError_t launchDescriptorSamples(const LevelsView& levels, const float* keypoints, int count,
                                    const float* raw_offsets, int samples, float max_offset,
                                    float* out, float* offsets, cudaStream_t stream);

}  // namespace skytrace::vision::aliked::cuda
