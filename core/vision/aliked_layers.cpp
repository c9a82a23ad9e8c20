#include "core/vision/aliked_layers_impl.h"

#include <algorithm>

#include "core/vision/aliked_fused_ops.h"
#include "core/vision/deform_conv_impl.h"

namespace skytrace::vision::aliked {

void Conv2d::bind(StateDictBinder& binder, const std::string& prefix, int64_t in, int64_t out,
                  int64_t kernel, int64_t padding_px, bool with_bias) {
  padding = padding_px;
  binder.bind(prefix + ".weight", {out, in, kernel, kernel}, &weight);
  if (with_bias) binder.bind(prefix + ".bias", {out}, &bias);
}

at::Tensor Conv2d::operator()(const at::Tensor& x) const {
  return at::conv2d(x, weight, bias, {stride, stride}, {padding, padding});
}

void Conv2d::castTo(at::ScalarType type) {
  weight = weight.to(type);
  if (bias.defined()) bias = bias.to(type);
}

void BatchNorm2d::bind(StateDictBinder& binder, const std::string& prefix, int64_t channels) {
  binder.bind(prefix + ".weight", {channels}, &weight);
  binder.bind(prefix + ".bias", {channels}, &bias);
  binder.bind(prefix + ".running_mean", {channels}, &running_mean);
  binder.bind(prefix + ".running_var", {channels}, &running_var);
  binder.expect(prefix + ".num_batches_tracked", {});
}

void BatchNorm2d::prepare() {
  const at::Tensor s = weight / at::sqrt(running_var + 1e-5);
  scale = s.view({1, -1, 1, 1});
  shift = (bias - running_mean * s).view({1, -1, 1, 1});
}

void BatchNorm2d::castTo(at::ScalarType type) {
  scale = scale.to(type);
  shift = shift.to(type);
}

at::Tensor BatchNorm2d::operator()(const at::Tensor& x) const {
  if (x.is_cuda() && scale.defined()) return at::addcmul(shift, x, scale);
  return at::batch_norm(x, weight, bias, running_mean, running_var, /*training=*/false,
                        /*momentum=*/0.1, /*eps=*/1e-5, /*cudnn_enabled=*/true);
}

void DeformableConv2d::bind(StateDictBinder& binder, const std::string& prefix, int64_t in,
                            int64_t out) {
  offset_conv.bind(binder, prefix + ".offset_conv", in, 2 * 3 * 3, 3, 1, /*with_bias=*/true);
  binder.bind(prefix + ".regular_conv.weight", {out, in, 3, 3}, &weight);
}

void DeformableConv2d::castTo(at::ScalarType type) {
  offset_conv.castTo(type);
  weight = weight.to(type);
}

at::Tensor DeformableConv2d::operator()(const at::Tensor& x) const {
  const double max_offset = static_cast<double>(std::max(x.size(2), x.size(3))) / 4.0;
  const at::Tensor offset = offset_conv(x).clamp(-max_offset, max_offset);
  return deformConv2d(x, offset, weight, at::Tensor(), DeformConvGeometry{});
}

at::Tensor DeformableConv2d::forwardFused(const at::Tensor& x) const {
  const double max_offset = static_cast<double>(std::max(x.size(2), x.size(3))) / 4.0;
  const at::Tensor columns = fused::deformableColumns(x, offset_conv(x), max_offset);  // clamps
  return at::conv2d(columns, weight, {}, {3, 3});
}

void Conv3x3::bind(StateDictBinder& binder, const std::string& prefix, int64_t in, int64_t out,
                   bool use_dcn) {
  deformable = use_dcn;
  if (use_dcn) dcn.bind(binder, prefix, in, out);
  else plain.bind(binder, prefix, in, out, 3, 1, /*with_bias=*/false);
}

void Conv3x3::castTo(at::ScalarType type) {
  if (deformable) dcn.castTo(type);
  else plain.castTo(type);
}

at::Tensor Conv3x3::operator()(const at::Tensor& x) const {
  return deformable ? dcn(x) : plain(x);
}

at::Tensor Conv3x3::forwardFused(const at::Tensor& x) const {
  return deformable ? dcn.forwardFused(x) : plain(x);
}

void ConvBlock::bind(StateDictBinder& binder, const std::string& prefix, int64_t in, int64_t out,
                     bool use_dcn) {
  conv1.bind(binder, prefix + ".conv1", in, out, use_dcn);
  bn1.bind(binder, prefix + ".bn1", out);
  conv2.bind(binder, prefix + ".conv2", out, out, use_dcn);
  bn2.bind(binder, prefix + ".bn2", out);
}

void ConvBlock::castTo(at::ScalarType type) {
  conv1.castTo(type);
  conv2.castTo(type);
  bn1.castTo(type);
  bn2.castTo(type);
}

at::Tensor ConvBlock::operator()(const at::Tensor& x) const {
  at::Tensor y = seluInPlace(bn1(conv1(x)));
  return seluInPlace(bn2(conv2(y)));
}

at::Tensor ConvBlock::forwardFused(const at::Tensor& x) const {
  const at::Tensor y = fused::scaleShiftSelu(conv1.forwardFused(x), bn1.scale, bn1.shift);
  return fused::scaleShiftSelu(conv2.forwardFused(y), bn2.scale, bn2.shift);
}

void ResBlock::bind(StateDictBinder& binder, const std::string& prefix, int64_t in, int64_t out,
                    bool use_dcn) {
  conv1.bind(binder, prefix + ".conv1", in, out, use_dcn);
  bn1.bind(binder, prefix + ".bn1", out);
  conv2.bind(binder, prefix + ".conv2", out, out, use_dcn);
  bn2.bind(binder, prefix + ".bn2", out);
  downsample.bind(binder, prefix + ".downsample", in, out, 1, 0, /*with_bias=*/true);
}

void ResBlock::castTo(at::ScalarType type) {
  conv1.castTo(type);
  conv2.castTo(type);
  bn1.castTo(type);
  bn2.castTo(type);
  downsample.castTo(type);
}

at::Tensor ResBlock::operator()(const at::Tensor& x) const {
  at::Tensor out = seluInPlace(bn1(conv1(x)));
  out = bn2(conv2(out));
  out.add_(downsample(x));
  return seluInPlace(out);
}

at::Tensor ResBlock::forwardFused(const at::Tensor& x) const {
  const at::Tensor y = fused::scaleShiftSelu(conv1.forwardFused(x), bn1.scale, bn1.shift);
  return fused::scaleShiftSelu(conv2.forwardFused(y), bn2.scale, bn2.shift, downsample(x));
}

}  // namespace skytrace::vision::aliked
