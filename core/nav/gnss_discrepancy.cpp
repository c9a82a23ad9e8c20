#include "core/nav/gnss_discrepancy.h"

#include <algorithm>
#include <cmath>

#include "core/util/check.h"

namespace skytrace::nav {
namespace {

// Times closer than this are the same instant (a photo's capture time in both tracks).
constexpr double kSameTimeS = 1e-3;

bool hasPosition(const geo::TrackPose& p) {
  return std::isfinite(p.lat_deg) && std::isfinite(p.lon_deg) &&
         !(p.lat_deg == 0.0 && p.lon_deg == 0.0);
}

}  // namespace

void DiscrepancyOptions::check() const {
  checkArgument(threshold_sigma > 0, "discrepancy threshold_sigma must be > 0");
  checkArgument(min_distance_m >= 0, "discrepancy min_distance_m must be >= 0");
  checkArgument(min_duration_s >= 0, "discrepancy min_duration_s must be >= 0");
  checkArgument(gnss_sigma_m > 0, "discrepancy gnss_sigma_m must be > 0");
  checkArgument(max_gap_s >= 0, "discrepancy max_gap_s must be >= 0");
}

DiscrepancyAnalysis analyzeGnssDiscrepancy(const geo::Track& visual, const geo::Track& gnss,
                                           const DiscrepancyOptions& options) {
  options.check();
  DiscrepancyAnalysis out;
  std::vector<const geo::TrackPose*> fixes;
  for (const auto& p : gnss.poses) {
    if (hasPosition(p)) fixes.push_back(&p);
  }
  if (fixes.empty() || visual.poses.empty()) return out;
  const geo::LocalEnuFrame enu(
      geo::GeoPoint{fixes.front()->lat_deg, fixes.front()->lon_deg, 0.0});

  std::vector<bool> above;
  for (const auto& v : visual.poses) {
    if (!hasPosition(v)) continue;
    auto it = std::lower_bound(fixes.begin(), fixes.end(), v.t_s,
                               [](const geo::TrackPose* p, double t) { return p->t_s < t; });
    // A fix at the pose's own time (a photo's GPS, however far apart the photos) is
    // compared as it is; otherwise linear between its neighbours.
    const geo::TrackPose* same = nullptr;
    if (it != fixes.end() && (*it)->t_s - v.t_s <= kSameTimeS) {
      same = *it;
    } else if (it != fixes.begin() && v.t_s - (*(it - 1))->t_s <= kSameTimeS) {
      same = *(it - 1);
    }
    if (!same && it == fixes.end()) continue;
    const geo::TrackPose* after = same ? same : *it;
    const geo::TrackPose* before = same ? same : it == fixes.begin() ? after : *(it - 1);
    if (std::abs(after->t_s - v.t_s) > options.max_gap_s &&
        std::abs(before->t_s - v.t_s) > options.max_gap_s)
      continue;
    if (after->t_s - before->t_s > options.max_gap_s + 1e-9 && before != after) continue;
    const geo::EnuPoint a = enu.toEnu({before->lat_deg, before->lon_deg, 0.0});
    const geo::EnuPoint b = enu.toEnu({after->lat_deg, after->lon_deg, 0.0});
    const double span = after->t_s - before->t_s;
    const double w = span > 1e-9 ? (v.t_s - before->t_s) / span : 0.0;
    const double gnss_e = a.east_m + w * (b.east_m - a.east_m);
    const double gnss_n = a.north_m + w * (b.north_m - a.north_m);
    const geo::EnuPoint q = enu.toEnu({v.lat_deg, v.lon_deg, 0.0});
    DiscrepancySample s;
    s.frame = v.frame;
    s.t_s = v.t_s;
    s.distance_m = std::hypot(q.east_m - gnss_e, q.north_m - gnss_n);
    const double visual_sigma = std::isfinite(v.sigma_m) ? v.sigma_m : 5.0;
    s.sigma_m = std::hypot(visual_sigma, options.gnss_sigma_m);
    out.samples.push_back(s);
    above.push_back(s.distance_m > options.threshold_sigma * s.sigma_m &&
                    s.distance_m > options.min_distance_m);
  }

  // Runs of `above`, bridging short gaps, kept when long enough.
  const auto& samples = out.samples;
  std::size_t i = 0;
  while (i < samples.size()) {
    if (!above[i]) {
      ++i;
      continue;
    }
    std::size_t end = i;  // last above-threshold sample of the run
    for (std::size_t j = i + 1; j < samples.size(); ++j) {
      if (above[j]) {
        const bool next_frame = samples[j].frame == samples[end].frame + 1;  // photos seconds apart
        if (!next_frame && samples[j].t_s - samples[end].t_s > options.max_gap_s + 1e-9) break;
        end = j;
      }
    }
    if (samples[end].t_s - samples[i].t_s >= options.min_duration_s) {
      DiscrepancySegment seg;
      seg.start_frame = samples[i].frame;
      seg.end_frame = samples[end].frame;
      seg.start_s = samples[i].t_s;
      seg.end_s = samples[end].t_s;
      double sum = 0.0;
      int n = 0;
      for (std::size_t j = i; j <= end; ++j) {
        seg.max_m = std::max(seg.max_m, samples[j].distance_m);
        sum += samples[j].distance_m;
        ++n;
        out.samples[j].flagged = true;
      }
      seg.mean_m = sum / n;
      out.segments.push_back(seg);
    }
    i = end + 1;
  }
  return out;
}

}  // namespace skytrace::nav
