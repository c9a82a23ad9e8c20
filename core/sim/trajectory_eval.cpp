#include "core/sim/trajectory_eval.h"

#include <nlohmann/json.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/geo/geodesy.h"
#include "core/nav/camera_pose.h"
#include "core/util/check.h"

namespace skytrace::sim {
namespace {

bool finite(double v) { return std::isfinite(v); }

ErrorStats statsOf(std::vector<double> values) {
  ErrorStats s;
  s.count = int(values.size());
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  double sum = 0, sum_sq = 0;
  for (double v : values) {
    sum += v;
    sum_sq += v * v;
  }
  const size_t n = values.size();
  s.mean_m = sum / n;
  s.rmse_m = std::sqrt(sum_sq / n);
  s.median_m = n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
  s.p90_m = values[std::min(n - 1, size_t(std::ceil(0.9 * n)) - 1)];  // nearest rank
  s.max_m = values.back();
  return s;
}

EvalSummary summarize(const std::vector<FrameError>& frames, size_t begin, size_t end) {
  EvalSummary s;
  std::vector<double> horizontal, vertical_abs;
  double vertical_sum = 0, heading_sq = 0;
  int within5 = 0, within10 = 0, within20 = 0;
  for (size_t i = begin; i < end; ++i) {
    const FrameError& f = frames[i];
    ++s.truth_frames;
    if (!f.has_position) continue;
    ++s.frames_with_position;
    horizontal.push_back(f.horizontal_m);
    within5 += f.horizontal_m <= 5.0;
    within10 += f.horizontal_m <= 10.0;
    within20 += f.horizontal_m <= 20.0;
    if (finite(f.vertical_m)) {
      vertical_abs.push_back(std::abs(f.vertical_m));
      vertical_sum += f.vertical_m;
    }
    if (finite(f.heading_error_deg)) {
      ++s.heading_count;
      heading_sq += f.heading_error_deg * f.heading_error_deg;
    }
  }
  s.horizontal = statsOf(horizontal);
  s.vertical_abs = statsOf(vertical_abs);
  s.vertical_mean_m = vertical_abs.empty() ? 0.0 : vertical_sum / vertical_abs.size();
  s.heading_rmse_deg = s.heading_count ? std::sqrt(heading_sq / s.heading_count) : 0.0;
  if (s.truth_frames > 0) {
    s.fraction_with_position = double(s.frames_with_position) / s.truth_frames;
    s.within_5m = double(within5) / s.truth_frames;
    s.within_10m = double(within10) / s.truth_frames;
    s.within_20m = double(within20) / s.truth_frames;
  }
  return s;
}

// A track pose resolved to ENU (position) plus its yaw.
struct MatchedPose {
  cv::Vec3d enu;
  bool has_alt;
  double yaw_deg;
};

bool hasPosition(const geo::TrackPose& p) { return finite(p.lat_deg) && finite(p.lon_deg); }

MatchedPose toEnu(const geo::TrackPose& p, const geo::LocalEnuFrame& frame) {
  const bool has_alt = finite(p.alt_m);
  const geo::EnuPoint e =
      frame.toEnu({p.lat_deg, p.lon_deg, has_alt ? p.alt_m : frame.origin().alt_m});
  return {{e.east_m, e.north_m, e.up_m}, has_alt, p.yaw_deg};
}

nlohmann::ordered_json statsJson(const ErrorStats& s) {
  return {{"count", s.count},   {"rmse_m", s.rmse_m}, {"mean_m", s.mean_m},
          {"median_m", s.median_m}, {"p90_m", s.p90_m}, {"max_m", s.max_m}};
}

nlohmann::ordered_json summaryJson(const EvalSummary& s) {
  nlohmann::ordered_json j;
  j["truth_frames"] = s.truth_frames;
  j["frames_with_position"] = s.frames_with_position;
  j["fraction_with_position"] = s.fraction_with_position;
  j["horizontal_error"] = statsJson(s.horizontal);
  j["ate_rmse_m"] = s.horizontal.rmse_m;
  j["vertical_abs_error"] = statsJson(s.vertical_abs);
  j["vertical_mean_error_m"] = s.vertical_mean_m;
  j["heading_rmse_deg"] = s.heading_count ? nlohmann::ordered_json(s.heading_rmse_deg)
                                          : nlohmann::ordered_json(nullptr);
  j["heading_count"] = s.heading_count;
  j["within_5m"] = s.within_5m;
  j["within_10m"] = s.within_10m;
  j["within_20m"] = s.within_20m;
  return j;
}

nlohmann::ordered_json numberOrNull(double v) {
  return finite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

}  // namespace

const char* evalAlignmentName(EvalAlignment alignment) {
  switch (alignment) {
    case EvalAlignment::None: return "none";
    case EvalAlignment::Rigid: return "rigid";
    case EvalAlignment::Similarity: return "similarity";
  }
  return "none";
}

EvalAlignment parseEvalAlignment(const std::string& name) {
  for (auto a : {EvalAlignment::None, EvalAlignment::Rigid, EvalAlignment::Similarity}) {
    if (name == evalAlignmentName(a)) return a;
  }
  throw InvalidArgument("unknown alignment '" + name + "' (valid: none, rigid, similarity)");
}

const char* evalMatchingName(EvalMatching matching) {
  return matching == EvalMatching::Time ? "time" : "frame";
}

EvalMatching parseEvalMatching(const std::string& name) {
  if (name == "frame") return EvalMatching::FrameIndex;
  if (name == "time") return EvalMatching::Time;
  throw InvalidArgument("unknown matching '" + name + "' (valid: frame, time)");
}

void EvalOptions::check() const {
  checkArgument(max_gap_s > 0, "max gap must be > 0 s");
  checkArgument(segment_s > 0, "segment length must be > 0 s");
}

void umeyamaAlignment(const std::vector<cv::Vec3d>& src, const std::vector<cv::Vec3d>& dst,
                      bool with_scale, cv::Matx33d* rotation, cv::Vec3d* translation,
                      double* scale) {
  checkArgument(src.size() == dst.size() && src.size() >= 3,
                "alignment needs at least 3 matched positions");
  const double n = double(src.size());
  cv::Vec3d mean_src(0, 0, 0), mean_dst(0, 0, 0);
  for (size_t i = 0; i < src.size(); ++i) {
    mean_src += src[i] / n;
    mean_dst += dst[i] / n;
  }
  cv::Matx33d covariance = cv::Matx33d::zeros();
  double variance_src = 0;
  for (size_t i = 0; i < src.size(); ++i) {
    const cv::Vec3d s = src[i] - mean_src, d = dst[i] - mean_dst;
    covariance += (d * s.t()) * (1.0 / n);
    variance_src += s.dot(s) / n;
  }
  checkArgument(variance_src > 1e-12, "alignment needs positions that are not all the same");
  cv::Mat w, u, vt;
  cv::SVD::compute(cv::Mat(covariance), w, u, vt);
  cv::Matx33d S = cv::Matx33d::eye();
  if (cv::determinant(u) * cv::determinant(vt) < 0) S(2, 2) = -1;
  const cv::Matx33d U(u), Vt(vt);
  *rotation = U * S * Vt;
  const cv::Matx33d D = cv::Matx33d::diag(cv::Vec3d(w));
  *scale = with_scale ? cv::trace(D * S) / variance_src : 1.0;
  *translation = mean_dst - (*scale) * ((*rotation) * mean_src);
}

EvalReport evaluateTrack(const geo::Track& truth, const geo::Track& track,
                         const EvalOptions& options) {
  options.check();
  checkArgument(!truth.poses.empty(), "the truth track has no poses");
  EvalReport report;
  report.options = options;
  report.truth_name = truth.name;
  report.track_name = track.name;
  const geo::TrackPose& first = truth.poses.front();
  const geo::LocalEnuFrame frame(
      {first.lat_deg, first.lon_deg, finite(first.alt_m) ? first.alt_m : 0.0});
  report.origin_lat_deg = first.lat_deg;
  report.origin_lon_deg = first.lon_deg;
  report.origin_alt_m = frame.origin().alt_m;

  // Track poses by frame index, and time-sorted for interpolation.
  std::map<std::int64_t, const geo::TrackPose*> by_frame;
  std::vector<const geo::TrackPose*> by_time;
  for (const auto& p : track.poses) {
    if (!hasPosition(p)) continue;
    by_frame[p.frame] = &p;
    by_time.push_back(&p);
  }
  std::stable_sort(by_time.begin(), by_time.end(),
                   [](auto* a, auto* b) { return a->t_s < b->t_s; });

  std::vector<MatchedPose> matched(truth.poses.size());
  std::vector<bool> has(truth.poses.size(), false);
  for (size_t i = 0; i < truth.poses.size(); ++i) {
    const geo::TrackPose& t = truth.poses[i];
    if (options.matching == EvalMatching::FrameIndex) {
      const auto it = by_frame.find(t.frame);
      if (it == by_frame.end()) continue;
      matched[i] = toEnu(*it->second, frame);
      has[i] = true;
    } else {
      const auto it = std::lower_bound(by_time.begin(), by_time.end(), t.t_s,
                                       [](auto* p, double ts) { return p->t_s < ts; });
      if (it != by_time.end() && std::abs((*it)->t_s - t.t_s) < 1e-9) {
        matched[i] = toEnu(**it, frame);
        has[i] = true;
      } else if (it != by_time.begin() && it != by_time.end()) {
        const geo::TrackPose* a = *(it - 1);
        const geo::TrackPose* b = *it;
        if (b->t_s - a->t_s > options.max_gap_s) continue;
        const double f = (t.t_s - a->t_s) / (b->t_s - a->t_s);
        const MatchedPose pa = toEnu(*a, frame), pb = toEnu(*b, frame);
        double yaw = geo::TrackPose::kUnknown;
        if (finite(a->yaw_deg) && finite(b->yaw_deg)) {
          yaw = a->yaw_deg + f * nav::wrapAngleDeg(b->yaw_deg - a->yaw_deg);
        }
        matched[i] = {pa.enu + f * (pb.enu - pa.enu), pa.has_alt && pb.has_alt, yaw};
        has[i] = true;
      }
    }
  }

  std::vector<cv::Vec3d> truth_enu(truth.poses.size());
  for (size_t i = 0; i < truth.poses.size(); ++i) truth_enu[i] = toEnu(truth.poses[i], frame).enu;

  if (options.alignment != EvalAlignment::None) {
    std::vector<cv::Vec3d> src, dst;
    for (size_t i = 0; i < truth.poses.size(); ++i) {
      if (!has[i]) continue;
      src.push_back(matched[i].enu);
      dst.push_back(truth_enu[i]);
    }
    umeyamaAlignment(src, dst, options.alignment == EvalAlignment::Similarity,
                     &report.alignment_rotation, &report.alignment_translation_m,
                     &report.alignment_scale);
  }

  for (size_t i = 0; i < truth.poses.size(); ++i) {
    const geo::TrackPose& t = truth.poses[i];
    FrameError f;
    f.frame = t.frame;
    f.t_s = t.t_s;
    f.truth_enu = truth_enu[i];
    f.has_position = has[i];
    f.vertical_m = geo::TrackPose::kUnknown;
    f.heading_error_deg = geo::TrackPose::kUnknown;
    if (has[i]) {
      f.track_enu = report.alignment_scale * (report.alignment_rotation * matched[i].enu) +
                    report.alignment_translation_m;
      const cv::Vec3d d = f.track_enu - f.truth_enu;
      f.horizontal_m = std::hypot(d[0], d[1]);
      if (matched[i].has_alt && finite(t.alt_m)) f.vertical_m = d[2];
      if (finite(matched[i].yaw_deg) && finite(t.yaw_deg)) {
        double yaw_offset = 0;  // an alignment also rotates headings about the vertical
        if (options.alignment != EvalAlignment::None) {
          const cv::Matx33d& r = report.alignment_rotation;
          yaw_offset = -std::atan2(r(0, 1), r(0, 0)) * 180.0 / 3.14159265358979323846;
        }
        f.heading_error_deg = nav::wrapAngleDeg(matched[i].yaw_deg + yaw_offset - t.yaw_deg);
      }
    }
    report.frames.push_back(f);
  }

  report.overall = summarize(report.frames, 0, report.frames.size());
  const double t0 = truth.poses.front().t_s;
  size_t begin = 0;
  while (begin < report.frames.size()) {
    const int index = int(std::floor((report.frames[begin].t_s - t0) / options.segment_s));
    size_t end = begin;
    while (end < report.frames.size() &&
           int(std::floor((report.frames[end].t_s - t0) / options.segment_s)) == index) {
      ++end;
    }
    EvalSegment segment;
    segment.start_s = t0 + index * options.segment_s;
    segment.end_s = segment.start_s + options.segment_s;
    segment.summary = summarize(report.frames, begin, end);
    report.segments.push_back(segment);
    begin = end;
  }
  return report;
}

std::string evalReportJson(const EvalReport& report, bool include_frames) {
  nlohmann::ordered_json j;
  j["truth"] = report.truth_name;
  j["track"] = report.track_name;
  j["matching"] = evalMatchingName(report.options.matching);
  nlohmann::ordered_json alignment;
  alignment["type"] = evalAlignmentName(report.options.alignment);
  if (report.options.alignment != EvalAlignment::None) {
    alignment["note"] =
        "errors are measured AFTER fitting the track onto the truth (Umeyama); they show the "
        "track's shape error, not its absolute georeferencing error";
    alignment["scale"] = report.alignment_scale;
    const cv::Matx33d& r = report.alignment_rotation;
    alignment["rotation_enu"] = {{r(0, 0), r(0, 1), r(0, 2)},
                                 {r(1, 0), r(1, 1), r(1, 2)},
                                 {r(2, 0), r(2, 1), r(2, 2)}};
    alignment["translation_enu_m"] = {report.alignment_translation_m[0],
                                      report.alignment_translation_m[1],
                                      report.alignment_translation_m[2]};
  }
  j["alignment"] = alignment;
  j["enu_origin"] = {{"lat_deg", report.origin_lat_deg},
                     {"lon_deg", report.origin_lon_deg},
                     {"alt_m", report.origin_alt_m}};
  j["definitions"] =
      "horizontal error = hypot(dE, dN) in a local ENU frame at the first truth pose; "
      "fractions are over all truth frames (frames without a position are misses); "
      "segments are fixed-length windows of the truth timeline";
  j["overall"] = summaryJson(report.overall);
  j["segment_s"] = report.options.segment_s;
  nlohmann::ordered_json segments = nlohmann::ordered_json::array();
  for (const auto& s : report.segments) {
    nlohmann::ordered_json js = summaryJson(s.summary);
    js["start_s"] = s.start_s;
    js["end_s"] = s.end_s;
    segments.push_back(js);
  }
  j["segments"] = segments;
  if (include_frames) {
    nlohmann::ordered_json frames = nlohmann::ordered_json::array();
    for (const auto& f : report.frames) {
      nlohmann::ordered_json jf;
      jf["frame"] = f.frame;
      jf["t_s"] = f.t_s;
      jf["has_position"] = f.has_position;
      if (f.has_position) {
        jf["east_error_m"] = f.track_enu[0] - f.truth_enu[0];
        jf["north_error_m"] = f.track_enu[1] - f.truth_enu[1];
        jf["horizontal_error_m"] = f.horizontal_m;
        jf["vertical_error_m"] = numberOrNull(f.vertical_m);
        jf["heading_error_deg"] = numberOrNull(f.heading_error_deg);
      }
      frames.push_back(jf);
    }
    j["frames"] = frames;
  }
  return j.dump(2) + "\n";
}

namespace {

// Maps data coordinates into a pixel rectangle.
struct PlotArea {
  cv::Rect rect;
  double x0, x1, y0, y1;
  cv::Point at(double x, double y) const {
    return {int(std::lround(rect.x + (x - x0) / (x1 - x0) * rect.width)),
            int(std::lround(rect.y + rect.height - (y - y0) / (y1 - y0) * rect.height))};
  }
};

std::string formatTick(double v) {
  if (std::abs(v) < 1e-9) v = 0.0;  // no "-0"
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, std::abs(v) >= 100 || v == std::floor(v) ? "%.0f" : "%.1f",
                v);
  return buffer;
}

double niceStep(double range) {
  const double raw = range / 6.0;
  const double magnitude = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-9))));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (raw <= m * magnitude) return m * magnitude;
  }
  return 10 * magnitude;
}

