// Per-frame stage timing for one worker: begin/end marks become device events on the
// worker's stream (GPU) or steady-clock times (CPU); finishFrame() waits for the last
// mark, turns every pair into a LatencySample (with the device memory in use) and
// pushes them to the recorder. Nothing blocks between marks, so timing a GPU stage does
// not serialise the stream; the one host wait per frame is the one the worker needs
// anyway to read its result.
// Thread: one StageClock per worker thread, used only there.
#pragma once

#include <cstdint>
#include <vector>

#include "core/engine/gpu_streams.h"
#include "core/engine/latency_recorder.h"

namespace skytrace::engine {

class StageClock final : public StageMarker {
 public:
  // `recorder` may be null (nothing is pushed; frameLatencyMs still works).
  StageClock(LatencySink* recorder, DeviceStream stream);

  const DeviceStream& stream() const { return stream_; }
  const vision::DeviceSpec& device() const { return stream_.device(); }

  // Starts a frame (or keyframe): marks its beginning.
  void beginFrame(std::int64_t frame);
  void begin(Stage stage) override;
  void end(Stage stage) override;  // the innermost open stage must be `stage`

  // A stage measured elsewhere (e.g. the upload on the copy stream), host milliseconds.
  void addMeasured(Stage stage, double start_ms, double duration_ms);
  // The recorder's clock (ms since its epoch), for addMeasured start times.
  double nowMs() const { return recorder_ ? recorder_->nowMs() : fallback_clock_.nowMs(); }

  // Waits for the frame's work, pushes its samples; returns the frame's latency in ms
  // (beginFrame to the end of its last stage, device time on GPU).
  double finishFrame();

  // RAII pair of begin/end.
  class Scope {
   public:
    Scope(StageClock& clock, Stage stage) : clock_(clock), stage_(stage) { clock_.begin(stage_); }
    ~Scope() { clock_.end(stage_); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    StageClock& clock_;
    Stage stage_;
  };

 private:
  struct Mark {
    Stage stage;
    double host_start_ms = 0.0;
    DeviceEvent start;
    DeviceEvent end;
    bool open = true;
  };
  struct Measured {
    Stage stage;
    double start_ms;
    double duration_ms;
  };

  LatencySink* recorder_;
  SteadyClockMs fallback_clock_;
  DeviceStream stream_;
  std::int64_t frame_ = -1;
  DeviceEvent frame_start_;
  std::vector<Mark> marks_;      // reused across frames (events are created once)
  std::size_t used_marks_ = 0;
  std::vector<Measured> measured_;
};

}  // namespace skytrace::engine
