// WGS84 geodetic points and local East-North-Up frames.
// Conventions (used everywhere in Skytrace):
//   - GeoPoint: WGS84 latitude/longitude in degrees, altitude in metres (ellipsoidal
//     unless a field says otherwise).
//   - Each flight has a LocalEnuFrame at its first fix: x = east, y = north, z = up, metres.
// Pure math, thread-safe.
#pragma once

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

 private:
  GeoPoint origin_;
  double origin_ecef_[3];
  double enu_from_ecef_[3][3];  // rows: east, north, up unit vectors in ECEF
};

// Geodesic distance on the WGS84 ellipsoid surface between the two points' horizontal
// positions (altitudes ignored), metres; Vincenty's inverse formula, sub-millimetre.
double horizontalDistanceM(const GeoPoint& a, const GeoPoint& b);

}  // namespace skytrace::geo
