// core/app's FlightRequest and ProcessingChoice as the two front ends build them: a GUI
// project that leaves the processing fields unset runs exactly what `skytrace-cli
// process` runs with no options (the same models, devices and layout for 0, 1 and 2
// GPUs); a project's own choice is carried over; devicesText names placements as
// report.json does; check() refuses a request that cannot run; the GPU switches
// (--no-cuda-graphs, --no-fused-kernels) reach every model of both stages.
#include <QtTest>

#include <cmath>
#include <string>
#include <vector>

#include "core/app/flight_processing.h"
#include "core/engine/navigation_payloads.h"
#include "core/io/project_file.h"
#include "core/nav/model_choice.h"
#include "core/util/error.h"
#include "tests/test_support.h"

using namespace skytrace;

namespace {

io::Project flightProject() {
  io::Project project;
  project.video_path = "/flights/flight.mp4";
  project.basemap_paths = {"/maps/ortho.tif"};
  project.results_dir = "/flights/results";
  return project;
}

// The parts of a choice an analyst sees in report.json.
struct Plan {
  std::string device, vo_model, satellite_model, layout;
  bool every_keyframe = false;
};
Plan planOf(const app::FlightRequest& request, int cuda_device_count) {
  const app::ProcessingChoice choice = app::processingChoiceFor(request, cuda_device_count);
  return {app::devicesText(choice), nav::visualOdometryModelName(choice.options),
          nav::satelliteModelName(choice.options.registration), engine::navigationLayoutName(choice.layout),
          choice.keyframe_policy == engine::KeyframePolicy::EveryKeyframe};
}

}  // namespace

