#include "core/geo/basemap.h"

#include <cpl_string.h>
#include <gdal_priv.h>
#include <ogr_spatialref.h>
#include <opencv2/imgproc.hpp>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <sstream>
#include <vector>

#include "core/geo/gdal_support.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/log.h"

namespace skytrace::geo {
namespace fs = std::filesystem;

const char* validitySourceName(ValiditySource source) {
  switch (source) {
    case ValiditySource::AlphaBand: return "alpha band";
    case ValiditySource::MaskBand: return "mask band";
    case ValiditySource::NodataValue: return "nodata value";
    case ValiditySource::BlackFill: return "black/white fill (undeclared; pure black, and solid near-white areas, treated as nodata)";
    case ValiditySource::AllValid: return "none (all pixels valid)";
  }
  return "unknown";
}

namespace {

constexpr const char* kLogCategory = "geo.basemap";

struct DatasetCloser {
  void operator()(GDALDataset* dataset) const {
    if (dataset != nullptr) GDALClose(GDALDataset::ToHandle(dataset));
  }
};
using DatasetPtr = std::unique_ptr<GDALDataset, DatasetCloser>;

// GDAL dataset names that are not plain files (/vsizip/..., GPKG:file:table, WMS XML).
bool isPlainFilePath(const std::string& path) {
  return path.rfind("/vsi", 0) != 0 && path.find(':') == std::string::npos &&
         path.rfind("<", 0) != 0;
}

void checkReadableFile(const std::string& path) {
  if (!isPlainFilePath(path)) return;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw IoError(path + ": file not found");
  if (fs::is_directory(path, ec)) throw IoError(path + ": is a folder, not a raster file");
  if (::access(path.c_str(), R_OK) != 0) {
    throw IoError(path + ": cannot open for reading (permissions?)");
  }
}

// How the raster's bands become R, G, B.
enum class ColorModel { Rgb, Grey, Palette };

struct BandLayout {
  ColorModel model = ColorModel::Rgb;
  int color_bands[3] = {1, 2, 3};  // 1-based; for Grey/Palette only [0] is used
  int alpha_band = 0;              // 0 = none
};

BandLayout detectBandLayout(GDALDataset& dataset) {
  BandLayout layout;
  const int count = dataset.GetRasterCount();
  int red = 0, green = 0, blue = 0;
  for (int i = 1; i <= count; ++i) {
    switch (dataset.GetRasterBand(i)->GetColorInterpretation()) {
      case GCI_RedBand: if (!red) red = i; break;
      case GCI_GreenBand: if (!green) green = i; break;
      case GCI_BlueBand: if (!blue) blue = i; break;
      case GCI_AlphaBand: if (!layout.alpha_band) layout.alpha_band = i; break;
      default: break;
    }
  }
  GDALRasterBand* first = dataset.GetRasterBand(1);
  if (first->GetColorInterpretation() == GCI_PaletteIndex && first->GetColorTable() != nullptr) {
    layout.model = ColorModel::Palette;
    layout.color_bands[0] = 1;
  } else if (red && green && blue) {
    layout.model = ColorModel::Rgb;
    layout.color_bands[0] = red;
    layout.color_bands[1] = green;
    layout.color_bands[2] = blue;
  } else if (count - (layout.alpha_band ? 1 : 0) >= 3) {
    // Uninterpreted multi-band: the first three non-alpha bands are R, G, B.
    int next = 0;
    for (int i = 1; i <= count && next < 3; ++i) {
      if (i != layout.alpha_band) layout.color_bands[next++] = i;
    }
    layout.model = ColorModel::Rgb;
  } else {
    layout.model = ColorModel::Grey;
    layout.color_bands[0] = layout.alpha_band == 1 ? 2 : 1;
  }
  return layout;
}

std::string describeLayout(const BandLayout& layout, int band_count) {
  std::string text = layout.model == ColorModel::Palette ? "palette"
                     : layout.model == ColorModel::Grey  ? "grey"
                                                         : "RGB";
  if (layout.alpha_band) text += layout.model == ColorModel::Rgb ? "A" : " + alpha";
  const int used = (layout.model == ColorModel::Rgb ? 3 : 1) + (layout.alpha_band ? 1 : 0);
  if (band_count > used) text += " (+" + std::to_string(band_count - used) + " unused bands)";
  return text;
}

// Linear stretch of a non-8-bit band to 0..255.
struct BandStretch {
  double offset = 0.0;
  double scale = 1.0;
};

}  // namespace

struct Basemap::Impl {
  std::string path;
  BasemapOptions options;
  DatasetPtr dataset;
  BandLayout layout;
  ValiditySource validity = ValiditySource::AllValid;
  GeoTransform map_from_pixel;
  std::string crs_wkt;
  CrsInfo crs;
  std::unique_ptr<MapGeoConverter> converter;
  double pixel_size_x_m = 0.0;
  double pixel_size_y_m = 0.0;
  Footprint footprint;
  bool needs_stretch = false;
  bool stretch_ready = false;
  BandStretch stretch[3];
  mutable std::mutex mutex;  // guards `dataset` (GDAL datasets are single-threaded) and stretch

