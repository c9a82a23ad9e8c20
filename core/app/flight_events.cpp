#include "core/app/flight_events.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/util/statistics.h"

namespace skytrace::app {
namespace {

void addFlaggedGnss(const FlightResults& results, std::vector<FlightEvent>* events) {
  for (const FlaggedSegment& segment : results.flagged_segments) {
    FlightEvent e;
    e.kind = FlightEventKind::FlaggedGnss;
    e.span = {segment.start_frame, segment.end_frame, segment.start_s, segment.end_s};
    e.max_m = segment.max_m;
    events->push_back(std::move(e));
  }
}

// Fixes come in frame order (fixes.csv, ResultsModel): a run of rejections ends at the
// next accepted attempt.
void addRejectedFixes(const FlightResults& results, std::vector<FlightEvent>* events) {
  bool in_run = false;
  for (const RegistrationFixRecord& fix : results.fixes) {
    if (fix.accepted) {
      in_run = false;
      continue;
    }
    if (!in_run) {
      FlightEvent e;
      e.kind = FlightEventKind::RejectedFixes;
      e.span = {fix.frame, fix.frame, fix.t_s, fix.t_s};
      events->push_back(std::move(e));
      in_run = true;
    }
    FlightEvent& run = events->back();
    run.span.end_frame = fix.frame;
    run.span.end_s = fix.t_s;
    ++run.count;
    ++run.reasons[fix.reason.empty() ? std::string("unknown") : fix.reason];
  }
}

void addOdometryLost(const FlightResults& results, std::vector<FlightEvent>* events) {
  for (const geo::FrameSpan& span : results.odometry_lost) {
    FlightEvent e;
    e.kind = FlightEventKind::OdometryLost;
    e.span = span;
    e.count = static_cast<int>(std::max<std::int64_t>(1, span.frameCount()));
    events->push_back(std::move(e));
  }
}

void addGnssDropouts(const FlightResults& results, const FlightEventOptions& options,
                     std::vector<FlightEvent>* events) {
  const std::vector<geo::TrackPose>& poses = results.gnss.poses;
  if (poses.size() < 3) return;
  std::vector<double> intervals_s;
  intervals_s.reserve(poses.size() - 1);
  for (std::size_t i = 1; i < poses.size(); ++i) intervals_s.push_back(poses[i].t_s - poses[i - 1].t_s);
  const double min_gap_s = std::max(options.min_gnss_gap_s, options.gnss_gap_intervals * median(intervals_s));
  for (std::size_t i = 1; i < poses.size(); ++i) {
    if (intervals_s[i - 1] <= min_gap_s) continue;
    FlightEvent e;
    e.kind = FlightEventKind::GnssDropout;
    e.span = {-1, -1, poses[i - 1].t_s, poses[i].t_s};
    events->push_back(std::move(e));
  }
}

void addFixesFarFromTrack(const FlightResults& results, std::vector<FlightEvent>* events) {
  for (const RegistrationFixRecord& fix : results.fixes) {
    if (!fix.setAsideByTrack()) continue;
    FlightEvent e;
    e.kind = FlightEventKind::FixFarFromTrack;
    e.span = {fix.frame, fix.frame, fix.t_s, fix.t_s};
    e.count = fix.inliers;
    e.max_m = fix.track_offset_m;
    events->push_back(std::move(e));
  }
}

}  // namespace

const char* flightEventKindName(FlightEventKind kind) {
  switch (kind) {
    case FlightEventKind::FlaggedGnss: return "flagged_gnss";
    case FlightEventKind::RejectedFixes: return "rejected_fixes";
    case FlightEventKind::OdometryLost: return "odometry_lost";
    case FlightEventKind::GnssDropout: return "gnss_dropout";
    case FlightEventKind::FixFarFromTrack: return "fix_far_from_track";
  }
  return "unknown";
}

bool operator==(const FlightEvent& a, const FlightEvent& b) {
  const bool same_distance = a.max_m == b.max_m || (std::isnan(a.max_m) && std::isnan(b.max_m));
  return same_distance &&
         std::tie(a.kind, a.span.start_frame, a.span.end_frame, a.span.start_s, a.span.end_s, a.count, a.reasons) ==
             std::tie(b.kind, b.span.start_frame, b.span.end_frame, b.span.start_s, b.span.end_s, b.count, b.reasons);
}

std::vector<FlightEvent> flightEvents(const FlightResults& results, const FlightEventOptions& options) {
  std::vector<FlightEvent> events;
  addFlaggedGnss(results, &events);
  addRejectedFixes(results, &events);
  addOdometryLost(results, &events);
  addGnssDropouts(results, options, &events);
  addFixesFarFromTrack(results, &events);
  std::stable_sort(events.begin(), events.end(), [](const FlightEvent& a, const FlightEvent& b) {
    return std::tie(a.span.start_s, a.kind) < std::tie(b.span.start_s, b.kind);
  });
  return events;
}

}  // namespace skytrace::app
