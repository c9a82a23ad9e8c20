#include "core/sim/flight_renderer.h"

#include <gdal_priv.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <random>
#include <vector>

#include "core/geo/crs_transform.h"
#include "core/util/check.h"
#include "core/util/error.h"

namespace skytrace::sim {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Smooth zero-mean signal of unit RMS from a seed: a sum of 4 sines (0.02..0.2 Hz).
class SmoothSignal {
 public:
  explicit SmoothSignal(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> frequency(0.02, 0.2), phase(0.0, 2 * kPi);
    for (auto& c : components_) c = {frequency(rng), phase(rng)};
  }
  double operator()(double t_s) const {
    double sum = 0;
    for (const auto& c : components_) sum += std::sin(2 * kPi * c.first * t_s + c.second);
    return sum / std::sqrt(2.0);  // 4 unit sines have RMS sqrt(2)
  }

 private:
  std::array<std::pair<double, double>, 4> components_;
};

// Affine map from ENU (east, north) to a raster's OpenCV pixel coordinates (pixel
// centres at integers), fitted exactly at three points around `centre`.
struct EnuToPixelAffine {
  double e0 = 0, n0 = 0;
  double col0 = 0, col_e = 0, col_n = 0, row0 = 0, row_e = 0, row_n = 0;

  static EnuToPixelAffine fit(const geo::MapGeoConverter& converter,
                              const geo::LocalEnuFrame& frame,
                              const geo::GeoTransform& map_from_pixel, double e0, double n0,
                              double up_m, double step_m) {
    auto pixelAt = [&](double e, double n) {
      const geo::MapPoint m = converter.mapFromEnu(frame, {e, n, up_m});
      const geo::PixelPoint p = map_from_pixel.pixelFromMap(m);
      return cv::Point2d(p.col - 0.5, p.row - 0.5);  // GDAL corner -> OpenCV centre
    };
    const cv::Point2d p0 = pixelAt(e0, n0), pe = pixelAt(e0 + step_m, n0),
                      pn = pixelAt(e0, n0 + step_m);
    EnuToPixelAffine a;
    a.e0 = e0;
    a.n0 = n0;
    a.col0 = p0.x;
    a.row0 = p0.y;
    a.col_e = (pe.x - p0.x) / step_m;
    a.row_e = (pe.y - p0.y) / step_m;
    a.col_n = (pn.x - p0.x) / step_m;
    a.row_n = (pn.y - p0.y) / step_m;
    return a;
  }
  float col(double e, double n) const { return float(col0 + col_e * (e - e0) + col_n * (n - n0)); }
  float row(double e, double n) const { return float(row0 + row_e * (e - e0) + row_n * (n - n0)); }
};

}  // namespace

// ---------------------------------------------------------------- SurfaceModel

SurfaceModel SurfaceModel::open(const std::string& path) {
  if (!std::filesystem::exists(path)) throw IoError(path + ": DSM file not found");
  GDALAllRegister();
  std::unique_ptr<GDALDataset> dataset(
      static_cast<GDALDataset*>(GDALOpen(path.c_str(), GA_ReadOnly)));
  if (!dataset) {
    throw FormatError(path + ": GDAL cannot read this DSM (" + CPLGetLastErrorMsg() + ")");
  }
  SurfaceModel dsm;
  dsm.path_ = path;
  std::array<double, 6> c{};
  const char* wkt = dataset->GetProjectionRef();
  if (dataset->GetGeoTransform(c.data()) != CE_None || !wkt || !*wkt) {
    throw GeoreferenceError(path + " has no georeference (no geotransform/CRS)");
  }
  dsm.crs_wkt_ = wkt;
  dsm.map_from_pixel_ = geo::GeoTransform(c);
  GDALRasterBand* band = dataset->GetRasterBand(1);
  const int w = dataset->GetRasterXSize(), h = dataset->GetRasterYSize();
  checkArgument(double(w) * h <= 16384.0 * 16384.0, path + ": DSM too large to hold in memory");
  dsm.heights_.create(h, w, CV_32F);
  if (band->RasterIO(GF_Read, 0, 0, w, h, dsm.heights_.data, w, h, GDT_Float32, 0, 0) !=
      CE_None) {
    throw IoError(path + ": failed to read the DSM heights (" + CPLGetLastErrorMsg() + ")");
  }
  int has_nodata = 0;
  const double nodata = band->GetNoDataValue(&has_nodata);
  std::vector<float> valid_heights;
  for (int r = 0; r < h; ++r) {
    float* row = dsm.heights_.ptr<float>(r);
    for (int col = 0; col < w; ++col) {
      if ((has_nodata && row[col] == float(nodata)) || !std::isfinite(row[col]) ||
          row[col] < -1000.0f) {
        row[col] = std::numeric_limits<float>::quiet_NaN();
      } else if ((r * w + col) % 7 == 0) {
        valid_heights.push_back(row[col]);
      }
    }
  }
  if (valid_heights.empty()) throw FormatError(path + ": the DSM holds no valid height");
  std::nth_element(valid_heights.begin(), valid_heights.begin() + valid_heights.size() / 2,
                   valid_heights.end());
  dsm.median_height_m_ = valid_heights[valid_heights.size() / 2];
  return dsm;
}

