#include "core/vision/aliked_sddh_impl.h"

#include <algorithm>

#include "core/vision/cuda_graph_impl.h"

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

void Sddh::prepare() {
  // agg_weights [M, C, D] -> kernel [D, M*C, 1, 1] for descs[n,d] = sum_{p,c} f[n,c,p] W[p,c,d].
  const int64_t m = agg_weights_.size(0), c = agg_weights_.size(1), d = agg_weights_.size(2);
  agg_kernel_ = agg_weights_.reshape({m * c, d}).t().contiguous().view({d, m * c, 1, 1});
}

DenseFeatureLookup::DenseFeatureLookup(const at::Tensor& map) : map_(map[0]) {}

at::Tensor DenseFeatureLookup::gather(const at::Tensor& flat_index) const {
  return map_.reshape({map_.size(0), -1}).index_select(1, flat_index).t();
}

namespace {

// Values at integer pixels (x, y) [any shape], zero outside the image. Returns
// [numel(x), C].
at::Tensor gatherZeroOutside(const FeatureLookup& features, const at::Tensor& x,
                             const at::Tensor& y) {
  const int64_t h = features.height(), w = features.width();
  const at::Tensor inside = ((x >= 0) & (x < w) & (y >= 0) & (y < h)).reshape({-1, 1});
  const at::Tensor index = (y.clamp(0, h - 1) * w + x.clamp(0, w - 1)).reshape({-1});
  const at::Tensor values = features.gather(index);
  return at::where(inside, values, at::zeros({}, values.options()));
}

// F.grid_sample(map, grid, bilinear, zeros, align_corners=True) at normalised (gx, gy)
// [P]: the same unnormalisation and corner weights. Returns [P, C].
at::Tensor gridSampleBilinear(const FeatureLookup& features, const at::Tensor& gx,
                              const at::Tensor& gy) {
  const int64_t h = features.height(), w = features.width();
  const at::Tensor ix = ((gx + 1) / 2) * (w - 1);
  const at::Tensor iy = ((gy + 1) / 2) * (h - 1);
  const at::Tensor ix_nw = at::floor(ix), iy_nw = at::floor(iy);
  const at::Tensor ix_se = ix_nw + 1, iy_se = iy_nw + 1;
  const at::Tensor nw = ((ix_se - ix) * (iy_se - iy)).unsqueeze(1);
  const at::Tensor ne = ((ix - ix_nw) * (iy_se - iy)).unsqueeze(1);
  const at::Tensor sw = ((ix_se - ix) * (iy - iy_nw)).unsqueeze(1);
  const at::Tensor se = ((ix - ix_nw) * (iy - iy_nw)).unsqueeze(1);
  const at::Tensor x0 = ix_nw.to(at::kLong), y0 = iy_nw.to(at::kLong);
  // One lookup for the four corners.
  const at::Tensor corners_x = at::stack({x0, x0 + 1, x0, x0 + 1});
  const at::Tensor corners_y = at::stack({y0, y0, y0 + 1, y0 + 1});
  const at::Tensor values = gatherZeroOutside(features, corners_x, corners_y)
                                .view({4, -1, features.channels()});
  at::Tensor out = values[0] * nw;
  out.add_(values[1] * ne).add_(values[2] * sw).add_(values[3] * se);
  return out;
}

}  // namespace

// The compiled get_patches op: KxK patch whose top-left is `pixel` in a map padded by
// floor((K-1)/2) (left/top) and ceil((K-1)/2) (right/bottom) zeros, i.e. rows
// y - floor((K-1)/2) ... of the unpadded map. pixel: [N,2] long (x, y).
// Returns [N, C, K, K].
at::Tensor Sddh::patchesAt(const FeatureLookup& features, const at::Tensor& pixel) const {
  const int64_t k = kernel_size_;
  const int64_t pad_lt = (k - 1) / 2;
  const int64_t n = pixel.size(0);
  const at::Tensor steps = at::arange(k, pixel.options()) - pad_lt;
  const at::Tensor y = (pixel.select(1, 1).view({-1, 1, 1}) + steps.view({1, k, 1})).expand({n, k, k});
  const at::Tensor x = (pixel.select(1, 0).view({-1, 1, 1}) + steps.view({1, 1, k})).expand({n, k, k});
  return gatherZeroOutside(features, x.contiguous(), y.contiguous())
      .reshape({n, k, k, features.channels()})
      .permute({0, 3, 1, 2})
      .contiguous();
}

