#include "core/geo/track.h"

#include <algorithm>
#include <cctype>

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

}  // namespace skytrace::geo
