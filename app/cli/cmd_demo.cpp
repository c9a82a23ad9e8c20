// `skytrace-cli demo --out DIR`: the self-contained demo. Generates a procedural,
// georeferenced basemap (no third-party data), renders a flight over it (video, SRT,
// truth) and a degraded copy of the map, and scores the simulated GNSS track against
// the truth as a first report. Navigation results join the report once the visual
// pipeline exists.
#include <QCommandLineParser>
#include <QTextStream>

#include <cmath>
#include <filesystem>

#include "app/cli/cli_command.h"
#include "app/cli/cli_support.h"
#include "core/geo/procedural_basemap.h"
#include "core/geo/track_io.h"
#include "core/io/telemetry/srt_reader.h"
#include "core/io/telemetry/telemetry_track.h"
#include "core/nav/flight_simulation.h"
#include "core/nav/trajectory_eval.h"
#include "core/nav/truth_csv.h"
#include "core/util/atomic_file.h"
#include "core/util/check.h"
#include "core/util/progress.h"

#include <opencv2/imgcodecs.hpp>

namespace skytrace::cli {

namespace {

int runDemo(const QStringList& args) {
  QCommandLineParser parser;
  parser.addOptions({
      {"out", "Output folder (created).", "DIR"},
      {"seed", "Seed of the map and the flight (default 1).", "N", "1"},
      {"duration-s", "Flight duration (default 30).", "S", "30"},
      {"fps", "Frame rate (default 10).", "FPS", "10"},
      {"size", "Image size WxH (default 960x540).", "WxH", "960x540"},
  });
  int exit_code = kExitOk;
  if (!parseArguments(parser,
                      QStringLiteral("Self-contained demo: procedural basemap + rendered flight "
                                     "(+ processing and report where navigation exists)."),
                      args, &exit_code)) {
    return exit_code;
  }
  QString out;
  if (!requireOption(parser, "out", &out)) return kExitUsage;
  return runGuarded([&] {
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

    geo::ProceduralBasemapOptions map_options;
    map_options.seed = seed;
    const std::filesystem::path basemap = dir / "basemap.tif";
    QTextStream(stderr) << "generating procedural basemap...\n";
    geo::writeProceduralBasemap(basemap.string(), map_options);

    nav::FlightSimulationOptions o;
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
    o.gnss.bias_m = 2.0;
    o.gnss.dropout_rate = 0.05;
    o.gnss.spoof_start_s = duration * 0.6;
    o.gnss.spoof_duration_s = duration * 0.25;
    o.gnss.spoof_offset_m = 60.0;
    o.degrade = true;
    const nav::FlightSimulationResult r = nav::simulateFlight(o, stderrProgress());

    // First report: the simulated GNSS (with its spoofed segment) against the truth.
    const geo::Track truth = nav::readCsvTrack(r.truth_path);
    // The GNSS fixes as any analyst would get them: flight.srt through the DJI SRT reader.
    const geo::Track gnss = io::gnssTrackFromTelemetry(io::readDjiSrt(r.srt_path.string()));
    const nav::EvalReport report = nav::evaluateTrack(truth, gnss, {});
    writeFileAtomically(dir / "report_gnss.json", nav::evalReportJson(report, false));
    cv::imwrite((dir / "report_gnss.png").string(), nav::renderEvalPlot(report));

    cout << "Demo written to " << out << ":\n"
         << "  basemap.tif              procedural basemap (" << map_options.size_px << " px, "
         << map_options.gsd_m << " m/px, " << QString::fromStdString(map_options.crs) << ")\n"
         << "  flight/flight.mp4        " << r.frames << " frames at " << r.fps << " fps, "
         << r.altitude_m << " m above ground\n"
         << "  flight/flight.srt        DJI-style telemetry (noise, bias, dropouts, spoofing)\n"
         << "  flight/truth.csv         ground truth\n"
         << "  flight/basemap_degraded.tif  mismatched map for navigation\n"
         << QString::asprintf("  report_gnss.json/.png    GNSS vs truth: RMSE %.2f m, p90 %.2f m, "
                              "max %.2f m, %.0f%% frames with a fix\n",
                              report.overall.horizontal.rmse_m, report.overall.horizontal.p90_m,
                              report.overall.horizontal.max_m,
                              100 * report.overall.fraction_with_position)
         << "Visual navigation is not part of this build yet; its track will be scored the "
            "same way (skytrace-cli eval).\n";
    return int(kExitOk);
  });
}

const CliCommandRegistration kRegistration{
    {QStringLiteral("demo"),
     QStringLiteral("Self-contained demo: procedural map, rendered flight, report"), runDemo}};

}  // namespace
}  // namespace skytrace::cli
