// Internal (CUDA builds only): raw launchers of the fused CUDA kernels that several models
// share (fused_cuda_kernels.cu): the keypoint detectors' non-maximum suppression (ALIKED,
// SuperPoint) and LightGlue's float16 elementwise steps. No ATen here: fused_ops.cpp
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

}  // namespace skytrace::vision::fused::cuda
