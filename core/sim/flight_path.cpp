#include "core/sim/flight_path.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>

#include "core/util/check.h"

namespace skytrace::sim {
namespace {

constexpr double kPi = 3.14159265358979323846;
// Hovering turn at each end of a pattern flown back and forth (seconds for 180 deg).
constexpr double kEndTurnS = 6.0;
double degrees(double rad) { return rad * 180.0 / kPi; }
// A planar path as a dense polyline, parametrised by arc length.
class ArcLengthPath {
 public:
  explicit ArcLengthPath(std::vector<cv::Point2d> points) : points_(std::move(points)) {
    cumulative_m_.assign(points_.size(), 0.0);
    for (size_t i = 1; i < points_.size(); ++i) {
      cumulative_m_[i] = cumulative_m_[i - 1] + cv::norm(points_[i] - points_[i - 1]);
    }
  }
  double length_m() const { return cumulative_m_.empty() ? 0.0 : cumulative_m_.back(); }

  cv::Point2d at(double s_m) const {
    if (points_.size() == 1) return points_.front();
    s_m = std::clamp(s_m, 0.0, length_m());
    const auto it = std::upper_bound(cumulative_m_.begin(), cumulative_m_.end(), s_m);
    const size_t i = std::clamp<size_t>(size_t(it - cumulative_m_.begin()), 1, points_.size() - 1);
    const double segment = cumulative_m_[i] - cumulative_m_[i - 1];
    const double f = segment > 0 ? (s_m - cumulative_m_[i - 1]) / segment : 0.0;
    return points_[i - 1] + f * (points_[i] - points_[i - 1]);
  }

  // Heading (0 = north, clockwise, degrees) of the tangent at s, smoothed over +-2 m.
  double headingDeg(double s_m) const {
    const cv::Point2d d = at(s_m + 2.0) - at(s_m - 2.0);
    return degrees(std::atan2(d.x, d.y));
  }

 private:
  std::vector<cv::Point2d> points_;  // x = east, y = north
  std::vector<double> cumulative_m_;
};

// Smooth, seeded, zero-mean random signal: a sum of sines with random frequencies
// (0.03..0.4 Hz) and phases, never exceeding the requested amplitude.
class SmoothNoise {
 public:
  SmoothNoise(std::mt19937_64& rng, double amplitude) {
    std::uniform_real_distribution<double> frequency(0.03, 0.4), phase(0.0, 2 * kPi);
    for (auto& c : components_) c = {frequency(rng), phase(rng)};
    amplitude_ = amplitude / components_.size();
  }
  double operator()(double t_s) const {
    double sum = 0;
    for (const auto& c : components_) sum += std::sin(2 * kPi * c.first * t_s + c.second);
    return amplitude_ * sum;
  }

