// Internal (CUDA builds only): raw launchers of the fused CUDA kernels that several models
// share (fused_cuda_kernels.cu): the keypoint detectors' non-maximum suppression (ALIKED,
// SuperPoint), LightGlue's float16 elementwise steps and LiteSAM's matching steps. No ATen here: fused_ops.cpp
// checks shapes, allocates and passes pointers. Every launcher enqueues on `stream`
// (capturable in a CUDA graph: no allocation, no synchronisation) and returns
// cudaGetLastError() after the launch. The formulas are documented with the tensor-level
// API in fused_ops.h.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace skytrace::vision::fused::cuda {

// The largest NMS radius the shared-memory tiles hold.
inline constexpr int kMaxNmsRadius = 32;

// simple_nms(score, nms_radius) with two suppression rounds, then a border of `border`
// pixels zeroed: out [height*width] float32. mask and suppressed are scratch
// [height*width] bytes. nms_radius in 0..kMaxNmsRadius.
cudaError_t launchNmsScores(const float* score, int height, int width, int nms_radius, int border,
                            uint8_t* mask, uint8_t* suppressed, float* out, cudaStream_t stream);

// y[r,:] = gelu(layer_norm(x[r,:])) over `channels` (erf GELU; the normalised value
// rounded to float16 before the GELU, as the two ATen operators). x, y [rows, channels]
// contiguous, 16-byte aligned; channels % 8 == 0 and <= 1024.
cudaError_t launchLayerNormGelu(const __half* x, const __half* weight, const __half* bias, float eps,
                                __half* y, int64_t rows, int channels, cudaStream_t stream);

// The rotary encoding of q and k from one fused qkv projection: qkv [batch, n, 3, heads,
// head_dim] (contiguous), tables [batch, 2, n, head_dim] (cos, signed sin:
// lightglue::rotaryTables) -> out [2, batch, n, heads, head_dim] (contiguous) with
// out[j] = t_j * cos + swap_pairs(t_j) * signed_sin for t_0 = q, t_1 = k (each product
// rounded to float16 as ATen's mul and addcmul). head_dim even.
cudaError_t launchRotaryQk(const __half* qkv, const __half* tables, __half* out, int batch, int n, int heads,
                           int head_dim, cudaStream_t stream);

// max_pool2d(x, 2, stride 2) without indices: x [images, height, width, channels]
// (channels-last) -> y [images, height/2, width/2, channels] (floor); channels % 8 == 0,
// both 16-byte aligned.
cudaError_t launchMaxPool2x2(const __half* x, __half* y, int images, int height, int width, int channels,
                             cudaStream_t stream);


// LiteSAM's coarse matching: conf = softmax(x, 0) * softmax(x, 1) for x = sim *
// inv_temperature, sim [rows, cols] float32 contiguous, reduced to row_max [rows],
// row_arg [rows] (the first column of each row's maximum) and col_max [cols] without
// forming conf. Scratch: row_stats [rows], col_stats [cols], col_partial [16 * cols].
cudaError_t launchDualSoftmaxMaxima(const float* sim, int rows, int cols, float inv_temperature, float2* row_stats,
                                    float2* col_stats, float2* col_partial, float* row_max, int64_t* row_arg,
                                    float* col_max, cudaStream_t stream);

// LiteSAM's fine matching over the windows of `matches` cell pairs: fine0 [64, height0,
// width0], fine1 [64, height1, width1] (sides multiples of 8); cells0/1 [matches] coarse
// cells of each map's (width / 8)-wide grid. best [matches]: l * 64 + k, the argmax of the
// dual softmax of conf_f = (f0 / 8)(f1 / 8)^T over the first 56 channels of image 0's 8x8
// window (pixel l) and image 1's zero-padded 10x10 window (inner 8x8 pixel k); heatmap
// [matches, 9]: the last 8 channels' dot products f0[l] . f1[p] / sqrt(8) at the 3x3
// window positions p around k (FineMatching in litesam_modules_impl.h). A cell outside its
// grid gives best 0 and a zero heatmap.
cudaError_t launchFineWindowMatch(const float* fine0, int height0, int width0, const float* fine1, int height1,
                                  int width1, const int64_t* cells0, const int64_t* cells1, int matches,
                                  int64_t* best, float* heatmap, cudaStream_t stream);
cudaError_t launchFineWindowMatch(const __half* fine0, int height0, int width0, const __half* fine1, int height1,
                                  int width1, const int64_t* cells0, const int64_t* cells1, int matches,
                                  int64_t* best, float* heatmap, cudaStream_t stream);

}  // namespace skytrace::vision::fused::cuda
