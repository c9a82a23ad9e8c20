// `skytrace-cli eval`: score a track against ground truth (JSON report + PNG plot).
// Definitions of every number: core/nav/trajectory_eval.h and docs/renderer.md.
#include <QCommandLineParser>
#include <QTextStream>

#include <opencv2/imgcodecs.hpp>

#include <cmath>
#include <filesystem>

#include "app/cli/cli_command.h"
#include "app/cli/cli_support.h"
#include "core/geo/track_io.h"
#include "core/sim/trajectory_eval.h"
#include "core/sim/truth_csv.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace skytrace::cli {
namespace {

// Skytrace's track reader first; CSVs it does not accept (e.g. without t_s) through the
// header-driven truth/track CSV reader.
geo::Track loadTrack(const std::string& path) {
  try {
    return geo::readTrack(path);
  } catch (const FormatError&) {
    if (std::filesystem::path(path).extension() != ".csv") throw;
    return sim::readCsvTrack(path);
  }
}

int runEval(const QStringList& args) {
  QCommandLineParser parser;
  parser.addOptions({
      {"truth", "Ground-truth track (truth.csv from render, or any track file).", "FILE"},
      {"track", "Track to score (csv, geojson, gpx, gpkg, kml).", "FILE"},
      {"out", "Report JSON path; the plot goes next to it as <name>.png. Written as "
              "accuracy.json into a results folder, the GUI and its flight report show it.", "FILE"},
      {"align", "Match truth and track by 'frame' index (default) or 'time' (interpolated); "
                "or fit the track onto the truth first: 'rigid' or 'similarity' (Umeyama, "
                "frame matching unless --match time).", "MODE", "frame"},
      {"match", "With --align rigid|similarity: match by 'frame' (default) or 'time'.", "MODE",
       "frame"},
      {"segment-s", "Length of the per-segment windows (default 10).", "S", "10"},
      {"max-gap-s", "Time matching: longest track gap to interpolate over (default 1).", "S", "1"},
      {"no-frames", "Leave the per-frame errors out of the JSON."},
  });
  int exit_code = kExitOk;
  if (!parseArguments(parser,
                      QStringLiteral("Score a track against ground truth: ATE RMSE, mean, "
                                     "median, p90, max horizontal error, vertical and heading "
                                     "error, coverage, within 5/10/20 m, per segment."),
                      args, &exit_code)) {
    return exit_code;
  }
  QString truth_path, track_path, out_path;
  if (!requireOption(parser, "truth", &truth_path) || !requireOption(parser, "track", &track_path) ||
      !requireOption(parser, "out", &out_path)) {
    return kExitUsage;
  }
  return runGuarded([&] {
    sim::EvalOptions options;
    const std::string align = parser.value("align").toStdString();
    if (align == "frame" || align == "time") {
      options.matching = sim::parseEvalMatching(align);
    } else {
      options.alignment = sim::parseEvalAlignment(align);  // rigid | similarity
      options.matching = sim::parseEvalMatching(parser.value("match").toStdString());
    }
    bool ok_segment = false, ok_gap = false;
    options.segment_s = parser.value("segment-s").toDouble(&ok_segment);
    options.max_gap_s = parser.value("max-gap-s").toDouble(&ok_gap);
    if (!ok_segment || !ok_gap) throw InvalidArgument("--segment-s and --max-gap-s need numbers");

    geo::Track truth = loadTrack(truth_path.toStdString());
    geo::Track track = loadTrack(track_path.toStdString());
    truth.name = truth_path.toStdString();
    track.name = track_path.toStdString();
    const sim::EvalReport report = sim::evaluateTrack(truth, track, options);

    const std::filesystem::path out = out_path.toStdString();
    writeFileAtomically(out, sim::evalReportJson(report, !parser.isSet("no-frames")));
    std::filesystem::path plot = out;
    plot.replace_extension(".png");
    {
      AtomicFile file(plot);
      if (!cv::imwrite(file.temporaryPath().string(), sim::renderEvalPlot(report))) {
        throw IoError(plot.string() + ": cannot write the plot PNG");
      }
      file.commit();
    }
    const sim::EvalSummary& s = report.overall;
    QTextStream cout(stdout);
    cout << QString::asprintf(
        "%d truth frames, %.1f%% with a position%s\n"
        "horizontal error: RMSE %.3f m, mean %.3f m, median %.3f m, p90 %.3f m, max %.3f m\n"
        "within 5/10/20 m: %.1f%% / %.1f%% / %.1f%%\n",
        s.truth_frames, 100 * s.fraction_with_position,
        report.options.alignment == sim::EvalAlignment::None
            ? ""
            : (std::string(" (after ") + sim::evalAlignmentName(report.options.alignment) +
               " alignment)").c_str(),
        s.horizontal.rmse_m, s.horizontal.mean_m, s.horizontal.median_m, s.horizontal.p90_m,
        s.horizontal.max_m, 100 * s.within_5m, 100 * s.within_10m, 100 * s.within_20m);
    if (s.vertical_abs.count) {
      cout << QString::asprintf("vertical error: RMSE %.3f m, mean %+.3f m\n", s.vertical_abs.rmse_m,
                                s.vertical_mean_m);
    }
    if (s.heading_count) cout << QString::asprintf("heading RMSE: %.2f deg\n", s.heading_rmse_deg);
    cout << "report: " << out_path << "\nplot:   " << QString::fromStdString(plot.string()) << "\n";
    return int(kExitOk);
  });
}

const CliCommandRegistration kRegistration{
    {QStringLiteral("eval"), QStringLiteral("Score a track against ground truth (JSON + PNG)"),
     runEval}};

}  // namespace
}  // namespace skytrace::cli
