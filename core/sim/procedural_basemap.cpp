#include "core/sim/procedural_basemap.h"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "core/geo/basemap.h"
#include "core/geo/geo_transform.h"
#include "core/util/check.h"

namespace skytrace::sim {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Everything is drawn in pixels; lengths are given in metres and scaled by px_per_m.
class Painter {
 public:
  Painter(const ProceduralBasemapOptions& o)
      : size_(o.size_px), px_per_m_(1.0 / o.gsd_m), rng_(o.seed),
        image_(o.size_px, o.size_px, CV_8UC3), occupied_(o.size_px, o.size_px, CV_8U, cv::Scalar(0)) {}

  cv::Mat paint() {
    paintFields();
    paintLake();
    paintRoads();
    paintVillage();
    paintForestAndTrees();
    finish();
    return image_;
  }

 private:
  double px(double metres) const { return metres * px_per_m_; }
  double uniform(double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng_); }
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  // Smooth random field in [0, 1] with about `cells` bumps across the image.
  cv::Mat smoothField(int cells) {
    cv::Mat coarse(cells, cells, CV_32F);
    for (int r = 0; r < cells; ++r)
      for (int c = 0; c < cells; ++c) coarse.at<float>(r, c) = float(uniform(0, 1));
    cv::Mat field;
    cv::resize(coarse, field, {size_, size_}, 0, 0, cv::INTER_CUBIC);
    cv::normalize(field, field, 0, 1, cv::NORM_MINMAX);
    return field;
  }

  void darken(const std::vector<cv::Point>& polygon, double factor) {
    cv::Rect box = cv::boundingRect(polygon) & cv::Rect(0, 0, size_, size_);
    if (box.empty()) return;
    cv::Mat mask = cv::Mat::zeros(box.size(), CV_8U);
    std::vector<cv::Point> local;
    for (const auto& p : polygon) local.push_back(p - box.tl());
    cv::fillPoly(mask, std::vector<std::vector<cv::Point>>{local}, cv::Scalar(255), cv::LINE_AA);
    cv::Mat roi = image_(box);
    for (int r = 0; r < box.height; ++r) {
      for (int c = 0; c < box.width; ++c) {
        const double a = mask.at<uchar>(r, c) / 255.0;
        if (a <= 0) continue;
        cv::Vec3b& p = roi.at<cv::Vec3b>(r, c);
        for (int k = 0; k < 3; ++k) p[k] = cv::saturate_cast<uchar>(p[k] * (1 - a + a * factor));
      }
    }
  }

  bool isFree(const std::vector<cv::Point>& polygon) const {
    const cv::Rect box = cv::boundingRect(polygon);
    if ((box & cv::Rect(0, 0, size_, size_)) != box) return false;
    cv::Mat mask = cv::Mat::zeros(box.size(), CV_8U);
    std::vector<cv::Point> local;
    for (const auto& p : polygon) local.push_back(p - box.tl());
    cv::fillPoly(mask, std::vector<std::vector<cv::Point>>{local}, cv::Scalar(255));
    cv::Mat overlap;
    cv::bitwise_and(mask, occupied_(box), overlap);
    return cv::countNonZero(overlap) == 0;
  }

  void occupy(const std::vector<cv::Point>& polygon) {
    cv::fillPoly(occupied_, std::vector<std::vector<cv::Point>>{polygon}, cv::Scalar(255));
  }

