// Trajectory evaluation against independently constructed tracks: identical (0 m),
// shifted 3 m east (RMSE 3 m, all within 5 m), missing frames, time interpolation,
// heading wrap-around, Umeyama alignment, truth CSV round trip, segments, the plot.
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

#include "core/geo/geodesy.h"
#include "core/sim/trajectory_eval.h"
#include "core/sim/truth_csv.h"

using namespace skytrace;
using namespace skytrace::sim;

namespace {

const geo::GeoPoint kOrigin{48.137, 11.575, 520.0};

// A 60 s figure-eight at 10 fps, heading along the path, 100 m above the origin.
geo::Track makeTruth() {
  geo::Track t;
  t.name = "truth";
  const geo::LocalEnuFrame frame(kOrigin);
  for (int i = 0; i < 600; ++i) {
    const double s = i / 10.0;
    const double e = 80 * std::sin(s / 10.0), n = 40 * std::sin(s / 5.0);
    const geo::GeoPoint g = frame.toGeo({e, n, 100.0});
    geo::TrackPose p;
    p.frame = i;
    p.t_s = s;
    p.lat_deg = g.lat_deg;
    p.lon_deg = g.lon_deg;
    p.alt_m = g.alt_m;
    p.yaw_deg = std::fmod(s * 7.0, 360.0) - 180.0;
    p.pitch_deg = -90;
    p.roll_deg = 0;
    t.poses.push_back(p);
  }
  return t;
}

// The same track moved by (de, dn, du) metres in the ENU frame at its own first pose.
geo::Track shifted(const geo::Track& truth, double de, double dn, double du) {
  geo::Track t = truth;
  const geo::TrackPose& f = truth.poses.front();
  const geo::LocalEnuFrame frame({f.lat_deg, f.lon_deg, f.alt_m});
  for (auto& p : t.poses) {
    const geo::EnuPoint q = frame.toEnu({p.lat_deg, p.lon_deg, p.alt_m});
    const geo::GeoPoint g = frame.toGeo({q.east_m + de, q.north_m + dn, q.up_m + du});
    p.lat_deg = g.lat_deg;
    p.lon_deg = g.lon_deg;
    p.alt_m = g.alt_m;
  }
  return t;
}

}  // namespace

