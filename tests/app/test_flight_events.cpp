// app::flightEvents: the events an analyst reviews, from results of known content. Each
// kind comes from its own part of the results (flagged segments, fixes.csv, the lost
// odometry spans, the GNSS log's gaps, fixes.csv's track offsets), and the list is in time
// order.
#include <QtTest>

#include <cmath>
#include <string>

#include "core/app/flight_events.h"

using namespace skytrace;
using namespace skytrace::app;

namespace {

RegistrationFixRecord fix(std::int64_t frame, bool accepted, const std::string& reason = {}) {
  RegistrationFixRecord f;
  f.frame = frame;
  f.t_s = frame / 10.0;
  f.accepted = accepted;
  f.reason = reason;
  return f;
}

// A GNSS log every `interval_s` from 0 to end_s, without the samples strictly inside
// (gap_from_s, gap_to_s).
geo::Track gnssLog(double interval_s, double end_s, double gap_from_s, double gap_to_s) {
  geo::Track track;
  for (int i = 0; i * interval_s <= end_s + 1e-9; ++i) {
    const double t_s = i * interval_s;
    if (t_s > gap_from_s + 1e-9 && t_s < gap_to_s - 1e-9) continue;
    geo::TrackPose p;
    p.t_s = t_s;
    p.lat_deg = 47.0;
    p.lon_deg = 8.0;
    track.poses.push_back(p);
  }
  return track;
}

}  // namespace

class TestFlightEvents : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void everyKindComesInTimeOrder() {
    FlightResults results;
    FlaggedSegment flagged;
    flagged.start_frame = 30;
    flagged.end_frame = 40;
    flagged.start_s = 3.0;
    flagged.end_s = 4.0;
    flagged.max_m = 40.0;
    results.flagged_segments = {flagged};
    results.fixes = {fix(0, true),  fix(10, false, "too_few_inliers"), fix(20, false, "no_candidate"),
                     fix(30, true), fix(40, false, "too_few_inliers")};
    results.odometry_lost = {{45, 47, 4.5, 4.7}};
    results.gnss = gnssLog(0.1, 5.9, 1.9, 3.6);  // nothing logged between 1.9 and 3.6 s

    const std::vector<FlightEvent> events = flightEvents(results);
    QCOMPARE(int(events.size()), 5);
    const FlightEventKind kinds[] = {FlightEventKind::RejectedFixes, FlightEventKind::GnssDropout,
                                     FlightEventKind::FlaggedGnss, FlightEventKind::RejectedFixes,
                                     FlightEventKind::OdometryLost};
    for (int i = 0; i < 5; ++i) QCOMPARE(events[i].kind, kinds[i]);

    // Two rejections in a row are one event; the accepted fix at frame 30 ends it.
    QCOMPARE(events[0].count, 2);
    QCOMPARE(events[0].span.start_frame, std::int64_t(10));
    QCOMPARE(events[0].span.end_frame, std::int64_t(20));
    QCOMPARE(events[0].reasons.at("too_few_inliers"), 1);
    QCOMPARE(events[0].reasons.at("no_candidate"), 1);
    QCOMPARE(events[3].count, 1);
    QCOMPARE(events[3].span.start_s, 4.0);

    QCOMPARE(events[1].span.start_s, 1.9);
    QVERIFY(std::abs(events[1].span.end_s - 3.6) < 1e-9);
    QCOMPARE(events[1].span.start_frame, std::int64_t(-1));

    QCOMPARE(events[2].max_m, 40.0);
    QCOMPARE(events[2].durationS(), 1.0);