void drawAxes(cv::Mat& image, const PlotArea& a, const std::string& title,
              const std::string& x_label, const std::string& y_label) {
  const cv::Scalar grid(225, 225, 225), ink(40, 40, 40);
  const double sx = niceStep(a.x1 - a.x0), sy = niceStep(a.y1 - a.y0);
  for (double x = std::ceil(a.x0 / sx) * sx; x <= a.x1; x += sx) {
    cv::line(image, a.at(x, a.y0), a.at(x, a.y1), grid, 1);
    cv::putText(image, formatTick(x), a.at(x, a.y0) + cv::Point(-12, 18),
                cv::FONT_HERSHEY_SIMPLEX, 0.4, ink, 1, cv::LINE_AA);
  }
  for (double y = std::ceil(a.y0 / sy) * sy; y <= a.y1; y += sy) {
    cv::line(image, a.at(a.x0, y), a.at(a.x1, y), grid, 1);
    cv::putText(image, formatTick(y), a.at(a.x0, y) + cv::Point(-48, 4),
                cv::FONT_HERSHEY_SIMPLEX, 0.4, ink, 1, cv::LINE_AA);
  }
  cv::rectangle(image, a.rect, ink, 1);
  cv::putText(image, title, {a.rect.x, a.rect.y - 30}, cv::FONT_HERSHEY_SIMPLEX, 0.6, ink, 1,
              cv::LINE_AA);
  cv::putText(image, x_label, {a.rect.x + a.rect.width / 2 - 30, a.rect.y + a.rect.height + 38},
              cv::FONT_HERSHEY_SIMPLEX, 0.45, ink, 1, cv::LINE_AA);
  cv::putText(image, y_label, {a.rect.x - 55, a.rect.y - 8}, cv::FONT_HERSHEY_SIMPLEX, 0.45, ink,
              1, cv::LINE_AA);
}

}  // namespace

