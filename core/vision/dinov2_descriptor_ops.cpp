// Implements dinov2_descriptor_impl.h: tensor-only (no OpenCV), part of core_vision_tensor.
#include "core/vision/dinov2_descriptor_impl.h"

#include <string>

#include "core/util/error.h"

namespace skytrace::vision {
namespace dinov2 {

ImageNetNormalization::ImageNetNormalization(at::Device device)
    : mean_(at::tensor({0.485f, 0.456f, 0.406f}).view({1, 3, 1, 1}).to(device)),
      std_(at::tensor({0.229f, 0.224f, 0.225f}).view({1, 3, 1, 1}).to(device)) {}

at::Tensor ImageNetNormalization::operator()(const at::Tensor& rgb_u8) const {
  if (rgb_u8.dim() != 4 || rgb_u8.size(3) != 3 || rgb_u8.scalar_type() != at::kByte)
    throw InvalidArgument("ImageNet normalisation expects uint8 [B,H,W,3], got " +
                          std::string(c10::toString(rgb_u8.scalar_type())) + " with " +
                          std::to_string(rgb_u8.dim()) + " dimensions");
  // ToTensor: CHW float / 255; Normalize: (x - mean) / std.
  return rgb_u8.permute({0, 3, 1, 2}).contiguous().to(at::kFloat).div(255).sub_(mean_).div_(std_);
}

at::Tensor generalizedMeanPool(const at::Tensor& tokens, double p) {
  return tokens.to(at::kFloat).clamp_min(1e-6).pow(p).mean(1).pow(1.0 / p);
}

namespace {

at::Tensor l2Normalized(const at::Tensor& rows) {
  return rows / rows.norm(2, {-1}, /*keepdim=*/true).clamp_min(1e-12);
}

}  // namespace

at::Tensor poolDescriptor(const at::Tensor& cls_token, const at::Tensor& patch_tokens,
                          const std::string& pooling, double gem_p) {
  if (pooling == "cls") return l2Normalized(cls_token.to(at::kFloat));
  if (pooling == "gem") return l2Normalized(generalizedMeanPool(patch_tokens, gem_p));
  if (pooling == "cls+gem") {
    return l2Normalized(at::cat({l2Normalized(cls_token.to(at::kFloat)),
                                 l2Normalized(generalizedMeanPool(patch_tokens, gem_p))},
                                1));
  }
  throw InvalidArgument("unknown pooling '" + pooling + "' (known: cls, gem, cls+gem)");
}

}  // namespace dinov2

}  // namespace skytrace::vision
