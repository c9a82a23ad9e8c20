#include "core/engine/stage_clock.h"

#include "core/util/error.h"

namespace skytrace::engine {

StageClock::StageClock(LatencySink* recorder, DeviceStream stream)
    : recorder_(recorder), stream_(std::move(stream)) {}

void StageClock::beginFrame(std::int64_t frame) {
  frame_ = frame;
  used_marks_ = 0;
  measured_.clear();
  frame_start_.record(stream_);
}

void StageClock::begin(Stage stage) {
  if (used_marks_ == marks_.size()) marks_.emplace_back();
  Mark& mark = marks_[used_marks_++];
  mark.stage = stage;
  mark.open = true;
  mark.host_start_ms = nowMs();
  mark.start.record(stream_);
}

void StageClock::end(Stage stage) {
  for (std::size_t i = used_marks_; i-- > 0;) {
    Mark& mark = marks_[i];
    if (!mark.open) continue;
    if (mark.stage != stage)
      throw InvalidArgument(std::string("StageClock: end(") + stageName(stage) +
                            ") while stage " + stageName(mark.stage) + " is open");
    mark.end.record(stream_);
    mark.open = false;
    return;
  }
  throw InvalidArgument(std::string("StageClock: end(") + stageName(stage) + ") without begin");
}

void StageClock::addMeasured(Stage stage, double start_ms, double duration_ms) {
  measured_.push_back({stage, start_ms, duration_ms});
}

double StageClock::finishFrame() {
  DeviceEvent frame_end;
  frame_end.record(stream_);
  frame_end.synchronize();
  const std::int64_t bytes = deviceBytesInUse(stream_.device());
  const auto device_id =
      static_cast<std::int8_t>(stream_.device().cuda ? stream_.device().index : -1);
  if (recorder_) {
    for (const Measured& m : measured_)
      recorder_->push({frame_, m.stage, m.start_ms, m.duration_ms, device_id, bytes});
    for (std::size_t i = 0; i < used_marks_; ++i) {
      const Mark& mark = marks_[i];
      if (mark.open) continue;  // an exception left it open: no sample
      recorder_->push({frame_, mark.stage, mark.host_start_ms, mark.start.elapsedMsUntil(mark.end),
                       device_id, bytes});
    }
  }
  used_marks_ = 0;
  measured_.clear();
  return frame_start_.elapsedMsUntil(frame_end);
}

}  // namespace skytrace::engine