class TestTrajectoryEval : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void identicalTrackScoresZero() {
    const geo::Track truth = makeTruth();
    const EvalReport r = evaluateTrack(truth, truth, {});
    QCOMPARE(r.overall.truth_frames, 600);
    QCOMPARE(r.overall.fraction_with_position, 1.0);
    QVERIFY(r.overall.horizontal.rmse_m < 1e-6);
    QVERIFY(r.overall.horizontal.max_m < 1e-6);
    QVERIFY(r.overall.vertical_abs.rmse_m < 1e-6);
    QVERIFY(r.overall.heading_rmse_deg < 1e-9);
    QCOMPARE(r.overall.within_5m, 1.0);
  }

  void threeMetresEast() {
    const geo::Track truth = makeTruth();
    const EvalReport r = evaluateTrack(truth, shifted(truth, 3.0, 0.0, 0.0), {});
    QVERIFY2(std::abs(r.overall.horizontal.rmse_m - 3.0) < 1e-3,
             qPrintable(QString::number(r.overall.horizontal.rmse_m)));
    QVERIFY(std::abs(r.overall.horizontal.mean_m - 3.0) < 1e-3);
    QVERIFY(std::abs(r.overall.horizontal.median_m - 3.0) < 1e-3);
    QVERIFY(std::abs(r.overall.horizontal.p90_m - 3.0) < 1e-3);
    QVERIFY(std::abs(r.overall.horizontal.max_m - 3.0) < 1e-3);
    QCOMPARE(r.overall.within_5m, 1.0);
    QCOMPARE(r.overall.within_10m, 1.0);
    QVERIFY(r.overall.vertical_abs.rmse_m < 1e-3);
    // The error points east in every frame.
    for (const auto& f : r.frames) QVERIFY(std::abs((f.track_enu - f.truth_enu)[0] - 3.0) < 1e-3);
    // Segments: 60 s of truth in 10 s windows, each with the same error.
    QCOMPARE(int(r.segments.size()), 6);
    for (const auto& s : r.segments) {
      QCOMPARE(s.summary.truth_frames, 100);
      QVERIFY(std::abs(s.summary.horizontal.rmse_m - 3.0) < 1e-3);
    }
  }

  void knownErrorDistribution() {
    // Errors 0.25..9.25 m north in 10 groups: RMSE sqrt(mean((k+0.25)^2)), within 5 m = 5/10.
    geo::Track truth = makeTruth();
    truth.poses.resize(100);
    geo::Track track = truth;
    const geo::LocalEnuFrame frame({truth.poses[0].lat_deg, truth.poses[0].lon_deg, truth.poses[0].alt_m});
    for (int i = 0; i < 100; ++i) {
      auto& p = track.poses[i];
      const geo::EnuPoint q = frame.toEnu({p.lat_deg, p.lon_deg, p.alt_m});
      const geo::GeoPoint g = frame.toGeo({q.east_m, q.north_m + i % 10 + 0.25, q.up_m});
      p.lat_deg = g.lat_deg;
      p.lon_deg = g.lon_deg;
    }
    const EvalReport r = evaluateTrack(truth, track, {});
    QVERIFY(std::abs(r.overall.horizontal.rmse_m - std::sqrt(30.8125)) < 1e-3);
    QVERIFY(std::abs(r.overall.horizontal.mean_m - 4.75) < 1e-3);
    QVERIFY(std::abs(r.overall.horizontal.median_m - 4.75) < 1e-3);
    QVERIFY(std::abs(r.overall.horizontal.p90_m - 8.25) < 1e-3);  // nearest rank: 90th of 100
    QVERIFY(std::abs(r.overall.horizontal.max_m - 9.25) < 1e-3);
    QCOMPARE(r.overall.within_5m, 0.5);
    QCOMPARE(r.overall.within_10m, 1.0);
  }

  void missingFramesCountAsMisses() {
    const geo::Track truth = makeTruth();
    geo::Track track = truth;
    track.poses.erase(track.poses.begin() + 300, track.poses.end());  // second half lost
    track.poses[10].lat_deg = std::nan("");                            // one unknown position
    const EvalReport r = evaluateTrack(truth, track, {});
    QCOMPARE(r.overall.frames_with_position, 299);
    QVERIFY(std::abs(r.overall.fraction_with_position - 299.0 / 600.0) < 1e-12);
    QVERIFY(std::abs(r.overall.within_5m - 299.0 / 600.0) < 1e-12);
    QVERIFY(r.overall.horizontal.rmse_m < 1e-6);
  }

  void timeMatchingInterpolates() {
    const geo::Track truth = makeTruth();
    geo::Track track;  // every 5th truth pose, frame indices unrelated
    for (size_t i = 0; i < truth.poses.size(); i += 5) {
      geo::TrackPose p = truth.poses[i];
      p.frame = 100000 + std::int64_t(i);
      track.poses.push_back(p);
    }
    EvalOptions by_frame;
    QCOMPARE(evaluateTrack(truth, track, by_frame).overall.frames_with_position, 0);
    EvalOptions by_time;
    by_time.matching = EvalMatching::Time;
    const EvalReport r = evaluateTrack(truth, track, by_time);
    QCOMPARE(r.overall.frames_with_position, 596);  // the last 4 are beyond the track's end
    // Linear interpolation of a smooth curve over 0.5 s: centimetres.
    QVERIFY2(r.overall.horizontal.max_m < 0.1, qPrintable(QString::number(r.overall.horizontal.max_m)));
  }

  void headingWrapsAround() {
    geo::Track truth = makeTruth();
    truth.poses.resize(2);
    geo::Track track = truth;
    truth.poses[0].yaw_deg = 359.0;
    track.poses[0].yaw_deg = 1.0;
    truth.poses[1].yaw_deg = -179.0;
    track.poses[1].yaw_deg = 179.0;
    const EvalReport r = evaluateTrack(truth, track, {});
    QVERIFY(std::abs(r.overall.heading_rmse_deg - 2.0) < 1e-9);
  }

  void umeyamaRecoversSimilarity() {
    std::vector<cv::Vec3d> src, dst;
    const double angle = 0.7, scale = 1.8;
    const cv::Matx33d rot(std::cos(angle), -std::sin(angle), 0, std::sin(angle), std::cos(angle), 0,
                          0, 0, 1);
    const cv::Vec3d t(12, -4, 3);
    for (int i = 0; i < 20; ++i) {
      const cv::Vec3d p(i * 1.5, std::sin(i) * 7, 0.3 * i);
      src.push_back(p);
      dst.push_back(scale * (rot * p) + t);
    }
    cv::Matx33d r;
    cv::Vec3d tr;
    double s = 0;
    umeyamaAlignment(src, dst, true, &r, &tr, &s);
    QVERIFY(std::abs(s - scale) < 1e-9);
    QVERIFY(cv::norm(r - rot) < 1e-9);
    QVERIFY(cv::norm(tr - t) < 1e-8);
  }

  void alignedReportIsLabelled() {
    const geo::Track truth = makeTruth();
    const geo::Track moved = shifted(truth, 25.0, -40.0, 0.0);
    EvalOptions options;
    options.alignment = EvalAlignment::Rigid;
    const EvalReport r = evaluateTrack(truth, moved, options);
    QVERIFY(r.overall.horizontal.rmse_m < 1e-3);  // a pure translation is fitted away
    const auto j = nlohmann::json::parse(evalReportJson(r, false));
    QCOMPARE(QString::fromStdString(j["alignment"]["type"].get<std::string>()), QStringLiteral("rigid"));
    QVERIFY(j["alignment"].contains("note"));
    QVERIFY(std::abs(j["overall"]["ate_rmse_m"].get<double>()) < 1e-3);
    QVERIFY(!j.contains("frames"));
  }

  void truthCsvRoundTrip() {
    QTemporaryDir dir;
    const std::filesystem::path path = dir.filePath("truth.csv").toStdString();
    const geo::Track truth = makeTruth();
    writeTruthCsv(path, truth);
    std::ifstream in(path);
    std::string header;
    std::getline(in, header);
    QCOMPARE(QString::fromStdString(header),
             QStringLiteral("frame,t_s,lat_deg,lon_deg,alt_m,yaw_deg,pitch_deg,roll_deg"));
    const geo::Track back = readCsvTrack(path);
    QCOMPARE(back.poses.size(), truth.poses.size());
    const EvalReport r = evaluateTrack(truth, back, {});
    QVERIFY(r.overall.horizontal.max_m < 1e-3);  // 9 decimals of a degree
    QVERIFY(r.overall.heading_rmse_deg < 1e-3);
  }

  void plotHasBothTracks() {
    const geo::Track truth = makeTruth();
    const EvalReport r = evaluateTrack(truth, shifted(truth, 6.0, 0.0, 0.0), {});
    const cv::Mat plot = renderEvalPlot(r);
    QCOMPARE(plot.type(), CV_8UC3);
    int green = 0, red = 0;
    for (int y = 0; y < plot.rows; ++y) {
      for (int x = 0; x < plot.cols; ++x) {
        const cv::Vec3b p = plot.at<cv::Vec3b>(y, x);
        green += p[1] > 120 && p[0] < 90 && p[2] < 90;
        red += p[2] > 160 && p[0] < 90 && p[1] < 90;
      }
    }
    QVERIFY(green > 500);
    QVERIFY(red > 500);
  }
};

QTEST_GUILESS_MAIN(TestTrajectoryEval)
#include "test_trajectory_eval.moc"