class TestFlightRequest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void anUnsetProjectRunsTheDefaultsOfProcess() {
    std::vector<std::string> warnings;
    const app::FlightRequest from_project = app::flightRequestFromProject(flightProject(), &warnings);
    QVERIFY(warnings.empty());
    const app::FlightRequest process_defaults;  // `process` with no options
    QCOMPARE(from_project.feature_model, process_defaults.feature_model);
    QCOMPARE(from_project.feature_model, std::string("aliked-n16rot"));
    for (int gpus : {0, 1, 2}) {
      const Plan gui = planOf(from_project, gpus), cli = planOf(process_defaults, gpus);
      QCOMPARE(gui.device, cli.device);
      QCOMPARE(gui.vo_model, cli.vo_model);
      QCOMPARE(gui.satellite_model, cli.satellite_model);
      QCOMPARE(gui.layout, cli.layout);
      QCOMPARE(gui.every_keyframe, cli.every_keyframe);
    }
    // The layouts of those defaults, as `process --help` states them.
    QCOMPARE(planOf(from_project, 0).layout, std::string("sequential"));
    QCOMPARE(planOf(from_project, 0).device, std::string("cpu"));
    QCOMPARE(planOf(from_project, 1).layout, std::string("overlapped"));
    QCOMPARE(planOf(from_project, 1).device, std::string("cuda:0"));
    QCOMPARE(planOf(from_project, 2).layout, std::string("frame-parallel"));
    QCOMPARE(planOf(from_project, 2).device, std::string("frame-parallel cuda:0,cuda:1"));
  }

  void aProjectFileWithoutProcessingRunsTheDefaultsToo() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("flight.skytrace").toStdString();
    io::writeProjectFile(path, flightProject());
    const app::FlightRequest request = app::flightRequestFromProject(io::readProjectFile(path), nullptr);
    const Plan read = planOf(request, 1), defaults = planOf(app::FlightRequest(), 1);
    QCOMPARE(read.vo_model, defaults.vo_model);
    QCOMPARE(read.device, defaults.device);
    QCOMPARE(read.layout, defaults.layout);
  }

  void theProjectsOwnChoiceIsKept() {
    io::Project project = flightProject();
    project.feature_model = "orb";
    project.satellite_model = "sift";
    project.device = "cpu";
    project.processing_mode = "overlapped";
    project.register_every_keyframe = false;
    project.camera.source = io::CameraSource::HorizontalFov;
    project.camera.hfov_deg = 82.5;
    const app::FlightRequest request = app::flightRequestFromProject(project, nullptr);
    QCOMPARE(request.camera.source, app::CameraChoice::Source::kHorizontalFov);
    QCOMPARE(request.camera.hfov_deg, 82.5);
    const Plan plan = planOf(request, 2);  // named devices keep the user's placement
    QCOMPARE(plan.device, std::string("cpu"));
    QCOMPARE(plan.vo_model, std::string("orb+mnn"));
    QCOMPARE(plan.satellite_model, std::string("vlad+sift"));  // retrieval+fine, as report.json names it
    QCOMPARE(plan.layout, std::string("overlapped"));
    QCOMPARE(plan.every_keyframe, false);

    // Per-stage devices: report.json's "vo A, registration B".
    project.vo_device = "cpu";
    project.satellite_device = "cuda:1";
    QCOMPARE(planOf(app::flightRequestFromProject(project, nullptr), 2).device,
             std::string("vo cpu, registration cuda:1"));
  }

  // check() refuses what cannot run, naming the option, before anything is read.
  void aBadRequestIsRefusedNamingTheOption() {
    const app::FlightRequest good = app::flightRequestFromProject(flightProject(), nullptr);
    good.check();
    const auto messageOf = [](const app::FlightRequest& request) {
      return test::errorMessageOf<InvalidArgument>([&] { request.check(); });
    };
    app::FlightRequest r = good;
    r.video_path.clear();
    QVERIFY(messageOf(r).contains("--video"));
    r = good;
    r.basemap_paths.clear();
    QVERIFY(messageOf(r).contains("--basemap"));
    // Odometry alone needs no basemap, but a log to start from.
    r.registration_enabled = false;
    r.telemetry_path = "/flights/photos";
    r.check();
    r.telemetry_path.clear();
    QVERIFY(messageOf(r).contains("--telemetry"));
    r = good;
    r.camera.source = app::CameraChoice::Source::kFile;
    QVERIFY(messageOf(r).contains("--camera"));
    r = good;
    r.camera.source = app::CameraChoice::Source::kHorizontalFov;
    r.camera.hfov_deg = 180.0;
    QVERIFY(messageOf(r).contains("--hfov-deg"));
    r = good;
    r.time_offset_s = 5.0;  // no flight log
    QVERIFY(messageOf(r).contains("--telemetry"));
    r.telemetry_path = "/flights/flight.srt";
    r.time_offset_s = std::nan("");
    QVERIFY(messageOf(r).contains("--time-offset"));
    r = good;
    r.satellite_sm_limit = -1;
    QVERIFY(messageOf(r).contains("--sat-sm-limit"));
    r = good;
    r.height_filter_s = -1.0;
    QVERIFY(messageOf(r).contains("--height-filter-s"));
    r = good;
    r.results_dir.clear();
    QVERIFY(messageOf(r).contains("--out"));
  }

  void theGpuSwitchesReachEveryModel() {
    app::FlightRequest request;
    request.video_path = "/flights/flight.mp4";
    request.basemap_paths = {"/maps/ortho.tif"};
    request.satellite_model = "dinov2+litesam";
    request.vo_model = "aliked-n16rot+lightglue";
    const auto switches = [](const nav::NavigationOptions& o) {
      return std::vector<bool>{o.vo_features.use_cuda_graphs, o.vo_features.fused_kernels,
                               o.vo_match.use_cuda_graphs, o.vo_match.fused_kernels,
                               o.registration.features.use_cuda_graphs,
                               o.registration.features.fused_kernels,
                               o.registration.retrieval_descriptor.use_cuda_graphs,
                               o.registration.dense_matcher.use_cuda_graphs};
    };
    QCOMPARE(switches(app::processingChoiceFor(request, 1).options), std::vector<bool>(8, true));
    request.cuda_graphs = false;
    request.fused_kernels = false;
    QCOMPARE(switches(app::processingChoiceFor(request, 1).options), std::vector<bool>(8, false));
    request.fused_kernels = true;
    const nav::NavigationOptions graphs_off = app::processingChoiceFor(request, 1).options;
    QVERIFY(!graphs_off.vo_match.use_cuda_graphs);
    QVERIFY(graphs_off.vo_features.fused_kernels);
  }

  // --half-precision and --lightglue-depth full reach VO's models when they run on a GPU
  // (processingChoiceFor with one GPU places both stages on cuda:0).
  void halfPrecisionAndLightGlueDepthReachTheModels() {
    app::FlightRequest request;
    request.video_path = "/flights/flight.mp4";
    request.basemap_paths = {"/maps/ortho.tif"};
    request.vo_model = "superpoint+lightglue";
    request.satellite_model = "dinov2+litesam";
    const nav::NavigationOptions plain = app::processingChoiceFor(request, 1).options;
    QVERIFY(!plain.vo_features.half_precision && !plain.vo_match.half_precision);
    QVERIFY(plain.vo_match.depth_confidence > 0 && plain.vo_match.width_confidence > 0);
    request.half_precision = true;
    request.lightglue_full_depth = true;
    const nav::NavigationOptions fast = app::processingChoiceFor(request, 1).options;
    QVERIFY(fast.vo_features.half_precision && fast.vo_match.half_precision);
    QCOMPARE(QString::fromStdString(fast.registration.retrieval_descriptor.precision), QStringLiteral("float16"));
    QVERIFY(fast.registration.dense_matcher.half_precision);
    QVERIFY(!plain.registration.dense_matcher.half_precision);
    QVERIFY(fast.vo_match.depth_confidence <= 0 && fast.vo_match.width_confidence <= 0);
    // Without a GPU the flag changes nothing.
    const nav::NavigationOptions cpu = app::processingChoiceFor(request, 0).options;
    QVERIFY(!cpu.vo_features.half_precision && !cpu.vo_match.half_precision &&
            !cpu.registration.dense_matcher.half_precision);
  }

  void theHeightFilterReachesFusion() {
    app::FlightRequest request;
    request.video_path = "/flights/flight.mp4";
    request.basemap_paths = {"/maps/ortho.tif"};
    QCOMPARE(app::processingChoiceFor(request, 1).options.fusion.height_filter_time_constant_s,
             nav::FusionOptions().height_filter_time_constant_s);
    request.height_filter_s = 0.0;
    QCOMPARE(app::processingChoiceFor(request, 1).options.fusion.height_filter_time_constant_s, 0.0);
  }

  void theFlightLogCameraFallsBackWithAWarning() {
    io::Project project = flightProject();
    project.telemetry_path = "/flights/flight.srt";
    project.camera.source = io::CameraSource::Telemetry;
    std::vector<std::string> warnings;
    const app::FlightRequest request = app::flightRequestFromProject(project, &warnings);
    QCOMPARE(request.camera.source, app::CameraChoice::Source::kAutomatic);
    QCOMPARE(int(warnings.size()), 1);
    QVERIFY(warnings.front().find("default camera") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TestFlightRequest)
#include "test_flight_request.moc"
