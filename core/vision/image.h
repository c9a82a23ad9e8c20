// A frame's pixels where they are: on the host (a cv::Mat) or on a device (a tensor), so
// that frames the engine uploaded once reach the models without a trip back through the
// host. Extractors take an Image; one on the extractor's device feeds the model as it is.
// Pixels: 8-bit, 3 channels BGR or 1 channel gray, rows top to bottom.
// No torch types here: the device tensor sits behind Image::Impl (image_impl.h).
// Lifetime: fromHost() and a device frame of the engine are VIEWS: the owner keeps the
// pixels alive while the Image is used; clone() makes an Image that owns its pixels.
// Thread: an Image may be read from any thread once its device work is complete (the
// engine synchronises a stream before handing a frame or a clone to another thread).
#pragma once

#include <cstdint>
#include <memory>

#include <opencv2/core.hpp>

#include "core/vision/torch_runtime.h"

namespace skytrace::vision {

// Copies of pixels between the host and a device, counted by whoever makes them (an
// extractor for its inputs, the registrar for its keyframes) so that a run can show
// that its hot path makes none.
struct ImageTransfers {
  std::int64_t downloads = 0;  // device -> host copies of an image
  std::int64_t uploads = 0;    // host -> device copies of an image (pageable memory)
};

class Image {
 public:
  struct Impl;  // core/vision/image_impl.h (torch inside)

  Image();  // empty
  // A view of host pixels (CV_8UC3 BGR or CV_8UC1; any row step); no copy.
  static Image fromHost(const cv::Mat& pixels);
  explicit Image(std::shared_ptr<const Impl> impl);

  bool empty() const;
  int width() const;
  int height() const;
  int channels() const;  // 3 (BGR) or 1 (gray)
  DeviceSpec device() const;  // cpu for host pixels
  bool onHost() const;

  // The pixels as a host matrix: a view of host pixels, or a download of device ones
  // (counted in *transfers when given; waits for the current stream).
  cv::Mat hostPixels(ImageTransfers* transfers = nullptr) const;
  // The image on `device`: itself when it is there already, otherwise a copy that owns
  // its pixels, counted in *transfers when given (to the host: a download; to a device,
  // from the host or from another device: an upload).
  Image to(const DeviceSpec& device, ImageTransfers* transfers = nullptr) const;
  // A deep copy that owns its pixels, on the same device (device copies run on the
  // calling thread's current stream).
  Image clone() const;

  const Impl& impl() const { return *impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

// The source warped by a homography: target(x, y) = source(target_from_source^-1 (x, y)),
// bilinear, zero outside the source (cv::warpPerspective with INTER_LINEAR and
// BORDER_CONSTANT). The result lies where the source does: host pixels are warped by
// OpenCV, device pixels on the device (no copy to the host), on the calling thread's
// current stream. Pixel centres at integer coordinates. Throws InvalidArgument for an
// empty source or target size.
Image warpPerspective(const Image& source, const cv::Matx33d& target_from_source, cv::Size target_size);

}  // namespace skytrace::vision