  // Farmland: Voronoi parcels on a jittered grid, each with a crop and a row direction.
  void paintFields() {
    const double spacing = px(75.0);
    cv::Mat seeds_image(size_, size_, CV_8U, cv::Scalar(255));
    std::vector<cv::Point> seeds;
    for (double y = spacing / 2; y < size_ + spacing / 2; y += spacing) {
      for (double x = spacing / 2; x < size_ + spacing / 2; x += spacing) {
        const cv::Point p(std::clamp(int(x + uniform(-0.35, 0.35) * spacing), 0, size_ - 1),
                          std::clamp(int(y + uniform(-0.35, 0.35) * spacing), 0, size_ - 1));
        if (seeds_image.at<uchar>(p) == 0) continue;
        seeds_image.at<uchar>(p) = 0;
        seeds.push_back(p);
      }
    }
    cv::Mat distance;
    cv::distanceTransform(seeds_image, distance, labels_, cv::DIST_L2, cv::DIST_MASK_5,
                          cv::DIST_LABEL_PIXEL);
    struct Crop {
      cv::Vec3d rgb;
      double row_amplitude;
    };
    const std::vector<Crop> crops = {
        {{96, 128, 52}, 0.16},   // green cereal
        {{190, 170, 96}, 0.10},  // ripe wheat
        {{122, 96, 70}, 0.20},   // ploughed soil
        {{120, 150, 72}, 0.05},  // meadow
        {{70, 104, 44}, 0.22},   // maize / dark crop
        {{160, 140, 100}, 0.14}, // stubble
    };
    double min_label = 0, max_label = 0;
    cv::minMaxLoc(labels_, &min_label, &max_label);
    const int n = int(max_label) + 1;
    fields_.resize(n);
    for (auto& f : fields_) {
      const Crop& crop = crops[pick(int(crops.size()))];
      f.rgb = crop.rgb * uniform(0.9, 1.1);
      f.row_amplitude = crop.row_amplitude;
      const double angle = uniform(0, kPi);
      f.cos_a = std::cos(angle);
      f.sin_a = std::sin(angle);
      f.period_px = std::max(2.5, px(uniform(1.2, 2.8)));
    }
    const cv::Mat variation = smoothField(18), fine = smoothField(90);
    for (int y = 0; y < size_; ++y) {
      const int* label = labels_.ptr<int>(y);
      cv::Vec3b* out = image_.ptr<cv::Vec3b>(y);
      const float* v = variation.ptr<float>(y);
      const float* w = fine.ptr<float>(y);
      for (int x = 0; x < size_; ++x) {
        const Field& f = fields_[label[x]];
        const double rows = std::sin(2 * kPi * (x * f.cos_a + y * f.sin_a) / f.period_px);
        const double shade = (1.0 + f.row_amplitude * rows) * (0.85 + 0.25 * v[x]) * (0.93 + 0.14 * w[x]);
        for (int k = 0; k < 3; ++k) out[x][k] = cv::saturate_cast<uchar>(f.rgb[k] * shade);
      }
    }
    // Field margins: grass strips and hedges along parcel boundaries.
    cv::Mat edges(size_, size_, CV_8U, cv::Scalar(0));
    for (int y = 0; y + 1 < size_; ++y) {
      const int* a = labels_.ptr<int>(y);
      const int* b = labels_.ptr<int>(y + 1);
      uchar* e = edges.ptr<uchar>(y);
      for (int x = 0; x + 1 < size_; ++x) e[x] = (a[x] != a[x + 1] || a[x] != b[x]) ? 255 : 0;
    }
    cv::dilate(edges, edges, cv::getStructuringElement(
                                 cv::MORPH_ELLIPSE, cv::Size(int(px(1.5)) | 1, int(px(1.5)) | 1)));
    image_.setTo(cv::Scalar(88, 118, 60), edges);
  }