  int width() const { return dataset->GetRasterXSize(); }
  int height() const { return dataset->GetRasterYSize(); }
  GDALRasterBand* band(int index) const { return dataset->GetRasterBand(index); }

  [[noreturn]] void throwReadError(const std::string& gdal_message) const {
    throw FormatError(path + ": reading pixels failed (corrupt or truncated file?): " +
                      (gdal_message.empty() ? std::string("GDAL gave no reason") : gdal_message));
  }

  void detectValidity() {
    if (layout.alpha_band) {
      validity = ValiditySource::AlphaBand;
      return;
    }
    const int flags = band(layout.color_bands[0])->GetMaskFlags();
    if (flags & GMF_ALL_VALID) {
      validity = options.black_is_nodata_when_undeclared && layout.model != ColorModel::Palette
                     ? ValiditySource::BlackFill
                     : ValiditySource::AllValid;
    } else if (flags & GMF_NODATA) {
      validity = ValiditySource::NodataValue;
    } else if (flags & GMF_ALPHA) {
      validity = ValiditySource::AlphaBand;  // alpha recognised by GDAL but not by colour interp
    } else {
      validity = ValiditySource::MaskBand;
    }
  }

  void computeGroundPixelSize() {
    const double cx = 0.5 * width();
    const double cy = 0.5 * height();
    const std::vector<MapPoint> in_map = {map_from_pixel.mapFromPixel(cx, cy),
                                          map_from_pixel.mapFromPixel(cx + 1.0, cy),
                                          map_from_pixel.mapFromPixel(cx, cy + 1.0)};
    const std::vector<GeoPoint> geo = converter->geoFromMap(in_map);
    pixel_size_x_m = horizontalDistanceM(geo[0], geo[1]);
    pixel_size_y_m = horizontalDistanceM(geo[0], geo[2]);
    if (!(pixel_size_x_m > 0.0) || !(pixel_size_y_m > 0.0)) {
      throw GeoreferenceError(path + ": degenerate georeference (zero ground pixel size)");
    }
  }

  void computeFootprint() {
    const double w = width(), h = height();
    const PixelPoint corners[4] = {{0, 0}, {w, 0}, {w, h}, {0, h}};
    constexpr int kSamplesPerEdge = 16;
    std::vector<MapPoint> outline;
    for (int edge = 0; edge < 4; ++edge) {
      const PixelPoint a = corners[edge];
      const PixelPoint b = corners[(edge + 1) % 4];
      for (int i = 0; i < kSamplesPerEdge; ++i) {
        const double t = double(i) / kSamplesPerEdge;
        outline.push_back(map_from_pixel.mapFromPixel(a.col + t * (b.col - a.col),
                                                      a.row + t * (b.row - a.row)));
      }
    }
    const std::vector<GeoPoint> geo = converter->geoFromMap(outline);
    for (int corner = 0; corner < 4; ++corner) footprint.corners[corner] = geo[corner * kSamplesPerEdge];
    footprint.bbox = boundingBox(geo, PointSet::kClosedRing);
  }