 private:
  std::array<std::pair<double, double>, 4> components_;
  double amplitude_ = 0;
};

void appendLine(std::vector<cv::Point2d>* points, cv::Point2d a, cv::Point2d b, double step_m) {
  const int n = std::max(1, int(std::ceil(cv::norm(b - a) / step_m)));
  for (int i = (points->empty() ? 0 : 1); i <= n; ++i) points->push_back(a + (b - a) * (double(i) / n));
}

std::vector<cv::Point2d> lawnmowerPoints(const FlightPathOptions& o) {
  const EnuRect& r = o.area;
  const bool lines_along_east = r.width_m() >= r.height_m();
  const double across = lines_along_east ? r.height_m() : r.width_m();
  int lines = 4;
  if (o.line_spacing_m > 0) lines = std::max(2, int(std::floor(across / o.line_spacing_m)) + 1);
  const double spacing = across / (lines - 1);
  const double turn_radius = spacing / 2.0;
  std::vector<cv::Point2d> points;
  // Work in (along, across) coordinates, then map to ENU.
  const double along_min = (lines_along_east ? r.min_east_m : r.min_north_m) + turn_radius;
  const double along_max = (lines_along_east ? r.max_east_m : r.max_north_m) - turn_radius;
  const double across_min = lines_along_east ? r.min_north_m : r.min_east_m;
  auto enu = [&](double along, double across_m) {
    return lines_along_east ? cv::Point2d(along, across_m) : cv::Point2d(across_m, along);
  };
  for (int line = 0; line < lines; ++line) {
    const double c = across_min + line * spacing;
    const bool forward = line % 2 == 0;
    const double start = forward ? along_min : along_max, end = forward ? along_max : along_min;
    appendLine(&points, enu(start, c), enu(end, c), 0.5);
    if (line + 1 < lines) {  // semicircular turn to the next line
      const double sign = forward ? 1.0 : -1.0;
      for (int k = 1; k < 36; ++k) {
        const double a = kPi * k / 36.0;
        points.push_back(enu(end + sign * turn_radius * std::sin(a),
                             c + turn_radius * (1.0 - std::cos(a))));
      }
    }
  }
  return points;
}

std::vector<cv::Point2d> orbitPoints(const EnuRect& r) {
  const double radius = 0.5 * std::min(r.width_m(), r.height_m());
  const int n = std::max(72, int(2 * kPi * radius / 0.5));
  std::vector<cv::Point2d> points;
  for (int k = 0; k <= n; ++k) {  // clockwise seen from above, starting south of centre
    const double a = 2 * kPi * k / n;
    points.emplace_back(r.centerEast_m() - radius * std::sin(a),
                        r.centerNorth_m() - radius * std::cos(a));
  }
  return points;
}

std::vector<cv::Point2d> transitPoints(const EnuRect& r) {
  std::vector<cv::Point2d> points;
  appendLine(&points, {r.min_east_m + 0.05 * r.width_m(), r.min_north_m + 0.05 * r.height_m()},
             {r.max_east_m - 0.05 * r.width_m(), r.max_north_m - 0.05 * r.height_m()}, 0.5);
  return points;
}

// Catmull-Rom spline through seeded random waypoints until the path is long enough.
std::vector<cv::Point2d> randomPoints(const EnuRect& r, double min_length_m, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> east(r.min_east_m, r.max_east_m),
      north(r.min_north_m, r.max_north_m);
  std::vector<cv::Point2d> waypoints{{r.centerEast_m(), r.centerNorth_m()}};
  double approx_length = 0;
  while (waypoints.size() < 4 || approx_length < min_length_m * 1.1) {
    cv::Point2d next(east(rng), north(rng));
    // Prefer waypoints at least a third of the area away, for flowing curves.
    for (int tries = 0; tries < 8 && cv::norm(next - waypoints.back()) <
                                         std::min(r.width_m(), r.height_m()) / 3; ++tries) {
      next = {east(rng), north(rng)};
    }
    approx_length += cv::norm(next - waypoints.back());
    waypoints.push_back(next);
  }
  std::vector<cv::Point2d> points;
  for (size_t i = 0; i + 1 < waypoints.size(); ++i) {
    const cv::Point2d p0 = waypoints[i == 0 ? 0 : i - 1], p1 = waypoints[i], p2 = waypoints[i + 1],
                      p3 = waypoints[std::min(i + 2, waypoints.size() - 1)];
    const int n = std::max(8, int(cv::norm(p2 - p1) / 0.5));
    for (int k = (i == 0 ? 0 : 1); k <= n; ++k) {
      const double t = double(k) / n, t2 = t * t, t3 = t2 * t;
      const cv::Point2d p = 0.5 * ((2.0 * p1) + (-p0 + p2) * t + (2.0 * p0 - 5.0 * p1 + 4.0 * p2 - p3) * t2 +
                                   (-p0 + 3.0 * p1 - 3.0 * p2 + p3) * t3);
      // The spline may overshoot the rectangle slightly; keep it inside.
      points.emplace_back(std::clamp(p.x, r.min_east_m, r.max_east_m),
                          std::clamp(p.y, r.min_north_m, r.max_north_m));
    }
  }
  return points;
}

}  // namespace

const char* trajectoryKindName(TrajectoryKind kind) {
  switch (kind) {
    case TrajectoryKind::Lawnmower: return "lawnmower";
    case TrajectoryKind::Orbit: return "orbit";
    case TrajectoryKind::Transit: return "transit";
    case TrajectoryKind::Random: return "random";
  }
  return "lawnmower";
}

TrajectoryKind parseTrajectoryKind(const std::string& name) {
  for (auto kind : {TrajectoryKind::Lawnmower, TrajectoryKind::Orbit, TrajectoryKind::Transit,
                    TrajectoryKind::Random}) {
    if (name == trajectoryKindName(kind)) return kind;
  }
  throw InvalidArgument("unknown trajectory '" + name +
                        "' (valid: lawnmower, orbit, transit, random)");
}

void FlightPathOptions::check() const {
  checkArgument(area.width_m() > 0 && area.height_m() > 0,
                "flight area must have a positive width and height (the basemap's usable area "
                "is smaller than one camera footprint: lower the altitude)");
  checkArgument(altitude_m >= 30.0 && altitude_m <= 300.0,
                "altitude must be within 30..300 m above ground, got " + std::to_string(altitude_m));
  checkArgument(altitude_variation_m >= 0 && altitude_m - 2 * altitude_variation_m >= 10.0,
                "altitude variation must be >= 0 and keep the camera >= 10 m above ground");
  checkArgument(speed_mps > 0 && speed_mps <= 60, "speed must be within (0, 60] m/s");
  checkArgument(fps > 0 && fps <= 120, "fps must be within (0, 120]");
  checkArgument(duration_s >= 0 && duration_s <= 3600, "duration must be within 0..3600 s");
  checkArgument(line_spacing_m >= 0, "line spacing must be >= 0 m");
  checkArgument(std::isnan(gimbal_pitch_deg) || (gimbal_pitch_deg >= -90 && gimbal_pitch_deg <= 0),
                "gimbal pitch must be within -90 (nadir) .. 0 (horizon) degrees");
  checkArgument(attitude_jitter_deg >= 0 && attitude_jitter_deg <= 20,
                "attitude jitter must be within 0..20 degrees");
}

std::vector<nav::CameraPose> generateFlightPath(const FlightPathOptions& o) {
  o.check();
  std::mt19937_64 rng(o.seed);
  double duration_s = o.duration_s;
  std::vector<cv::Point2d> points;
  switch (o.kind) {
    case TrajectoryKind::Lawnmower: points = lawnmowerPoints(o); break;
    case TrajectoryKind::Orbit: points = orbitPoints(o.area); break;
    case TrajectoryKind::Transit: points = transitPoints(o.area); break;
    case TrajectoryKind::Random:
      if (duration_s <= 0) duration_s = 60.0;
      points = randomPoints(o.area, o.speed_mps * duration_s, rng);
      break;
  }
  const ArcLengthPath path(std::move(points));
  if (duration_s <= 0) duration_s = path.length_m() / o.speed_mps;
  const int frames = std::max(1, int(std::floor(duration_s * o.fps + 1e-9)));

  const SmoothNoise yaw_jitter(rng, o.attitude_jitter_deg), pitch_jitter(rng, o.attitude_jitter_deg),
      roll_jitter(rng, o.attitude_jitter_deg), altitude_change(rng, o.altitude_variation_m);
  const bool orbit = o.kind == TrajectoryKind::Orbit;
  const double orbit_radius = 0.5 * std::min(o.area.width_m(), o.area.height_m());
  const double base_pitch = !std::isnan(o.gimbal_pitch_deg) ? o.gimbal_pitch_deg
                            : orbit ? -degrees(std::atan2(o.altitude_m, orbit_radius))
                                    : -90.0;
  const bool look_at_centre = orbit && base_pitch > -89.0;

  std::vector<nav::CameraPose> poses;
  poses.reserve(frames);
  const double length = std::max(path.length_m(), 1e-6);
  // Longer than the pattern: fly it back and forth, hovering at each end while the drone
  // yaws round by 180 deg (a smooth turn of kEndTurnS seconds, 47 deg/s at its fastest).
  // A drone cannot reverse its heading between two frames, and neither can VO follow it.
  const double leg_s = length / o.speed_mps;
  const double cycle_s = 2.0 * (leg_s + kEndTurnS);
  auto turned = [](double fraction) { return 90.0 * (1.0 - std::cos(kPi * fraction)); };  // 0..180
  for (int i = 0; i < frames; ++i) {
    const double t = i / o.fps;
    double s = o.speed_mps * t;
    double turn_deg = 0.0;  // added to the path's heading
    if (orbit) {
      s = std::fmod(s, length);
    } else {
      const double phase = std::fmod(t, cycle_s);
      if (phase < leg_s) {  // out
        s = o.speed_mps * phase;
      } else if (phase < leg_s + kEndTurnS) {  // turning round at the end
        s = length;
        turn_deg = turned((phase - leg_s) / kEndTurnS);
      } else if (phase < 2.0 * leg_s + kEndTurnS) {  // back
        s = length - o.speed_mps * (phase - leg_s - kEndTurnS);
        turn_deg = 180.0;
      } else {  // turning round at the start
        s = 0.0;
        turn_deg = 180.0 + turned((phase - 2.0 * leg_s - kEndTurnS) / kEndTurnS);
      }
    }
    const cv::Point2d p = path.at(s);
    double heading = path.headingDeg(s) + turn_deg;
    if (look_at_centre) {
      heading = degrees(std::atan2(o.area.centerEast_m() - p.x, o.area.centerNorth_m() - p.y));
    }
    nav::CameraPose pose;
    pose.t_s = t;
    pose.position_enu = {p.x, p.y, o.ground_up_m + o.altitude_m + altitude_change(t)};
    // Jitter is added to the angles themselves; at nadir the pitch may then go slightly
    // past -90 (tilted backwards), as DJI gimbals report (their range reaches -120).
    pose.yaw_deg = nav::wrapAngleDeg(heading + o.yaw_offset_deg + yaw_jitter(t));
    pose.pitch_deg = std::min(0.0, base_pitch + pitch_jitter(t));
    pose.roll_deg = roll_jitter(t);
    poses.push_back(pose);
  }
  return poses;
}

}  // namespace skytrace::sim
