// WGS84 <-> ECEF <-> local ENU, exact (no small-angle or flat-earth approximations).
#include "core/geo/geodesy.h"

#include <algorithm>
#include <cmath>

namespace skytrace::geo {
namespace {

// WGS84 ellipsoid.
constexpr double kSemiMajorAxisM = 6378137.0;
constexpr double kFlattening = 1.0 / 298.257223563;
constexpr double kFirstEccentricitySq = kFlattening * (2.0 - kFlattening);
constexpr double kSemiMinorAxisM = kSemiMajorAxisM * (1.0 - kFlattening);
constexpr double kSecondEccentricitySq =
    kFirstEccentricitySq / ((1.0 - kFlattening) * (1.0 - kFlattening));
constexpr double kDegToRad = M_PI / 180.0;
constexpr double kRadToDeg = 180.0 / M_PI;

struct Ecef {
  double x, y, z;
};

Ecef ecefFromGeo(const GeoPoint& p) {
  const double lat = p.lat_deg * kDegToRad;
  const double lon = p.lon_deg * kDegToRad;
  const double sin_lat = std::sin(lat);
  const double cos_lat = std::cos(lat);
  // Prime vertical radius of curvature.
  const double n = kSemiMajorAxisM / std::sqrt(1.0 - kFirstEccentricitySq * sin_lat * sin_lat);
  return {(n + p.alt_m) * cos_lat * std::cos(lon), (n + p.alt_m) * cos_lat * std::sin(lon),
          (n * (1.0 - kFirstEccentricitySq) + p.alt_m) * sin_lat};
}

// Bowring's initial guess refined by Newton-free fixed-point iterations on the
// latitude; converges to well below 1e-12 rad in 3 iterations for any point above the
// Earth's centre region (|h| < 1e6 km).
GeoPoint geoFromEcef(const Ecef& e) {
  const double lon = std::atan2(e.y, e.x);
  const double p = std::hypot(e.x, e.y);
  if (p < 1e-9) {  // on the polar axis
    const double lat = e.z >= 0.0 ? M_PI / 2.0 : -M_PI / 2.0;
    return {lat * kRadToDeg, 0.0, std::abs(e.z) - kSemiMinorAxisM};
  }
  const double theta = std::atan2(e.z * kSemiMajorAxisM, p * kSemiMinorAxisM);
  const double st = std::sin(theta);
  const double ct = std::cos(theta);
  double lat = std::atan2(e.z + kSecondEccentricitySq * kSemiMinorAxisM * st * st * st,
                          p - kFirstEccentricitySq * kSemiMajorAxisM * ct * ct * ct);
  double alt = 0.0;
  for (int i = 0; i < 4; ++i) {
    const double sin_lat = std::sin(lat);
    const double n = kSemiMajorAxisM / std::sqrt(1.0 - kFirstEccentricitySq * sin_lat * sin_lat);
    const double cos_lat = std::cos(lat);
    alt = std::abs(cos_lat) > 1e-12 ? p / cos_lat - n
                                    : std::abs(e.z) / std::abs(sin_lat) - n * (1.0 - kFirstEccentricitySq);
    lat = std::atan2(e.z, p * (1.0 - kFirstEccentricitySq * n / (n + alt)));
  }
  return {lat * kRadToDeg, lon * kRadToDeg, alt};
}

}  // namespace

LocalEnuFrame::LocalEnuFrame(const GeoPoint& origin) : origin_(origin) {
  const Ecef o = ecefFromGeo(origin);
  origin_ecef_[0] = o.x;
  origin_ecef_[1] = o.y;
  origin_ecef_[2] = o.z;
  const double lat = origin.lat_deg * kDegToRad;
  const double lon = origin.lon_deg * kDegToRad;
  const double sl = std::sin(lat), cl = std::cos(lat);
  const double so = std::sin(lon), co = std::cos(lon);
  // east
  enu_from_ecef_[0][0] = -so;
  enu_from_ecef_[0][1] = co;
  enu_from_ecef_[0][2] = 0.0;
  // north
  enu_from_ecef_[1][0] = -sl * co;
  enu_from_ecef_[1][1] = -sl * so;
  enu_from_ecef_[1][2] = cl;
  // up
  enu_from_ecef_[2][0] = cl * co;
  enu_from_ecef_[2][1] = cl * so;
  enu_from_ecef_[2][2] = sl;
}

EnuPoint LocalEnuFrame::toEnu(const GeoPoint& p) const {
  const Ecef e = ecefFromGeo(p);
  const double d[3] = {e.x - origin_ecef_[0], e.y - origin_ecef_[1], e.z - origin_ecef_[2]};
  double out[3];
  for (int r = 0; r < 3; ++r) {
    out[r] = enu_from_ecef_[r][0] * d[0] + enu_from_ecef_[r][1] * d[1] + enu_from_ecef_[r][2] * d[2];
  }
  return {out[0], out[1], out[2]};
}

GeoPoint LocalEnuFrame::toGeo(const EnuPoint& p) const {
  const double enu[3] = {p.east_m, p.north_m, p.up_m};
  double ecef[3];
  // ecef_from_enu is the transpose of the orthonormal enu_from_ecef.
  for (int c = 0; c < 3; ++c) {
    ecef[c] = origin_ecef_[c] + enu_from_ecef_[0][c] * enu[0] + enu_from_ecef_[1][c] * enu[1] +
              enu_from_ecef_[2][c] * enu[2];
  }
  return geoFromEcef({ecef[0], ecef[1], ecef[2]});
}

double LocalEnuFrame::northAzimuthDeg(const GeoPoint& p) const {
  const double lat = p.lat_deg * kDegToRad;
  const double lon = p.lon_deg * kDegToRad;
  // True north at p in ECEF, then its east and north components in this frame.
  const double north[3] = {-std::sin(lat) * std::cos(lon), -std::sin(lat) * std::sin(lon), std::cos(lat)};
  double enu[2];
  for (int r = 0; r < 2; ++r)
    enu[r] = enu_from_ecef_[r][0] * north[0] + enu_from_ecef_[r][1] * north[1] + enu_from_ecef_[r][2] * north[2];
  return std::atan2(enu[0], enu[1]) * kRadToDeg;
}

GeoBBox boundingBox(const std::vector<GeoPoint>& points, PointSet kind) {
  GeoBBox box;
  if (points.empty()) return box;
  box.min_lat_deg = box.max_lat_deg = points.front().lat_deg;
  std::vector<double> lons;
  lons.reserve(points.size());
  for (const GeoPoint& p : points) {
    box.min_lat_deg = std::min(box.min_lat_deg, p.lat_deg);
    box.max_lat_deg = std::max(box.max_lat_deg, p.lat_deg);
    double lon = std::remainder(p.lon_deg, 360.0);  // [-180, 180]
    if (lon == 180.0) lon = -180.0;
    lons.push_back(lon);
  }
  if (kind == PointSet::kClosedRing && points.size() >= 3) {
    // Winding number about the polar axis: a ring around a pole turns through 360 deg
    // of longitude, any other ring through 0.
    double turned = 0.0;
    for (std::size_t i = 0; i < points.size(); ++i)
      turned += std::remainder(points[(i + 1) % points.size()].lon_deg - points[i].lon_deg, 360.0);
    if (std::abs(turned) > 180.0) {
      const bool north = box.min_lat_deg + box.max_lat_deg > 0.0;
      (north ? box.max_lat_deg : box.min_lat_deg) = north ? 90.0 : -90.0;
      box.min_lon_deg = -180.0;
      box.max_lon_deg = 180.0;
      return box;
    }
  }
  // The shortest arc holding every longitude leaves out the largest gap between them.
  std::sort(lons.begin(), lons.end());
  double largest_gap = lons.front() + 360.0 - lons.back();  // across the antimeridian
  std::size_t gap_end = 0;                                   // first longitude after it
  for (std::size_t i = 1; i < lons.size(); ++i) {
    if (lons[i] - lons[i - 1] > largest_gap) {
      largest_gap = lons[i] - lons[i - 1];
      gap_end = i;
    }
  }
  box.min_lon_deg = lons[gap_end];
  box.max_lon_deg = gap_end == 0 ? lons.back() : lons[gap_end - 1];
  return box;
}

double horizontalDistanceM(const GeoPoint& a, const GeoPoint& b) {
  // Vincenty's inverse formula on the WGS84 ellipsoid (sub-millimetre for any pair that
  // converges). Nearly antipodal pairs may not converge: they fall back to the surface
  // chord, which is irrelevant for flights but keeps the function total.
  const double l = std::remainder(b.lon_deg - a.lon_deg, 360.0) * kDegToRad;
  const double u1 = std::atan((1.0 - kFlattening) * std::tan(a.lat_deg * kDegToRad));
  const double u2 = std::atan((1.0 - kFlattening) * std::tan(b.lat_deg * kDegToRad));
  const double sin_u1 = std::sin(u1), cos_u1 = std::cos(u1);
  const double sin_u2 = std::sin(u2), cos_u2 = std::cos(u2);
  double lambda = l;
  for (int iteration = 0; iteration < 200; ++iteration) {
    const double sin_lambda = std::sin(lambda), cos_lambda = std::cos(lambda);
    const double sin_sigma = std::hypot(cos_u2 * sin_lambda,
                                        cos_u1 * sin_u2 - sin_u1 * cos_u2 * cos_lambda);
    if (sin_sigma == 0.0) return 0.0;  // coincident points
    const double cos_sigma = sin_u1 * sin_u2 + cos_u1 * cos_u2 * cos_lambda;
    const double sigma = std::atan2(sin_sigma, cos_sigma);
    const double sin_alpha = cos_u1 * cos_u2 * sin_lambda / sin_sigma;
    const double cos_sq_alpha = 1.0 - sin_alpha * sin_alpha;
    const double cos_2sigma_m =
        cos_sq_alpha != 0.0 ? cos_sigma - 2.0 * sin_u1 * sin_u2 / cos_sq_alpha : 0.0;  // equatorial line
    const double c = kFlattening / 16.0 * cos_sq_alpha * (4.0 + kFlattening * (4.0 - 3.0 * cos_sq_alpha));
    const double previous = lambda;
    lambda = l + (1.0 - c) * kFlattening * sin_alpha *
                     (sigma + c * sin_sigma *
                                  (cos_2sigma_m + c * cos_sigma * (-1.0 + 2.0 * cos_2sigma_m * cos_2sigma_m)));
    if (std::abs(lambda - previous) < 1e-12) {
      const double u_sq = cos_sq_alpha * kSecondEccentricitySq;
      const double big_a = 1.0 + u_sq / 16384.0 * (4096.0 + u_sq * (-768.0 + u_sq * (320.0 - 175.0 * u_sq)));
      const double big_b = u_sq / 1024.0 * (256.0 + u_sq * (-128.0 + u_sq * (74.0 - 47.0 * u_sq)));
      const double delta_sigma =
          big_b * sin_sigma *
          (cos_2sigma_m + big_b / 4.0 *
                              (cos_sigma * (-1.0 + 2.0 * cos_2sigma_m * cos_2sigma_m) -
                               big_b / 6.0 * cos_2sigma_m * (-3.0 + 4.0 * sin_sigma * sin_sigma) *
                                   (-3.0 + 4.0 * cos_2sigma_m * cos_2sigma_m)));
      return kSemiMinorAxisM * big_a * (sigma - delta_sigma);
    }
  }
  const Ecef ea = ecefFromGeo({a.lat_deg, a.lon_deg, 0.0});
  const Ecef eb = ecefFromGeo({b.lat_deg, b.lon_deg, 0.0});
  return std::sqrt((ea.x - eb.x) * (ea.x - eb.x) + (ea.y - eb.y) * (ea.y - eb.y) +
                   (ea.z - eb.z) * (ea.z - eb.z));
}

double ringAreaM2(const std::vector<GeoPoint>& ring) {
  if (ring.size() < 3) return 0.0;
  const LocalEnuFrame plane(GeoPoint{ring.front().lat_deg, ring.front().lon_deg, 0.0});
  double twice_area = 0.0;  // the shoelace formula on the plane
  EnuPoint previous = plane.toEnu({ring.back().lat_deg, ring.back().lon_deg, 0.0});
  for (const GeoPoint& p : ring) {
    const EnuPoint current = plane.toEnu({p.lat_deg, p.lon_deg, 0.0});
    twice_area += previous.east_m * current.north_m - current.east_m * previous.north_m;
    previous = current;
  }
  return std::abs(twice_area) / 2.0;
}

}  // namespace skytrace::geo