SddhResult Sddh::operator()(const FeatureLookup& features, const at::Tensor& keypoints,
                            SddhTrace* trace) const {
  const int64_t c = features.channels(), h = features.height(), w = features.width();
  const int64_t n = keypoints.size(0), m = sample_count_;
  const double max_offset = static_cast<double>(std::max(h, w)) / 4.0;
  const at::Tensor wh = longPair(w - 1, h - 1, keypoints.options()).view({1, 2});

  SddhResult result;
  if (n == 0) {
    result.descriptors = at::zeros({0, c}, features.options());
    result.offsets = at::zeros({0, m, 2}, features.options());
    return result;
  }
  const at::Tensor keypoints_px = (keypoints / 2 + 0.5) * wh;  // [N,2] float
  const at::Tensor patches = patchesAt(features, keypoints_px.to(at::kLong));
  at::Tensor offset = offset_conv2_(seluInPlace(offset_conv0_(patches)));  // [N, 2M, 1, 1]
  offset = offset.clamp(-max_offset, max_offset);
  offset = offset.select(3, 0).select(2, 0).view({n, 2, m}).permute({0, 2, 1});  // [N, M, 2]
  result.offsets = offset;

  at::Tensor position = keypoints_px.unsqueeze(1) + offset;  // [N, M, 2] pixels
  position = (2.0 * position / wh.unsqueeze(0) - 1).reshape({n * m, 2});
  const at::Tensor dense = features.denseMap();
  const at::Tensor sampled =  // [N, C, M, 1]
      dense.defined()
          ? at::grid_sampler(dense, position.view({1, n * m, 1, 2}), /*bilinear*/ 0,
                             /*zeros*/ 0, /*align_corners=*/true)
                .view({c, n, m, 1})
                .permute({1, 0, 2, 3})
          : gridSampleBilinear(features, position.select(1, 0), position.select(1, 1))
                .view({n, m, c, 1})
                .permute({0, 2, 1, 3});
  if (trace) {
    trace->patches = patches;
    trace->sampled = sampled.contiguous();
  }
  const at::Tensor features_nm = seluInPlace(sf_conv_(sampled)).squeeze(-1);  // [N, C, M]
  // einsum('ncp,pcd->nd'): contract over (sample position, channel).
  // As a 1x1 convolution over a batch of N (oneDNN on CPU) rather than a BLAS product.
  const at::Tensor descriptors =
      at::conv2d(features_nm.permute({0, 2, 1}).reshape({n, m * c, 1, 1}), agg_kernel_)
          .view({n, c});
  result.descriptors =
      descriptors / at::linalg_vector_norm(descriptors, 2, {1}, true).clamp_min(1e-12);
  return result;
}

SddhResult Sddh::forwardFused(const fused::Levels& levels, const at::Tensor& keypoints) const {
  const int64_t c = 4 * levels.channels_last[0].size(1), m = sample_count_;
  const int64_t n = keypoints.size(0);
  SddhResult result;
  if (n == 0) {
    result.descriptors = at::zeros({0, c}, keypoints.options());
    result.offsets = at::zeros({0, m, 2}, keypoints.options());
    return result;
  }
  const double max_offset = static_cast<double>(std::max(levels.height, levels.width)) / 4.0;
  const at::Tensor patches = fused::descriptorPatches(levels, keypoints, kernel_size_);  // [N, C, K, K]
  const at::Tensor raw_offsets = offset_conv2_(seluInPlace(offset_conv0_(patches))).view({n, 2 * m});
  fused::DescriptorSamples samples = fused::descriptorSamples(levels, keypoints, raw_offsets, max_offset);
  result.offsets = std::move(samples.offsets);
  // sf_conv (1x1, no bias) over the [N*M, C] samples, SELU, then einsum('ncp,pcd->nd') as
  // [N, M*C] x [M*C, D]: agg_weights' rows are (sample position, channel), as the samples'.
  const at::Tensor features =
      seluInPlace(at::mm(samples.sampled.view({n * m, c}), sf_conv_.weight.view({c, c}).t()));
  const at::Tensor descriptors = at::mm(features.view({n, m * c}), agg_weights_.reshape({m * c, -1}));
  result.descriptors =
      descriptors / at::linalg_vector_norm(descriptors, 2, {1}, true).clamp_min(1e-12);
  return result;
}

}  // namespace skytrace::vision::aliked
