// Internal (torch allowed): fused CUDA operators that several models share, the
// tensor-level face of fused_cuda_kernels.cu. Each computes what a chain of ATen operators
// computes, with one or a few kernels instead of many: the keypoint detectors' simple_nms
// (ALIKED's DKD, SuperPoint), SuperPoint's float16 2x2 max pooling, LightGlue's float16
// LayerNorm + GELU and rotary encoding, and LiteSAM's coarse and fine matching steps.
// tests/vision/test_fused_ops_cuda.cpp compares each with its ATen chain.
//
// Built only in CUDA builds with nvcc (as ALIKED's kernels, aliked_fused_ops.h); elsewhere
// built() is false and every operator throws. Inputs on the current device; every operator
// enqueues on the current CUDA stream without host synchronisation (capturable in a CUDA
// graph) and throws InvalidArgument on unexpected shapes, types or devices.
#pragma once

#include <ATen/ATen.h>

namespace skytrace::vision::fused {

// Whether this build has the kernels.
bool built();

// simple_nms(score_map, nms_radius) of the LightGlue / ALIKED code (max_pool2d windows of
// 2r+1, two suppression rounds), with `border` pixels zeroed at each edge, flattened
// [H*W]. score_map float32, contiguous [H,W] with any leading dimensions of size 1;
// nms_radius in 0..32. Exact (comparisons only).
at::Tensor nmsScores(const at::Tensor& score_map, int64_t nms_radius, int64_t border);

// gelu(layer_norm(x, {C}, weight, bias, eps)) (erf GELU), float16, x [..., C]
// contiguous with C % 8 == 0 and C <= 1024; weight, bias [C]. As the two ATen operators up
// to float summation order (statistics in float, the normalised value rounded to float16
// before the GELU).
at::Tensor layerNormGelu(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias, double eps);

// max_pool2d(x, {2, 2}, {2, 2}) for a float16 channels-last x [B,C,H,W] with C % 8 == 0:
// the same values (comparisons only; a NaN wins, as ATen's), returned channels-last.
// ATen's CUDA kernel also writes an int64 index per output value, 4x the values' bytes.
at::Tensor maxPool2x2(const at::Tensor& x);

// LightGlue's rotary encoding of q and k straight from the self block's qkv projection:
// qkv [(B,)N,3*H*hd] float16 contiguous, features ordered (q|k|v, head, dim) (SelfBlock's
// prepared Wqkv); tables [(B,)2,N,hd] float16 (lightglue::rotaryTables). Returns
// [2,(B,)H,N,hd] (a view of token-major memory, as the qkv product's heads):
// applyRotaryTables(tables, q) and (..., k) in one kernel, with the same float16 roundings.
at::Tensor rotaryQk(const at::Tensor& qkv, const at::Tensor& tables, int64_t heads);


// LiteSAM's coarse confidence reduced to what the mutual-nearest selection reads:
// conf = softmax(x, 0) * softmax(x, 1) for x = sim * inv_temperature, sim [L,S] or
// [1,L,S] float32 contiguous, without forming conf (whose [L,S] float32 would make several
// round trips through device memory). As the ATen chain up to float summation order; a
// row's maximum equals its column's bit for bit where they are the same cell.
struct DualSoftmaxMaxima {
  at::Tensor row_max;  // [L] float32: each row's largest conf
  at::Tensor row_arg;  // [L] int64: the first column that has it
  at::Tensor col_max;  // [S] float32: each column's largest conf
};
DualSoftmaxMaxima dualSoftmaxMaxima(const at::Tensor& sim, double inv_temperature);

// LiteSAM's fine matching choice (litesam::FineMatching::chooseInWindows) straight from
// the fine maps, without gathering the windows: fine0, fine1 [1,64,H,W] (or [64,H,W]; the
// sizes may differ) of one type, float32 or float16, contiguous, H and W multiples of 8;
// cells0, cells1 [M] int64 cells of each map's (W/8)-wide coarse grid (a cell outside it
// gives index 0 and a zero heatmap). The
// window products and softmaxes run in float32 (float16 maps are read as float32, as the
// ATen path's .to(kFloat)); as the ATen chain up to float summation order.
struct FineWindowChoice {
  at::Tensor index;    // [M] int64: l * 64 + k (image 0's window pixel, image 1's inner 8x8 pixel)
  at::Tensor heatmap;  // [M, 9] float32: the regression channels' 3x3 around the choice
};
FineWindowChoice fineWindowChoice(const at::Tensor& fine0, const at::Tensor& fine1, const at::Tensor& cells0,
                                  const at::Tensor& cells1);

}  // namespace skytrace::vision::fused