double SurfaceModel::heightAt(const geo::MapPoint& p) const {
  const geo::PixelPoint px = map_from_pixel_.pixelFromMap(p);
  const double x = px.col - 0.5, y = px.row - 0.5;
  const int x0 = int(std::floor(x)), y0 = int(std::floor(y));
  if (x0 < 0 || y0 < 0 || x0 + 1 >= heights_.cols || y0 + 1 >= heights_.rows) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  const double fx = x - x0, fy = y - y0;
  const float* r0 = heights_.ptr<float>(y0);
  const float* r1 = heights_.ptr<float>(y0 + 1);
  return (1 - fy) * ((1 - fx) * r0[x0] + fx * r0[x0 + 1]) +
         fy * ((1 - fx) * r1[x0] + fx * r1[x0 + 1]);  // NaN propagates
}

// ---------------------------------------------------------------- options

void ImageEffects::check() const {
  checkArgument(exposure_variation >= 0 && exposure_variation <= 0.5,
                "exposure variation must be within 0..0.5");
  checkArgument(colour_variation >= 0 && colour_variation <= 0.3,
                "colour variation must be within 0..0.3");
  checkArgument(noise_sigma >= 0 && noise_sigma <= 50, "noise sigma must be within 0..50");
  checkArgument(shutter_s >= 0 && shutter_s <= 0.1, "shutter time must be within 0..0.1 s");
  checkArgument(jpeg_quality >= 0 && jpeg_quality <= 100, "JPEG quality must be within 0..100");
}

void RenderOptions::check() const {
  checkArgument(max_range_m > 0, "max range must be > 0 m");
  checkArgument(max_window_px >= 256, "max window size must be >= 256 px");
  effects.check();
}

// ---------------------------------------------------------------- FlightRenderer

struct FlightRenderer::Impl {
  const geo::Basemap& basemap;
  geo::LocalEnuFrame enu_frame;
  RenderOptions options;
  const SurfaceModel* dsm;
  std::unique_ptr<geo::MapGeoConverter> dsm_converter;
  std::vector<cv::Vec3d> rays_in_cam;  // (x, y, 1) undistorted, row-major per pixel
  SmoothSignal exposure{1}, red{2}, green{3}, blue{4};

  // Cache of the last basemap window: consecutive frames mostly fit into it.
  mutable std::mutex cache_mutex;
  mutable geo::BasemapWindow cached_window;
  mutable geo::MapRect cached_rect;

  Impl(const geo::Basemap& b, const geo::LocalEnuFrame& f, const RenderOptions& o,
       const SurfaceModel* d)
      : basemap(b), enu_frame(f), options(o), dsm(d) {}

};