  // For non-8-bit data: 2nd..98th percentile of valid values in a whole-raster preview.
  // Called with `mutex` held.
  void ensureStretch() {
    if (!needs_stretch || stretch_ready) return;
    const double downscale = std::max(1.0, std::max(width(), height()) / 512.0);
    const int pw = std::max(1, int(width() / downscale));
    const int ph = std::max(1, int(height() / downscale));
    const int channels = layout.model == ColorModel::Rgb ? 3 : 1;
    for (int c = 0; c < channels; ++c) {
      GDALRasterBand* b = band(layout.color_bands[c]);
      std::vector<float> values(std::size_t(pw) * ph);
      GDALRasterIOExtraArg extra;
      INIT_RASTERIO_EXTRA_ARG(extra);
      extra.eResampleAlg = GRIORA_NearestNeighbour;
      detail::GdalErrorCapture errors;
      if (b->RasterIO(GF_Read, 0, 0, width(), height(), values.data(), pw, ph, GDT_Float32, 0, 0,
                      &extra) != CE_None) {
        throwReadError(errors.message());
      }
      int has_nodata = 0;
      const double nodata = b->GetNoDataValue(&has_nodata);
      std::vector<float> valid_values;
      valid_values.reserve(values.size());
      for (float v : values) {
        if (std::isfinite(v) && !(has_nodata && double(v) == nodata)) valid_values.push_back(v);
      }
      BandStretch s;
      if (!valid_values.empty()) {
        const auto at = [&](double q) {
          const std::size_t k = std::min(valid_values.size() - 1, std::size_t(q * (valid_values.size() - 1)));
          std::nth_element(valid_values.begin(), valid_values.begin() + long(k), valid_values.end());
          return double(valid_values[k]);
        };
        const double lo = at(0.02);
        const double hi = at(0.98);
        s.offset = lo;
        s.scale = hi > lo ? 255.0 / (hi - lo) : 1.0;
      }
      stretch[c] = s;
    }
    if (channels == 1) stretch[1] = stretch[2] = stretch[0];
    stretch_ready = true;
  }
};

Basemap::Basemap(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Basemap::~Basemap() = default;
Basemap::Basemap(Basemap&&) noexcept = default;
Basemap& Basemap::operator=(Basemap&&) noexcept = default;

Basemap Basemap::open(const std::string& path, const BasemapOptions& options) {
  detail::ensureGdalRegistered();
  checkReadableFile(path);
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->options = options;
  {
    detail::GdalErrorCapture errors;
    impl->dataset.reset(GDALDataset::FromHandle(
        GDALOpenEx(path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY, nullptr, nullptr, nullptr)));
    if (!impl->dataset) {
      throw FormatError(path + ": not a raster GDAL can read: " +
                        errors.messageOr("GDAL recognises no raster format in it (corrupt, truncated or not a raster)"));
    }
  }
  GDALDataset& ds = *impl->dataset;
  if (ds.GetRasterCount() < 1 || ds.GetRasterXSize() < 1 || ds.GetRasterYSize() < 1) {
    throw FormatError(path + ": contains no raster bands (a vector-only file?)");
  }
  std::array<double, 6> coefficients{};
  const bool has_transform = ds.GetGeoTransform(coefficients.data()) == CE_None;
  const OGRSpatialReference* srs = ds.GetSpatialRef();
  if (!has_transform || srs == nullptr || srs->IsEmpty()) {
    std::string missing = !has_transform && (srs == nullptr || srs->IsEmpty()) ? "geotransform and CRS"
                          : !has_transform ? "geotransform"
                                           : "CRS";
    throw GeoreferenceError(path + " has no georeference (no geotransform/CRS; missing: " +
                            missing +
                            "). Use a georeferenced raster, add a world file and .prj, or "
                            "assign one with gdal_translate -a_srs/-a_ullr");
  }
  impl->map_from_pixel = GeoTransform(coefficients);
  if (!impl->map_from_pixel.isInvertible()) {
    throw GeoreferenceError(path + ": geotransform is degenerate (zero pixel size)");
  }
  impl->crs_wkt = detail::wktOf(*srs);
  impl->crs = describeCrs(impl->crs_wkt);
  impl->converter = std::make_unique<MapGeoConverter>(impl->crs_wkt);
  impl->layout = detectBandLayout(ds);
  impl->detectValidity();
  const GDALDataType type = impl->band(impl->layout.color_bands[0])->GetRasterDataType();
  impl->needs_stretch = type != GDT_Byte && impl->layout.model != ColorModel::Palette;
  try {
    impl->computeGroundPixelSize();
    impl->computeFootprint();
  } catch (const GeoreferenceError& e) {
    throw GeoreferenceError(path + ": georeference cannot be mapped to WGS84: " + e.what());
  }
  SKYTRACE_LOG(Debug, kLogCategory) << "opened " << path << " (" << ds.GetRasterXSize() << "x"
                                    << ds.GetRasterYSize() << ", " << impl->crs.shortName() << ")";
  return Basemap(std::move(impl));
}

const std::string& Basemap::path() const { return impl_->path; }
std::string Basemap::driverName() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->dataset->GetDriverName();
}
int Basemap::width() const { return impl_->width(); }
int Basemap::height() const { return impl_->height(); }
int Basemap::bandCount() const { return impl_->dataset->GetRasterCount(); }
std::string Basemap::dataTypeName() const {
  return GDALGetDataTypeName(impl_->band(impl_->layout.color_bands[0])->GetRasterDataType());
}
std::string Basemap::colorDescription() const {
  return describeLayout(impl_->layout, bandCount());
}
int Basemap::overviewCount() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->band(1)->GetOverviewCount();
}
ValiditySource Basemap::validitySource() const { return impl_->validity; }
std::optional<double> Basemap::nodataValue() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  int has_nodata = 0;
  const double value = impl_->band(impl_->layout.color_bands[0])->GetNoDataValue(&has_nodata);
  if (!has_nodata) return std::nullopt;
  return value;
}
const std::string& Basemap::crsWkt() const { return impl_->crs_wkt; }
const CrsInfo& Basemap::crs() const { return impl_->crs; }
const GeoTransform& Basemap::mapFromPixel() const { return impl_->map_from_pixel; }
MapRect Basemap::mapBounds() const { return impl_->map_from_pixel.mapBounds(width(), height()); }
const MapGeoConverter& Basemap::converter() const { return *impl_->converter; }
double Basemap::pixelSizeXM() const { return impl_->pixel_size_x_m; }
double Basemap::pixelSizeYM() const { return impl_->pixel_size_y_m; }
const Footprint& Basemap::footprint() const { return impl_->footprint; }