cv::Mat renderEvalPlot(const EvalReport& report, cv::Size size) {
  cv::Mat image(size, CV_8UC3, cv::Scalar(255, 255, 255));
  const cv::Scalar truth_colour(40, 160, 40), track_colour(40, 40, 220);
  const int margin = 70, top = 70;
  const int panel_w = (size.width - 3 * margin) / 2, panel_h = size.height - top - 60;

  // Left: E/N, equal scale.
  double e0 = 1e300, e1 = -1e300, n0 = 1e300, n1 = -1e300;
  for (const auto& f : report.frames) {
    for (const cv::Vec3d* p : {&f.truth_enu, f.has_position ? &f.track_enu : nullptr}) {
      if (!p) continue;
      e0 = std::min(e0, (*p)[0]), e1 = std::max(e1, (*p)[0]);
      n0 = std::min(n0, (*p)[1]), n1 = std::max(n1, (*p)[1]);
    }
  }
  const double span = std::max({e1 - e0, (n1 - n0) * panel_w / double(panel_h), 10.0}) * 1.1;
  const double ec = 0.5 * (e0 + e1), nc = 0.5 * (n0 + n1);
  const double n_span = span * panel_h / double(panel_w);
  const PlotArea map{{margin, top, panel_w, panel_h},
                     ec - span / 2, ec + span / 2, nc - n_span / 2, nc + n_span / 2};
  drawAxes(image, map, "Track (red) vs truth (green), ENU", "east [m]", "north [m]");
  for (size_t i = 1; i < report.frames.size(); ++i) {
    const FrameError &a = report.frames[i - 1], &b = report.frames[i];
    cv::line(image, map.at(a.truth_enu[0], a.truth_enu[1]), map.at(b.truth_enu[0], b.truth_enu[1]),
             truth_colour, 2, cv::LINE_AA);
  }
  for (size_t i = 1; i < report.frames.size(); ++i) {
    const FrameError &a = report.frames[i - 1], &b = report.frames[i];
    if (!a.has_position || !b.has_position) continue;
    cv::line(image, map.at(a.track_enu[0], a.track_enu[1]), map.at(b.track_enu[0], b.track_enu[1]),
             track_colour, 1, cv::LINE_AA);
  }

  // Right: horizontal error over time.
  double t0 = report.frames.empty() ? 0 : report.frames.front().t_s;
  double t1 = report.frames.empty() ? 1 : report.frames.back().t_s;
  if (t1 <= t0) t1 = t0 + 1;
  const double y_max = std::max(25.0, report.overall.horizontal.max_m * 1.1);
  const PlotArea err{{2 * margin + panel_w, top, panel_w, panel_h}, t0, t1, 0.0, y_max};
  char title[160];
  std::snprintf(title, sizeof title, "Horizontal error: RMSE %.2f m, p90 %.2f m, %.0f%% with position%s",
                report.overall.horizontal.rmse_m, report.overall.horizontal.p90_m,
                100.0 * report.overall.fraction_with_position,
                report.options.alignment == EvalAlignment::None
                    ? ""
                    : report.options.alignment == EvalAlignment::Rigid ? " (rigid-aligned)"
                                                                       : " (similarity-aligned)");
  drawAxes(image, err, title, "t [s]", "error [m]");
  for (double guide : {5.0, 10.0, 20.0}) {
    cv::line(image, err.at(t0, guide), err.at(t1, guide), cv::Scalar(150, 150, 150), 1,
             cv::LINE_AA);
  }
  for (size_t i = 1; i < report.frames.size(); ++i) {
    const FrameError &a = report.frames[i - 1], &b = report.frames[i];
    if (!a.has_position || !b.has_position) continue;
    cv::line(image, err.at(a.t_s, std::min(a.horizontal_m, y_max)),
             err.at(b.t_s, std::min(b.horizontal_m, y_max)), track_colour, 1, cv::LINE_AA);
  }
  return image;
}

}  // namespace skytrace::sim