namespace {

// Affine ENU (east, north) -> DSM map coordinates, fitted exactly at three points (the
// same accuracy argument as EnuToPixelAffine), so that per-pixel DSM lookups need no
// PROJ call.
struct EnuToMapAffine {
  double e0 = 0, n0 = 0, x0 = 0, x_e = 0, x_n = 0, y0 = 0, y_e = 0, y_n = 0;
  static EnuToMapAffine fit(const geo::MapGeoConverter& converter, const geo::LocalEnuFrame& frame,
                            double e0, double n0, double up_m, double step_m) {
    const geo::MapPoint p0 = converter.mapFromEnu(frame, {e0, n0, up_m});
    const geo::MapPoint pe = converter.mapFromEnu(frame, {e0 + step_m, n0, up_m});
    const geo::MapPoint pn = converter.mapFromEnu(frame, {e0, n0 + step_m, up_m});
    return {e0, n0, p0.x, (pe.x - p0.x) / step_m, (pn.x - p0.x) / step_m,
            p0.y, (pe.y - p0.y) / step_m, (pn.y - p0.y) / step_m};
  }
  geo::MapPoint at(double e, double n) const {
    return {x0 + x_e * (e - e0) + x_n * (n - n0), y0 + y_e * (e - e0) + y_n * (n - n0)};
  }
};

}  // namespace

FlightRenderer::FlightRenderer(const geo::Basemap& basemap, const geo::LocalEnuFrame& enu_frame,
                               const nav::CameraModel& camera, const RenderOptions& options,
                               const SurfaceModel* dsm)
    : impl_(std::make_unique<Impl>(basemap, enu_frame, options, dsm)), camera_(camera) {
  camera.check();
  options.check();
  if (dsm) impl_->dsm_converter = std::make_unique<geo::MapGeoConverter>(dsm->crsWkt());
  impl_->rays_in_cam.resize(size_t(camera.width_px) * camera.height_px);
  for (int v = 0; v < camera.height_px; ++v) {
    for (int u = 0; u < camera.width_px; ++u) {
      const cv::Point2d n = camera.normalizedFromPixel({double(u), double(v)});
      impl_->rays_in_cam[size_t(v) * camera.width_px + u] = {n.x, n.y, 1.0};
    }
  }
  const std::uint64_t s = options.effects.seed;
  impl_->exposure = SmoothSignal(s * 4 + 1);
  impl_->red = SmoothSignal(s * 4 + 2);
  impl_->green = SmoothSignal(s * 4 + 3);
  impl_->blue = SmoothSignal(s * 4 + 4);
}

FlightRenderer::~FlightRenderer() = default;

