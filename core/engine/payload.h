// The two payloads the engine runs, as small interfaces between the engine's workers and
// the navigation (core/engine/navigation_payloads.h: NavigationSession and
// BasemapRegistrar); tests plug in small payloads of their own.
//   VO payload:        frame -> result (kept by the payload) + optional keyframe request;
//                      fixes come back later, in any order, and are applied on the VO
//                      thread.
//   Satellite payload: keyframe request -> fix (or none).
//   VO front end (optional): the part of VO's per-frame work that does not depend on
//                      other frames (feature extraction), for frame-parallel runs over
//                      several devices: frame -> prepared frame, which the VO payload
//                      then tracks in frame order (VoPayload::processPrepared).
// Requests and fixes are payload-defined subclasses of the two message bases; a payload
// pair agrees on them (a mismatch is an InvalidArgument from the payload).
// No torch types. Threads as stated per method; each payload is created by its factory
// on the thread that then uses it (GPU state is per thread).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/engine/engine_frame.h"
#include "core/engine/run_control.h"
#include "core/engine/stage_clock.h"

namespace skytrace::engine {

struct KeyframeRequest {
  virtual ~KeyframeRequest() = default;
  std::int64_t frame = -1;
  double t_s = 0.0;
};

// What a VO front end computed for one frame (payload-defined subclass). It owns
// everything it refers to (no ring slot) and may live on the front end's device, which
// need not be the VO worker's; its device work is complete when it is handed over.
struct PreparedFrame {
  virtual ~PreparedFrame() = default;
  std::int64_t frame = -1;
};

struct SatelliteFix {
  virtual ~SatelliteFix() = default;
  std::int64_t frame = -1;  // the keyframe this fix belongs to
  bool accepted = false;
};

class VoPayload {
 public:
  virtual ~VoPayload() = default;
  virtual std::string name() const = 0;
  // VO thread. `frame` is valid during the call only (copy what a request keeps). Mark
  // stages on `clock` (its stream is the thread's current stream); the engine waits for
  // the stream after the call. Returns a keyframe request or null. Throws skytrace::Error.
  virtual std::shared_ptr<KeyframeRequest> processFrame(const EngineFrame& frame,
                                                        StageClock& clock) = 0;
  // VO thread, frame-parallel runs only (PipelineOptions::front_end_devices): as
  // processFrame, for a frame whose front-end work `prepared` has done, possibly on
  // another device (`frame` then carries the front end's copy of the pixels, on that
  // device; it stays valid as long as `prepared` does). Frames arrive in order.
  // Payloads without a front end never get this call.
  virtual std::shared_ptr<KeyframeRequest> processPrepared(const EngineFrame& frame,
                                                           const PreparedFrame& prepared,
                                                           StageClock& clock);
  // VO thread, between frames: a fix for an earlier keyframe (late, in any order).
  virtual void applyFix(const SatelliteFix& fix) = 0;
  // VO thread, after processFrame: true while the payload holds its keyframe requests
  // back until the fix of one it sent arrives (e.g. navigation without a position, which
  // would otherwise re-ask for the attempt still on its way). Under
  // KeyframePolicy::EveryKeyframe the VO worker then waits for fixes before the next
  // frame, as the sequential driver does, so that no request is held back.
  virtual bool awaitingFix() const { return false; }
  // VO thread, once at the end of a run (completed = false: cancelled or failed).
  virtual void finish(bool completed) {}
};

// The per-frame, order-independent part of a VO payload. One per front-end thread and
// device; created on that thread by its factory.
class VoFrontEnd {
 public:
  virtual ~VoFrontEnd() = default;
  // Front-end thread. `frame` is the front end's own copy (on its device), kept alive by
  // the returned object if it needs it later. Marks its stages on `clock` (the thread's
  // stream); the engine waits for the stream before handing the result to VO. Throws
  // skytrace::Error.
  virtual std::shared_ptr<PreparedFrame> prepare(const EngineFrame& frame, StageClock& clock) = 0;
  // Front-end thread, after prepare(): the work between the previous frame and this one
  // that does not depend on VO's state (e.g. matching their features), written into
  // `current`. `previous` was prepared by any front end, possibly on another device, and
  // is complete; it is read-only here (VO may be reading it at the same time). Not called
  // for a run's first frame. Default: nothing (VO does the pair work itself).
  virtual void preparePair(const PreparedFrame& previous, PreparedFrame& current, StageClock& clock) {}
};

class SatellitePayload {
 public:
  virtual ~SatellitePayload() = default;
  virtual std::string name() const = 0;
  // Satellite thread. Returns the fix (or null when the payload has none to give). Work
  // that can take long (a global search's preparation over a large map) calls
  // control.checkpoint() between its units, so that pause and cancel reach it; the
  // Cancelled it may throw ends the stage like a cancel between requests.
  virtual std::shared_ptr<SatelliteFix> process(const KeyframeRequest& request, StageClock& clock,
                                                const RunControl& control) = 0;
  // Satellite thread, while no request waits: one short unit (tens of milliseconds) of
  // work that makes later requests faster (e.g. preparing a global search), so that it
  // is not done while VO waits for a fix. Returns true while more such work remains; the
  // worker calls again until it returns false or a request arrives, and again after
  // each request it processes. Not timed as a stage. Default: none.
  virtual bool prepareWhileIdle(const RunControl& control) { return false; }
};

// Factories called on the worker threads with the device that worker runs on.
struct PayloadFactories {
  std::function<std::unique_ptr<VoPayload>(const vision::DeviceSpec&)> vo;
  // Empty: no satellite stage.
  std::function<std::unique_ptr<SatellitePayload>(const vision::DeviceSpec&)> satellite;
  // Empty: the VO payload has no separable front end (no frame-parallel runs).
  std::function<std::unique_ptr<VoFrontEnd>(const vision::DeviceSpec&)> vo_front_end;
};

}  // namespace skytrace::engine
