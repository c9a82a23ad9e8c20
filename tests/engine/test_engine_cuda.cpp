// test_engine_cuda (ctest label gpu): the engine's device paths do what the CPU tests
// check. Skipped (exit 77) where LibTorch sees no CUDA device (tests/cuda_test_support.h).
//   1. FrameFeed on the GPU (pinned ring of 2 slots, copy stream, events): every frame's
//      device pixels equal the source's, although slots are reused while the consumer
//      works on its own stream and holds each frame for a while.
//   2. The product's navigation (runNavigationEngine, ALIKED VO and registration) on a
//      rendered flight ($SKYTRACE_TEST_FLIGHT_DIR: flight.mp4, flight.srt, camera.json as
//      `skytrace-cli render` writes them, and its basemap as ortho.tif), in both layouts: the overlapped layout feeds VO
//      from the device ring with no frame copied back or uploaded again
//      (vo_frame_transfers 0/0), the sequential one uploads in the engine (also 0/0 at
//      the extractor); keyframes are registered without leaving the device (no download
//      outside a global search); VO's and registration's stages are timed on the GPU;
//      the flight is localised.
// Exit status 0 = all passed.
#include <QCoreApplication>

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <thread>

#include "core/engine/device_placement.h"
#include "core/engine/engine_frame_impl.h"
#include "core/engine/frame_feed.h"
#include "core/engine/navigation_payloads.h"
#include "core/engine/pipeline.h"
#include "core/io/telemetry/telemetry_reader.h"
#include "core/nav/camera_model.h"
#include "core/sim/synthetic_frame_source.h"
#include "core/vision/torch_runtime.h"
#include "tests/cuda_test_support.h"

using namespace skytrace;
using namespace skytrace::engine;
using namespace skytrace::sim;

namespace {

test::PassFailLog checks;

void checkFeed(const vision::DeviceSpec& device) {
  SyntheticFrameOptions frames;
  frames.width_px = 320;
  frames.height_px = 240;
  frames.frame_count = 40;
  const SyntheticFrameSource reference(frames);
  FrameFeedOptions options;
  options.device = device;
  options.ring_slots = 2;
  c10::InferenceMode guard;
  const DeviceStream consumer = DeviceStream::create(device, StreamPriority::High);
  StreamGuard stream_guard(consumer);
  FrameFeed feed(std::make_unique<SyntheticFrameSource>(frames), options, nullptr, nullptr);
  feed.start();
  std::vector<std::uint8_t> expected(320 * 240 * 3);
  int good = 0, total = 0;
  while (auto item = feed.next(consumer)) {
    const at::Tensor& pixels = item->frame.pixels->bgr;
    // Some work on the consumer's stream that reads the slot, then the check.
    at::Tensor work = rgbFloatImage(pixels);
    for (int i = 0; i < 20; ++i) work = work * 1.0001f + 0.0f;
    const at::Tensor host = pixels.to(at::kCPU);
    reference.render(item->frame.index, expected.data(), 320 * 3);
    good += std::memcmp(host.data_ptr<std::uint8_t>(), expected.data(), expected.size()) == 0;
    ++total;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    feed.release(*item, consumer);
  }
  checks.expect(total == 40 && good == total,
        "frame feed on " + device.toString() + ": " + std::to_string(good) + "/" +
            std::to_string(total) + " frames with the source's pixels (ring of 2, pinned, async copies)");
}

}  // namespace

