// The navigation through the overlapped engine (runNavigationEngine: NavigationSession on
// the VO thread, BasemapRegistrar on the satellite thread) against the single-threaded
// reference layout (app::runNavigation, sequential) on the same real sequence (KITTI 00,
// 20 frames, ORB) and basemap: every frame processed, every registration attempt that was not dropped comes back as
// a fix in the result, stage samples for every frame. The frame-parallel layout (two
// front ends, here both on the CPU) measures the same odometry as VO extracting every
// frame itself; processingChoiceFor picks the layouts by the stated rules.
#include <QtTest>

#include "core/app/flight_processing.h"
#include "core/engine/navigation_payloads.h"
#include "core/nav/camera_model.h"
#include "core/nav/navigation_session.h"
#include "core/util/error.h"
#include "tests/test_support.h"

using namespace skytrace;

namespace {

// Every frame's odometry, as the VO worker hands it out.
class OdometryLog final : public engine::NavigationLiveSink {
 public:
  void onFrame(const nav::FrameResult& frame) override { odometry.push_back(frame.odometry); }
  void onFix(const nav::RegistrationFix&) override {}
  std::vector<nav::OdometryMeasurement> odometry;
};

// KITTI 00 (its first 20 frames) over the Australia orthophoto, as the tests navigate it.
const char* const kSequence = "data/sequences/kitti_00";
nav::NavigationInputs kittiInputs() {
  const std::string basemap = test::sharedPath("data/orthophotos/australia.tif").toStdString();
  const nav::CameraModel camera = nav::CameraModel::fromHorizontalFov(1241, 376, 80.0);
  return nav::makeNavigationInputs(camera, {basemap}, std::nullopt);
}

nav::NavigationOptions orbOptions() {
  nav::NavigationOptions options;
  options.vo_features.model = "orb";
  options.registration.features.model = "orb";
  options.registration.features.max_keypoints = 1024;
  return options;
}

}  // namespace

class TestNavigationEngine : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void matchesTheSequentialDriver() {
    SKYTRACE_REQUIRE_SHARED();
    const std::string folder = test::sharedPath(kSequence).toStdString();
    const nav::NavigationInputs inputs = kittiInputs();
    const nav::NavigationOptions options = orbOptions();
    const engine::DevicePlacement cpu = engine::resolveDevicePlacement("cpu", "", "", 0);
    app::ProcessingChoice sequential;
    sequential.options = options;
    sequential.placement = cpu;
    sequential.layout = engine::NavigationLayout::Sequential;
    app::FlightObserver no_observer;
    const nav::NavigationResult reference =
        app::runNavigation(folder, inputs, sequential, 20, no_observer).result;
    engine::NavigationEngineOptions overlapped;
    overlapped.placement = cpu;
    const engine::NavigationEngineRun run = engine::runNavigationEngine(folder, inputs, options, overlapped);

