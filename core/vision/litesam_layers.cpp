#include "core/vision/litesam_layers_impl.h"

#include <utility>

namespace skytrace::vision::litesam {

void Conv2d::bind(StateDictBinder& binder, const std::string& prefix, int64_t in, int64_t out,
                  int64_t kernel, int64_t stride_px, int64_t padding_px, int64_t group_count,
                  bool with_bias) {
  stride = stride_px;
  padding = padding_px;
  groups = group_count;
  binder.bind(prefix + ".weight", {out, in / group_count, kernel, kernel}, &weight);
  if (with_bias) binder.bind(prefix + ".bias", {out}, &bias);
}

void Conv2d::castTo(at::ScalarType type) {
  if (weight.defined()) weight = weight.to(type);
  if (bias.defined()) bias = bias.to(type);
}

at::Tensor Conv2d::operator()(const at::Tensor& x) const {
  return at::conv2d(x, weight, bias, {stride, stride}, {padding, padding}, {1, 1}, groups);
}

void BatchNorm2d::bind(StateDictBinder& binder, const std::string& prefix, int64_t channels) {
  binder.bind(prefix + ".weight", {channels}, &weight);
  binder.bind(prefix + ".bias", {channels}, &bias);
  binder.bind(prefix + ".running_mean", {channels}, &running_mean);
  binder.bind(prefix + ".running_var", {channels}, &running_var);
  binder.expect(prefix + ".num_batches_tracked", {});
}

at::Tensor BatchNorm2d::operator()(const at::Tensor& x) const {
  return at::batch_norm(x, weight, bias, running_mean, running_var, /*training=*/false,
                        /*momentum=*/0.1, kEps, /*cudnn_enabled=*/true);
}

void LayerNorm::bind(StateDictBinder& binder, const std::string& prefix, int64_t channels) {
  binder.bind(prefix + ".weight", {channels}, &weight);
  binder.bind(prefix + ".bias", {channels}, &bias);
}

void LayerNorm::castTo(at::ScalarType type) {
  weight = weight.to(type);
  bias = bias.to(type);
}

at::Tensor LayerNorm::operator()(const at::Tensor& x) const {
  return at::layer_norm(x, {x.size(-1)}, weight, bias, 1e-5);
}

void Linear::bind(StateDictBinder& binder, const std::string& prefix, int64_t in, int64_t out,
                  bool with_bias) {
  binder.bind(prefix + ".weight", {out, in}, &weight);
  if (with_bias) binder.bind(prefix + ".bias", {out}, &bias);
}

void Linear::castTo(at::ScalarType type) {
  weight = weight.to(type);
  if (bias.defined()) bias = bias.to(type);
}

at::Tensor Linear::operator()(const at::Tensor& x) const { return at::linear(x, weight, bias); }

void MobileOneBlock::bind(StateDictBinder& binder, const std::string& prefix, int64_t in,
                          int64_t out, int64_t kernel_size, int64_t stride_px,
                          int64_t group_count) {
  in_channels = in;
  out_channels = out;
  kernel = kernel_size;
  stride = stride_px;
  groups = group_count;
  const int64_t padding = kernel_size / 2;
  has_skip = in == out && stride_px == 1;
  if (has_skip) skip.bind(binder, prefix + ".rbr_skip", in);
  conv.bind(binder, prefix + ".rbr_conv.0.conv", in, out, kernel_size, stride_px, padding,
            group_count, /*with_bias=*/false);
  conv_bn.bind(binder, prefix + ".rbr_conv.0.bn", out);
  has_scale = kernel_size > 1;
  if (has_scale) {
    scale.bind(binder, prefix + ".rbr_scale.conv", in, out, 1, stride_px, 0, group_count, false);
    scale_bn.bind(binder, prefix + ".rbr_scale.bn", out);
  }
}

namespace {

// _fuse_bn_tensor: (kernel * gamma/std, beta - mean * gamma / std), std = sqrt(var + eps).
std::pair<at::Tensor, at::Tensor> foldBatchNorm(const at::Tensor& kernel, const BatchNorm2d& bn) {
  const at::Tensor std = (bn.running_var + BatchNorm2d::kEps).sqrt();
  const at::Tensor t = (bn.weight / std).reshape({-1, 1, 1, 1});
  return {kernel * t, bn.bias - bn.running_mean * bn.weight / std};
}

}  // namespace

void MobileOneBlock::reparameterize() {
  if (fused) return;
  const int64_t pad = kernel / 2;
  auto [kernel_final, bias_final] = foldBatchNorm(conv.weight, conv_bn);
  if (has_scale) {
    auto [k, b] = foldBatchNorm(scale.weight, scale_bn);
    kernel_final = kernel_final + at::constant_pad_nd(k, {pad, pad, pad, pad}, 0);
    bias_final = bias_final + b;
  }
  if (has_skip) {
    const int64_t input_dim = in_channels / groups;
    at::Tensor identity = at::zeros({in_channels, input_dim, kernel, kernel}, conv.weight.options());
    const at::Tensor rows = at::arange(in_channels, identity.options().dtype(at::kLong));
    identity.index_put_({rows, rows.remainder(input_dim), at::full_like(rows, pad),
                         at::full_like(rows, pad)},
                        at::ones({in_channels}, identity.options()));
    auto [k, b] = foldBatchNorm(identity, skip);
    kernel_final = kernel_final + k;
    bias_final = bias_final + b;
  }
  fused_conv.weight = kernel_final.contiguous();
  fused_conv.bias = bias_final.contiguous();
  fused_conv.stride = stride;
  fused_conv.padding = pad;
  fused_conv.groups = groups;
  fused = true;
}

void MobileOneBlock::castTo(at::ScalarType type) {
  conv.castTo(type);
  scale.castTo(type);
  fused_conv.castTo(type);
}

at::Tensor MobileOneBlock::operator()(const at::Tensor& x) const {
  if (fused) return at::relu(fused_conv(x));
  // Same summation order as the original: (scale + skip) + conv.
  at::Tensor out;
  if (has_scale) out = scale_bn(scale(x));
  if (has_skip) out = out.defined() ? out + skip(x) : skip(x);
  const at::Tensor branch = conv_bn(conv(x));
  out = out.defined() ? out + branch : branch;
  return at::relu(out);
}

at::Tensor upsampleBilinear(const at::Tensor& x, int64_t factor) {
  const double s = static_cast<double>(factor);
  return at::upsample_bilinear2d(x, {x.size(2) * factor, x.size(3) * factor},
                                 /*align_corners=*/false, s, s);
}

}  // namespace skytrace::vision::litesam
