// Heights above the WGS84 ellipsoid and above mean sea level.
//
// GNSS receivers measure heights above the WGS84 ellipsoid; flight logs mostly record
// heights above mean sea level (MSL), which GPS firmware computes with the EGM96 geoid.
// The formats disagree on which one a coordinate holds: GPX <ele> and KML "absolute"
// altitudes are above mean sea level, GeoJSON's third coordinate is above the ellipsoid
// (RFC 7946, 4). The two differ by the geoid undulation N, from -107 m to +85 m:
//     h_ellipsoid = H_msl + N.
// N comes from the EGM96 geoid model through PROJ (its 15' grid egm96_15.gtx, shipped by
// Debian's proj-data), bilinear between grid nodes; EGM96 itself is good to about 1 m.
// Thread: one object per thread (the PROJ transformation is not shared).
#pragma once

#include <memory>
#include <vector>

namespace skytrace::geo {

class GeoidModel {
 public:
  // Throws GeoreferenceError saying which grid is missing when PROJ cannot apply the
  // EGM96 geoid (it then never falls back to a zero undulation).
  GeoidModel();
  ~GeoidModel();
  GeoidModel(const GeoidModel&) = delete;
  GeoidModel& operator=(const GeoidModel&) = delete;

  // N in metres at each point: the geoid's height above the ellipsoid. Latitude and
  // longitude in degrees (WGS84); the output has one value per input point. Throws
  // InvalidArgument when the two lists differ in length or a point is off the globe.
  std::vector<double> undulationsM(const std::vector<double>& lat_deg,
                                   const std::vector<double>& lon_deg) const;
  double undulationM(double lat_deg, double lon_deg) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace skytrace::geo