RenderedFrame FlightRenderer::renderClean(const nav::CameraPose& pose) const {
  const Impl& m = *impl_;
  const int w = camera_.width_px, h = camera_.height_px;
  const cv::Matx33d enu_from_cam = pose.enuFromCam();
  const cv::Vec3d c = pose.position_enu;
  const double plane_up = m.dsm ? m.dsm->medianHeight_m() + m.options.dsm_up_offset_m
                                : m.options.ground_up_m;
  RenderedFrame out;
  out.bgr = cv::Mat::zeros(h, w, CV_8UC3);
  out.valid = cv::Mat::zeros(h, w, CV_8UC1);

  // 1. Footprint and finest needed ground resolution from a coarse grid of rays.
  constexpr int kGrid = 17;
  double min_e = 1e300, max_e = -1e300, min_n = 1e300, max_n = -1e300, finest_gsd = 1e300;
  int grid_hits = 0;
  for (int gy = 0; gy < kGrid; ++gy) {
    for (int gx = 0; gx < kGrid; ++gx) {
      const int u = std::min(w - 1, int(std::lround(gx * (w - 1) / double(kGrid - 1))));
      const int v = std::min(h - 1, int(std::lround(gy * (h - 1) / double(kGrid - 1))));
      const cv::Vec3d d = enu_from_cam * m.rays_in_cam[size_t(v) * w + u];
      if (d[2] >= -1e-9) continue;
      const double t = (plane_up - c[2]) / d[2];
      const double range = t * cv::norm(d);
      if (t <= 0 || range > m.options.max_range_m) continue;
      const double e = c[0] + t * d[0], n = c[1] + t * d[1];
      min_e = std::min(min_e, e), max_e = std::max(max_e, e);
      min_n = std::min(min_n, n), max_n = std::max(max_n, n);
      finest_gsd = std::min(finest_gsd, range / camera_.fx_px);
      ++grid_hits;
    }
  }
  if (grid_hits == 0) {
    out.invalid_fraction = 1.0;
    return out;
  }
  // Margin: grid cells may hide footprint parts near a horizon; DSM relief shifts points.
  const double margin = 0.1 * std::max(max_e - min_e, max_n - min_n) + 5.0 * finest_gsd +
                        (m.dsm ? 0.5 * std::abs(c[2] - plane_up) : 0.0);
  min_e -= margin, max_e += margin, min_n -= margin, max_n += margin;

  // 2. The basemap window (cached while the footprint stays inside at a similar GSD).
  const double gsd = std::max({finest_gsd, m.basemap.pixelSizeM(),
                               std::max(max_e - min_e, max_n - min_n) / m.options.max_window_px});
  const geo::MapGeoConverter& converter = m.basemap.converter();
  std::vector<geo::MapPoint> samples_in_map;
  for (double e : {min_e, 0.5 * (min_e + max_e), max_e}) {
    for (double n : {min_n, 0.5 * (min_n + max_n), max_n}) {
      samples_in_map.push_back(converter.mapFromEnu(m.enu_frame, {e, n, plane_up}));
    }
  }
  const geo::MapRect rect = geo::envelopeOf(samples_in_map);
  geo::BasemapWindow window;
  {
    std::lock_guard<std::mutex> lock(m.cache_mutex);
    const geo::BasemapWindow& cached = m.cached_window;
    const bool reusable = !cached.rgb.empty() && rect.min_x >= m.cached_rect.min_x &&
                          rect.max_x <= m.cached_rect.max_x && rect.min_y >= m.cached_rect.min_y &&
                          rect.max_y <= m.cached_rect.max_y && cached.gsd_m <= gsd * 1.25 &&
                          cached.gsd_m >= gsd * 0.8;
    if (!reusable) {
      // Read with slack around the footprint so that the next frames reuse it.
      const double slack_x = 0.5 * rect.width(), slack_y = 0.5 * rect.height();
      geo::MapRect padded{rect.min_x - slack_x, rect.min_y - slack_y, rect.max_x + slack_x,
                          rect.max_y + slack_y};
      const double padded_gsd =
          std::max(gsd, 2.0 * std::max(max_e - min_e, max_n - min_n) / m.options.max_window_px);
      m.cached_window = m.basemap.readWindow(padded, padded_gsd);
      m.cached_rect = padded;
    }
    window = m.cached_window;  // shares pixel buffers (cv::Mat refcount)
  }
  out.window_gsd_m = window.gsd_m;

  // 3. Per-pixel ground intersection -> window pixel coordinates.
  const double e_mid = 0.5 * (min_e + max_e), n_mid = 0.5 * (min_n + max_n);
  const EnuToPixelAffine to_pixel = EnuToPixelAffine::fit(
      converter, m.enu_frame, window.map_from_pixel, e_mid, n_mid, plane_up,
      std::max(10.0, 0.5 * std::max(max_e - min_e, max_n - min_n)));
  EnuToMapAffine to_dsm;
  if (m.dsm) {
    to_dsm = EnuToMapAffine::fit(*m.dsm_converter, m.enu_frame, e_mid, n_mid, plane_up,
                                 std::max(10.0, 0.5 * std::max(max_e - min_e, max_n - min_n)));
  }
  auto groundUp = [&](double e, double n) {
    const double height = m.dsm->heightAt(to_dsm.at(e, n));
    return std::isfinite(height) ? height + m.options.dsm_up_offset_m : plane_up;
  };
  cv::Mat map_x(h, w, CV_32F), map_y(h, w, CV_32F);
  cv::Mat ray_valid(h, w, CV_8U);
  cv::parallel_for_(cv::Range(0, h), [&](const cv::Range& rows) {
    for (int v = rows.start; v < rows.end; ++v) {
      float* mx = map_x.ptr<float>(v);
      float* my = map_y.ptr<float>(v);
      uchar* ok = ray_valid.ptr<uchar>(v);
      for (int u = 0; u < w; ++u) {
        const cv::Vec3d d = enu_from_cam * m.rays_in_cam[size_t(v) * w + u];
        mx[u] = my[u] = -1e6f;
        ok[u] = 0;
        if (d[2] >= -1e-9) continue;
        double t = (plane_up - c[2]) / d[2];
        if (t <= 0 || t * cv::norm(d) > m.options.max_range_m) continue;
        if (m.dsm) {  // fixed-point iteration onto the surface
          for (int k = 0; k < 6; ++k) {
            const double ground = groundUp(c[0] + t * d[0], c[1] + t * d[1]);
            const double t_next = (ground - c[2]) / d[2];
            if (t_next <= 0) break;
            const bool converged = std::abs(t_next - t) * cv::norm(d) < 0.01;
            t = t_next;
            if (converged) break;
          }
        }
        const double e = c[0] + t * d[0], n = c[1] + t * d[1];
        mx[u] = to_pixel.col(e, n);
        my[u] = to_pixel.row(e, n);
        ok[u] = 255;
      }
    }
  });

  // 4. Sample colour and validity.
  cv::Mat rgb, valid;
  cv::remap(window.rgb, rgb, map_x, map_y, cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar());
  cv::remap(window.valid, valid, map_x, map_y, cv::INTER_NEAREST, cv::BORDER_CONSTANT,
            cv::Scalar(0));
  cv::bitwise_and(valid, ray_valid, valid);
  cv::cvtColor(rgb, out.bgr, cv::COLOR_RGB2BGR);
  out.bgr.setTo(cv::Scalar(0, 0, 0), valid == 0);
  out.invalid_fraction = 1.0 - cv::countNonZero(valid) / double(w * h);
  out.valid = valid;
  return out;
}

