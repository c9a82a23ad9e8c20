// NavigationSession: what its registration requests search around (and the first one's
// height, known before the run), what a run that placed no frame on the basemaps
// reports, what a GNSS prior anchors, that a late first fix places the frames before it,
// and how lost frames are listed. VO runs for real (ORB) on one textured frame
// shown again and again (a hovering camera); the test plays the registrar.
#include <QtTest>

#include <cmath>
#include <optional>
#include <string>

#include <opencv2/imgproc.hpp>

#include "core/nav/ground_projection.h"
#include "core/nav/navigation_session.h"
#include "core/nav/relocalisation_policy.h"

using namespace skytrace;
using namespace skytrace::nav;

namespace {

constexpr double kFps = 10.0;
const CameraModel kCamera = CameraModel::fromHorizontalFov(320, 240, 70.0);

cv::Mat texturedFrame() {
  cv::Mat noise(kCamera.height_px, kCamera.width_px, CV_8UC3);
  cv::RNG rng(7);
  rng.fill(noise, cv::RNG::UNIFORM, 0, 256);
  cv::Mat frame;
  cv::GaussianBlur(noise, frame, cv::Size(5, 5), 1.2);
  return frame;
}

NavigationInputs inputs() {
  NavigationInputs in;
  in.camera = kCamera;
  in.basemap_paths = {"map.tif"};  // the session never opens it: the test registers
  in.enu = geo::LocalEnuFrame(geo::GeoPoint{47.0, 8.0, 400.0});
  return in;
}

NavigationOptions options() {
  NavigationOptions o;
  o.vo_features.model = "orb";
  o.register_max_interval_s = 0.5;  // a request every 5 frames while hovering
  return o;
}

CameraPose hoverPose(double t_s) {
  CameraPose pose;
  pose.t_s = t_s;
  pose.position_enu = {10.0, 20.0, 100.0};
  return pose;
}

RegistrationFix answer(const RegistrationRequest& request, bool accepted) {
  RegistrationFix fix;
  fix.frame = request.frame;
  fix.t_s = request.t_s;
  fix.global_mode = !request.prior;
  fix.prior_from_telemetry = request.prior_from_telemetry;
  if (accepted) {
    fix.accepted = true;
    fix.has_pose = true;
    fix.pose = hoverPose(request.t_s);
    fix.sigma_m = 1.0;
    fix.image_from_ground = imageFromGround(kCamera, fix.pose, 0.0);
  } else {
    fix.reason = "no_candidate";  // the footprint lands on no basemap: nothing found
  }
  return fix;
}

// An accepted fix for `request` placed `east_m`, `north_m` away from the hover pose, with
// `inliers` inliers.
RegistrationFix placedFix(const RegistrationRequest& request, double east_m, double north_m, int inliers) {
  RegistrationFix fix = answer(request, true);
  fix.pose.position_enu[0] += east_m;
  fix.pose.position_enu[1] += north_m;
  fix.image_from_ground = imageFromGround(kCamera, fix.pose, 0.0);
  fix.inliers = inliers;
  return fix;
}

// A CSV-like log over (10, 20) m of the session's ENU frame, one sample per
// frame for `samples` frames, at height_m(i) above the ground; no yaw, no gimbal.
io::TelemetrySeries logOverOnePlace(const NavigationInputs& in, int samples, double (*height_m)(int)) {
  io::TelemetrySeries log;
  log.format = "csv";
  const geo::GeoPoint above = in.enu.toGeo({10.0, 20.0, 0.0});
  for (int i = 0; i < samples; ++i) {
    io::TelemetrySample sample;
    sample.log_t_s = i / kFps;
    sample.lat_deg = above.lat_deg;
    sample.lon_deg = above.lon_deg;
    sample.alt_rel_m = height_m(i);
    log.samples.push_back(sample);
  }
  return log;
}

// Runs frames until the session asks for the next registration; nullopt after `limit` frames.
std::optional<RegistrationRequest> nextRequest(NavigationSession& session, const cv::Mat& frame,
                                               std::int64_t* next_frame, int limit = 100) {
  for (int i = 0; i < limit; ++i, ++*next_frame) {
    session.processFrame(*next_frame, *next_frame / kFps, vision::Image::fromHost(frame));
    if (auto request = session.takeRegistrationRequest()) {
      ++*next_frame;
      return request;
    }
  }
  return std::nullopt;
}

}  // namespace

