// CUDA builds with nvcc: shape checks, allocation and the current stream around the
// launchers of fused_cuda_kernels.cu.
#include "core/vision/fused_ops.h"

#include <c10/cuda/CUDAGuard.h>

#include <string>

#include "core/util/check.h"
#include "core/util/error.h"
#include "core/vision/checkpoint_impl.h"
#include "core/vision/fused_cuda_kernels.h"
#include "core/vision/fused_launch_impl.h"

namespace skytrace::vision::fused {
namespace {

void require(bool ok, const std::string& what) { checkArgument(ok, "fused CUDA operator: " + what); }

void requireCuda(const at::Tensor& t, at::ScalarType type, const char* name) {
  require(t.defined() && t.is_cuda() && t.scalar_type() == type && t.is_contiguous(),
          std::string(name) + " must be a contiguous " + c10::toString(type) + " CUDA tensor");
}

void check(cudaError_t status, const char* op) { checkLaunch(status, "fused CUDA operator", op); }

const __half* halfIn(const at::Tensor& t) { return reinterpret_cast<const __half*>(t.data_ptr<at::Half>()); }
__half* halfOut(at::Tensor& t) { return reinterpret_cast<__half*>(t.data_ptr<at::Half>()); }
float2* float2Out(at::Tensor& t) { return reinterpret_cast<float2*>(t.data_ptr<float>()); }

// A [C,H,W] view of one fine map given as [1,C,H,W] or [C,H,W].
at::Tensor fineMap(const at::Tensor& t, const char* name) {
  require(t.defined() && t.is_cuda() && (t.scalar_type() == at::kFloat || t.scalar_type() == at::kHalf) &&
              t.is_contiguous() && (t.dim() == 3 || (t.dim() == 4 && t.size(0) == 1)),
          std::string(name) + " must be a contiguous float32 or float16 CUDA tensor [1,C,H,W]");
  return t.dim() == 4 ? t[0] : t;
}

}  // namespace

bool built() { return true; }

at::Tensor nmsScores(const at::Tensor& score_map, int64_t nms_radius, int64_t border) {
  requireCuda(score_map, at::kFloat, "score map");
  require(score_map.dim() >= 2, "score map must be [H,W] (leading dimensions of size 1)");
  for (int64_t d = 0; d + 2 < score_map.dim(); ++d)
    require(score_map.size(d) == 1, "score map must hold one map, got " + shapeToString(score_map.sizes()));
  require(nms_radius >= 0 && nms_radius <= cuda::kMaxNmsRadius,
          "NMS radius must be in 0.." + std::to_string(cuda::kMaxNmsRadius) + ", got " + std::to_string(nms_radius));
  require(border >= 0, "negative border");
  const int64_t h = score_map.size(-2), w = score_map.size(-1);
  const c10::cuda::CUDAGuard guard(score_map.device());
  at::Tensor scratch = at::empty({2, h * w}, score_map.options().dtype(at::kByte));
  at::Tensor flat = at::empty({h * w}, score_map.options());
  check(cuda::launchNmsScores(score_map.data_ptr<float>(), static_cast<int>(h), static_cast<int>(w),
                              static_cast<int>(nms_radius), static_cast<int>(border), scratch[0].data_ptr<uint8_t>(),
                              scratch[1].data_ptr<uint8_t>(), flat.data_ptr<float>(), currentCudaStream(score_map)),
        "nmsScores");
  return flat;
}

at::Tensor layerNormGelu(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias, double eps) {
  requireCuda(x, at::kHalf, "x");
  const int64_t channels = x.dim() == 0 ? 0 : x.size(-1);
  require(channels > 0 && channels % 8 == 0 && channels <= 1024,
          "x must be [..., C] with C % 8 == 0 and C <= 1024, got " + shapeToString(x.sizes()));
  for (const at::Tensor* t : {&weight, &bias}) {
    requireCuda(*t, at::kHalf, "weight/bias");
    require(t->numel() == channels && t->device() == x.device(), "weight and bias need one value per channel");
  }
  const c10::cuda::CUDAGuard guard(x.device());
  at::Tensor y = at::empty_like(x);
  check(cuda::launchLayerNormGelu(halfIn(x), halfIn(weight), halfIn(bias), static_cast<float>(eps), halfOut(y),
                                  x.numel() / channels, static_cast<int>(channels), currentCudaStream(x)),
        "layerNormGelu");
  return y;
}

at::Tensor maxPool2x2(const at::Tensor& x) {
  require(x.defined() && x.is_cuda() && x.scalar_type() == at::kHalf && x.dim() == 4 &&
              x.is_contiguous(at::MemoryFormat::ChannelsLast) && x.size(1) % 8 == 0,
          "max pool input must be a float16 channels-last CUDA tensor [B,C,H,W] with C % 8 == 0, got " +
              shapeToString(x.sizes()));
  const int64_t b = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  const c10::cuda::CUDAGuard guard(x.device());
  at::Tensor y = at::empty({b, c, h / 2, w / 2}, x.options().memory_format(at::MemoryFormat::ChannelsLast));
  check(cuda::launchMaxPool2x2(halfIn(x), halfOut(y), static_cast<int>(b), static_cast<int>(h), static_cast<int>(w),
                               static_cast<int>(c), currentCudaStream(x)),
        "maxPool2x2");
  return y;
}

at::Tensor rotaryQk(const at::Tensor& qkv, const at::Tensor& tables, int64_t heads) {
  requireCuda(qkv, at::kHalf, "qkv");
  requireCuda(tables, at::kHalf, "rotary tables");
  const bool batched = qkv.dim() == 3;
  require((qkv.dim() == 2 || batched) && tables.dim() == qkv.dim() + 1,
          "qkv must be [(B,)N,3D] and the tables [(B,)2,N,hd], got " + shapeToString(qkv.sizes()) + " and " +
              shapeToString(tables.sizes()));
  const int64_t batch = batched ? qkv.size(0) : 1, n = qkv.size(-2), head_dim = tables.size(-1);
  require(heads > 0 && head_dim % 2 == 0 && qkv.size(-1) == 3 * heads * head_dim && tables.size(-3) == 2 &&
              tables.size(-2) == n && (!batched || tables.size(0) == batch) && tables.device() == qkv.device(),
          "qkv " + shapeToString(qkv.sizes()) + " and tables " + shapeToString(tables.sizes()) +
              " do not match " + std::to_string(heads) + " heads");
  const c10::cuda::CUDAGuard guard(qkv.device());
  // Written token-major ([2,(B,)N,H,hd]) and returned as the [2,(B,)H,N,hd] view: attention
  // keeps that layout, so merging its heads afterwards needs no copy.
  at::Tensor out = batched ? at::empty({2, batch, n, heads, head_dim}, qkv.options())
                           : at::empty({2, n, heads, head_dim}, qkv.options());
  check(cuda::launchRotaryQk(halfIn(qkv), halfIn(tables), halfOut(out), static_cast<int>(batch), static_cast<int>(n),
                             static_cast<int>(heads), static_cast<int>(head_dim), currentCudaStream(qkv)),
        "rotaryQk");
  return batched ? out.permute({0, 1, 3, 2, 4}) : out.permute({0, 2, 1, 3});
}


DualSoftmaxMaxima dualSoftmaxMaxima(const at::Tensor& sim, double inv_temperature) {
  requireCuda(sim, at::kFloat, "similarity matrix");
  require((sim.dim() == 2 || (sim.dim() == 3 && sim.size(0) == 1)) && sim.numel() > 0,
          "similarity matrix must be [L,S] or [1,L,S], got " + shapeToString(sim.sizes()));
  const int64_t rows = sim.size(-2), cols = sim.size(-1);
  require(rows < (1LL << 31) && cols < (1LL << 30), "similarity matrix too large: " + shapeToString(sim.sizes()));
  const c10::cuda::CUDAGuard guard(sim.device());
  const at::TensorOptions floats = sim.options();
  at::Tensor row_stats = at::empty({rows, 2}, floats), col_stats = at::empty({cols, 2}, floats);
  at::Tensor col_partial = at::empty({16, cols, 2}, floats);
  DualSoftmaxMaxima out{at::empty({rows}, floats), at::empty({rows}, floats.dtype(at::kLong)),
                        at::empty({cols}, floats)};
  check(cuda::launchDualSoftmaxMaxima(sim.data_ptr<float>(), static_cast<int>(rows), static_cast<int>(cols),
                                      static_cast<float>(inv_temperature), float2Out(row_stats), float2Out(col_stats),
                                      float2Out(col_partial), out.row_max.data_ptr<float>(),
                                      out.row_arg.data_ptr<int64_t>(), out.col_max.data_ptr<float>(),
                                      currentCudaStream(sim)),
        "dualSoftmaxMaxima");
  return out;
}

FineWindowChoice fineWindowChoice(const at::Tensor& fine0, const at::Tensor& fine1, const at::Tensor& cells0,
                                  const at::Tensor& cells1) {
  const at::Tensor map0 = fineMap(fine0, "fine map 0"), map1 = fineMap(fine1, "fine map 1");
  require(map0.scalar_type() == map1.scalar_type() && map0.device() == map1.device(),
          "the fine maps must agree in type and device");
  for (const at::Tensor* map : {&map0, &map1})
    require(map->size(0) == 64 && map->size(1) % 8 == 0 && map->size(2) % 8 == 0 && map->size(1) > 0 &&
                map->size(2) > 0 && map->numel() < (1LL << 31),
            "fine maps must have 64 channels and sides that are multiples of 8, got " + shapeToString(map->sizes()));
  requireCuda(cells0, at::kLong, "cells0");
  requireCuda(cells1, at::kLong, "cells1");
  require(cells0.dim() == 1 && cells1.sizes() == cells0.sizes() && cells0.device() == map0.device() &&
              cells1.device() == map0.device() && cells0.size(0) < (1LL << 31),
          "cells0 and cells1 must be [M] on the maps' device, got " + shapeToString(cells0.sizes()) + " and " +
              shapeToString(cells1.sizes()));
  const int64_t m = cells0.size(0);
  const int h0 = static_cast<int>(map0.size(1)), w0 = static_cast<int>(map0.size(2));
  const int h1 = static_cast<int>(map1.size(1)), w1 = static_cast<int>(map1.size(2));
  const c10::cuda::CUDAGuard guard(map0.device());
  FineWindowChoice out{at::empty({m}, cells0.options()), at::empty({m, 9}, cells0.options().dtype(at::kFloat))};
  const int64_t* c0 = cells0.data_ptr<int64_t>();
  const int64_t* c1 = cells1.data_ptr<int64_t>();
  int64_t* index = out.index.data_ptr<int64_t>();
  float* heatmap = out.heatmap.data_ptr<float>();
  const cudaStream_t stream = currentCudaStream(map0);
  check(map0.scalar_type() == at::kHalf
            ? cuda::launchFineWindowMatch(halfIn(map0), h0, w0, halfIn(map1), h1, w1, c0, c1, static_cast<int>(m),
                                          index, heatmap, stream)
            : cuda::launchFineWindowMatch(map0.data_ptr<float>(), h0, w0, map1.data_ptr<float>(), h1, w1, c0, c1,
                                          static_cast<int>(m), index, heatmap, stream),
        "fineWindowChoice");
  return out;
}

}  // namespace skytrace::vision::fused
