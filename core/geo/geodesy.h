// WGS84 geodetic points and local East-North-Up frames.
// Conventions (used everywhere in Skytrace):
//   - GeoPoint: WGS84 latitude/longitude in degrees, altitude in metres (ellipsoidal
//     unless a field says otherwise).
//   - Each flight has a LocalEnuFrame at its first fix: x = east, y = north, z = up, metres.
// Pure math, thread-safe.
#pragma once

#include <vector>

namespace skytrace::geo {

struct GeoPoint {
  double lat_deg = 0.0;
  double lon_deg = 0.0;
  double alt_m = 0.0;
};

struct EnuPoint {
  double east_m = 0.0;
  double north_m = 0.0;
  double up_m = 0.0;
};

// Exact (ECEF-based) conversion between WGS84 and a tangent-plane ENU frame.
class LocalEnuFrame {
 public:
  explicit LocalEnuFrame(const GeoPoint& origin);

  const GeoPoint& origin() const { return origin_; }
  EnuPoint toEnu(const GeoPoint& p) const;
  GeoPoint toGeo(const EnuPoint& p) const;

  // Where true north at `p` points in this frame's horizontal plane: degrees clockwise
  // from the frame's north axis (0 at the origin's meridian; the meridian convergence,
  // about delta_lon * sin(lat): 0.01 deg per km at 45 deg, tens of degrees near a pole).
  // A heading measured in this frame (ENU yaw) is a true heading at `p` after
  // subtracting this; a true heading becomes an ENU yaw by adding it. Undefined at a
  // pole itself (every direction is south): there the meridian of p.lon_deg counts as
  // north.
  double northAzimuthDeg(const GeoPoint& p) const;

 private:
  GeoPoint origin_;
  double origin_ecef_[3];
  double enu_from_ecef_[3][3];  // rows: east, north, up unit vectors in ECEF
};

// A WGS84 latitude/longitude box, degrees. As in GeoJSON (RFC 7946, 5.2) a box across
// the antimeridian has min_lon_deg > max_lon_deg: min is its western edge, max its
// eastern one.
struct GeoBBox {
  double min_lat_deg = 0.0;
  double min_lon_deg = 0.0;
  double max_lat_deg = 0.0;
  double max_lon_deg = 0.0;

  bool crossesAntimeridian() const { return min_lon_deg > max_lon_deg; }
  // The point's latitude and longitude lie in the box (edges included; a box across the
  // antimeridian holds the longitudes east of min and west of max).
  bool contains(double lat_deg, double lon_deg) const {
    const bool lon_in = crossesAntimeridian() ? (lon_deg >= min_lon_deg || lon_deg <= max_lon_deg)
                                              : (lon_deg >= min_lon_deg && lon_deg <= max_lon_deg);
    return lon_in && lat_deg >= min_lat_deg && lat_deg <= max_lat_deg;
  }
};

// What the points of a GeoBBox are.
enum class PointSet {
  kPoints,      // unrelated points or a line (a track)
  kClosedRing,  // a polygon's outline in order (a raster's edges): it may enclose a pole
};

// The smallest box holding the points (longitudes in [-180, 180]): longitudes cover the
// shortest arc holding them all, across the antimeridian when that is shorter; a ring
// that winds around a pole contains it, so its box reaches the pole's latitude and spans
// every longitude (-180 .. 180). Empty input: a zero box.
GeoBBox boundingBox(const std::vector<GeoPoint>& points, PointSet kind);

// Geodesic distance on the WGS84 ellipsoid surface between the two points' horizontal
// positions (altitudes ignored), metres; Vincenty's inverse formula, sub-millimetre.
double horizontalDistanceM(const GeoPoint& a, const GeoPoint& b);

// Area enclosed by a ring of points (in order, either direction, not repeating the first
// at the end), square metres; altitudes ignored. Measured on the tangent plane at the
// ring's first point: within 1e-5 of the ellipsoidal area for rings up to 10 km across,
// which is what a map measurement needs. Fewer than three points: 0.
double ringAreaM2(const std::vector<GeoPoint>& ring);

}  // namespace skytrace::geo
