// `skytrace-cli demo --out DIR`: the self-contained demo. Generates a procedural,
// georeferenced basemap (no third-party data), renders a flight over it (video, SRT,
// truth) and a degraded copy of the map, runs the full navigation chain on the video
// against the degraded map (as `skytrace-cli process` does), and scores both the visual
// track and the simulated GNSS against the truth. `demo.skytrace` names the flight and
// the processing it gets, for the GUI (its "Open the Demo" runs this command with
// --no-process, then processes the project live).
#include <QCommandLineParser>
#include <QTextStream>

#include <cmath>
#include <filesystem>

#include "app/cli/cli_command.h"
#include "app/cli/cli_support.h"
#include "core/app/flight_processing.h"
#include "core/geo/track_io.h"
#include "core/io/project_file.h"
#include "core/io/telemetry/srt_reader.h"
#include "core/io/telemetry/telemetry_track.h"
#include "core/sim/flight_simulation.h"
#include "core/sim/procedural_basemap.h"
#include "core/sim/trajectory_eval.h"
#include "core/sim/truth_csv.h"
#include "core/util/atomic_file.h"
#include "core/util/check.h"
#include "core/util/progress.h"

#include <opencv2/imgcodecs.hpp>

namespace skytrace::cli {

namespace {

// Progress of the demo's processing on stderr (the same lines as its rendering).
class DemoObserver final : public app::FlightObserver {
 public:
  void onProgress(std::int64_t frames_done, std::int64_t frames_total, const std::string& stage) override {
    progress_(frames_total > 0 ? double(frames_done) / double(frames_total) : 0.0, stage);
  }