BasemapWindow Basemap::readWindow(const MapRect& rect_in_map, double gsd_m,
                                  long long max_output_pixels) const {
  Impl& d = *impl_;
  if (rect_in_map.isEmpty() || !std::isfinite(rect_in_map.width()) ||
      !std::isfinite(rect_in_map.height())) {
    throw InvalidArgument(d.path + ": readWindow needs a non-empty map rectangle");
  }
  if (!std::isfinite(gsd_m)) throw InvalidArgument(d.path + ": readWindow: ground resolution is not finite");
  const GeoTransform& gt = d.map_from_pixel;
  if (!gt.isAxisAligned()) {
    throw GeoreferenceError(d.path + ": rotated/sheared geotransform is not supported for window "
                            "reads; warp the raster north-up first (gdalwarp)");
  }

  // The rectangle in source pixel coordinates (rows/cols may run against map axes).
  const PixelPoint p0 = gt.pixelFromMap({rect_in_map.min_x, rect_in_map.max_y});
  const PixelPoint p1 = gt.pixelFromMap({rect_in_map.max_x, rect_in_map.min_y});
  const double col_a = std::min(p0.col, p1.col), col_b = std::max(p0.col, p1.col);
  const double row_a = std::min(p0.row, p1.row), row_b = std::max(p0.row, p1.row);

  // Source pixels per output pixel, from the ground size of a native pixel.
  const double want_sx = gsd_m > 0.0 ? gsd_m / d.pixel_size_x_m : 1.0;
  const double want_sy = gsd_m > 0.0 ? gsd_m / d.pixel_size_y_m : 1.0;
  const double out_w_exact = (col_b - col_a) / want_sx;
  const double out_h_exact = (row_b - row_a) / want_sy;
  constexpr double kMaxSidePx = 1 << 28;  // keeps every pixel index inside int
  if (out_w_exact * out_h_exact > double(max_output_pixels) || out_w_exact > kMaxSidePx ||
      out_h_exact > kMaxSidePx) {
    std::ostringstream message;
    message << d.path << ": readWindow would produce " << std::llround(out_w_exact) << "x"
            << std::llround(out_h_exact) << " pixels (limit " << max_output_pixels
            << "); request a coarser resolution or a smaller area";
    throw InvalidArgument(message.str());
  }
  const int out_w = std::max(1, int(std::lround(out_w_exact)));
  const int out_h = std::max(1, int(std::lround(out_h_exact)));
  const double sx = (col_b - col_a) / out_w;
  const double sy = (row_b - row_a) / out_h;

  BasemapWindow window;
  window.rgb = cv::Mat::zeros(out_h, out_w, CV_8UC3);
  window.valid = cv::Mat::zeros(out_h, out_w, CV_8UC1);
  const MapPoint origin = gt.mapFromPixel(col_a, row_a);
  const auto& c = gt.gdalCoefficients();
  window.map_from_pixel = GeoTransform({origin.x, c[1] * sx, 0.0, origin.y, 0.0, c[5] * sy});
  window.gsd_m = 0.5 * (sx * d.pixel_size_x_m + sy * d.pixel_size_y_m);

  // Output pixels whose footprint lies entirely inside the raster.
  const int raster_w = d.width(), raster_h = d.height();
  constexpr double kEps = 1e-6;
  // (clamped as doubles first: a far-away rectangle must not overflow int)
  const auto clamped_index = [](double value, int upper) {
    return static_cast<int>(std::clamp(value, 0.0, static_cast<double>(upper)));
  };
  const int ox0 = clamped_index(std::ceil((0.0 - col_a) / sx - kEps), out_w);
  const int ox1 = clamped_index(std::floor((raster_w - col_a) / sx + kEps), out_w);
  const int oy0 = clamped_index(std::ceil((0.0 - row_a) / sy - kEps), out_h);
  const int oy1 = clamped_index(std::floor((raster_h - row_a) / sy + kEps), out_h);
  if (ox1 <= ox0 || oy1 <= oy0) return window;  // entirely outside: all invalid

  const int buf_w = ox1 - ox0, buf_h = oy1 - oy0;
  GDALRasterIOExtraArg extra;
  INIT_RASTERIO_EXTRA_ARG(extra);
  extra.bFloatingPointWindowValidity = TRUE;
  extra.dfXOff = std::clamp(col_a + ox0 * sx, 0.0, double(raster_w));
  extra.dfYOff = std::clamp(row_a + oy0 * sy, 0.0, double(raster_h));
  extra.dfXSize = std::min(buf_w * sx, raster_w - extra.dfXOff);
  extra.dfYSize = std::min(buf_h * sy, raster_h - extra.dfYOff);
  const int x_off = std::clamp(int(std::floor(extra.dfXOff)), 0, raster_w - 1);
  const int y_off = std::clamp(int(std::floor(extra.dfYOff)), 0, raster_h - 1);
  const int x_size = std::clamp(int(std::ceil(extra.dfXOff + extra.dfXSize - 1e-9)) - x_off, 1, raster_w - x_off);
  const int y_size = std::clamp(int(std::ceil(extra.dfYOff + extra.dfYSize - 1e-9)) - y_off, 1, raster_h - y_off);
  const bool downsampling = sx > 1.0 + 1e-9 || sy > 1.0 + 1e-9;
  const bool native = std::abs(sx - 1.0) < 1e-9 && std::abs(sy - 1.0) < 1e-9;
  const GDALRIOResampleAlg smooth_alg =
      downsampling ? GRIORA_Average : native ? GRIORA_NearestNeighbour : GRIORA_Bilinear;

  cv::Mat rgb_roi = window.rgb(cv::Rect(ox0, oy0, buf_w, buf_h));
  cv::Mat valid_roi = window.valid(cv::Rect(ox0, oy0, buf_w, buf_h));

  std::lock_guard<std::mutex> lock(d.mutex);
  detail::GdalErrorCapture errors;
  const auto read_band = [&](GDALRasterBand* band, cv::Mat& out, GDALDataType type,
                             GDALRIOResampleAlg alg) {
    extra.eResampleAlg = alg;
    if (band->RasterIO(GF_Read, x_off, y_off, x_size, y_size, out.data, buf_w, buf_h, type, 0,
                       static_cast<GSpacing>(out.step[0]), &extra) != CE_None) {
      d.throwReadError(errors.message());
    }
  };

  // Colour.
  if (d.layout.model == ColorModel::Palette) {
    cv::Mat index(buf_h, buf_w, CV_8UC1);
    read_band(d.band(d.layout.color_bands[0]), index, GDT_Byte, GRIORA_NearestNeighbour);
    const GDALColorTable* table = d.band(d.layout.color_bands[0])->GetColorTable();
    std::vector<cv::Vec4b> lut(256, cv::Vec4b(0, 0, 0, 0));
    for (int i = 0; i < std::min(256, table->GetColorEntryCount()); ++i) {
      const GDALColorEntry* e = table->GetColorEntry(i);
      lut[i] = cv::Vec4b(cv::saturate_cast<uchar>(e->c1), cv::saturate_cast<uchar>(e->c2),
                         cv::saturate_cast<uchar>(e->c3), cv::saturate_cast<uchar>(e->c4));
    }
    for (int y = 0; y < buf_h; ++y) {
      for (int x = 0; x < buf_w; ++x) {
        const cv::Vec4b& entry = lut[index.at<uchar>(y, x)];
        rgb_roi.at<cv::Vec3b>(y, x) = cv::Vec3b(entry[0], entry[1], entry[2]);
        valid_roi.at<uchar>(y, x) = entry[3] >= 128 ? 255 : 0;
      }
    }
  } else {
    const int channels = d.layout.model == ColorModel::Rgb ? 3 : 1;
    std::vector<cv::Mat> planes(3);
    d.ensureStretch();
    for (int ch = 0; ch < channels; ++ch) {
      GDALRasterBand* band = d.band(d.layout.color_bands[ch]);
      if (d.needs_stretch) {
        cv::Mat raw(buf_h, buf_w, CV_32FC1);
        read_band(band, raw, GDT_Float32, smooth_alg);
        raw.convertTo(planes[ch], CV_8UC1, d.stretch[ch].scale, -d.stretch[ch].offset * d.stretch[ch].scale);
      } else {
        planes[ch].create(buf_h, buf_w, CV_8UC1);
        read_band(band, planes[ch], GDT_Byte, smooth_alg);
      }
    }
    if (channels == 1) planes[1] = planes[2] = planes[0];
    cv::merge(planes, rgb_roi);  // rgb_roi shares window.rgb's memory (same size/type)
  }

  // Validity.
  cv::Mat mask(buf_h, buf_w, CV_8UC1);
  switch (d.validity) {
    case ValiditySource::AlphaBand: {
      GDALRasterBand* alpha = d.layout.alpha_band ? d.band(d.layout.alpha_band)
                                                  : d.band(d.layout.color_bands[0])->GetMaskBand();
      read_band(alpha, mask, GDT_Byte, downsampling ? GRIORA_Average : GRIORA_NearestNeighbour);
      cv::threshold(mask, mask, 127, 255, cv::THRESH_BINARY);
      break;
    }
    case ValiditySource::MaskBand:
      read_band(d.band(d.layout.color_bands[0])->GetMaskBand(), mask, GDT_Byte,
                downsampling ? GRIORA_Average : GRIORA_NearestNeighbour);
      cv::threshold(mask, mask, 127, 255, cv::THRESH_BINARY);
      break;
    case ValiditySource::NodataValue: {
      // Valid unless every colour band is at its nodata value.
      mask.setTo(0);
      const int channels = d.layout.model == ColorModel::Rgb ? 3 : 1;
      cv::Mat band_mask(buf_h, buf_w, CV_8UC1);
      for (int ch = 0; ch < channels; ++ch) {
        read_band(d.band(d.layout.color_bands[ch])->GetMaskBand(), band_mask, GDT_Byte,
                  downsampling ? GRIORA_Average : GRIORA_NearestNeighbour);
        cv::threshold(band_mask, band_mask, 127, 255, cv::THRESH_BINARY);
        cv::bitwise_or(mask, band_mask, mask);
      }
      break;
    }
    case ValiditySource::BlackFill: {
      cv::Mat grey_max;
      std::vector<cv::Mat> planes;
      cv::split(rgb_roi, planes);
      cv::max(planes[0], planes[1], grey_max);
      cv::max(grey_max, planes[2], grey_max);
      cv::compare(grey_max, 0, mask, cv::CMP_GT);
      // White fill (some OpenAerialMap tiles pad with 255 instead of 0): solid
      // near-white areas at least 31 px across are nodata too; smaller ones (a
      // saturated roof) stay imagery.
      cv::Mat grey_min, white;
      cv::min(planes[0], planes[1], grey_min);
      cv::min(grey_min, planes[2], grey_min);
      cv::compare(grey_min, 250, white, cv::CMP_GE);
      const cv::Mat kernel = cv::getStructuringElement(cv::MORPH_RECT, cv::Size(31, 31));
      cv::morphologyEx(white, white, cv::MORPH_OPEN, kernel);
      mask.setTo(0, white);
      break;
    }
    case ValiditySource::AllValid:
      mask.setTo(255);
      break;
  }
  if (d.layout.model == ColorModel::Palette) {
    cv::bitwise_and(valid_roi, mask, valid_roi);
  } else {
    mask.copyTo(valid_roi);
  }
  return window;
}

