#include "core/engine/sequential_run.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <chrono>

#include "core/engine/engine_frame_impl.h"
#include "core/engine/gpu_streams.h"
#include "core/engine/gpu_streams_impl.h"
#include "core/engine/pipeline.h"
#include "core/engine/stage_clock.h"
#include "core/engine/worker_support.h"
#include "core/util/error.h"

namespace skytrace::engine {

RunReport runSequential(const SequentialOptions& options, FrameSource& source,
                        const PayloadFactories& payloads, LatencySink* recorder,
                        const RunControl* control) {
  if (!payloads.vo) throw InvalidArgument("runSequential: no VO payload factory");
  const auto started = std::chrono::steady_clock::now();
  c10::InferenceMode inference_guard;
  RunReport report;
  report.mode = options.mode_name;
  report.vo_device = options.device.toString();
  const vision::DeviceSpec satellite_device = options.satellite_device.value_or(options.device);
  report.satellite_device = payloads.satellite ? satellite_device.toString() : "";
  report.keyframe_policy = keyframePolicyName(KeyframePolicy::EveryKeyframe);  // by construction
  resetPeakDeviceBytes(options.device);
  if (satellite_device != options.device) resetPeakDeviceBytes(satellite_device);

  const DeviceStream stream = DeviceStream::create(options.device, StreamPriority::Normal);
  StreamGuard stream_guard(stream);
  StageClock clock(recorder, stream);
  const bool own_satellite_stream = satellite_device != options.device;
  const DeviceStream satellite_stream =
      own_satellite_stream ? DeviceStream::create(satellite_device, StreamPriority::Normal) : stream;
  std::optional<StreamGuard> satellite_stream_guard;
  if (own_satellite_stream) satellite_stream_guard.emplace(satellite_stream);
  StageClock satellite_clock(recorder, satellite_stream);
  const RunControl uncontrolled;  // handed to the satellite payload when the caller has none
  std::unique_ptr<VoPayload> vo = payloads.vo(options.device);
  std::unique_ptr<SatellitePayload> satellite =
      payloads.satellite ? payloads.satellite(satellite_device) : nullptr;

  const FrameSourceInfo& info = source.info();
  const at::Tensor host = allocateHostBuffer({info.height_px, info.width_px, 3}, at::kByte,
                                             options.device, /*pinned=*/false);
  const SteadyClockMs local_clock;  // the time base without a recorder
  const auto hostNowMs = [&] { return recorder ? recorder->nowMs() : local_clock.nowMs(); };
  const std::size_t stride = static_cast<std::size_t>(info.width_px) * 3;
  bool completed = false;
  try {
    while (options.max_frames < 0 || report.frames < options.max_frames) {
      if (control) control->checkpoint();
      const double decode_start_ms = hostNowMs();
      std::int64_t index = -1;
      double t_s = 0.0;
      if (!source.read(&index, &t_s, host.data_ptr<std::uint8_t>(), stride)) break;
      if (recorder)
        recorder->push({index, Stage::Decode, decode_start_ms, hostNowMs() - decode_start_ms, -1, -1});
      clock.beginFrame(index);
      EngineFrame frame;
      frame.index = index;
      frame.t_s = t_s;
      frame.width_px = info.width_px;
      frame.height_px = info.height_px;
      frame.device = options.device;
      if (options.device.cuda) {
        clock.begin(Stage::Upload);
        at::Tensor device_pixels = host.to(atDevice(options.device), /*non_blocking=*/false);
        clock.end(Stage::Upload);
        frame.pixels = std::make_shared<const EngineFrame::Pixels>(EngineFrame::Pixels{device_pixels});
      } else {
        frame.pixels = std::make_shared<const EngineFrame::Pixels>(EngineFrame::Pixels{host});
      }
      std::shared_ptr<KeyframeRequest> request = vo->processFrame(frame, clock);
      report.vo_frame_ms.push_back(clock.finishFrame());
      if (report.frames == 0)
        report.first_frame_s = secondsSince(started);
      ++report.frames;
      if (request && satellite) {
        ++report.keyframes_requested;
        satellite_clock.beginFrame(request->frame);
        std::shared_ptr<SatelliteFix> fix =
            satellite->process(*request, satellite_clock, control ? *control : uncontrolled);
        report.satellite_ms.push_back(satellite_clock.finishFrame());
        ++report.keyframes_processed;
        if (fix) applyFix(*vo, *fix, index, recorder, &report);
      }
      report.frame_done_ms.push_back(hostNowMs());
    }
    const auto finish_start = std::chrono::steady_clock::now();
    vo->finish(true);
    report.finish_s = secondsSince(finish_start);
    completed = true;
  } catch (const Cancelled&) {
    vo->finish(false);
    report.cancelled = true;
  } catch (...) {
    try {
      vo->finish(false);
    } catch (...) {
    }
    throw;
  }
  report.completed = completed;
  report.wall_s = secondsSince(started);
  report.peak_vo_device_bytes = peakDeviceBytes(options.device);
  report.peak_satellite_device_bytes =
      own_satellite_stream ? peakDeviceBytes(satellite_device) : report.peak_vo_device_bytes;
  return report;
}

}  // namespace skytrace::engine