void checkNavigation(const vision::DeviceSpec& device) {
  const char* flight = std::getenv("SKYTRACE_TEST_FLIGHT_DIR");
  const std::string weights = test::alikedModelDir() + "/aliked-n16rot.pth";
  if (!flight || !*flight || !std::ifstream(weights)) {
    std::cout << "SKIP navigation check: set SKYTRACE_TEST_FLIGHT_DIR (a rendered flight) and "
                 "SKYTRACE_MODEL_DIR (aliked-n16rot.pth)"
              << std::endl;
    return;
  }
  const std::string dir = flight;
  const nav::CameraModel camera = nav::readCameraFile(dir + "/camera.json");
  // The flight log (its GNSS crops the first search, as `process --telemetry` does).
  io::TelemetrySeries telemetry = io::readTelemetry(dir + "/flight.srt");
  io::dropInvalidPositions(telemetry);
  nav::NavigationOptions options;
  options.vo_features.model = "aliked-n16rot";
  options.vo_features.weights_path = weights;
  options.registration.features.model = "aliked-n16rot";
  options.registration.features.weights_path = weights;
  options.registration.features.device = device;
  for (const auto layout : {NavigationLayout::Overlapped, NavigationLayout::Sequential}) {
    NavigationEngineOptions engine_options;
    engine_options.layout = layout;
    engine_options.placement = resolveDevicePlacement(device.toString(), "", "", 1);
    const std::string name = navigationLayoutName(layout);
    const NavigationEngineRun run = runNavigationEngine(
        dir + "/flight.mp4", nav::makeNavigationInputs(camera, {dir + "/ortho.tif"}, telemetry), options,
        engine_options);
    const nav::NavigationResult& r = run.result;
    checks.expect(r.completed && r.frames_processed == r.frames_total,
                  name + ": the whole flight (" + std::to_string(r.frames_processed) + " frames)");
    checks.expect(r.vo_frame_transfers.uploads == 0 && r.vo_frame_transfers.downloads == 0,
                  name + ": VO read every frame on the device (uploads " +
                      std::to_string(r.vo_frame_transfers.uploads) + ", downloads " +
                      std::to_string(r.vo_frame_transfers.downloads) + ")");
    int accepted = 0;
    for (const auto& fix : r.fixes) accepted += fix.accepted;
    // Prior mode rectifies the device keyframe on the device (the rendered camera has no
    // distortion); only a global search (no usable prior) downloads its keyframe.
    std::int64_t global = 0;
    for (const auto& fix : r.fixes) global += fix.global_mode;
    checks.expect(r.keyframe_transfers.downloads <= global,
                  name + ": keyframes stay on the device (" + std::to_string(r.keyframe_transfers.downloads) +
                      " downloads for " + std::to_string(global) + " global searches, " +
                      std::to_string(r.fixes.size()) + " attempts)");
    std::int64_t with_position = 0;
    for (const auto& pose : r.track.poses) with_position += std::isfinite(pose.lat_deg) ? 1 : 0;
    checks.expect(accepted > 0 && with_position >= r.frames_processed * 9 / 10,
                  name + ": " + std::to_string(accepted) + " accepted fixes, " + std::to_string(with_position) +
                      " frames with a position");
    bool on_gpu = true;
    int extract = 0;
    for (const LatencySample& s : run.samples) {
      // Decode is host work; a fix applied between frames is timed on the host as fusion.
      const bool device_stage = s.stage == Stage::Upload || s.stage == Stage::Extract || s.stage == Stage::Match ||
                                s.stage == Stage::Pose || s.stage == Stage::Retrieval || s.stage == Stage::FineMatch;
      if (device_stage) on_gpu = on_gpu && s.device == (device.cuda ? device.index : -1);
      extract += s.stage == Stage::Extract;
    }
    checks.expect(on_gpu && extract == r.frames_processed,
                  name + ": upload, VO and registration stages timed on " + device.toString() + " (" + std::to_string(extract) +
                      " extract samples)");
  }
}

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  const std::optional<std::string> which = test::deviceUnderTest();
  if (!which) return test::skipNoCudaDevice("test_engine_cuda");
  vision::configureTorchRuntime();
  const vision::DeviceSpec device = vision::parseDevice(*which);
  try {
    vision::requireDeviceAvailable(device);
    checkFeed(device);
    checkNavigation(device);
  } catch (const std::exception& e) {
    checks.expect(false, std::string("exception: ") + e.what());
  }
  return checks.finish();
}
