// The results folder round trip in core/app: what processFlight writes is what
// readResultsFolder reads back (the track, the fixes, the stage samples, the run's
// description), on a short flight rendered over a procedural map and processed with ORB
// on the CPU; a folder of known values (tests/synthetic_flight.h) reads back as written;
// a malformed optional list is a warning; and a folder that is not a results folder is
// refused.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <string>

#include "core/app/flight_processing.h"
#include "core/app/flight_results.h"
#include "core/sim/flight_simulation.h"
#include "core/sim/procedural_basemap.h"
#include "core/sim/trajectory_eval.h"
#include "core/util/error.h"
#include "tests/synthetic_flight.h"
#include "tests/test_support.h"

using namespace skytrace;

namespace {

int dataRows(const std::string& csv_path) {
  std::ifstream in(csv_path);
  std::string line;
  int rows = -1;  // the header
  while (std::getline(in, line))
    if (!line.empty()) ++rows;
  return rows;
}

}  // namespace

class TestFlightResults : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void whatProcessingWritesReadsBack() {
    QTemporaryDir dir;
    sim::ProceduralBasemapOptions map;
    map.size_px = 1024;
    map.gsd_m = 0.25;
    const std::string basemap = dir.filePath("basemap.tif").toStdString();
    sim::writeProceduralBasemap(basemap, map);
    sim::FlightSimulationOptions flight;
    flight.basemap_path = basemap;
    flight.out_dir = dir.filePath("flight").toStdString();
    flight.width_px = 320;
    flight.height_px = 240;
    flight.fps = 10;
    flight.duration_s = 3.0;
    flight.altitude_m = 60.0;
    const sim::FlightSimulationResult rendered = sim::simulateFlight(flight);

    app::FlightRequest request;
    request.video_path = rendered.video_path.string();
    request.basemap_paths = {basemap};
    request.telemetry_path = rendered.srt_path.string();
    request.feature_model = "orb";
    request.device = "cpu";
    request.mode = "sequential";
    request.results_dir = dir.filePath("results").toStdString();
    app::FlightObserver observer;
    const app::FlightOutcome outcome = app::processFlight(request, observer);
    QVERIFY(outcome.result.completed);

