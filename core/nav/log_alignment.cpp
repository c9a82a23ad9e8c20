#include "core/nav/log_alignment.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>
#include <utility>
#include <vector>

#include "core/geo/geodesy.h"
#include "core/util/check.h"
#include "core/util/statistics.h"

namespace skytrace::nav {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct EnuSample {
  double t_s = 0.0;
  double east_m = 0.0, north_m = 0.0;
};

bool hasPosition(const geo::TrackPose& p) {
  return std::isfinite(p.lat_deg) && std::isfinite(p.lon_deg) && !(p.lat_deg == 0.0 && p.lon_deg == 0.0);
}

std::vector<EnuSample> enuSamples(const geo::Track& track, const geo::LocalEnuFrame& enu) {
  std::vector<EnuSample> out;
  for (const geo::TrackPose& p : track.poses) {
    if (!hasPosition(p) || !std::isfinite(p.t_s)) continue;
    const geo::EnuPoint q = enu.toEnu({p.lat_deg, p.lon_deg, 0.0});
    out.push_back({p.t_s, q.east_m, q.north_m});
  }
  std::stable_sort(out.begin(), out.end(), [](const EnuSample& a, const EnuSample& b) { return a.t_s < b.t_s; });
  return out;
}

// The GNSS fixes moved by a shift onto the visual track: one residual (visual - GNSS, m)
// and the visual velocity there (m/s, over a second) per fix on the track.
struct Residuals {
  std::vector<std::size_t> fix;  // index into the GNSS samples
  std::vector<double> t_s;       // its time as read
  std::vector<double> east_m, north_m;
  std::vector<double> ve_mps, vn_mps;
  std::size_t size() const { return fix.size(); }
};

// A constant 2-D offset of at most max_m (scaled down to it when longer).
void clampOffset(double max_m, double* east_m, double* north_m) {
  const double length = std::hypot(*east_m, *north_m);
  if (length > max_m) {
    *east_m *= max_m / length;
    *north_m *= max_m / length;
  }
}

class ShiftFitter {
 public:
  ShiftFitter(std::vector<EnuSample> visual, std::vector<EnuSample> gnss, const LogAlignmentOptions& options)
      : visual_(std::move(visual)), gnss_(std::move(gnss)), options_(options) {}

  std::size_t gnssCount() const { return gnss_.size(); }

  // How many GNSS fixes a stretch of the log as long as the visual track holds (all of
  // them when the log is shorter): the count a right shift puts on the track.
  double fixesOverTrack() const {
    if (gnss_.size() < 2 || visual_.size() < 2) return double(gnss_.size());
    const double gnss_span = gnss_.back().t_s - gnss_.front().t_s;
    const double visual_span = visual_.back().t_s - visual_.front().t_s;
    return gnss_span > 0.0 ? double(gnss_.size()) * std::min(1.0, visual_span / gnss_span) : double(gnss_.size());
  }

  // Residuals of every `stride`-th fix, or of `only` (fix indices) when given.
  Residuals residuals(double shift_s, std::size_t stride, const std::vector<std::size_t>* only = nullptr) const {
    Residuals out;
    auto add = [&](std::size_t i) {
      const EnuSample& g = gnss_[i];
      const double t = g.t_s + shift_s;
      double e = 0, n = 0, before_e = 0, before_n = 0, after_e = 0, after_n = 0;
      // Velocity over a second: the frame-to-frame steps are mostly the track's noise.
      if (!visualAt(t, &e, &n) || !visualAt(t - 0.5, &before_e, &before_n) || !visualAt(t + 0.5, &after_e, &after_n))
        return;
      out.fix.push_back(i);
      out.t_s.push_back(g.t_s);
      out.east_m.push_back(e - g.east_m);
      out.north_m.push_back(n - g.north_m);
      out.ve_mps.push_back(after_e - before_e);
      out.vn_mps.push_back(after_n - before_n);
    };
    if (only != nullptr) {
      for (const std::size_t i : *only) add(i);
    } else {
      for (std::size_t i = 0; i < gnss_.size(); i += stride) add(i);
    }
    return out;
  }

