// Reproducible "aerial" frames without a video: a seeded multi-octave value-noise
// texture (the "ground", several times the frame size) seen by a camera that moves
// along a smooth path, turning slowly (a few pixels and a fraction of a degree per
// frame), rendered with bilinear sampling. Consecutive frames overlap like a drone
// video; crops of the ground serve as basemap tiles for the satellite stage.
// Plain C++ (no torch, OpenCV or Qt), deterministic for a seed.
// Thread: a source is used by one thread; groundTile() is const and thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "core/engine/frame_source.h"

namespace skytrace::sim {

struct SyntheticFrameOptions {
  int width_px = 640;
  int height_px = 480;
  std::int64_t frame_count = 200;
  double fps = 10.0;
  std::uint64_t seed = 1;
  double speed_px_per_frame = 6.0;  // ground pixels per frame along the path
  double turn_deg_per_frame = 0.3;

  void check() const;  // throws InvalidArgument
};

// An 8-bit BGR image, rows packed (width * 3 bytes).
struct HostImage {
  int width_px = 0;
  int height_px = 0;
  std::vector<std::uint8_t> bgr;
};

class SyntheticFrameSource final : public engine::FrameSource {
 public:
  explicit SyntheticFrameSource(const SyntheticFrameOptions& options);

  const engine::FrameSourceInfo& info() const override { return info_; }
  bool read(std::int64_t* frame_index, double* t_s, std::uint8_t* bgr,
            std::size_t row_stride_bytes) override;

  // Renders frame `index` (any index in [0, frame_count)), as read() does.
  void render(std::int64_t index, std::uint8_t* bgr, std::size_t row_stride_bytes) const;

  // A north-up crop of the ground, `width_px` x `height_px`, centred where frame `index`
  // is centred: a basemap tile that the frame overlaps.
  HostImage groundTile(std::int64_t index, int width_px, int height_px) const;

 private:
  struct Pose {
    double x, y, angle_rad;
  };
  Pose poseOf(std::int64_t index) const;
  void sample(double gx, double gy, std::uint8_t* bgr) const;

  SyntheticFrameOptions options_;
  engine::FrameSourceInfo info_;
  int ground_width_ = 0;
  int ground_height_ = 0;
  std::vector<float> ground_;  // ground_height_ x ground_width_ x 3, values 0..255
  std::int64_t next_ = 0;
};

}  // namespace skytrace::sim