    const app::FlightResults read = app::readResultsFolder(request.results_dir);
    QVERIFY2(read.warnings.empty(), read.warnings.empty() ? "" : read.warnings.front().c_str());
    QCOMPARE(read.folder, request.results_dir);
    QVERIFY(read.completed);
    QCOMPARE(read.track.poses.size(), outcome.result.track.poses.size());
    QCOMPARE(int(read.track.poses.size()), rendered.frames);
    for (std::size_t i = 0; i < read.track.poses.size(); ++i)
      QCOMPARE(read.track.poses[i].frame, outcome.result.track.poses[i].frame);
    QCOMPARE(read.fixes.size(), outcome.result.fixes.size());
    QVERIFY(!read.fixes.empty());
    int accepted = 0;
    for (const auto& fix : read.fixes) accepted += fix.accepted;
    int accepted_written = 0;
    for (const auto& fix : outcome.result.fixes) accepted_written += fix.accepted;
    QCOMPARE(accepted, accepted_written);
    // Each accepted fix's distance from the final track reads back (to fixes.csv's mm).
    for (std::size_t i = 0; i < read.fixes.size(); ++i) {
      const double written = outcome.result.fixes[i].track_offset_m;
      QCOMPARE(std::isfinite(read.fixes[i].track_offset_m), std::isfinite(written));
      QCOMPARE(std::isfinite(written), read.fixes[i].accepted);
      if (std::isfinite(written)) QVERIFY(std::abs(read.fixes[i].track_offset_m - written) <= 0.0005);
    }
    QCOMPARE(int(read.latency.size()), dataRows(request.results_dir + "/latency.csv"));
    QCOMPARE(int(read.gnss.poses.size()), rendered.frames);  // the SRT, one sample per frame
    QCOMPARE(read.inputs.video, request.video_path);
    QCOMPARE(read.inputs.basemaps, request.basemap_paths);
    QCOMPARE(read.inputs.telemetry, request.telemetry_path);
    QVERIFY(!read.inputs.telemetry_time_offset_s);  // a DJI SRT: on the video's clock, not given
    QCOMPARE(read.device, std::string("cpu"));
    QCOMPARE(read.feature_model, std::string("orb+mnn"));
    QCOMPARE(read.mode, std::string("sequential"));
    QVERIFY(std::isfinite(read.ground_alt_m));
    QVERIFY(!read.report_json.empty());
    QVERIFY(app::isResultsFolder(request.results_dir));
  }

  // A folder of known values (tests/synthetic_flight.h, written by the project's own
  // writers): every part reads back as written.
  void aKnownFolderReadsBackItsValues() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const test::SyntheticFlight flight = test::writeSyntheticFlight(dir.path());
    const app::FlightResults r = app::readResultsFolder(flight.results.toStdString());
    QCOMPARE(int(r.track.poses.size()), flight.frames);
    QCOMPARE(int(r.odometry.poses.size()), flight.frames);
    QCOMPARE(int(r.gnss.poses.size()), flight.frames);
    QCOMPARE(int(r.fixes.size()), flight.accepted_fixes + flight.rejected_fixes + flight.set_aside_fixes);
    QCOMPARE(r.fixes[5].track_offset_m, 30.0);
    QVERIFY(r.fixes[5].setAsideByTrack() && !r.fixes[4].setAsideByTrack() && !r.fixes[2].setAsideByTrack());
    QCOMPARE(r.fixes[2].reason, std::string("too_few_inliers"));
    QVERIFY(!r.fixes[2].accepted && r.fixes[1].accepted);
    QCOMPARE(int(r.discrepancy.size()), flight.frames);
    QCOMPARE(int(r.flagged_segments.size()), 1);
    QCOMPARE(r.flagged_segments[0].start_s, 3.0);
    QCOMPARE(int(r.odometry_lost.size()), 1);
    QCOMPARE(r.odometry_lost[0].start_frame, std::int64_t(45));
    QCOMPARE(r.odometry_lost[0].end_s, 4.7);
    QCOMPARE(QString::fromStdString(r.inputs.video), flight.video);
    QCOMPARE(int(r.inputs.basemaps.size()), 1);
    QCOMPARE(QString::fromStdString(r.inputs.basemaps[0]), flight.basemap);
    QVERIFY(r.inputs.telemetry.empty());
    QCOMPARE(r.inputs.camera, std::string("hfov"));
    QCOMPARE(int(r.latency.size()), 4 * flight.frames);
    QCOMPARE(r.latency[1].stage, engine::Stage::Extract);
    QCOMPARE(r.latency[5].duration_ms, 21.0);  // frame 1, extract
    QCOMPARE(int(r.latency[1].device), -1);
    QVERIFY(r.completed);
    QCOMPARE(r.feature_model, std::string("sift"));
    QCOMPARE(r.ground_alt_m, 0.0);
    QVERIFY(r.log_alignment.estimated);
    QCOMPARE(r.log_alignment.best_time_offset_s, 0.8);
    QCOMPARE(r.log_alignment.sigma_s, 0.05);
    QCOMPARE(r.log_alignment.time_offset_used_s, 0.0);
    QVERIFY2(r.warnings.empty(), r.warnings.empty() ? "" : r.warnings.front().c_str());
    QCOMPARE(app::poseIndexAt(r.track, 2.04), 20);
    QVERIFY(test::errorMessageOf<IoError>([&] { app::readResultsFolder(dir.path().toStdString() + "/none"); })
                .contains("not a results folder"));
  }

  // An optional list of the wrong type is left out with a warning, not a failure (and
  // no JSON library text reaches the message).
  void aMalformedSegmentListIsAWarning() {
    QTemporaryDir dir;
    const std::string report = dir.filePath("report.json").toStdString();
    std::ofstream(report) << R"({"completed": true, "odometry": {"lost_segments": [{"start_frame": "x"}]}})";
    const app::FlightResults r = app::readResultsFolder(dir.path().toStdString());
    QVERIFY(r.completed);
    QVERIFY(r.odometry_lost.empty());
    QCOMPARE(int(r.warnings.size()), 1);
    QVERIFY2(r.warnings[0].find("segment lists are ignored") != std::string::npos, r.warnings[0].c_str());
    QVERIFY(r.warnings[0].find("json.exception") == std::string::npos);
  }

  // Issue 20: accuracy.json (what `skytrace-cli eval --out` writes) reads back as the
  // summary the GUI and the flight report show; a file that is not one is a warning.
  void anAccuracyReportReadsBack() {
    QTemporaryDir dir;
    const test::SyntheticFlight flight = test::writeSyntheticFlight(dir.path());
    QVERIFY(!app::readResultsFolder(flight.results.toStdString()).accuracy);
    // The visual track against the GNSS as its reference, as eval would score it.
    geo::Track reference = flight.gnss;
    reference.name = "reference.csv";
    const sim::EvalReport eval = sim::evaluateTrack(reference, flight.visual, {});
    const std::string path = flight.results.toStdString() + "/accuracy.json";
    std::ofstream(path) << sim::evalReportJson(eval, false);
    const app::FlightResults r = app::readResultsFolder(flight.results.toStdString());
    QVERIFY2(r.warnings.empty(), r.warnings.empty() ? "" : r.warnings.front().c_str());
    QVERIFY(r.accuracy);
    QCOMPARE(r.accuracy->reference, std::string("reference.csv"));
    QCOMPARE(r.accuracy->alignment, std::string("none"));
    QCOMPARE(r.accuracy->reference_frames, eval.overall.truth_frames);
    QCOMPARE(r.accuracy->rmse_m, eval.overall.horizontal.rmse_m);
    QCOMPARE(r.accuracy->p90_m, eval.overall.horizontal.p90_m);
    QCOMPARE(r.accuracy->within_5m, eval.overall.within_5m);
    QVERIFY(r.accuracy->rmse_m > 0.0);

    std::ofstream(path) << R"({"overall": {"truth_frames": "many"}})";
    const app::FlightResults bad = app::readResultsFolder(flight.results.toStdString());
    QVERIFY(!bad.accuracy);
    QCOMPARE(int(bad.warnings.size()), 1);
    QVERIFY2(bad.warnings[0].find("not an evaluation report") != std::string::npos, bad.warnings[0].c_str());
  }

  void aFolderWithoutResultsIsRefused() {
    QTemporaryDir dir;
    QVERIFY(!app::isResultsFolder(dir.path().toStdString()));
    QVERIFY(test::errorMessageOf<IoError>([&] { app::readResultsFolder(dir.path().toStdString()); })
                .contains("not a results folder"));
  }
};

QTEST_GUILESS_MAIN(TestFlightResults)
#include "test_flight_results.moc"
