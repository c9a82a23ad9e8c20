// CUDA builds with nvcc (SKYTRACE_ALIKED_CUDA_KERNELS): shape checks, allocation and the
// current stream around the launchers of aliked_cuda_kernels.cu.
#include "core/vision/aliked_fused_ops.h"

#include <c10/cuda/CUDAGuard.h>

#include <string>

#include "core/util/check.h"
#include "core/util/error.h"
#include "core/vision/aliked_cuda_kernels.h"
#include "core/vision/checkpoint_impl.h"
#include "core/vision/fused_launch_impl.h"

namespace skytrace::vision::aliked::fused {
namespace {

void require(bool ok, const std::string& what) { checkArgument(ok, "ALIKED fused CUDA operator: " + what); }

void requireFloatCuda(const at::Tensor& t, const char* name) {
  require(t.defined() && t.is_cuda() && t.scalar_type() == at::kFloat,
          std::string(name) + " must be a float32 CUDA tensor");
}

const float* in(const at::Tensor& t) { return t.data_ptr<float>(); }
float* out(at::Tensor& t) { return t.data_ptr<float>(); }

void check(cudaError_t status, const char* op) { checkLaunch(status, "ALIKED fused CUDA operator", op); }

cuda::LevelsView levelsView(const Levels& levels) {
  cuda::LevelsView view{};
  const at::Tensor& base = levels.channels_last[0];
  requireFloatCuda(base, "level 0");
  const int64_t channels = base.size(1);
  require(channels >= 1 && channels <= 32, "levels must have 1..32 channels, got " + std::to_string(channels));
  const int64_t hp = base.size(2), wp = base.size(3);
  for (int i = 0; i < 4; ++i) {
    const at::Tensor& level = levels.channels_last[i];
    requireFloatCuda(level, "a level");
    require(level.dim() == 4 && level.size(0) == 1 && level.size(1) == channels &&
                level.is_contiguous(at::MemoryFormat::ChannelsLast) && level.device() == base.device(),
            "levels must be [1,C,h,w] channels-last on one device, got " + shapeToString(level.sizes()));
    view.data[i] = in(level);
    view.h[i] = static_cast<int>(level.size(2));
    view.w[i] = static_cast<int>(level.size(3));
    // area_pixel_compute_scale(align_corners=True) in float, as ATen.
    view.scale_h[i] = hp > 1 ? static_cast<float>(level.size(2) - 1) / static_cast<float>(hp - 1) : 0.f;
    view.scale_w[i] = wp > 1 ? static_cast<float>(level.size(3) - 1) / static_cast<float>(wp - 1) : 0.f;
  }
  require(levels.pad_left >= 0 && levels.pad_top >= 0 && levels.height >= 2 && levels.width >= 2 &&
              levels.pad_top + levels.height <= hp && levels.pad_left + levels.width <= wp,
          "frame geometry outside the padded levels");
  view.channels = static_cast<int>(channels);
  view.pad_left = static_cast<int>(levels.pad_left);
  view.pad_top = static_cast<int>(levels.pad_top);
  view.height = static_cast<int>(levels.height);
  view.width = static_cast<int>(levels.width);
  return view;
}

void requireKeypoints(const at::Tensor& keypoints, const at::Tensor& like) {
  requireFloatCuda(keypoints, "keypoints");
  require(keypoints.dim() == 2 && keypoints.size(1) == 2 && keypoints.is_contiguous() &&
              keypoints.device() == like.device(),
          "keypoints must be contiguous [N,2] on the levels' device");
}

}  // namespace

bool built() { return true; }

at::Tensor scaleShiftSelu(const at::Tensor& x, const at::Tensor& scale, const at::Tensor& shift,
                          const at::Tensor& residual) {
  requireFloatCuda(x, "x");
  require(x.dim() == 4 && x.size(0) == 1 && x.is_contiguous(), "x must be contiguous [1,C,H,W]");
  const int64_t channels = x.size(1), plane = x.size(2) * x.size(3);
  for (const at::Tensor* t : {&scale, &shift}) {
    requireFloatCuda(*t, "scale/shift");
    require(t->numel() == channels && t->is_contiguous() && t->device() == x.device(),
            "scale and shift need one value per channel");
  }
  if (residual.defined()) {
    requireFloatCuda(residual, "residual");
    require(residual.sizes() == x.sizes() && residual.is_contiguous() && residual.device() == x.device(),
            "residual must be like x");
  }
  const c10::cuda::CUDAGuard guard(x.device());
  at::Tensor y = at::empty_like(x);
  check(cuda::launchScaleShiftSelu(in(x), in(scale), in(shift), residual.defined() ? in(residual) : nullptr,
                                   out(y), static_cast<int>(channels), plane, currentCudaStream(x)),
        "scaleShiftSelu");
  return y;
}

at::Tensor seluChannelsLast(const at::Tensor& level) {
  requireFloatCuda(level, "level");
  require(level.dim() == 4 && level.size(0) == 1 && level.is_contiguous(), "level must be contiguous [1,C,h,w]");
  const c10::cuda::CUDAGuard guard(level.device());
  at::Tensor y = at::empty(level.sizes(), level.options().memory_format(at::MemoryFormat::ChannelsLast));
  check(cuda::launchSeluChannelsLast(in(level), out(y), static_cast<int>(level.size(1)),
                                     level.size(2) * level.size(3), currentCudaStream(level)),
        "seluChannelsLast");
  return y;
}

at::Tensor scoreMap(const Levels& levels, const std::array<at::Tensor, 4>& head) {
  const cuda::LevelsView view = levelsView(levels);
  const int64_t dim = 4 * int64_t{view.channels};
  const std::array<std::array<int64_t, 4>, 4> shapes = {
      {{8, dim, 1, 1}, {4, 8, 3, 3}, {4, 4, 3, 3}, {1, 4, 3, 3}}};
  for (int i = 0; i < 4; ++i) {
    requireFloatCuda(head[i], "score head weight");
    require(head[i].sizes() == at::IntArrayRef(shapes[i]) && head[i].is_contiguous(),
            "score head weight " + std::to_string(i) + " has shape " + shapeToString(head[i].sizes()));
  }
  const at::Tensor& base = levels.channels_last[0];
  const c10::cuda::CUDAGuard guard(base.device());
  at::Tensor score = at::empty({1, 1, levels.height, levels.width}, base.options());
  at::Tensor scratch = at::empty({cuda::scoreHeadScratchFloats(view)}, base.options());
  check(cuda::launchScoreHead(view, in(head[0]), in(head[1]), in(head[2]), in(head[3]), out(scratch), out(score),
                              currentCudaStream(base)),
        "scoreMap");
  return score;
}

RefinedPeaks refinePeaks(const at::Tensor& score_map, const at::Tensor& indices, int64_t radius,
                         double temperature) {
  requireFloatCuda(score_map, "score map");
  require(score_map.dim() == 4 && score_map.size(0) == 1 && score_map.size(1) == 1 && score_map.is_contiguous(),
          "score map must be contiguous [1,1,H,W]");
  require(indices.dim() == 1 && indices.scalar_type() == at::kLong && indices.device() == score_map.device(),
          "indices must be [N] long on the score map's device");
  require(radius >= 1 && radius <= 4 && temperature > 0, "radius must be 1..4 and the temperature positive");
  const at::Tensor index = indices.contiguous();
  const int64_t n = index.size(0);
  const c10::cuda::CUDAGuard guard(score_map.device());
  RefinedPeaks peaks;
  peaks.keypoints = at::empty({n, 2}, score_map.options());
  peaks.keypoints_px = at::empty({n, 2}, score_map.options());
  peaks.scores = at::empty({n}, score_map.options());
  peaks.dispersity = at::empty({n}, score_map.options());
  // ATen divides by a scalar as a product with its float reciprocal.
  const float inverse_temperature = 1.0f / static_cast<float>(temperature);
  check(cuda::launchRefinePeaks(in(score_map), static_cast<int>(score_map.size(2)),
                                static_cast<int>(score_map.size(3)), index.data_ptr<int64_t>(),
                                static_cast<int>(n), static_cast<int>(radius), inverse_temperature,
                                out(peaks.keypoints), out(peaks.keypoints_px), out(peaks.scores),
                                out(peaks.dispersity), currentCudaStream(score_map)),
        "refinePeaks");
  return peaks;
}

at::Tensor deformableColumns(const at::Tensor& input, const at::Tensor& offset, double max_offset) {
  requireFloatCuda(input, "input");
  requireFloatCuda(offset, "offset");
  require(input.dim() == 4 && input.size(0) == 1 && input.is_contiguous(), "input must be contiguous [1,C,H,W]");
  const int64_t c = input.size(1), h = input.size(2), w = input.size(3);
  require(offset.sizes() == at::IntArrayRef({1, 18, h, w}) && offset.is_contiguous() &&
              offset.device() == input.device(),
          "offset must be contiguous [1,18,H,W], got " + shapeToString(offset.sizes()));
  const c10::cuda::CUDAGuard guard(input.device());
  at::Tensor columns = at::empty({1, c, 3 * h, 3 * w}, input.options());
  check(cuda::launchDeformableColumns(in(input), in(offset), out(columns), static_cast<int>(c), static_cast<int>(h),
                                      static_cast<int>(w), static_cast<float>(max_offset), currentCudaStream(input)),
        "deformableColumns");
  return columns;
}

at::Tensor descriptorPatches(const Levels& levels, const at::Tensor& keypoints, int64_t kernel_size) {
  const cuda::LevelsView view = levelsView(levels);
  requireKeypoints(keypoints, levels.channels_last[0]);
  require(kernel_size >= 1 && kernel_size <= 7, "kernel size must be 1..7");
  const int64_t n = keypoints.size(0);
  const c10::cuda::CUDAGuard guard(keypoints.device());
  at::Tensor patches = at::empty({n, 4 * int64_t{view.channels}, kernel_size, kernel_size}, keypoints.options());
  check(cuda::launchDescriptorPatches(view, in(keypoints), static_cast<int>(n), static_cast<int>(kernel_size),
                                      out(patches), currentCudaStream(keypoints)),
        "descriptorPatches");
  return patches;
}

DescriptorSamples descriptorSamples(const Levels& levels, const at::Tensor& keypoints, const at::Tensor& raw_offsets,
                                    double max_offset) {
  const cuda::LevelsView view = levelsView(levels);
  requireKeypoints(keypoints, levels.channels_last[0]);
  requireFloatCuda(raw_offsets, "offsets");
  const int64_t n = keypoints.size(0);
  require(raw_offsets.dim() == 2 && raw_offsets.size(0) == n && raw_offsets.size(1) % 2 == 0 &&
              raw_offsets.is_contiguous() && raw_offsets.device() == keypoints.device(),
          "offsets must be contiguous [N, 2M], got " + shapeToString(raw_offsets.sizes()));
  const int64_t m = raw_offsets.size(1) / 2;
  const c10::cuda::CUDAGuard guard(keypoints.device());
  DescriptorSamples result;
  result.sampled = at::empty({n, m, 4 * int64_t{view.channels}}, keypoints.options());
  result.offsets = at::empty({n, m, 2}, keypoints.options());
  check(cuda::launchDescriptorSamples(view, in(keypoints), static_cast<int>(n), in(raw_offsets), static_cast<int>(m),
                                      static_cast<float>(max_offset), out(result.sampled), out(result.offsets),
                                      currentCudaStream(keypoints)),
        "descriptorSamples");
  return result;
}

}  // namespace skytrace::vision::aliked::fused