class TestNavigationSession : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // Issue 19: an estimate that drifted off the map gets "no_candidate" for every attempt
  // around it. Those failures count: after five, the session searches without it.
  void attemptsThatFindNoMapEndInASearchWithoutTheEstimate() {
    NavigationSession session(inputs(), options());
    const cv::Mat frame = texturedFrame();
    std::int64_t next = 0;
    auto request = nextRequest(session, frame, &next);
    QVERIFY(request);
    QVERIFY(!request->prior);  // not localised yet: a global search
    session.addFix(answer(*request, true));

    for (int i = 0; i < RelocalisationPolicy::kFailuresBeforeRelocalising; ++i) {
      request = nextRequest(session, frame, &next);
      QVERIFY(request);
      QVERIFY2(request->prior, qPrintable(QString("attempt %1 should search around the estimate").arg(i)));
      session.addFix(answer(*request, false));
    }
    request = nextRequest(session, frame, &next);
    QVERIFY(request);
    QVERIFY2(!request->prior, "after five attempts that found no map, the search drops the estimate");

    // That search fails too: the next attempts go back to the estimate until the back-off ends.
    session.addFix(answer(*request, false));
    const double failed_at_s = request->t_s;
    request = nextRequest(session, frame, &next);
    QVERIFY(request);
    QVERIFY(request->t_s < failed_at_s + RelocalisationPolicy::kFirstRetryS);
    QVERIFY(request->prior);
  }

  // With the log as a fusion prior (--use-gnss-prior), a log that states no heading
  // anchored every frame's heading at north, and its height above the ENU origin instead
  // of above the ground plane. The prior is now the registration's logged pose with an
  // unknown heading: the hovering camera keeps the fix's heading and height.
  void aGnssPriorWithoutHeadingKeepsHeadingAndHeight() {
    NavigationInputs in = inputs();
    in.ground_up_m = -50.0;  // the ground 50 m below the ENU origin
    in.telemetry = logOverOnePlace(in, 201, [](int) { return 100.0; });
    NavigationOptions o = options();
    o.use_gnss_prior = true;
    NavigationSession session(in, o);
    const cv::Mat frame = texturedFrame();
    std::int64_t next = 0;
    auto request = nextRequest(session, frame, &next);
    QVERIFY(request);
    RegistrationFix fix = answer(*request, true);
    fix.pose.position_enu = {10.0, 20.0, in.ground_up_m + 100.0};
    fix.pose.yaw_deg = 90.0;
    fix.image_from_ground = imageFromGround(kCamera, fix.pose, in.ground_up_m);
    session.addFix(fix);
    FrameResult last;
    for (int i = 0; i < 30; ++i, ++next) {
      last = session.processFrame(next, next / kFps, vision::Image::fromHost(frame));
      session.takeRegistrationRequest();  // left unanswered: only the priors act
    }
    QVERIFY(last.online.has_pose);
    CameraPose online = last.online.pose;
    foldRollIntoYawNearNadir(&online);
    QVERIFY2(std::abs(online.yaw_deg - 90.0) < 2.0, qPrintable(QString("yaw %1 deg").arg(online.yaw_deg)));
    QVERIFY2(std::abs(online.position_enu[2] - (in.ground_up_m + 100.0)) < 1.0,
             qPrintable(QString("up %1 m").arg(online.position_enu[2])));
  }

  // firstRequestHeightM predicts the height hint of the session's first request (what the
  // registrar prepares its global search for before that request comes): the log's
  // height at the first frame, else 0 (unknown: the registrar tries every search height;
  // not the default height, which only places a logged position without a height).
  void theFirstRequestsHeightIsKnownBeforeTheRun() {
    NavigationInputs in = inputs();
    NavigationOptions o = options();
    o.default_height_m = 80.0;
    QCOMPARE(firstRequestHeightM(in), 0.0);
    {
      NavigationSession session(in, o);
      std::int64_t next = 0;
      const auto request = nextRequest(session, texturedFrame(), &next);
      QVERIFY(request);
      QCOMPARE(request->height_hint_m, 0.0);
    }
    in.telemetry = logOverOnePlace(in, 21, [](int i) { return 42.0 + i; });  // climbing 10 m/s
    QCOMPARE(firstRequestHeightM(in), 42.0);
    NavigationSession session(in, o);
    std::int64_t next = 0;
    const auto request = nextRequest(session, texturedFrame(), &next);
    QVERIFY(request);
    QCOMPARE(request->frame, std::int64_t(0));
    QCOMPARE(request->height_hint_m, firstRequestHeightM(in, request->t_s));
  }

  void aRunWithNoFixSaysWhyAndHowToFixIt() {
    NavigationSession session(inputs(), options());
    const cv::Mat frame = texturedFrame();
    std::int64_t next = 0;
    int attempts = 0;
    while (auto request = nextRequest(session, frame, &next, 10)) {
      session.addFix(answer(*request, false));
      if (++attempts == 3) break;
    }
    QCOMPARE(attempts, 3);
    const NavigationResult result = session.finish(true, next);
    QVERIFY(result.track.poses.empty());
    const std::string& why = result.not_localised_reason;
    QVERIFY2(why.find("3 registration attempts, none accepted (no_candidate: 3)") != std::string::npos,
             why.c_str());
    QVERIFY2(why.find("basemaps cover the flight") != std::string::npos, why.c_str());
    QCOMPARE(result.warnings.back(), why);
  }

  void aLocalisedRunHasNoSuchReason() {
    NavigationSession session(inputs(), options());
    const cv::Mat frame = texturedFrame();
    std::int64_t next = 0;
    auto request = nextRequest(session, frame, &next);
    QVERIFY(request);
    session.addFix(answer(*request, true));
    nextRequest(session, frame, &next, 5);
    const NavigationResult result = session.finish(true, next);
    QVERIFY(!result.track.poses.empty());
    QVERIFY(result.not_localised_reason.empty());
  }

  // Issue 23: a video-only flight whose first fix comes late. The results place the
  // frames before it by chaining VO backwards from it, and say how many.
  void theFramesBeforeALateFirstFixArePlaced() {
    NavigationSession session(inputs(), options());
    const cv::Mat frame = texturedFrame();
    std::int64_t next = 0;
    std::int64_t fixed_frame = -1;
    for (int attempt = 0; attempt < 6; ++attempt) {
      auto request = nextRequest(session, frame, &next);
      QVERIFY(request);
      QVERIFY(!request->prior);  // no log, no fix yet: global searches
      session.addFix(answer(*request, attempt == 5));
      fixed_frame = request->frame;
    }
    QVERIFY(fixed_frame >= 10);
    nextRequest(session, frame, &next, 5);
    const NavigationResult result = session.finish(true, next);
    QCOMPARE(result.backfilled_frames, fixed_frame);
    for (const geo::Track* track : {&result.track, &result.online_track}) {
      QCOMPARE(std::int64_t(track->poses.size()), next);
      for (const auto& pose : track->poses) QVERIFY(std::isfinite(pose.lat_deg));
    }
    // Hovering: every frame where the fix is, 10 m east and 20 m north of the origin.
    const geo::EnuPoint first = inputs().enu.toEnu(
        {result.track.poses.front().lat_deg, result.track.poses.front().lon_deg, 0.0});
    QVERIFY2(std::hypot(first.east_m - 10.0, first.north_m - 20.0) < 0.5,
             qPrintable(QString("%1 %2").arg(first.east_m).arg(first.north_m)));
  }

  // A wrong first fix (25 m off, as from a false global match) that the later fixes
  // outvote: the final track passes it far away, and the result says so (fixes.csv
  // track_offset_m, report.json fixes.far_from_track); the fixes the track rests on lie
  // on it, and rejected attempts have no offset.
  void aFixTheTrackDoesNotRestOnIsCountedFarFromIt() {
    NavigationSession session(inputs(), options());
    const cv::Mat frame = texturedFrame();
    std::int64_t next = 0;
    auto request = nextRequest(session, frame, &next);
    QVERIFY(request);
    const RegistrationFix wrong = placedFix(*request, 0.0, 25.0, 0);
    session.addFix(wrong);
    for (int attempt = 0; attempt < 12; ++attempt) {
      request = nextRequest(session, frame, &next);
      QVERIFY(request);
      session.addFix(answer(*request, true));
    }
    const NavigationResult result = session.finish(true, next);
    QCOMPARE(result.fixes_far_from_track, 1);
    QCOMPARE(result.fixes.front().frame, wrong.frame);
    QVERIFY2(std::abs(result.fixes.front().track_offset_m - 25.0) < 1.0,
             qPrintable(QString::number(result.fixes.front().track_offset_m)));
    int on_track = 0;
    for (std::size_t i = 1; i < result.fixes.size(); ++i) {
      const RegistrationFix& fix = result.fixes[i];
      if (!fix.accepted) {
        QVERIFY(std::isnan(fix.track_offset_m));
        continue;
      }
      QVERIFY2(fix.track_offset_m < 1.0, qPrintable(QString::number(fix.track_offset_m)));
      ++on_track;
    }
    QVERIFY(on_track >= 5);
  }

  // A lone first fix 25 m off (a false global match with 60 inliers) and fixes in the
  // right place with 300: the first of those is rejected against it, the second agrees
  // with the first through the odometry and both outvote it, so the estimate moves there
  // at once instead of after five failures. Fixes with fewer inliers than the lone fix, or
  // two contradictions that disagree with each other, outvote nothing.
  void twoAgreeingFixesOutvoteALoneFirstFix() {
    struct Case {
      const char* name;
      int inliers;          // of the fixes after the first
      double scatter_m;     // the second of them this far east of the true place
      bool outvoted;        // at the third attempt
    };
    for (const Case& c : {Case{"stronger, agreeing", 300, 0.0, true}, Case{"weaker", 40, 0.0, false},
                          Case{"disagreeing", 300, 15.0, false}}) {
      NavigationSession session(inputs(), options());
      const cv::Mat frame = texturedFrame();
      std::int64_t next = 0;
      auto request = nextRequest(session, frame, &next);
      QVERIFY(request);
      session.addFix(placedFix(*request, 0.0, 25.0, 60));
      for (int attempt = 1; attempt <= 2; ++attempt) {
        request = nextRequest(session, frame, &next);
        QVERIFY(request);
        session.addFix(placedFix(*request, attempt == 2 ? c.scatter_m : 0.0, 0.0, c.inliers));
      }
      nextRequest(session, frame, &next, 3);  // a few frames on the estimate after it
      const NavigationResult result = session.finish(true, next);
      QCOMPARE(int(result.fixes.size()), 3);
      QVERIFY2(!result.fixes[1].accepted, c.name);
      QCOMPARE(result.fixes[1].reason, std::string("inconsistent_with_odometry"));
      QVERIFY2(result.fixes[2].accepted == c.outvoted, c.name);
      const geo::TrackPose& last = result.online_track.poses.back();
      const geo::EnuPoint online = inputs().enu.toEnu({last.lat_deg, last.lon_deg, 0.0});
      const double from_truth = std::hypot(online.east_m - 10.0, online.north_m - 20.0);
      QVERIFY2(c.outvoted ? from_truth < 2.0 : from_truth > 20.0,
               qPrintable(QString("%1: %2 m").arg(c.name).arg(from_truth)));
    }
  }

  // Frames VO loses are counted and listed as runs (report.json odometry.lost_segments,
  // the GUI's events): three featureless frames in a hover are one run that starts at
  // the first of them.
  void lostFramesAreListedAsRuns() {
    NavigationOptions o = options();
    o.registration_enabled = false;
    NavigationSession session(inputs(), o);
    const cv::Mat textured = texturedFrame();
    const cv::Mat blank(textured.size(), textured.type(), cv::Scalar(128, 128, 128));
    std::int64_t frame = 0;
    for (int i = 0; i < 5; ++i, ++frame) {
      QVERIFY(!session.processFrame(frame, frame / kFps, vision::Image::fromHost(textured)).odometry_lost);
    }
    for (int i = 0; i < 3; ++i, ++frame) {
      QVERIFY(session.processFrame(frame, frame / kFps, vision::Image::fromHost(blank)).odometry_lost);
    }
    for (int i = 0; i < 5; ++i, ++frame) session.processFrame(frame, frame / kFps, vision::Image::fromHost(textured));
    const NavigationResult result = session.finish(true, frame);
    QCOMPARE(int(result.lost_spans.size()), 1);
    const geo::FrameSpan& span = result.lost_spans.front();
    QCOMPARE(span.start_frame, std::int64_t(5));
    QVERIFY(span.end_frame >= 7);
    QCOMPARE(span.start_s, 0.5);
    QCOMPARE(span.end_s, span.end_frame / kFps);
    QCOMPARE(std::int64_t(result.lost_frames), span.end_frame - span.start_frame + 1);
  }

  void withoutRegistrationAnEmptyTrackIsNoFailure() {
    NavigationOptions o = options();
    o.registration_enabled = false;
    NavigationSession session(inputs(), o);
    const cv::Mat frame = texturedFrame();
    std::int64_t next = 0;
    QVERIFY(!nextRequest(session, frame, &next, 5));
    const NavigationResult result = session.finish(true, next);
    QVERIFY(result.not_localised_reason.empty());
  }
};

QTEST_GUILESS_MAIN(TestNavigationSession)
#include "test_navigation_session.moc"
