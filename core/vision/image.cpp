#include "core/vision/image.h"

#include <ATen/ATen.h>

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
  const at::Tensor host = impl_->device.to(at::kCPU).contiguous();
  if (transfers) ++transfers->downloads;
  const int type = CV_8UC(static_cast<int>(host.size(2)));
  return cv::Mat(static_cast<int>(host.size(0)), static_cast<int>(host.size(1)), type, host.data_ptr<std::uint8_t>())
      .clone();
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

}  // namespace skytrace::vision