    QVERIFY(reference.completed);
    QVERIFY2(run.result.completed, run.report.error.c_str());
    QCOMPARE(run.report.frames, std::int64_t(20));
    QCOMPARE(run.result.frames_processed, reference.frames_processed);
    QCOMPARE(run.result.keyframes, reference.keyframes);  // VO is the same computation
    QCOMPARE(run.report.fixes_applied, run.report.keyframes_processed);
    QCOMPARE(std::int64_t(run.result.fixes.size()), run.report.fixes_applied);
    QVERIFY(run.result.fixes.size() <= reference.fixes.size());
    QVERIFY2(!run.result.fixes.empty(), "registration ran on the satellite thread");
    qInfo("engine: %d fixes (reference %d), %d keyframes dropped", int(run.result.fixes.size()),
          int(reference.fixes.size()), int(run.report.keyframes_dropped));
    int extract = 0;
    for (const auto& sample : run.samples) extract += sample.stage == engine::Stage::Extract;
    QCOMPARE(extract, 20);
    const auto summaries = engine::stageSummaries(run.samples);
    QVERIFY(!summaries.empty());
    QCOMPARE(summaries.front().stage, std::string("decode"));
  }

  void frameParallelMeasuresTheSameOdometry() {
    SKYTRACE_REQUIRE_SHARED();
    const std::string folder = test::sharedPath(kSequence).toStdString();
    const nav::NavigationInputs inputs = kittiInputs();
    const engine::DevicePlacement cpu = engine::resolveDevicePlacement("cpu", "", "", 0);

    engine::NavigationEngineOptions overlapped;
    overlapped.placement = cpu;
    overlapped.keyframe_policy = engine::KeyframePolicy::EveryKeyframe;
    OdometryLog one_extractor;
    engine::NavigationEngineHooks hooks;
    hooks.live = &one_extractor;
    const engine::NavigationEngineRun reference =
        engine::runNavigationEngine(folder, inputs, orbOptions(), overlapped, hooks);

    engine::NavigationEngineOptions frame_parallel = overlapped;
    frame_parallel.layout = engine::NavigationLayout::FrameParallel;
    frame_parallel.front_end_devices = {cpu.vo, cpu.vo};
    OdometryLog two_front_ends;
    hooks.live = &two_front_ends;
    const engine::NavigationEngineRun run =
        engine::runNavigationEngine(folder, inputs, orbOptions(), frame_parallel, hooks);

    QVERIFY2(run.result.completed, run.report.error.c_str());
    QCOMPARE(run.report.mode, std::string("frame-parallel"));
    QCOMPARE(run.report.frames, std::int64_t(20));
    QCOMPARE(two_front_ends.odometry.size(), one_extractor.odometry.size());
    for (std::size_t i = 0; i < one_extractor.odometry.size(); ++i) {
      const nav::OdometryMeasurement& a = one_extractor.odometry[i];
      const nav::OdometryMeasurement& b = two_front_ends.odometry[i];
      QCOMPARE(b.frame, a.frame);
      QCOMPARE(b.tracked, a.tracked);
      QCOMPARE(b.reference_frame, a.reference_frame);
      QCOMPARE(b.matches, a.matches);  // ORB on the CPU: the same features either way
      QCOMPARE(b.inliers, a.inliers);
      QVERIFY(cv::norm(b.reference_from_frame - a.reference_from_frame) < 1e-9);
    }
    QCOMPARE(run.result.keyframes, reference.result.keyframes);
    // Every keyframe registered: each request came back as a fix.
    QCOMPARE(run.report.keyframes_dropped, std::int64_t(0));
    QCOMPARE(run.report.fixes_applied, run.report.keyframes_requested);
    QVERIFY(run.report.keyframes_requested > 0);
  }

  void processingChoicePicksTheLayout() {
    app::FlightRequest request;
    request.feature_model = "orb";
    using engine::NavigationLayout;
    QCOMPARE(app::processingChoiceFor(request, 0).layout, NavigationLayout::Sequential);
    QCOMPARE(app::processingChoiceFor(request, 1).layout, NavigationLayout::Overlapped);
    // Two GPUs and no device named: VO's features on both, tracking on cuda:0,
    // registration on cuda:1.
    const app::ProcessingChoice two = app::processingChoiceFor(request, 2);
    QCOMPARE(two.layout, NavigationLayout::FrameParallel);
    QCOMPARE(two.front_end_devices.size(), std::size_t(2));
    QCOMPARE(two.placement.vo.toString(), std::string("cuda:0"));
    QCOMPARE(two.placement.satellite.toString(), std::string("cuda:1"));
    // A device named keeps the user's placement (VO cuda:0, registration cuda:1).
    app::FlightRequest named = request;
    named.device = "cuda:0";
    QCOMPARE(app::processingChoiceFor(named, 2).layout, NavigationLayout::Overlapped);
    // Frame-parallel on named devices (the same device twice runs two front ends there).
    app::FlightRequest cpus = request;
    cpus.mode = "frame-parallel";
    cpus.frame_devices = "cpu, cpu";
    const app::ProcessingChoice on_cpu = app::processingChoiceFor(cpus, 0);
    QCOMPARE(on_cpu.front_end_devices.size(), std::size_t(2));
    QCOMPARE(on_cpu.placement.vo.toString(), std::string("cpu"));
    QCOMPARE(on_cpu.placement.satellite.toString(), std::string("cpu"));
    // What cannot work is refused with the option to use.
    app::FlightRequest one_gpu = request;
    one_gpu.mode = "frame-parallel";
    QVERIFY(test::errorMessageOf<InvalidArgument>([&] { app::processingChoiceFor(one_gpu, 1); }).contains("--frame-devices"));
    app::FlightRequest stray = request;
    stray.frame_devices = "cuda:0,cuda:1";
    QVERIFY(test::errorMessageOf<InvalidArgument>([&] { app::processingChoiceFor(stray, 2); }).contains("--mode frame-parallel"));
    app::FlightRequest mixed = cpus;
    mixed.vo_device = "cpu";
    QVERIFY(test::errorMessageOf<InvalidArgument>([&] { app::processingChoiceFor(mixed, 0); }).contains("--frame-devices"));
  }
};

QTEST_GUILESS_MAIN(TestNavigationEngine)
#include "test_navigation_engine.moc"
