// Internal (torch allowed): fused CUDA operators that several models share, the
// tensor-level face of fused_cuda_kernels.cu. Each computes what a chain of ATen operators
// computes, with one or a few kernels instead of many: the keypoint detectors' simple_nms
// (ALIKED's DKD, SuperPoint), SuperPoint's float16 2x2 max pooling and LightGlue's float16
// LayerNorm + GELU and rotary encoding.
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

}  // namespace skytrace::vision::fused