  // The robust cost of a shift: the mean Cauchy loss (m^2) of the residuals less their
  // median offset (clamped to max_bias_m: a free offset would fit a lawnmower shifted by
  // a whole pattern as well as the truth), so that a spoofed stretch counts little.
  // Infinite when fewer fixes than needed land on the visual track. `inliers` receives
  // the fixes within 3 robust scales.
  // With `only` (fix indices), on those fixes alone, needing min_fixes of them.
  double cost(double shift_s, std::size_t stride, std::vector<std::size_t>* inliers = nullptr,
              const std::vector<std::size_t>* only = nullptr) const {
    const Residuals r = residuals(shift_s, stride, only);
    const double needed =
        only != nullptr ? double(options_.min_fixes)
                        : std::max(double(options_.min_fixes), options_.min_overlap * fixesOverTrack() / double(stride));
    if (double(r.size()) < needed) return kInfinity;
    double bias_e = median(r.east_m), bias_n = median(r.north_m);
    clampOffset(options_.max_bias_m, &bias_e, &bias_n);
    const double c = options_.robust_scale_m;
    double loss = 0.0;
    for (std::size_t k = 0; k < r.size(); ++k) {
      const double d = std::hypot(r.east_m[k] - bias_e, r.north_m[k] - bias_n);
      loss += c * c * std::log1p((d / c) * (d / c));
      if (inliers != nullptr && d <= 3.0 * c) inliers->push_back(r.fix[k]);
    }
    return loss / double(r.size());
  }

  // The robust costs of two shifts on the same fixes: those that land on the visual
  // track at both (a spoofed stretch then weighs alike in both).
  std::pair<double, double> costsOnCommonFixes(double a_s, double b_s, std::size_t stride) const {
    const Residuals a = residuals(a_s, stride), b = residuals(b_s, stride);
    std::vector<std::size_t> common;
    std::set_intersection(a.fix.begin(), a.fix.end(), b.fix.begin(), b.fix.end(), std::back_inserter(common));
    return {cost(a_s, 1, nullptr, &common), cost(b_s, 1, nullptr, &common)};
  }

 private:
  // The visual position at video time t_s: linear between neighbours at most max_gap_s
  // apart.
  bool visualAt(double t_s, double* east_m, double* north_m) const {
    const auto after = std::lower_bound(visual_.begin(), visual_.end(), t_s,
                                        [](const EnuSample& s, double t) { return s.t_s < t; });
    if (after == visual_.end() || after == visual_.begin()) return false;
    const EnuSample& b = *after;
    const EnuSample& a = *(after - 1);
    const double span = b.t_s - a.t_s;
    if (span <= 0.0 || span > options_.max_gap_s) return false;
    const double w = (t_s - a.t_s) / span;
    *east_m = a.east_m + w * (b.east_m - a.east_m);
    *north_m = a.north_m + w * (b.north_m - a.north_m);
    return true;
  }

