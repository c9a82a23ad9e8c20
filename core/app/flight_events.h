// FlightEvents: the moments of a processed flight an analyst reviews first, in time
// order: GNSS stretches flagged as inconsistent with the visual track, runs of rejected
// basemap registrations, frames visual odometry lost, gaps in the logged GNSS, and
// accepted fixes the final track does not rest on.
// Derived from FlightResults alone, so a results folder and a live run (growing results)
// give the same list. Plain values, no Qt: the GUI's events panel and timeline markers
// show it, and any other front end can.
#pragma once

#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/app/flight_results.h"

namespace skytrace::app {

enum class FlightEventKind {
  FlaggedGnss,    // the logged GNSS disagreed with the visual track (a flagged segment)
  RejectedFixes,  // consecutive registration attempts rejected, none accepted between
  OdometryLost,   // consecutive frames visual odometry lost
  GnssDropout,    // the log has no GNSS position for a while
  FixFarFromTrack,  // an accepted fix the final track passes far from (nav::fixFarFromTrack)
};
constexpr int kFlightEventKindCount = 5;

// Stable lower-case names: "flagged_gnss", "rejected_fixes", "odometry_lost", "gnss_dropout",
// "fix_far_from_track".
const char* flightEventKindName(FlightEventKind kind);

struct FlightEvent {
  FlightEventKind kind = FlightEventKind::FlaggedGnss;
  // The stretch of the video timeline it covers. GNSS dropouts: from the last logged
  // position before the gap to the first after it; their frames are -1 (the log is not
  // tied to frames).
  geo::FrameSpan span;
  int count = 0;  // RejectedFixes: attempts; OdometryLost: frames; FixFarFromTrack: inliers; else 0
  // FlaggedGnss: largest distance; FixFarFromTrack: the track's distance from the fix; metres
  double max_m = std::numeric_limits<double>::quiet_NaN();
  std::map<std::string, int> reasons;  // RejectedFixes: attempts by fixes.csv reason

  double durationS() const { return span.end_s - span.start_s; }
};

// Same kind, span, count, reasons and largest distance (two unknown distances are equal).
bool operator==(const FlightEvent& a, const FlightEvent& b);
inline bool operator!=(const FlightEvent& a, const FlightEvent& b) { return !(a == b); }

struct FlightEventOptions {
  // A GNSS gap is a dropout when two consecutive logged positions are further apart in
  // time than both of these: seconds, and multiples of the log's median interval.
  double min_gnss_gap_s = 1.0;
  double gnss_gap_intervals = 3.0;
};

// Every event of `results`, sorted by start time (then by kind).
std::vector<FlightEvent> flightEvents(const FlightResults& results, const FlightEventOptions& options = {});

}  // namespace skytrace::app