 private:
  ProgressCallback progress_ = stderrProgress();
};

int runDemo(const QStringList& args) {
  QCommandLineParser parser;
  parser.addOptions({
      {"out", "Output folder (created).", "DIR"},
      {"seed", "Seed of the map and the flight (default 1).", "N", "1"},
      {"duration-s", "Flight duration (default 30).", "S", "30"},
      {"fps", "Frame rate (default 10).", "FPS", "10"},
      {"size", "Image size WxH (default 640x480).", "WxH", "640x480"},
      {"no-process", "Only generate the map and the flight (no navigation)."},
  });
  int exit_code = kExitOk;
  addThreadsOption(parser);
  if (!parseArguments(parser,
                      QStringLiteral("Self-contained demo: procedural basemap + rendered flight "
                                     "+ processing of the video and a score of the visual track."),
                      args, &exit_code)) {
    return exit_code;
  }
  QString out;
  if (!requireOption(parser, "out", &out)) return kExitUsage;
  return runGuarded([&] {
    applyThreadsOption(parser);
    bool ok_seed = false, ok_duration = false, ok_fps = false;
    const qulonglong seed = parser.value("seed").toULongLong(&ok_seed);
    const double duration = parser.value("duration-s").toDouble(&ok_duration);
    const double fps = parser.value("fps").toDouble(&ok_fps);
    checkArgument(ok_seed && ok_duration && ok_fps, "--seed, --duration-s and --fps need numbers");
    const QStringList size = parser.value("size").toLower().split('x');
    checkArgument(size.size() == 2, "--size needs WIDTHxHEIGHT");

    const std::filesystem::path dir = out.toStdString();
    std::filesystem::create_directories(dir);
    QTextStream cout(stdout);

    sim::ProceduralBasemapOptions map_options;
    map_options.seed = seed;
    const std::filesystem::path basemap = dir / "basemap.tif";
    QTextStream(stderr) << "generating procedural basemap...\n";
    sim::writeProceduralBasemap(basemap.string(), map_options);

    sim::FlightSimulationOptions o;
    o.basemap_path = basemap.string();
    o.out_dir = dir / "flight";
    o.seed = seed;
    o.duration_s = duration;
    o.fps = fps;
    o.altitude_m = 100.0;  // GSD ~0.15 m: the 0.25 m map is what a coarser source looks like
    o.speed_mps = 15.0;    // one survey line and a turn in 30 s
    o.width_px = size[0].toInt();
    o.height_px = size[1].toInt();
    o.effects.exposure_variation = 0.05;
    o.effects.colour_variation = 0.02;
    o.effects.noise_sigma = 1.5;
    o.effects.shutter_s = 1.0 / 250.0;
    o.gnss.noise_sigma_m = 1.5;
    o.gnss.baro_noise_sigma_m = 0.3;
    o.gnss.bias_m = 2.0;
    o.gnss.dropout_rate = 0.05;
    o.gnss.spoof_start_s = duration * 0.6;
    o.gnss.spoof_duration_s = duration * 0.25;
    o.gnss.spoof_offset_m = 60.0;
    o.degrade = true;
    const sim::FlightSimulationResult r = sim::simulateFlight(o, stderrProgress());

    // First report: the simulated GNSS (with its spoofed segment) against the truth.
    geo::Track truth = sim::readCsvTrack(r.truth_path);
    truth.name = r.truth_path.string();  // the reports name the file
    // The GNSS fixes as any analyst would get them: flight.srt through the DJI SRT reader.
    const geo::Track gnss = io::gnssTrackFromTelemetry(io::readDjiSrt(r.srt_path.string()));
    const sim::EvalReport report = sim::evaluateTrack(truth, gnss, {});
    writeFileAtomically(dir / "report_gnss.json", sim::evalReportJson(report, false));
    cv::imwrite((dir / "report_gnss.png").string(), sim::renderEvalPlot(report));

    // The project an analyst opens: the same inputs and processing as below.
    const std::filesystem::path flight_dir = r.video_path.parent_path();
    io::Project project;
    project.video_path = r.video_path.string();
    project.basemap_paths = {(flight_dir / "basemap_degraded.tif").string()};
    project.telemetry_path = r.srt_path.string();
    project.camera.source = io::CameraSource::File;
    project.camera.file_path = (flight_dir / "camera.json").string();
    project.feature_model = "orb";
    project.device = "cpu";  // the same figures on every machine
    project.processing_mode = "sequential";
    project.results_dir = (dir / "process").string();
    io::writeProjectFile((dir / "demo.skytrace").string(), project);

    cout << "Demo written to " << out << ":\n"
         << "  basemap.tif              procedural basemap (" << map_options.size_px << " px, "
         << map_options.gsd_m << " m/px, " << QString::fromStdString(map_options.crs) << ")\n"
         << "  flight/flight.mp4        " << r.frames << " frames at " << r.fps << " fps, "
         << r.altitude_m << " m above ground\n"
         << "  flight/flight.srt        DJI-style telemetry (noise, bias, dropouts, spoofing)\n"
         << "  flight/truth.csv         ground truth\n"
         << "  flight/basemap_degraded.tif  mismatched map for navigation\n"
         << "  demo.skytrace            the project: open it with skytrace\n"
         << QString::asprintf("  report_gnss.json/.png    GNSS vs truth: RMSE %.2f m, p90 %.2f m, "
                              "max %.2f m, %.0f%% frames with a fix\n",
                              report.overall.horizontal.rmse_m, report.overall.horizontal.p90_m,
                              report.overall.horizontal.max_m,
                              100 * report.overall.fraction_with_position)
        ;
    if (parser.isSet("no-process")) return int(kExitOk);

    // The full chain: video + degraded map + SRT -> visual track, fixes, GNSS check.
    QTextStream(stderr) << "processing the flight (visual odometry + registration + fusion)...\n";
    app::FlightRequest request = app::flightRequestFromProject(project, nullptr);
    request.skytrace_version = SKYTRACE_VERSION;
    DemoObserver observer;
    const app::FlightOutcome outcome = app::processFlight(request, observer);
    const nav::NavigationResult& result = outcome.result;
    const sim::EvalReport visual = sim::evaluateTrack(truth, result.track, {});
    writeFileAtomically(dir / "report_visual.json", sim::evalReportJson(visual, false));
    // The same score inside the results folder, where the GUI and its flight report read it.
    writeFileAtomically(std::filesystem::path(project.results_dir) / "accuracy.json", sim::evalReportJson(visual, false));
    cv::imwrite((dir / "report_visual.png").string(), sim::renderEvalPlot(visual));
    cout << QString::asprintf("  process/                 results folder (track.*, fixes.csv, report.json, ...)\n"
                              "  report_visual.json/.png  visual track vs truth: RMSE %.2f m, p90 %.2f m, "
                              "max %.2f m, %.0f%% within 5 m, heading RMSE %.2f deg\n",
                              visual.overall.horizontal.rmse_m, visual.overall.horizontal.p90_m,
                              visual.overall.horizontal.max_m, 100 * visual.overall.within_5m,
                              visual.overall.heading_rmse_deg);
    for (const auto& s : result.discrepancy.segments) {
      cout << QString::asprintf("  GNSS flagged %.1f-%.1f s (up to %.0f m); the spoofed segment is %.1f-%.1f s\n",
                                s.start_s, s.end_s, s.max_m, o.gnss.spoof_start_s,
                                o.gnss.spoof_start_s + o.gnss.spoof_duration_s);
    }
    return int(kExitOk);
  });
}

const CliCommandRegistration kRegistration{
    {QStringLiteral("demo"),
     QStringLiteral("Self-contained demo: procedural map, rendered flight, report"), runDemo}};

}  // namespace
}  // namespace skytrace::cli