  std::vector<EnuSample> visual_;
  std::vector<EnuSample> gnss_;
  LogAlignmentOptions options_;
};

// Least squares on the inliers from `shift_s` (Gauss-Newton on the shift, the offset
// re-fitted as their mean): the robust search's minimum is as rough as the visual
// track's frame-to-frame noise; this uses all the motion the inliers saw. Fills `out`'s
// shift, sigma, residual, offset and count; returns the velocity spread (m/s).
double refineOnInliers(const ShiftFitter& fitter, const std::vector<std::size_t>& inliers, double shift_s,
                       const LogAlignmentOptions& options, LogAlignment* out) {
  double spread = 0.0;
  for (int iteration = 0; iteration < 5; ++iteration) {
    const Residuals r = fitter.residuals(shift_s, 1, &inliers);
    if (r.size() < 2) return 0.0;
    const double n = double(r.size());
    double mean_e = 0, mean_n = 0, mean_ve = 0, mean_vn = 0;
    for (std::size_t k = 0; k < r.size(); ++k) {
      mean_e += r.east_m[k] / n, mean_n += r.north_m[k] / n;
      mean_ve += r.ve_mps[k] / n, mean_vn += r.vn_mps[k] / n;
    }
    double bias_e = mean_e, bias_n = mean_n;
    clampOffset(options.max_bias_m, &bias_e, &bias_n);
    double gradient = 0.0, information = 0.0, sum_sq = 0.0;
    for (std::size_t k = 0; k < r.size(); ++k) {
      const double je = r.ve_mps[k] - mean_ve, jn = r.vn_mps[k] - mean_vn;
      gradient += je * (r.east_m[k] - mean_e) + jn * (r.north_m[k] - mean_n);
      information += je * je + jn * jn;
      sum_sq += std::pow(r.east_m[k] - bias_e, 2) + std::pow(r.north_m[k] - bias_n, 2);
    }
    spread = std::sqrt(information / n);
    out->residual_m = std::sqrt(sum_sq / n);
    out->bias_east_m = bias_e;
    out->bias_north_m = bias_n;
    out->fixes_compared = int(r.size());
    out->shift_s = shift_s;
    // The sigma as if every fix erred independently, inflated because GNSS errors wander
    // (a receiver's error is much the same a few seconds on): over a span T only
    // T / (2 error_correlation_s) of the fixes count as independent.
    const double span_s = r.t_s.back() - r.t_s.front();
    const double independent = std::clamp(span_s / (2.0 * options.error_correlation_s), 1.0, n);
    const double white_sigma_s = (out->residual_m / std::sqrt(2.0)) / std::sqrt(information);
    out->sigma_s = information > 0.0 ? white_sigma_s * std::sqrt(n / independent) : kInfinity;
    if (!(information > 0.0)) return spread;
    const double step = std::clamp(-gradient / information, -options.coarse_step_s, options.coarse_step_s);
    shift_s += step;
    if (std::abs(step) < 1e-5) break;
  }
  return spread;
}

}  // namespace

void LogAlignmentOptions::check() const {
  checkArgument(max_shift_s > 0, "log alignment max_shift_s must be > 0");
  checkArgument(coarse_step_s > 0 && coarse_step_s < max_shift_s,
                "log alignment coarse_step_s must be in (0, max_shift_s)");
  checkArgument(max_gap_s > 0, "log alignment max_gap_s must be > 0");
  checkArgument(min_fixes >= 3, "log alignment min_fixes must be >= 3");
  checkArgument(min_overlap >= 0 && min_overlap <= 1, "log alignment min_overlap must be in [0, 1]");
  checkArgument(robust_scale_m > 0, "log alignment robust_scale_m must be > 0");
  checkArgument(ambiguity_ratio >= 1, "log alignment ambiguity_ratio must be >= 1");
  checkArgument(error_correlation_s > 0, "log alignment error_correlation_s must be > 0");
  checkArgument(max_bias_m >= 0, "log alignment max_bias_m must be >= 0");
  checkArgument(min_velocity_spread_mps > 0, "log alignment min_velocity_spread_mps must be > 0");
}