BasemapWindow Basemap::readWindow(const GeoBBox& bbox, double gsd_m,
                                  long long max_output_pixels) const {
  // A box across the antimeridian ends east of +180: unwrapped here, wrapped per point.
  const double east_lon_deg = bbox.crossesAntimeridian() ? bbox.max_lon_deg + 360.0 : bbox.max_lon_deg;
  if (!(bbox.max_lat_deg > bbox.min_lat_deg) || !(east_lon_deg > bbox.min_lon_deg)) {
    throw InvalidArgument(impl_->path + ": readWindow needs a non-empty lat/lon box");
  }
  constexpr int kSamplesPerEdge = 16;
  std::vector<GeoPoint> outline;
  for (int i = 0; i <= kSamplesPerEdge; ++i) {
    const double t = double(i) / kSamplesPerEdge;
    const double lat = bbox.min_lat_deg + t * (bbox.max_lat_deg - bbox.min_lat_deg);
    const double lon = std::remainder(bbox.min_lon_deg + t * (east_lon_deg - bbox.min_lon_deg), 360.0);
    outline.push_back({lat, bbox.min_lon_deg, 0.0});
    outline.push_back({lat, bbox.max_lon_deg, 0.0});
    outline.push_back({bbox.min_lat_deg, lon, 0.0});
    outline.push_back({bbox.max_lat_deg, lon, 0.0});
  }
  return readWindow(envelopeOf(converter().mapFromGeo(outline)), gsd_m, max_output_pixels);
}

