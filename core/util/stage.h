// The stages of one frame's work, and the marks a stage's code leaves for whoever times
// it. The code doing the work (core/nav: VO, fusion, registration) says where a stage
// begins and ends; the timer belongs to the caller: the engine's StageClock (device
// events on the worker's GPU stream, steady clock on the CPU) turns the marks into the
// run's latency samples. Without a marker the code runs untimed by it.
// Thread: a StageMarker is used by the one thread doing the work it times.
#pragma once

#include <cstdint>

namespace skytrace {

enum class Stage : std::uint8_t {
  Decode,
  Upload,
  Extract,
  Match,
  Pose,
  Retrieval,
  FineMatch,
  Fusion,
};
constexpr int kStageCount = 8;

// Stable names used in report.json and the CSV: "decode", "upload", "extract", "match",
// "pose", "retrieval", "fine_match", "fusion".
const char* stageName(Stage stage);

class StageMarker {
 public:
  virtual ~StageMarker() = default;
  virtual void begin(Stage stage) = 0;
  virtual void end(Stage stage) = 0;  // the innermost open stage must be `stage`
};

// begin/end of one stage for a scope; a null marker makes it a no-op.
class StageScope {
 public:
  StageScope(StageMarker* marker, Stage stage) : marker_(marker), stage_(stage) {
    if (marker_) marker_->begin(stage_);
  }
  // Never throws: a failing end mark (a device error) resurfaces at the thread's next
  // device call; a destructor that threw while an exception unwinds would terminate.
  ~StageScope() {
    if (!marker_) return;
    try {
      marker_->end(stage_);
    } catch (...) {
    }
  }
  StageScope(const StageScope&) = delete;
  StageScope& operator=(const StageScope&) = delete;

 private:
  StageMarker* marker_;
  Stage stage_;
};

}  // namespace skytrace