LogAlignment estimateLogAlignment(const geo::Track& visual, const geo::Track& gnss,
                                  const LogAlignmentOptions& options) {
  options.check();
  LogAlignment out;
  const geo::TrackPose* origin = nullptr;
  for (const geo::TrackPose& p : gnss.poses)
    if (hasPosition(p)) {
      origin = &p;
      break;
    }
  if (origin == nullptr || visual.poses.empty()) {
    out.reason = "no GNSS fixes or no visual track to compare";
    return out;
  }
  const geo::LocalEnuFrame enu(geo::GeoPoint{origin->lat_deg, origin->lon_deg, 0.0});
  const ShiftFitter fitter(enuSamples(visual, enu), enuSamples(gnss, enu), options);

  // Coarse: every step over the range, on at most ~2,000 fixes.
  const std::size_t stride = std::max<std::size_t>(1, (fitter.gnssCount() + 1999) / 2000);
  const int steps = int(std::floor(options.max_shift_s / options.coarse_step_s));
  std::vector<double> shifts, costs;
  for (int k = -steps; k <= steps; ++k) {
    shifts.push_back(k * options.coarse_step_s);
    costs.push_back(fitter.cost(shifts.back(), stride));
  }
  const std::size_t best = std::size_t(std::min_element(costs.begin(), costs.end()) - costs.begin());
  if (!std::isfinite(costs[best])) {
    out.reason = "too few GNSS fixes on the visual track at any shift";
    return out;
  }
  if (best == 0 || best + 1 == costs.size()) {
    out.reason = "the best fit is at the edge of the shifts searched";
    return out;
  }
  // Another local minimum at least 1 s away, behind a ridge (a cost of at least twice
  // the best between them), that fits nearly as well on the fixes both shifts compare: a
  // repeating path. Wiggles along a flat valley (a straight line) are not; the velocity
  // check below catches those.
  for (std::size_t k = 1; k + 1 < costs.size(); ++k) {
    if (std::abs(shifts[k] - shifts[best]) < 1.0 || !(costs[k] <= costs[k - 1] && costs[k] <= costs[k + 1]) ||
        !(costs[k] <= 2.0 * costs[best]))
      continue;
    const auto [from, to] = std::minmax(k, best);
    const double ridge = *std::max_element(costs.begin() + long(from), costs.begin() + long(to) + 1);
    if (ridge < 2.0 * costs[best]) continue;
    const auto [best_cost, other_cost] = fitter.costsOnCommonFixes(shifts[best], shifts[k], stride);
    if (other_cost <= options.ambiguity_ratio * best_cost) {
      char text[120];
      std::snprintf(text, sizeof text, "the path repeats: shifts of %.1f and %.1f s fit alike", shifts[best], shifts[k]);
      out.reason = text;
      return out;
    }
  }

  // Fine: every fix, steps of 1/10 of the coarse step around the coarse minimum; then
  // least squares on that minimum's inliers.
  const double fine_step = options.coarse_step_s / 10.0;
  double fine_shift = shifts[best], fine_cost = kInfinity;
  for (int k = -10; k <= 10; ++k) {
    const double shift = shifts[best] + k * fine_step;
    const double cost = fitter.cost(shift, 1);
    if (cost < fine_cost) fine_cost = cost, fine_shift = shift;
  }
  std::vector<std::size_t> inliers;
  fitter.cost(fine_shift, 1, &inliers);
  const double spread = refineOnInliers(fitter, inliers, fine_shift, options, &out);
  if (!(spread >= options.min_velocity_spread_mps) || !(out.sigma_s < 0.5)) {
    out.reason = "the flight's speed and heading change too little to time the log";
    return out;
  }
  out.estimated = true;
  return out;
}

std::optional<std::string> logClockWarning(const LogAlignment& alignment, double offset_used_s,
                                           double frame_interval_s) {
  if (!alignment.estimated) return std::nullopt;
  if (std::abs(alignment.shift_s) <= std::max(3.0 * alignment.sigma_s, frame_interval_s)) return std::nullopt;
  char text[400];
  std::snprintf(text, sizeof text,
                "the flight log's clock looks %+.2f s off the video's (+-%.2f s, measured from the images): its "
                "GNSS fits the visual track best with a time offset of %.2f s instead of %.2f s (--time-offset, "
                "or telemetry_time_offset_s in the project)",
                alignment.shift_s, alignment.sigma_s, offset_used_s + alignment.shift_s, offset_used_s);
  return std::string(text);
}

}  // namespace skytrace::nav
