// Internal (torch allowed; include only from core/vision and core/engine sources): the
// pixels behind an Image, and the tensor views the models take.
#pragma once

#include <ATen/ATen.h>

#include <opencv2/core.hpp>

#include "core/vision/image.h"

namespace skytrace::vision {

struct Image::Impl {
  cv::Mat host;       // host pixels (empty for a device image)
  at::Tensor device;  // [H,W,C] uint8 contiguous on a CUDA device (undefined for a host image)
  at::Tensor host_storage;  // keeps the memory of `host` alive when it came from a CPU tensor
};

// A view of a device or host tensor [H,W,3] (BGR) or [H,W,1]/[H,W] (gray), uint8,
// contiguous. CPU tensors become host images (a view of the tensor's memory).
Image imageFromTensor(const at::Tensor& pixels_hwc_u8);

// The pixels as a [H,W,C] uint8 tensor on `device`: the device tensor itself when it is
// already there, otherwise a copy (counted in *transfers: an upload from the host, or a
// download to it). Host pixels are wrapped without a copy when `device` is the CPU.
at::Tensor imageTensorOn(const Image& image, const at::Device& device, ImageTransfers* transfers);

// warpPerspective's tensor form, on the tensor's device: [H,W,C] uint8 in, [h,w,C] uint8
// out (the target size), rounded. Also runs on CPU tensors (the tests compare it with
// OpenCV there).
at::Tensor warpPerspectiveTensor(const at::Tensor& source_hwc_u8, const cv::Matx33d& target_from_source,
                                 cv::Size target_size);

}  // namespace skytrace::vision