  void paintLake() {
    const cv::Point2d centre(size_ * uniform(0.62, 0.78), size_ * uniform(0.6, 0.78));
    const double radius = px(uniform(38, 55));
    const double p1 = uniform(0, 2 * kPi), p2 = uniform(0, 2 * kPi);
    std::vector<cv::Point> shore, water;
    for (int i = 0; i < 240; ++i) {
      const double a = 2 * kPi * i / 240;
      const double r = radius * (1 + 0.22 * std::sin(3 * a + p1) + 0.1 * std::sin(5 * a + p2)) *
                       (a < kPi ? 1.25 : 1.0);
      water.emplace_back(int(centre.x + r * std::cos(a)), int(centre.y + 0.8 * r * std::sin(a)));
      const double rs = r + px(3.0);
      shore.emplace_back(int(centre.x + rs * std::cos(a)), int(centre.y + 0.8 * rs * std::sin(a)));
    }
    cv::fillPoly(image_, std::vector<std::vector<cv::Point>>{shore}, cv::Scalar(176, 164, 128),
                 cv::LINE_AA);
    cv::Mat mask = cv::Mat::zeros(size_, size_, CV_8U);
    cv::fillPoly(mask, std::vector<std::vector<cv::Point>>{water}, cv::Scalar(255), cv::LINE_AA);
    const cv::Mat ripple = smoothField(60);
    for (int y = 0; y < size_; ++y) {
      const uchar* m = mask.ptr<uchar>(y);
      cv::Vec3b* out = image_.ptr<cv::Vec3b>(y);
      for (int x = 0; x < size_; ++x) {
        if (!m[x]) continue;
        const double depth = std::min(1.0, cv::norm(cv::Point2d(x, y) - centre) / radius);
        const double r = 0.85 + 0.15 * ripple.at<float>(y, x);
        const cv::Vec3d deep(28, 58, 70), shallow(62, 96, 88);
        const cv::Vec3d c = (deep * (1 - depth) + shallow * depth) * r;
        const double a = m[x] / 255.0;
        for (int k = 0; k < 3; ++k) out[x][k] = cv::saturate_cast<uchar>(out[x][k] * (1 - a) + c[k] * a);
      }
    }
    occupy(shore);
  }

  void drawRoad(const std::vector<cv::Point>& line, double width_m, const cv::Scalar& surface,
                bool markings) {
    const std::vector<std::vector<cv::Point>> lines{line};
    cv::polylines(image_, lines, false, cv::Scalar(168, 160, 140), int(px(width_m + 2.5)), cv::LINE_AA);
    cv::polylines(image_, lines, false, surface, int(px(width_m)), cv::LINE_AA);
    cv::polylines(occupied_, lines, false, cv::Scalar(255), int(px(width_m + 4.0)));
    if (!markings) return;
    const int thickness = std::max(1, int(std::lround(px(0.15))));
    double along = 0;
    for (size_t i = 1; i < line.size(); ++i) {  // dashed centre line: 3 m dash, 6 m gap
      const cv::Point2d a = line[i - 1], b = line[i];
      const double length = cv::norm(b - a);
      for (double s = 0; s < length; s += 1.0) {
        if (std::fmod(along + s, px(9.0)) < px(3.0)) {
          const cv::Point2d p = a + (b - a) * (s / length);
          cv::circle(image_, p, thickness, cv::Scalar(235, 235, 230), -1, cv::LINE_AA);
        }
      }
      along += length;
    }
  }

  void paintRoads() {
    // Main road: gentle curve from the west edge to the east edge.
    const double y0 = size_ * uniform(0.3, 0.45), slope = uniform(-0.15, 0.15);
    const double amplitude = px(uniform(15, 35)), wavelength = size_ * uniform(0.8, 1.2);
    std::vector<cv::Point> main;
    for (int x = -20; x <= size_ + 20; x += 8) {
      main.emplace_back(x, int(y0 + slope * x + amplitude * std::sin(2 * kPi * x / wavelength)));
    }
    // Cross road: nearly north-south, straight.
    const double x0 = size_ * uniform(0.3, 0.45), lean = uniform(-0.2, 0.2);
    std::vector<cv::Point> cross;
    for (int y = -20; y <= size_ + 20; y += 8) cross.emplace_back(int(x0 + lean * y), y);
    // Dirt tracks between fields.
    for (int i = 0; i < 2; ++i) {
      const double ty = size_ * uniform(0.55, 0.95), tx = size_ * uniform(0.05, 0.25);
      std::vector<cv::Point> track{{int(tx), int(ty)},
                                   {int(tx + size_ * uniform(0.3, 0.5)), int(ty + uniform(-1, 1) * size_ * 0.08)}};
      drawRoad(track, 3.0, cv::Scalar(150, 124, 92), false);
    }
    drawRoad(cross, 5.5, cv::Scalar(96, 96, 100), false);
    drawRoad(main, 7.0, cv::Scalar(82, 82, 88), true);
    road_angle_ = std::atan(slope);
    // The crossing (village centre).
    for (const auto& p : cross) {
      const double my = y0 + slope * p.x + amplitude * std::sin(2 * kPi * p.x / wavelength);
      if (std::abs(p.y - my) < 8) {
        junction_ = p;
        break;
      }
    }
    main_road_ = main;
  }

