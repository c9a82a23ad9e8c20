// Internal (torch allowed): the tensor steps of the DINOv2 global descriptor, shared by
// the extractor, the tests and the benchmark.
#pragma once

#include <ATen/ATen.h>

#include <string>

namespace skytrace::vision::dinov2 {

// RGB uint8 [B,H,W,3] -> ImageNet-normalised float32 [B,3,H,W] on the same device, the
// same arithmetic as torchvision's ToTensor + Normalize (mean 0.485 0.456 0.406, std
// 0.229 0.224 0.225 as float32). The constants are made once per device, so that a call
// copies nothing from the host.
class ImageNetNormalization {
 public:
  explicit ImageNetNormalization(at::Device device);
  at::Tensor operator()(const at::Tensor& rgb_u8) const;

 private:
  at::Tensor mean_, std_;  // [1,3,1,1] float32
};

// Generalised mean over tokens: (mean_n clamp(x, 1e-6)^p)^(1/p), tokens [B,N,C] -> [B,C].
at::Tensor generalizedMeanPool(const at::Tensor& tokens, double p);

// The descriptor [B,D] (float32, rows L2-normalised) from the final-norm CLS token [B,C]
// and patch tokens [B,N,C]; pooling "cls", "gem" or "cls+gem" (see global_descriptor.h).
at::Tensor poolDescriptor(const at::Tensor& cls_token, const at::Tensor& patch_tokens,
                          const std::string& pooling, double gem_p);

}  // namespace skytrace::vision::dinov2
