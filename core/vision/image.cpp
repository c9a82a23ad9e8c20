#include "core/vision/image.h"

#include <ATen/ATen.h>

#include <opencv2/imgproc.hpp>

#include "core/util/check.h"
#include "core/util/error.h"
#include "core/vision/image_impl.h"

namespace skytrace::vision {
namespace {

std::shared_ptr<const Image::Impl> emptyImage() {
  static const auto impl = std::make_shared<const Image::Impl>();
  return impl;
}

void checkHostPixels(const cv::Mat& pixels) {
  if (pixels.empty()) return;
  if (pixels.depth() != CV_8U || (pixels.channels() != 3 && pixels.channels() != 1) || pixels.dims != 2)
    throw InvalidArgument("image: expected 8-bit BGR or gray pixels, got type " +
                          std::to_string(pixels.type()));
}

// A tensor view of host pixels ([H,W,C] uint8 with the matrix's row step).
at::Tensor hostTensor(const cv::Mat& pixels) {
  return at::from_blob(pixels.data, {pixels.rows, pixels.cols, pixels.channels()},
                       {static_cast<std::int64_t>(pixels.step[0]), pixels.channels(), 1}, at::kByte);
}

}  // namespace

Image::Image() : impl_(emptyImage()) {}

Image::Image(std::shared_ptr<const Impl> impl) : impl_(impl ? std::move(impl) : emptyImage()) {}

Image Image::fromHost(const cv::Mat& pixels) {
  checkHostPixels(pixels);
  auto impl = std::make_shared<Impl>();
  impl->host = pixels;
  return Image(std::move(impl));
}

bool Image::empty() const { return impl_->device.defined() ? impl_->device.numel() == 0 : impl_->host.empty(); }

int Image::width() const {
  return impl_->device.defined() ? static_cast<int>(impl_->device.size(1)) : impl_->host.cols;
}

int Image::height() const {
  return impl_->device.defined() ? static_cast<int>(impl_->device.size(0)) : impl_->host.rows;
}

int Image::channels() const {
  if (impl_->device.defined()) return static_cast<int>(impl_->device.size(2));
  return impl_->host.empty() ? 0 : impl_->host.channels();
}

DeviceSpec Image::device() const {
  DeviceSpec spec;
  if (impl_->device.defined()) {
    spec.cuda = true;
    spec.index = impl_->device.device().index();
  }
  return spec;
}

bool Image::onHost() const { return !impl_->device.defined(); }

cv::Mat Image::hostPixels(ImageTransfers* transfers) const {
  if (!impl_->device.defined()) return impl_->host;
  // One copy, straight into the matrix's memory.
  const at::Tensor& pixels = impl_->device;
  cv::Mat out(static_cast<int>(pixels.size(0)), static_cast<int>(pixels.size(1)),
              CV_8UC(static_cast<int>(pixels.size(2))));
  hostTensor(out).copy_(pixels);
  if (transfers) ++transfers->downloads;
  return out;
}

Image Image::to(const DeviceSpec& device, ImageTransfers* transfers) const {
  if (empty() || this->device() == device) return *this;
  if (!device.cuda) return fromHost(hostPixels(transfers));
  const at::Device target(at::kCUDA, static_cast<c10::DeviceIndex>(device.index));
  const at::Tensor pixels = imageTensorOn(*this, target, transfers);
  // A host view uploaded, or a copy between devices: a tensor of its own either way.
  return imageFromTensor(pixels);
}

Image Image::clone() const {
  auto impl = std::make_shared<Impl>();
  if (impl_->device.defined())
    impl->device = impl_->device.clone();
  else
    impl->host = impl_->host.clone();
  return Image(std::move(impl));
}

Image imageFromTensor(const at::Tensor& pixels) {
  if (!pixels.defined()) return Image();
  if (pixels.scalar_type() != at::kByte || (pixels.dim() != 2 && pixels.dim() != 3) ||
      (pixels.dim() == 3 && pixels.size(2) != 3 && pixels.size(2) != 1))
    throw InvalidArgument("image: expected a [H,W,3] or [H,W,1] uint8 tensor");
  const at::Tensor hwc = (pixels.dim() == 2 ? pixels.unsqueeze(2) : pixels).contiguous();
  auto impl = std::make_shared<Image::Impl>();
  if (hwc.is_cuda()) {
    impl->device = hwc;
  } else {
    impl->host = cv::Mat(static_cast<int>(hwc.size(0)), static_cast<int>(hwc.size(1)),
                         CV_8UC(static_cast<int>(hwc.size(2))), hwc.data_ptr<std::uint8_t>());
    impl->host_storage = hwc;
  }
  return Image(std::move(impl));
}

at::Tensor imageTensorOn(const Image& image, const at::Device& device, ImageTransfers* transfers) {
  const Image::Impl& impl = image.impl();
  if (impl.device.defined()) {
    if (impl.device.device() == device) return impl.device;
    if (transfers) {
      if (device.is_cpu())
        ++transfers->downloads;
      else
        ++transfers->uploads;  // device to device: counted as a copy into this device
    }
    return impl.device.to(device);
  }
  const at::Tensor host = hostTensor(impl.host);
  if (device.is_cpu()) return host;
  if (transfers) ++transfers->uploads;
  return host.to(device);
}

Image warpPerspective(const Image& source, const cv::Matx33d& target_from_source, cv::Size target_size) {
  checkArgument(target_size.width > 0 && target_size.height > 0,
                "image warp: the target size must be positive");
  checkArgument(!source.empty(), "image warp: empty source image");
  const Image::Impl& impl = source.impl();
  if (!impl.device.defined()) {
    cv::Mat out;
    cv::warpPerspective(impl.host, out, cv::Mat(target_from_source), target_size, cv::INTER_LINEAR,
                        cv::BORDER_CONSTANT);
    return Image::fromHost(out);
  }
  return imageFromTensor(warpPerspectiveTensor(impl.device, target_from_source, target_size));
}

at::Tensor warpPerspectiveTensor(const at::Tensor& source_hwc_u8, const cv::Matx33d& target_from_source,
                                 cv::Size target_size) {
  c10::InferenceMode inference;
  const at::Device device = source_hwc_u8.device();
  const int64_t source_h = source_hwc_u8.size(0), source_w = source_hwc_u8.size(1);
  // Source position of every target pixel centre, in double on the host's matrix, then
  // float32 on the device (pixel coordinates below 10^4: float keeps 1e-3 px).
  const cv::Matx33d s = target_from_source.inv();
  const auto f32 = at::TensorOptions().dtype(at::kFloat).device(device);
  const at::Tensor x = at::arange(target_size.width, f32).view({1, -1});
  const at::Tensor y = at::arange(target_size.height, f32).view({-1, 1});
  const at::Tensor w = x * float(s(2, 0)) + y * float(s(2, 1)) + float(s(2, 2));
  const at::Tensor u = (x * float(s(0, 0)) + y * float(s(0, 1)) + float(s(0, 2))) / w;
  const at::Tensor v = (x * float(s(1, 0)) + y * float(s(1, 1)) + float(s(1, 2))) / w;
  // grid_sample's normalised coordinates with align_corners: -1 and 1 are the centres of
  // the first and last pixels (OpenCV's pixel-centre convention). Points behind the
  // camera (w <= 0) and outside the source read zeros, as cv::BORDER_CONSTANT does.
  at::Tensor gu = u * (2.0f / float(std::max<int64_t>(1, source_w - 1))) - 1.0f;
  at::Tensor gv = v * (2.0f / float(std::max<int64_t>(1, source_h - 1))) - 1.0f;
  const at::Tensor behind = w <= 0;
  gu = gu.masked_fill(behind, -2.0f);
  gv = gv.masked_fill(behind, -2.0f);
  const at::Tensor grid = at::stack({gu, gv}, -1).unsqueeze(0);  // [1,H,W,2]
  const at::Tensor input = source_hwc_u8.permute({2, 0, 1}).unsqueeze(0).to(at::kFloat);  // [1,C,H,W]
  const at::Tensor sampled = at::grid_sampler(input, grid, /*bilinear*/ 0, /*zeros*/ 0, /*align_corners*/ true);
  return sampled.squeeze(0).permute({1, 2, 0}).round().clamp(0, 255).to(at::kByte).contiguous();
}

}  // namespace skytrace::vision