  void paintVillage() {
    std::normal_distribution<double> spread(0.0, px(55.0));
    int placed = 0;
    for (int attempt = 0; attempt < 400 && placed < 45; ++attempt) {
      const cv::Point2d centre(junction_.x + spread(rng_), junction_.y + spread(rng_));
      const double angle = road_angle_ + (pick(2) ? kPi / 2 : 0.0) + uniform(-0.08, 0.08);
      const double length = px(uniform(9, 18)), width = px(uniform(7, 11));
      const cv::Point2d u(std::cos(angle), std::sin(angle)), v(-u.y, u.x);
      auto corner = [&](double a, double b) {
        const cv::Point2d p = centre + u * (a * length / 2) + v * (b * width / 2);
        return cv::Point(int(std::lround(p.x)), int(std::lround(p.y)));
      };
      const std::vector<cv::Point> footprint{corner(-1, -1), corner(1, -1), corner(1, 1), corner(-1, 1)};
      std::vector<cv::Point> yard{corner(-1.6, -1.8), corner(1.6, -1.8), corner(1.6, 1.8), corner(-1.6, 1.8)};
      if (!isFree(yard)) continue;
      // Yard, then the shadow (sun from the south-west: shadows fall to the north-east,
      // i.e. +x and -y in the image), then the gabled roof.
      cv::fillConvexPoly(image_, yard, cv::Scalar(150, 146, 134), cv::LINE_AA);
      const double height = px(uniform(5, 9)) * 0.7;
      std::vector<cv::Point> shadow_points = footprint;
      for (const auto& p : footprint) shadow_points.emplace_back(p.x + int(height), p.y - int(height));
      std::vector<cv::Point> shadow;
      cv::convexHull(shadow_points, shadow);
      darken(shadow, 0.42);
      static const cv::Scalar roofs[] = {{172, 82, 60}, {126, 52, 44}, {108, 108, 114}, {138, 104, 82}};
      const cv::Scalar roof = roofs[pick(4)];
      const std::vector<cv::Point> half_a{corner(-1, -1), corner(1, -1), corner(1, 0), corner(-1, 0)};
      const std::vector<cv::Point> half_b{corner(-1, 0), corner(1, 0), corner(1, 1), corner(-1, 1)};
      // The half whose outward normal points more towards the south-west is lit.
      const bool a_lit = (-v.x * -1 + -v.y * 1) > 0;  // SW in image = (-x, +y)
      cv::fillConvexPoly(image_, half_a, a_lit ? roof * 1.18 : roof * 0.78, cv::LINE_AA);
      cv::fillConvexPoly(image_, half_b, a_lit ? roof * 0.78 : roof * 1.18, cv::LINE_AA);
      cv::line(image_, corner(-1, 0), corner(1, 0), roof * 0.55, std::max(1, int(px(0.3))), cv::LINE_AA);
      occupy(yard);
      ++placed;
    }
  }

  void drawTree(const cv::Point2d& c, double radius_m) {
    const double r = px(radius_m);
    std::vector<cv::Point> shadow;
    cv::ellipse2Poly(cv::Point(int(c.x + 0.9 * r), int(c.y - 0.9 * r)), cv::Size(int(r), int(r)),
                     0, 0, 360, 20, shadow);
    darken(shadow, 0.45);
    const cv::Scalar crown(uniform(34, 60), uniform(66, 98), uniform(28, 46));
    cv::circle(image_, c, int(r), crown, -1, cv::LINE_AA);
    cv::circle(image_, c + cv::Point2d(-0.25 * r, 0.25 * r), int(0.6 * r), crown * 1.25, -1, cv::LINE_AA);
    cv::circle(image_, c + cv::Point2d(-0.35 * r, 0.35 * r), std::max(1, int(0.25 * r)), crown * 1.45,
               -1, cv::LINE_AA);
  }