RenderedFrame FlightRenderer::render(const nav::CameraPose& pose, std::int64_t frame_index,
                                     const nav::CameraPose* previous, double fps) const {
  RenderedFrame out = renderClean(pose);
  const ImageEffects& fx = impl_->options.effects;
  if (!fx.any()) return out;

  // Motion blur along the image motion of the frame centre's ground point.
  if (fx.shutter_s > 0 && previous) {
    cv::Vec3d ground;
    cv::Point2d before;
    const cv::Point2d centre(camera_.cx_px, camera_.cy_px);
    if (nav::groundFromPixel(camera_, pose, centre, impl_->options.ground_up_m, &ground) &&
        nav::pixelFromEnu(camera_, *previous, ground, &before)) {
      const cv::Point2d motion = (centre - before) * (fx.shutter_s * fps);
      const double length = cv::norm(motion);
      if (length > 1.0) {
        const int size = 2 * int(std::ceil(length / 2)) + 1;
        cv::Mat kernel = cv::Mat::zeros(size, size, CV_32F);
        const cv::Point2d half = motion * 0.5, mid(size / 2, size / 2);
        cv::line(kernel, mid - half, mid + half, cv::Scalar(1.0), 1, cv::LINE_AA);
        kernel /= cv::sum(kernel)[0];
        cv::filter2D(out.bgr, out.bgr, -1, kernel, cv::Point(-1, -1), 0, cv::BORDER_REFLECT);
      }
    }
  }

  // Exposure and white-balance drift (smooth over time).
  if (fx.exposure_variation > 0 || fx.colour_variation > 0) {
    const double gain = 1.0 + fx.exposure_variation * impl_->exposure(pose.t_s);
    const cv::Scalar gains(gain * (1.0 + fx.colour_variation * impl_->blue(pose.t_s)),
                           gain * (1.0 + fx.colour_variation * impl_->green(pose.t_s)),
                           gain * (1.0 + fx.colour_variation * impl_->red(pose.t_s)));
    cv::multiply(out.bgr, gains, out.bgr);
  }

  // Sensor noise, seeded per frame so any frame renders the same on its own.
  if (fx.noise_sigma > 0) {
    std::seed_seq sequence{std::uint64_t(fx.seed), std::uint64_t(frame_index), std::uint64_t(7)};
    std::mt19937_64 rng(sequence);
    cv::RNG cv_rng(rng());
    cv::Mat noise(out.bgr.size(), CV_16SC3);
    cv_rng.fill(noise, cv::RNG::NORMAL, 0.0, fx.noise_sigma);
    cv::Mat sum;
    cv::add(out.bgr, noise, sum, cv::noArray(), CV_16SC3);
    sum.convertTo(out.bgr, CV_8UC3);
  }

  if (fx.jpeg_quality > 0) {
    std::vector<uchar> bytes;
    cv::imencode(".jpg", out.bgr, bytes, {cv::IMWRITE_JPEG_QUALITY, fx.jpeg_quality});
    out.bgr = cv::imdecode(bytes, cv::IMREAD_COLOR);
  }
  out.bgr.setTo(cv::Scalar(0, 0, 0), out.valid == 0);  // keep the no-imagery mark black
  return out;
}

}  // namespace skytrace::sim
