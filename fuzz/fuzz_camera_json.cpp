// libFuzzer target: camera files (CameraModel::fromJsonText), then the camera's own
// projections, which a valid model must support without faults.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/nav/camera_model.h"
#include "core/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const skytrace::nav::CameraModel camera = skytrace::nav::CameraModel::fromJsonText(
        std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
    const cv::Vec3d ray = camera.rayFromPixel({camera.width_px * 0.5, camera.height_px * 0.5});
    cv::Point2d pixel;
    (void)camera.pixelFromCamera(ray, &pixel);
    (void)camera.horizontalFovDeg();
  } catch (const skytrace::Error&) {
  }
  return 0;
}
