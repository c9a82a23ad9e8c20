#include "core/geo/track.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "core/geo/geodesy.h"

namespace skytrace::geo {

const char* poseSourceName(PoseSource source) {
  switch (source) {
    case PoseSource::Unknown: return "unknown";
    case PoseSource::Visual: return "visual";
    case PoseSource::Odometry: return "odometry";
    case PoseSource::Registration: return "registration";
    case PoseSource::Gnss: return "gnss";
    case PoseSource::Truth: return "truth";
  }
  return "unknown";
}

PoseSource parsePoseSource(const std::string& name) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (PoseSource s : {PoseSource::Visual, PoseSource::Odometry, PoseSource::Registration,
                       PoseSource::Gnss, PoseSource::Truth}) {
    if (lower == poseSourceName(s)) return s;
  }
  return PoseSource::Unknown;
}

void addFrameToRuns(std::vector<FrameSpan>& runs, std::int64_t frame, double t_s, bool continues_last_run) {
  if (continues_last_run && !runs.empty()) {
    runs.back().end_frame = frame;
    runs.back().end_s = t_s;
  } else {
    runs.push_back({frame, frame, t_s, t_s});
  }
}

std::vector<double> groundSpeedsMps(const Track& track, double window_s) {
  const std::vector<TrackPose>& poses = track.poses;
  const std::size_t n = poses.size();
  std::vector<double> speeds(n, std::numeric_limits<double>::quiet_NaN());
  const double half_s = 0.5 * std::max(0.0, window_s);
  std::size_t first = 0, last = 0;  // the window [first, last] around pose i
  for (std::size_t i = 0; i < n; ++i) {
    while (poses[i].t_s - poses[first].t_s > half_s) ++first;
    if (last < i) last = i;
    while (last + 1 < n && poses[last + 1].t_s - poses[i].t_s <= half_s) ++last;
    std::size_t a = first, b = last;
    if (a == b) {  // nothing else in the window: the neighbours
      a = i > 0 ? i - 1 : i;
      b = i + 1 < n ? i + 1 : i;
    }
    const double dt = poses[b].t_s - poses[a].t_s;
    if (!(dt > 0.0)) continue;
    const double d_m = horizontalDistanceM({poses[a].lat_deg, poses[a].lon_deg, 0.0},
                                           {poses[b].lat_deg, poses[b].lon_deg, 0.0});
    speeds[i] = d_m / dt;
  }
  return speeds;
}

}  // namespace skytrace::geo
