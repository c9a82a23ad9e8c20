// The baseline the overlapped engine is measured against: everything on the calling
// thread and one stream of the VO device, frames decoded into a plain (pageable) host
// buffer and copied to the device synchronously, every keyframe registered at once and
// its fix applied before the next frame. Same payloads, same stages, same report.
// Thread: the calling thread; `control` (may be null) pauses/cancels between frames and
// inside the satellite payload's long steps.
#pragma once

#include <memory>
#include <optional>

#include "core/engine/frame_source.h"
#include "core/engine/latency_recorder.h"
#include "core/engine/payload.h"
#include "core/engine/run_control.h"
#include "core/engine/run_report.h"

namespace skytrace::engine {

struct SequentialOptions {
  vision::DeviceSpec device;            // VO (and the frame upload)
  // The satellite payload's device; unset (the default): `device`.
  std::optional<vision::DeviceSpec> satellite_device;
  std::int64_t max_frames = -1;  // -1: the whole source
  std::string mode_name = "sequential";
};

// A cancel through `control` ends the run after the frame under way: the report says
// cancelled, with what was done (VO finished with what it had). Errors propagate
// (skytrace::Error).
RunReport runSequential(const SequentialOptions& options, FrameSource& source,
                        const PayloadFactories& payloads, LatencySink* recorder,
                        const RunControl* control = nullptr);

}  // namespace skytrace::engine
