#include "core/sim/synthetic_frame_source.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "core/util/error.h"

namespace skytrace::sim {

namespace {
constexpr double kPi = 3.14159265358979323846;
constexpr int kGroundScale = 3;  // ground = 3x the frame in each direction
}  // namespace

void SyntheticFrameOptions::check() const {
  if (width_px < 32 || height_px < 32 || width_px > 8192 || height_px > 8192)
    throw InvalidArgument("synthetic frames must be 32..8192 pixels wide and high, got " +
                          std::to_string(width_px) + "x" + std::to_string(height_px));
  if (frame_count < 1) throw InvalidArgument("synthetic frame count must be >= 1");
  if (!(fps > 0.0)) throw InvalidArgument("synthetic fps must be > 0");
  if (!(speed_px_per_frame >= 0.0) || speed_px_per_frame > 100.0)
    throw InvalidArgument("synthetic speed must be in [0, 100] px per frame");
}

SyntheticFrameSource::SyntheticFrameSource(const SyntheticFrameOptions& options)
    : options_(options) {
  options_.check();
  info_.description = "synthetic " + std::to_string(options.width_px) + "x" +
                      std::to_string(options.height_px) + " seed " + std::to_string(options.seed);
  info_.width_px = options.width_px;
  info_.height_px = options.height_px;
  info_.fps = options.fps;
  info_.frame_count = options.frame_count;

  ground_width_ = kGroundScale * options.width_px;
  ground_height_ = kGroundScale * options.height_px;
  const std::size_t pixels = static_cast<std::size_t>(ground_width_) * ground_height_;
  ground_.assign(pixels * 3, 0.0f);
  std::mt19937_64 random(options.seed);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  // Value noise: octaves of random grids, bilinearly interpolated, weights 0.7^k.
  float weight = 1.0f;
  for (int octave = 0; octave < 6; ++octave) {
    const int cell = std::max(2, 96 >> octave);
    const int gw = ground_width_ / cell + 2, gh = ground_height_ / cell + 2;
    std::vector<float> grid(static_cast<std::size_t>(gw) * gh * 3);
    for (float& g : grid) g = uniform(random);
    for (int y = 0; y < ground_height_; ++y) {
      const float fy = static_cast<float>(y) / cell;
      const int y0 = static_cast<int>(fy);
      const float wy = fy - y0;
      for (int x = 0; x < ground_width_; ++x) {
        const float fx = static_cast<float>(x) / cell;
        const int x0 = static_cast<int>(fx);
        const float wx = fx - x0;
        float* out = &ground_[(static_cast<std::size_t>(y) * ground_width_ + x) * 3];
        for (int c = 0; c < 3; ++c) {
          auto at = [&](int gx, int gy) { return grid[(static_cast<std::size_t>(gy) * gw + gx) * 3 + c]; };
          const float top = at(x0, y0) * (1 - wx) + at(x0 + 1, y0) * wx;
          const float bottom = at(x0, y0 + 1) * (1 - wx) + at(x0 + 1, y0 + 1) * wx;
          out[c] += weight * (top * (1 - wy) + bottom * wy);
        }
      }
    }
    weight *= 0.7f;
  }
  // Contrast stretch to 0..255 around the mean (as bench_vision's texture).
  double mean = 0.0;
  for (float v : ground_) mean += v;
  mean /= static_cast<double>(ground_.size());
  double total_weight = 0.0;
  for (int octave = 0; octave < 6; ++octave) total_weight += std::pow(0.7, octave);
  for (float& v : ground_) {
    const double normalised = (v - mean) / total_weight * 3.0 + 0.5;
    v = static_cast<float>(std::clamp(normalised, 0.0, 1.0) * 255.0);
  }
}

SyntheticFrameSource::Pose SyntheticFrameSource::poseOf(std::int64_t index) const {
  // The frame centre runs along an ellipse that keeps the rotated frame on the ground.
  const double half_diagonal = 0.5 * std::hypot(options_.width_px, options_.height_px) + 4.0;
  const double rx = std::max(0.0, ground_width_ / 2.0 - half_diagonal);
  const double ry = std::max(0.0, ground_height_ / 2.0 - half_diagonal);
  const double mean_radius = std::max(1.0, 0.5 * (rx + ry));
  const double phase = index * options_.speed_px_per_frame / mean_radius;
  return {ground_width_ / 2.0 + rx * std::cos(phase), ground_height_ / 2.0 + ry * std::sin(phase),
          index * options_.turn_deg_per_frame * kPi / 180.0};
}

void SyntheticFrameSource::sample(double gx, double gy, std::uint8_t* bgr) const {
  gx = std::clamp(gx, 0.0, ground_width_ - 1.001);
  gy = std::clamp(gy, 0.0, ground_height_ - 1.001);
  const int x0 = static_cast<int>(gx), y0 = static_cast<int>(gy);
  const float wx = static_cast<float>(gx - x0), wy = static_cast<float>(gy - y0);
  const float* p00 = &ground_[(static_cast<std::size_t>(y0) * ground_width_ + x0) * 3];
  const float* p01 = p00 + 3;
  const float* p10 = p00 + static_cast<std::size_t>(ground_width_) * 3;
  const float* p11 = p10 + 3;
  for (int c = 0; c < 3; ++c) {
    const float v = (p00[c] * (1 - wx) + p01[c] * wx) * (1 - wy) + (p10[c] * (1 - wx) + p11[c] * wx) * wy;
    bgr[c] = static_cast<std::uint8_t>(v + 0.5f);
  }
}

void SyntheticFrameSource::render(std::int64_t index, std::uint8_t* bgr,
                                  std::size_t row_stride_bytes) const {
  const Pose pose = poseOf(index);
  const double c = std::cos(pose.angle_rad), s = std::sin(pose.angle_rad);
  const double cx = (options_.width_px - 1) / 2.0, cy = (options_.height_px - 1) / 2.0;
  for (int v = 0; v < options_.height_px; ++v) {
    std::uint8_t* row = bgr + static_cast<std::size_t>(v) * row_stride_bytes;
    const double dy = v - cy;
    for (int u = 0; u < options_.width_px; ++u) {
      const double dx = u - cx;
      sample(pose.x + c * dx - s * dy, pose.y + s * dx + c * dy, row + 3 * u);
    }
  }
}

bool SyntheticFrameSource::read(std::int64_t* frame_index, double* t_s, std::uint8_t* bgr,
                                std::size_t row_stride_bytes) {
  if (next_ >= options_.frame_count) return false;
  render(next_, bgr, row_stride_bytes);
  *frame_index = next_;
  *t_s = static_cast<double>(next_) / options_.fps;
  ++next_;
  return true;
}

HostImage SyntheticFrameSource::groundTile(std::int64_t index, int width_px, int height_px) const {
  if (width_px < 1 || height_px < 1) throw InvalidArgument("groundTile: empty tile");
  const Pose pose = poseOf(index);
  HostImage tile;
  tile.width_px = width_px;
  tile.height_px = height_px;
  tile.bgr.resize(static_cast<std::size_t>(width_px) * height_px * 3);
  const double x0 = pose.x - (width_px - 1) / 2.0, y0 = pose.y - (height_px - 1) / 2.0;
  for (int v = 0; v < height_px; ++v)
    for (int u = 0; u < width_px; ++u)
      sample(x0 + u, y0 + v, &tile.bgr[(static_cast<std::size_t>(v) * width_px + u) * 3]);
  return tile;
}

}  // namespace skytrace::sim
