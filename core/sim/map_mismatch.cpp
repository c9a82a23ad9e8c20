#include "core/sim/map_mismatch.h"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/util/check.h"

namespace skytrace::sim {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Smooth random field in [0, 1] (bicubic upsampling of seeded coarse noise).
cv::Mat smoothField(cv::Size size, int cells, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> uniform(0.f, 1.f);
  cv::Mat coarse(cells, cells, CV_32F);
  for (int r = 0; r < cells; ++r)
    for (int c = 0; c < cells; ++c) coarse.at<float>(r, c) = uniform(rng);
  cv::Mat field;
  cv::resize(coarse, field, size, 0, 0, cv::INTER_CUBIC);
  cv::normalize(field, field, 0, 1, cv::NORM_MINMAX);
  return field;
}

}  // namespace

void MapDegradation::check() const {
  checkArgument(gsd_factor >= 1 && gsd_factor <= 16, "degrade GSD factor must be within 1..16");
  checkArgument(blur_sigma_px >= 0 && blur_sigma_px <= 10, "degrade blur must be within 0..10 px");
  checkArgument(season_shift >= 0 && season_shift <= 1, "season shift must be within 0..1");
  checkArgument(colour_shift >= 0 && colour_shift <= 1, "colour shift must be within 0..1");
  checkArgument(brightness_gain > 0.3 && brightness_gain < 3, "brightness gain must be within 0.3..3");
  checkArgument(georeference_offset_m >= 0 && georeference_offset_m <= 100,
                "georeference offset must be within 0..100 m");
  checkArgument(occluded_fraction >= 0 && occluded_fraction <= 0.5,
                "occluded fraction must be within 0..0.5");
}

DegradedBasemapInfo degradeBasemap(const geo::Basemap& source, const geo::MapRect& area,
                                   const std::string& out_path, const MapDegradation& options) {
  options.check();
  std::mt19937_64 rng(options.seed);
  const geo::MapRect rect = area.isEmpty() ? source.mapBounds() : area;
  double gsd = source.pixelSizeM() * options.gsd_factor;
  const double map_units_per_m = source.mapFromPixel().pixelWidth() / source.pixelSizeXM();
  const double longest_m = std::max(rect.width(), rect.height()) / map_units_per_m;
  gsd = std::max(gsd, longest_m / 8192.0);  // keep the written raster moderate
  geo::BasemapWindow window = source.readWindow(rect, gsd);

  cv::Mat rgb = window.rgb.clone();
  if (options.blur_sigma_px > 0) cv::GaussianBlur(rgb, rgb, {0, 0}, options.blur_sigma_px);

  // Season: pull green hues towards dry yellow-brown, desaturate a little, brighten.
  if (options.season_shift > 0 || options.brightness_gain != 1.0) {
    cv::Mat hsv;
    cv::cvtColor(rgb, hsv, cv::COLOR_RGB2HSV);  // H in 0..180
    for (int r = 0; r < hsv.rows; ++r) {
      cv::Vec3b* row = hsv.ptr<cv::Vec3b>(r);
      for (int c = 0; c < hsv.cols; ++c) {
        cv::Vec3b& p = row[c];
        if (p[0] >= 30 && p[0] <= 90) {
          const double weight = options.season_shift * (1.0 - std::abs(p[0] - 60) / 30.0 * 0.5);
          p[0] = cv::saturate_cast<uchar>(p[0] - weight * (p[0] - 22) * 0.7);
          p[1] = cv::saturate_cast<uchar>(p[1] * (1.0 - 0.25 * weight));
        }
        p[2] = cv::saturate_cast<uchar>(p[2] * options.brightness_gain);
      }
    }
    cv::cvtColor(hsv, rgb, cv::COLOR_HSV2RGB);
  }

  // Another sensor: per-channel gain and gamma, lower contrast, haze. The seeded draws
  // come from their own generator so that maps without a colour shift stay as they were.
  if (options.colour_shift > 0) {
    std::mt19937_64 colour_rng(options.seed ^ 0x5a7e11173ULL);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    const double s = options.colour_shift;
    cv::Mat lut(1, 256, CV_8UC3);
    const cv::Vec3d haze(18.0 * s, 22.0 * s, 30.0 * s);  // R, G, B
    const double contrast = 1.0 - 0.3 * s;
    for (int ch = 0; ch < 3; ++ch) {
      const double gain = 1.0 + 0.15 * s * unit(colour_rng);
      const double gamma = 1.0 + 0.25 * s * unit(colour_rng);
      for (int v = 0; v < 256; ++v) {
        double x = std::pow(v / 255.0, gamma) * 255.0 * gain;
        x = 128.0 + (x - 128.0) * contrast + haze[ch];
        lut.at<cv::Vec3b>(0, v)[ch] = cv::saturate_cast<uchar>(x);
      }
    }
    cv::LUT(rgb, lut, rgb);
  }

  // Partial occlusion: soft synthetic clouds covering about occluded_fraction.
  double occluded = 0;
  if (options.occluded_fraction > 0) {
    cv::Mat field = smoothField(rgb.size(), 7, rng);
    cv::Mat sorted = field.reshape(1, 1).clone();
    cv::sort(sorted, sorted, cv::SORT_EVERY_ROW | cv::SORT_ASCENDING);
    const float threshold =
        sorted.at<float>(0, std::min(int(sorted.cols) - 1,
                                     int((1.0 - options.occluded_fraction) * sorted.cols)));
    cv::Mat alpha;
    cv::threshold(field, alpha, threshold, 1.0, cv::THRESH_BINARY);
    cv::GaussianBlur(alpha, alpha, {0, 0}, std::max(2.0, rgb.cols / 200.0));
    cv::Mat rgb_f, cloud(rgb.size(), CV_32FC3, cv::Scalar(235, 235, 238));
    rgb.convertTo(rgb_f, CV_32FC3);
    cv::Mat alpha3;
    cv::merge(std::vector<cv::Mat>{alpha, alpha, alpha}, alpha3);
    rgb_f = rgb_f.mul(cv::Scalar(1, 1, 1) - alpha3) + cloud.mul(alpha3);
    rgb_f.convertTo(rgb, CV_8UC3);
    occluded = cv::countNonZero(alpha > 0.5) / double(alpha.total());
  }

  // Georeference error: shift the geotransform by a small offset in a seeded direction.
  std::uniform_real_distribution<double> bearing(0.0, 2 * kPi);
  const double b = bearing(rng);
  DegradedBasemapInfo info;
  info.offset_east_m = options.georeference_offset_m * std::sin(b);
  info.offset_north_m = options.georeference_offset_m * std::cos(b);
  std::array<double, 6> c = window.map_from_pixel.gdalCoefficients();
  c[0] += info.offset_east_m * map_units_per_m;
  c[3] += info.offset_north_m * map_units_per_m;
  rgb.setTo(cv::Scalar(0, 0, 0), window.valid == 0);
  geo::writeGeoTiff(out_path, rgb, window.valid, geo::GeoTransform(c), source.crsWkt());
  info.path = out_path;
  info.gsd_m = window.gsd_m;
  info.occluded_fraction = occluded;
  return info;
}

}  // namespace skytrace::sim