  void paintForestAndTrees() {
    // Forest patch: a disc of dense crowns away from the village.
    const cv::Point2d forest(size_ * uniform(0.1, 0.3), size_ * uniform(0.7, 0.9));
    const double forest_r = px(uniform(45, 70));
    cv::circle(image_, forest, int(forest_r * 1.05), cv::Scalar(32, 52, 28), -1, cv::LINE_AA);
    for (int i = 0; i < int(forest_r * forest_r / (px(2.6) * px(2.6))); ++i) {
      const double a = uniform(0, 2 * kPi), d = forest_r * std::sqrt(uniform(0, 1));
      drawTree(forest + cv::Point2d(d * std::cos(a), d * std::sin(a)), uniform(2.0, 4.0));
    }
    // Tree rows along the main road.
    for (size_t i = 0; i < main_road_.size(); i += std::max<size_t>(1, size_t(px(12.0) / 8))) {
      if (uniform(0, 1) < 0.25) continue;
      const cv::Point2d p = main_road_[i];
      for (double side : {-1.0, 1.0}) {
        const cv::Point2d q = p + cv::Point2d(0, side * px(9.0));
        if (q.x < 0 || q.y < 0 || q.x >= size_ || q.y >= size_) continue;
        if (occupied_.at<uchar>(int(q.y), int(q.x)) && cv::norm(q - cv::Point2d(junction_)) < px(120))
          continue;
        drawTree(q, uniform(2.5, 3.8));
      }
    }
    // Scattered single trees and small groups.
    for (int i = 0; i < 90; ++i) {
      const cv::Point2d c(uniform(0, size_), uniform(0, size_));
      if (occupied_.at<uchar>(int(c.y), int(c.x))) continue;
      const int group = pick(3) + 1;
      for (int k = 0; k < group; ++k) {
        drawTree(c + cv::Point2d(uniform(-1, 1) * px(5), uniform(-1, 1) * px(5)), uniform(2.0, 4.5));
      }
    }
  }

  void finish() {
    cv::GaussianBlur(image_, image_, {0, 0}, 0.6);
    cv::Mat noise(image_.size(), CV_16SC3);
    cv::RNG cv_rng(rng_());
    cv_rng.fill(noise, cv::RNG::NORMAL, 0.0, 3.0);
    cv::Mat sum;
    cv::add(image_, noise, sum, cv::noArray(), CV_16SC3);
    sum.convertTo(image_, CV_8UC3);
    // Never exactly black: black means nodata to readers that guess.
    cv::max(image_, cv::Scalar(1, 1, 1), image_);
  }

  struct Field {
    cv::Vec3d rgb;
    double row_amplitude = 0, cos_a = 1, sin_a = 0, period_px = 4;
  };

  int size_;
  double px_per_m_;
  std::mt19937_64 rng_;
  cv::Mat image_;     // R,G,B
  cv::Mat occupied_;  // roads, water, buildings
  cv::Mat labels_;
  std::vector<Field> fields_;
  std::vector<cv::Point> main_road_;
  cv::Point junction_{0, 0};
  double road_angle_ = 0;
};

}  // namespace

void ProceduralBasemapOptions::check() const {
  checkArgument(size_px >= 256 && size_px <= 16384, "procedural basemap size must be 256..16384 px");
  checkArgument(gsd_m >= 0.02 && gsd_m <= 5.0, "procedural basemap GSD must be 0.02..5 m");
  checkArgument(!crs.empty(), "procedural basemap needs a CRS");
}

cv::Mat generateProceduralAerialImage(const ProceduralBasemapOptions& options) {
  options.check();
  return Painter(options).paint();
}

void writeProceduralBasemap(const std::string& path, const ProceduralBasemapOptions& options) {
  const cv::Mat rgb = generateProceduralAerialImage(options);
  geo::writeGeoTiff(path, rgb, cv::Mat(),
               geo::GeoTransform::northUp(options.origin_easting_m, options.origin_northing_m,
                                     options.gsd_m, options.gsd_m),
               options.crs);
}

}  // namespace skytrace::sim
