// Tests for core/geo/track.h: pose source names and ground speeds.
#include <QtTest/QtTest>

#include <cmath>

#include "core/geo/geodesy.h"
#include "core/geo/track.h"

using namespace skytrace::geo;

namespace {

// A track moving east at `speed_mps`, sampled every `dt_s`, whose position only changes
// every `update_s` (a GNSS receiver slower than the log).
Track eastbound(double speed_mps, double dt_s, double update_s, int count) {
  const LocalEnuFrame enu(GeoPoint{50.82, -0.14, 0.0});
  Track track;
  for (int k = 0; k < count; ++k) {
    const double t = k * dt_s;
    const double t_fix = std::floor(t / update_s + 1e-9) * update_s;
    const GeoPoint p = enu.toGeo({speed_mps * t_fix, 0.0, 0.0});
    TrackPose pose;
    pose.t_s = t;
    pose.lat_deg = p.lat_deg;
    pose.lon_deg = p.lon_deg;
    track.poses.push_back(pose);
  }
  return track;
}

}  // namespace

class TestTrack : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void sourceNamesRoundTrip() {
    for (PoseSource s : {PoseSource::Visual, PoseSource::Odometry, PoseSource::Registration, PoseSource::Gnss,
                         PoseSource::Truth})
      QCOMPARE(parsePoseSource(poseSourceName(s)), s);
    QCOMPARE(parsePoseSource("GNSS"), PoseSource::Gnss);
    QCOMPARE(parsePoseSource("radar"), PoseSource::Unknown);
  }

  // Issue 20: a 60 Hz DJI log repeats each 10 Hz fix six times. Sample-to-sample speeds
  // alternate between 0 and several times the true speed; over 1 s they are the speed.
  void speedOfARepeatingLogIsSteady() {
    const Track log = eastbound(12.0, 1.0 / 60.0, 0.1, 600);
    const std::vector<double> naive = groundSpeedsMps(log, 0.0);
    QCOMPARE(naive.size(), log.poses.size());
    double naive_max = 0.0;
    for (double v : naive) naive_max = std::max(naive_max, v);
    QVERIFY2(naive_max > 30.0, qPrintable(QString::number(naive_max)));  // neighbours: 0 or 3x
    const std::vector<double> speeds = groundSpeedsMps(log, 1.0);
    for (std::size_t i = 60; i + 60 < speeds.size(); ++i)
      QVERIFY2(std::abs(speeds[i] - 12.0) < 1.3, qPrintable(QString("%1: %2").arg(i).arg(speeds[i])));
  }

  void framesJoinRuns() {
    std::vector<FrameSpan> runs;
    addFrameToRuns(runs, 4, 0.4, true);  // no run yet: a run of its own
    addFrameToRuns(runs, 5, 0.5, true);
    addFrameToRuns(runs, 9, 0.9, false);
    QCOMPARE(int(runs.size()), 2);
    QCOMPARE(runs[0].start_frame, std::int64_t(4));
    QCOMPARE(runs[0].end_frame, std::int64_t(5));
    QCOMPARE(runs[0].end_s, 0.5);
    QCOMPARE(runs[0].frameCount(), std::int64_t(2));
    QCOMPARE(runs[1].frameCount(), std::int64_t(1));
  }

  void steadyTrackAndEdges() {
    const Track steady = eastbound(8.0, 0.5, 0.5, 20);  // every sample a new position
    const std::vector<double> speeds = groundSpeedsMps(steady, 0.2);  // the window holds one pose
    for (double v : speeds) QVERIFY2(std::abs(v - 8.0) < 1e-3, qPrintable(QString::number(v)));
    Track one;
    one.poses.resize(1);
    QVERIFY(std::isnan(groundSpeedsMps(one, 1.0).front()));
    QVERIFY(groundSpeedsMps(Track{}, 1.0).empty());
    Track same_time = steady;
    for (TrackPose& p : same_time.poses) p.t_s = 3.0;  // no time passes: unknown, not infinite
    for (double v : groundSpeedsMps(same_time, 1.0)) QVERIFY(std::isnan(v));
  }
};

QTEST_GUILESS_MAIN(TestTrack)
#include "test_track.moc"