// --- writeGeoTiff -------------------------------------------------------------------

void writeGeoTiff(const std::string& path, const cv::Mat& rgb, const cv::Mat& valid,
                  const GeoTransform& map_from_pixel, const std::string& crs,
                  const GeoTiffWriteOptions& options) {
  if (rgb.empty() || rgb.type() != CV_8UC3) {
    throw InvalidArgument("writeGeoTiff " + path + ": image must be a non-empty CV_8UC3 (R,G,B)");
  }
  if (!valid.empty() && (valid.type() != CV_8UC1 || valid.size() != rgb.size())) {
    throw InvalidArgument("writeGeoTiff " + path + ": validity mask must be CV_8UC1 of the image's size");
  }
  if (!map_from_pixel.isInvertible()) {
    throw InvalidArgument("writeGeoTiff " + path + ": geotransform is degenerate");
  }
  const detail::SpatialReferencePtr srs = detail::makeSpatialReference(crs, "writeGeoTiff " + path);
  detail::ensureGdalRegistered();
  GDALDriver* driver = GetGDALDriverManager()->GetDriverByName("GTiff");
  if (driver == nullptr) throw IoError("writeGeoTiff " + path + ": GDAL has no GTiff driver");

  AtomicFile file{fs::path(path)};
  detail::GdalErrorCapture errors;
  {
    CPLStringList creation;
    creation.SetNameValue("TILED", "YES");
    creation.SetNameValue("BLOCKXSIZE", "256");
    creation.SetNameValue("BLOCKYSIZE", "256");
    creation.SetNameValue("COMPRESS", "DEFLATE");
    creation.SetNameValue("PREDICTOR", "2");
    creation.SetNameValue("PHOTOMETRIC", "RGB");
    creation.SetNameValue("ALPHA", "YES");  // extra sample = unassociated alpha
    creation.SetNameValue("BIGTIFF", "IF_SAFER");
    DatasetPtr ds(driver->Create(file.temporaryPath().c_str(), rgb.cols, rgb.rows, 4, GDT_Byte,
                                 creation.List()));
    if (!ds) {
      throw IoError("cannot write " + path + ": " + errors.messageOr("GDAL could not create the file"));
    }
    if (ds->SetGeoTransform(const_cast<double*>(map_from_pixel.gdalCoefficients().data())) != CE_None ||
        ds->SetSpatialRef(srs.get()) != CE_None) {
      throw IoError("cannot write " + path + ": " + errors.messageOr("georeference not accepted"));
    }
    const cv::Mat rgb_c = rgb.isContinuous() ? rgb : rgb.clone();
    int band_map[3] = {1, 2, 3};
    if (ds->RasterIO(GF_Write, 0, 0, rgb.cols, rgb.rows, const_cast<uchar*>(rgb_c.data), rgb.cols,
                     rgb.rows, GDT_Byte, 3, band_map, 3, static_cast<GSpacing>(rgb_c.step[0]), 1,
                     nullptr) != CE_None) {
      throw IoError("cannot write " + path + ": " + errors.messageOr("writing pixels failed"));
    }
    cv::Mat alpha = valid.empty() ? cv::Mat(rgb.size(), CV_8UC1, cv::Scalar(255)) : valid.clone();
    if (ds->GetRasterBand(4)->RasterIO(GF_Write, 0, 0, rgb.cols, rgb.rows, alpha.data, rgb.cols,
                                       rgb.rows, GDT_Byte, 0, static_cast<GSpacing>(alpha.step[0]),
                                       nullptr) != CE_None) {
      throw IoError("cannot write " + path + ": " + errors.messageOr("writing the alpha band failed"));
    }
    if (options.build_overviews && std::max(rgb.cols, rgb.rows) > 512) {
      std::vector<int> levels;
      for (int f = 2; std::max(rgb.cols, rgb.rows) / f >= 256; f *= 2) levels.push_back(f);
      if (levels.empty()) levels.push_back(2);
      if (ds->BuildOverviews("AVERAGE", int(levels.size()), levels.data(), 0, nullptr, nullptr,
                             nullptr, nullptr) != CE_None) {
        throw IoError("cannot write " + path + ": " + errors.messageOr("building overviews failed"));
      }
    }
    ds->FlushCache(true);
    if (errors.hasError()) {
      throw IoError("cannot write " + path + ": " + errors.messageOr("flushing failed (disk full?)"));
    }
  }  // closes the dataset
  if (errors.hasError()) {
    throw IoError("cannot write " + path + ": " + errors.message());
  }
  file.commit();
}

}  // namespace skytrace::geo
