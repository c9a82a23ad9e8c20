#include "core/sim/paced_frame_source.h"

#include <cmath>
#include <sstream>
#include <thread>
#include <utility>

#include "core/util/error.h"

namespace skytrace::sim {

PacedFrameSource::PacedFrameSource(std::unique_ptr<engine::FrameSource> inner, double rate_hz)
    : inner_(std::move(inner)), rate_hz_(rate_hz) {
  if (!inner_) throw InvalidArgument("PacedFrameSource needs an inner frame source");
  if (!std::isfinite(rate_hz_) || rate_hz_ <= 0.0) {
    std::ostringstream message;
    message << "PacedFrameSource: the frame rate must be finite and > 0 Hz, got " << rate_hz_;
    throw InvalidArgument(message.str());
  }
  info_ = inner_->info();
  std::ostringstream description;
  description << info_.description << " paced at " << rate_hz_ << " fps";
  info_.description = description.str();
}

bool PacedFrameSource::read(std::int64_t* frame_index, double* t_s, std::uint8_t* bgr,
                            std::size_t row_stride_bytes) {
  if (ended_) return false;
  using Clock = std::chrono::steady_clock;
  if (delivered_ == 0) {
    start_ = Clock::now();  // frame 0 is due at once
  } else {
    const std::chrono::duration<double> offset_s(static_cast<double>(delivered_) / rate_hz_);
    std::this_thread::sleep_until(start_ + std::chrono::ceil<Clock::duration>(offset_s));
  }
  if (!inner_->read(frame_index, t_s, bgr, row_stride_bytes)) {
    ended_ = true;
    return false;
  }
  ++delivered_;
  return true;
}

}  // namespace skytrace::sim
