// The navigation through the overlapped engine (runNavigationEngine: NavigationSession on
// the VO thread, BasemapRegistrar on the satellite QThread) against the single-threaded
// reference layout (app::runNavigation, sequential) on the same real sequence (KITTI 00,
// 20 frames, ORB) and basemap: every frame processed, every registration attempt that was not dropped comes back as
// a fix in the result, stage samples for every frame.
#include <QtTest>

#include "core/app/flight_processing.h"
#include "core/engine/navigation_payloads.h"
#include "core/nav/camera_model.h"
#include "core/nav/navigation_session.h"
#include "tests/test_support.h"

using namespace skytrace;

class TestNavigationEngine : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void matchesTheSequentialDriver() {
    SKYTRACE_REQUIRE_SHARED();
    const std::string folder = test::sharedPath("data/sequences/kitti_00").toStdString();
    const std::string basemap = test::sharedPath("data/orthophotos/australia.tif").toStdString();
    const nav::CameraModel camera = nav::CameraModel::fromHorizontalFov(1241, 376, 80.0);
    const nav::NavigationInputs inputs = nav::makeNavigationInputs(camera, {basemap}, std::nullopt);
    nav::NavigationOptions options;
    options.vo_features.model = "orb";
    options.registration.features.model = "orb";
    options.registration.features.max_keypoints = 1024;

    const engine::DevicePlacement cpu = engine::resolveDevicePlacement("cpu", "", "", 0);
    app::ProcessingChoice sequential;
    sequential.options = options;
    sequential.placement = cpu;
    sequential.overlapped = false;
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
};

QTEST_GUILESS_MAIN(TestNavigationEngine)
#include "test_navigation_engine.moc"