    QCOMPARE(events[4].count, 3);
    QCOMPARE(events[4].span.end_s, 4.7);
  }

  // A gap is measured against the log's own rate: in a 1 Hz log 3 s is not yet a
  // dropout, 4 s is; a 0.5 s gap in a 10 Hz log is under the 1 s floor.
  void gnssGapsAreJudgedByTheLogsRate() {
    FlightResults results;
    results.gnss = gnssLog(1.0, 60.0, 10.0, 12.5);  // 11 and 12 missing: 10 -> 13
    QVERIFY(flightEvents(results).empty());
    results.gnss = gnssLog(1.0, 60.0, 10.0, 14.0);  // 10 -> 14: 4 s
    const std::vector<FlightEvent> events = flightEvents(results);
    QCOMPARE(int(events.size()), 1);
    QCOMPARE(events[0].span.start_s, 10.0);
    QCOMPARE(events[0].span.end_s, 14.0);
    results.gnss = gnssLog(0.1, 10.0, 5.0, 5.45);  // 5.0 -> 5.5
    QVERIFY(flightEvents(results).empty());
    FlightEventOptions sensitive;
    sensitive.min_gnss_gap_s = 0.2;
    QCOMPARE(int(flightEvents(results, sensitive).size()), 1);
  }

  void resultsWithNothingToReviewHaveNoEvents() {
    QVERIFY(flightEvents(FlightResults()).empty());
    FlightResults results;
    results.fixes = {fix(0, true), fix(10, true)};
    results.gnss = gnssLog(0.1, 5.0, -1.0, -1.0);
    QVERIFY(flightEvents(results).empty());
  }

  // The events panel rebuilds its list only when the events differ (operator==).
  void equalEventsCompareEqual() {
    FlightEvent a;
    a.kind = FlightEventKind::OdometryLost;
    a.span = {10, 12, 1.0, 1.2};
    a.count = 3;
    FlightEvent b = a;
    QVERIFY(a == b);  // both distances unknown (NaN) count as equal
    b.span.end_s = 1.3;
    QVERIFY(a != b);
    b = a;
    b.reasons["too_few_inliers"] = 1;
    QVERIFY(a != b);
    b = a;
    b.max_m = 40.0;
    QVERIFY(a != b);
    a.max_m = 40.0;
    QVERIFY(a == b);
  }

  void kindsHaveStableNames() {
    QCOMPARE(std::string(flightEventKindName(FlightEventKind::FlaggedGnss)), std::string("flagged_gnss"));
    QCOMPARE(std::string(flightEventKindName(FlightEventKind::RejectedFixes)), std::string("rejected_fixes"));
    QCOMPARE(std::string(flightEventKindName(FlightEventKind::OdometryLost)), std::string("odometry_lost"));
    QCOMPARE(std::string(flightEventKindName(FlightEventKind::GnssDropout)), std::string("gnss_dropout"));
    QCOMPARE(std::string(flightEventKindName(FlightEventKind::FixFarFromTrack)), std::string("fix_far_from_track"));
  }

  // An accepted fix the final track passes more than 6 sigma from (fixes.csv
  // track_offset_m) is an event of its own, with its inliers and that distance; a fix on
  // the track, one 5 sigma off, a rejected attempt and a fix of a folder written before
  // the column existed (NaN) are none.
  void aFixTheTrackSetAsideIsAnEvent() {
    FlightResults results;
    auto placed = [](std::int64_t frame, double sigma_m, double offset_m, int inliers) {
      RegistrationFixRecord f = fix(frame, true);
      f.sigma_m = sigma_m;
      f.track_offset_m = offset_m;
      f.inliers = inliers;
      return f;
    };
    results.fixes = {placed(0, 1.0, 22.2, 67), placed(10, 1.0, 0.4, 331), placed(20, 2.0, 10.0, 200),
                     fix(30, false, "too_few_inliers"), placed(40, 1.0, std::nan(""), 150)};
    std::vector<FlightEvent> far;
    for (const FlightEvent& e : flightEvents(results))
      if (e.kind == FlightEventKind::FixFarFromTrack) far.push_back(e);
    QCOMPARE(int(far.size()), 1);
    QCOMPARE(far[0].span.start_frame, std::int64_t(0));
    QCOMPARE(far[0].count, 67);
    QCOMPARE(far[0].max_m, 22.2);
  }
};

QTEST_GUILESS_MAIN(TestFlightEvents)
#include "test_flight_events.moc"
