#include "core/vision/aliked_sddh_impl.h"

#include <algorithm>

namespace skytrace::vision::aliked {

void Sddh::bind(StateDictBinder& binder, const std::string& prefix, int64_t dims,
                int64_t kernel_size, int64_t sample_count) {
  kernel_size_ = kernel_size;
  sample_count_ = sample_count;
  const int64_t channels = 2 * sample_count;  // (x, y) per sample position
  offset_conv0_.bind(binder, prefix + ".offset_conv.0", dims, channels, kernel_size, 0, true);
  offset_conv2_.bind(binder, prefix + ".offset_conv.2", channels, channels, 1, 0, true);
  sf_conv_.bind(binder, prefix + ".sf_conv", dims, dims, 1, 0, false);
  binder.bind(prefix + ".agg_weights", {sample_count, dims, dims}, &agg_weights_);
}

// The compiled get_patches op: KxK patch whose top-left is `pixel` in a map padded by
// floor((K-1)/2) (left/top) and ceil((K-1)/2) (right/bottom) zeros. map: [C,H,W],
// pixel: [N,2] long (x, y). Returns [N, C, K, K].
at::Tensor Sddh::patchesAt(const at::Tensor& map, const at::Tensor& pixel) const {
  const int64_t k = kernel_size_;
  const int64_t pad_lt = (k - 1) / 2, pad_rb = k / 2;
  const int64_t channels = map.size(0), h = map.size(1), w = map.size(2);
  const at::Tensor padded = at::constant_pad_nd(map, {pad_lt, pad_rb, pad_lt, pad_rb}, 0);
  const int64_t padded_w = w + pad_lt + pad_rb;
  const at::Tensor x = pixel.select(1, 0).clamp(0, w - 1);
  const at::Tensor y = pixel.select(1, 1).clamp(0, h - 1);
  const at::Tensor steps = at::arange(k, pixel.options());
  const at::Tensor index = ((y.view({-1, 1, 1}) + steps.view({1, k, 1})) * padded_w +
                            x.view({-1, 1, 1}) + steps.view({1, 1, k}))
                               .reshape({-1});  // [N*K*K]
  const int64_t n = pixel.size(0);
  return padded.reshape({channels, -1})
      .index_select(1, index)
      .view({channels, n, k, k})
      .permute({1, 0, 2, 3})
      .contiguous();
}

SddhResult Sddh::operator()(const at::Tensor& feature_map, const at::Tensor& keypoints,
                            SddhTrace* trace) const {
  const int64_t c = feature_map.size(1), h = feature_map.size(2), w = feature_map.size(3);
  const int64_t n = keypoints.size(0), m = sample_count_;
  const double max_offset = static_cast<double>(std::max(h, w)) / 4.0;
  const at::Tensor wh = at::tensor({w - 1, h - 1}, keypoints.options().dtype(at::kLong)).view({1, 2});
  const at::Tensor map = feature_map[0];

  SddhResult result;
  if (n == 0) {
    result.descriptors = at::zeros({0, c}, feature_map.options());
    result.offsets = at::zeros({0, m, 2}, feature_map.options());
    return result;
  }
  const at::Tensor keypoints_px = (keypoints / 2 + 0.5) * wh;  // [N,2] float
  const at::Tensor patches = patchesAt(map, keypoints_px.to(at::kLong));
  at::Tensor offset = offset_conv2_(seluInPlace(offset_conv0_(patches)));  // [N, 2M, 1, 1]
  offset = offset.clamp(-max_offset, max_offset);
  offset = offset.select(3, 0).select(2, 0).view({n, 2, m}).permute({0, 2, 1});  // [N, M, 2]
  result.offsets = offset;

  at::Tensor position = keypoints_px.unsqueeze(1) + offset;  // [N, M, 2] pixels
  position = 2.0 * position / wh.unsqueeze(0) - 1;
  const at::Tensor sampled =
      at::grid_sampler(feature_map, position.reshape({1, n * m, 1, 2}), /*bilinear*/ 0,
                       /*zeros*/ 0, /*align_corners=*/true)  // [1, C, N*M, 1]
          .reshape({c, n, m, 1})
          .permute({1, 0, 2, 3});  // [N, C, M, 1]
  if (trace) {
    trace->patches = patches;
    trace->sampled = sampled.contiguous();
  }
  const at::Tensor features = seluInPlace(sf_conv_(sampled)).squeeze(-1);  // [N, C, M]
  // einsum('ncp,pcd->nd'): contract over (sample position, channel).
  const at::Tensor descriptors =
      features.permute({0, 2, 1}).reshape({n, m * c}).mm(agg_weights_.reshape({m * c, c}));
  result.descriptors =
      descriptors / at::linalg_vector_norm(descriptors, 2, {1}, true).clamp_min(1e-12);
  return result;
}

}  // namespace skytrace::vision::aliked
