// CUDA builds with nvcc: shape checks, allocation and the current stream around the
// launchers of fused_cuda_kernels.cu.
#include "core/vision/fused_ops.h"

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <string>

#include "core/util/check.h"
#include "core/util/error.h"
#include "core/vision/checkpoint_impl.h"
#include "core/vision/fused_cuda_kernels.h"

namespace skytrace::vision::fused {
namespace {

void require(bool ok, const std::string& what) { checkArgument(ok, "fused CUDA operator: " + what); }

void requireCuda(const at::Tensor& t, at::ScalarType type, const char* name) {
  require(t.defined() && t.is_cuda() && t.scalar_type() == type && t.is_contiguous(),
          std::string(name) + " must be a contiguous " + c10::toString(type) + " CUDA tensor");
}

cudaStream_t currentStream(const at::Tensor& t) {
  return c10::cuda::getCurrentCUDAStream(t.device().index()).stream();
}

void check(cudaError_t status, const char* op) {
  if (status != cudaSuccess)
    throw InvalidArgument(std::string("fused CUDA operator ") + op + ": " + cudaGetErrorString(status));
}

const __half* halfIn(const at::Tensor& t) { return reinterpret_cast<const __half*>(t.data_ptr<at::Half>()); }
__half* halfOut(at::Tensor& t) { return reinterpret_cast<__half*>(t.data_ptr<at::Half>()); }

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
                              scratch[1].data_ptr<uint8_t>(), flat.data_ptr<float>(), currentStream(score_map)),
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
                                  x.numel() / channels, static_cast<int>(channels), currentStream(x)),
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
                               static_cast<int>(c), currentStream(x)),
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
                             static_cast<int>(heads), static_cast<int>(head_dim), currentStream(qkv)),
        "rotaryQk");
  return batched ? out.permute({0, 1, 3, 2, 4}) : out.permute({0, 2, 1, 3});
}

}  // namespace skytrace::vision::fused
