// Basemap: georeference of the real shared orthophotos, window reads (nodata/alpha,
// resolution, padding, overviews), other GDAL formats, and the documented errors.
#include <QTemporaryDir>
#include <QtTest>

#include <gdal_priv.h>
#include <gdal_utils.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <cmath>
#include <fstream>
#include <thread>

#include "core/geo/basemap.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "tests/test_support.h"

using namespace skytrace::geo;
using skytrace::test::sharedPath;

namespace {
constexpr double kWgs84E2 = 0.0066943799901413165;  // first eccentricity squared

std::string ortho(const char* name) {
  return sharedPath(QString("data/orthophotos/") + name).toStdString();
}

double dms(double d, double m, double s) { return (d + m / 60.0 + s / 3600.0); }

// Fraction of pixels of `mask` (0/255) inside `roi` that are non-zero.
double validFraction(const cv::Mat& mask, const cv::Rect& roi) {
  return cv::countNonZero(mask(roi)) / double(roi.area());
}

// Runs gdal_translate with `args` (GDAL's own utility, not our code).
void gdalTranslate(const std::string& src, const std::string& dst, std::vector<std::string> args) {
  GDALAllRegister();
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  GDALTranslateOptions* options = GDALTranslateOptionsNew(argv.data(), nullptr);
  GDALDatasetH in = GDALOpen(src.c_str(), GA_ReadOnly);
  QVERIFY(in != nullptr);
  GDALDatasetH out = GDALTranslate(dst.c_str(), in, options, nullptr);
  QVERIFY2(out != nullptr, dst.c_str());
  GDALClose(out);
  GDALClose(in);
  GDALTranslateOptionsFree(options);
}

// A synthetic 600x400 UTM raster: a gradient with a 100x100 transparent hole at (200,100).
void writeSynthetic(const std::string& path, bool overviews) {
  cv::Mat rgb(400, 600, CV_8UC3), valid(400, 600, CV_8UC1, cv::Scalar(255));
  for (int y = 0; y < rgb.rows; ++y)
    for (int x = 0; x < rgb.cols; ++x) rgb.at<cv::Vec3b>(y, x) = cv::Vec3b(x % 256, y % 256, 100);
  valid(cv::Rect(200, 100, 100, 100)).setTo(0);
  GeoTiffWriteOptions options;
  options.build_overviews = overviews;
  writeGeoTiff(path, rgb, valid, GeoTransform::northUp(500000.0, 5000000.0, 0.5, 0.5),
               "EPSG:32633", options);
}
}  // namespace

class TestBasemap : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void australiaGeoreference() {
    SKYTRACE_REQUIRE_SHARED();
    const Basemap map = Basemap::open(ortho("australia.tif"));
    QCOMPARE(map.width(), 751);
    QCOMPARE(map.height(), 708);
    QCOMPARE(map.bandCount(), 3);
    QCOMPARE(QString::fromStdString(map.driverName()), QString("GTiff"));
    QCOMPARE(QString::fromStdString(map.crsName()), QString("WGS 84 / UTM zone 53S (EPSG:32753)"));
    // 0.018 m map pixels; UTM's point scale here (~1.0002) makes ground pixels slightly smaller.
    QVERIFY2(std::abs(map.pixelSizeM() - 0.018) < 1e-4, qPrintable(QString::number(map.pixelSizeM(), 'g', 8)));
    QVERIFY(map.pixelSizeM() < 0.018);
    QCOMPARE(map.validitySource(), ValiditySource::NodataValue);
    QCOMPARE(map.nodataValue().value_or(-1), 0.0);
    // Footprint corners per gdalinfo (PROJ, 0.01" precision): UL 132d57'52.97"E 12d40'36.46"S,
    // LR 132d57'53.41"E 12d40'36.88"S.
    const Footprint& fp = map.footprint();
    QVERIFY(std::abs(fp.corners[0].lon_deg - dms(132, 57, 52.97)) < 1e-5);
    QVERIFY(std::abs(fp.corners[0].lat_deg + dms(12, 40, 36.46)) < 1e-5);
    QVERIFY(std::abs(fp.corners[2].lon_deg - dms(132, 57, 53.41)) < 1e-5);
    QVERIFY(std::abs(fp.corners[2].lat_deg + dms(12, 40, 36.88)) < 1e-5);
    QVERIFY(fp.bbox.min_lat_deg < fp.bbox.max_lat_deg && fp.bbox.max_lat_deg < 0.0);  // south
    QVERIFY(fp.bbox.min_lon_deg > 132.0 && fp.bbox.max_lon_deg < 138.0);  // inside zone 53
  }

  // EPSG:3395 units are not ground metres: ground pixel = 0.1 * cos(lat) / sqrt(1 - e2 sin^2 lat).
  void mercatorPixelSizeIsGroundMetres() {
    SKYTRACE_REQUIRE_SHARED();
    const Basemap map = Basemap::open(ortho("5c15321f63d9810007f8b06f_10_00000.tif"));
    const double lat = 0.5 * (map.footprint().bbox.min_lat_deg + map.footprint().bbox.max_lat_deg) * M_PI / 180;
    const double expected = 0.1 * std::cos(lat) / std::sqrt(1 - kWgs84E2 * std::sin(lat) * std::sin(lat));
    QVERIFY2(std::abs(map.pixelSizeXM() - expected) < 1e-5, qPrintable(QString::number(map.pixelSizeXM())));
    QVERIFY2(std::abs(map.pixelSizeYM() - expected) < 1e-5, qPrintable(QString::number(map.pixelSizeYM())));
    QVERIFY(std::abs(expected - 0.0776) < 1e-3);
    QCOMPARE(map.validitySource(), ValiditySource::BlackFill);
  }

  // The OpenAerialMap tile is padded with undeclared black (top-left); imagery in the centre.
  void blackFillIsInvalid() {
    SKYTRACE_REQUIRE_SHARED();
    const Basemap map = Basemap::open(ortho("5c15321f63d9810007f8b06f_10_00000.tif"));
    const MapRect all = map.mapBounds();
    const BasemapWindow w = map.readWindow(all, 0.0);
    QCOMPARE(w.rgb.cols, 2048);
    QCOMPARE(w.rgb.rows, 2048);
    QCOMPARE(w.rgb.type(), CV_8UC3);
    // Top-left 300x300 is fill: black, and invalid.
    QCOMPARE(validFraction(w.valid, {0, 0, 300, 300}), 0.0);
    QCOMPARE(cv::countNonZero(w.rgb(cv::Rect(0, 0, 300, 300)).reshape(1)), 0);
    // Centre is imagery.
    QVERIFY(validFraction(w.valid, {924, 924, 200, 200}) > 0.99);
    QVERIFY(cv::mean(w.rgb(cv::Rect(924, 924, 200, 200)))[1] > 20.0);
  }

  // The same tile with the black declared as nodata (gdal_translate -a_nodata 0): the
  // nodata path gives the same mask on the fill.
  void declaredNodataIsInvalid() {
    SKYTRACE_REQUIRE_SHARED();
    QTemporaryDir dir;
    const std::string path = (dir.path() + "/nodata.tif").toStdString();
    gdalTranslate(ortho("5c15321f63d9810007f8b06f_10_00000.tif"), path,
                  {"-a_nodata", "0", "-srcwin", "0", "0", "1024", "1024", "-co", "TILED=YES"});
    const Basemap map = Basemap::open(path);
    QCOMPARE(map.validitySource(), ValiditySource::NodataValue);
    const BasemapWindow w = map.readWindow(map.mapBounds(), 0.0);
    QCOMPARE(validFraction(w.valid, {0, 0, 300, 300}), 0.0);
    QVERIFY(validFraction(w.valid, {824, 824, 200, 200}) > 0.99);
    // Coarser read (average resampling) keeps the fill invalid and imagery valid.
    const BasemapWindow coarse = map.readWindow(map.mapBounds(), 8 * map.pixelSizeM());
    QCOMPARE(coarse.valid.cols, 128);
    QCOMPARE(validFraction(coarse.valid, {0, 0, 36, 36}), 0.0);
    QVERIFY(validFraction(coarse.valid, {103, 103, 25, 25}) > 0.99);
  }

  // The OpenDroneMap orthophoto has an alpha band: the native-resolution mask equals
  // alpha >= 128 read by plain GDAL, and the masked corners hold no imagery.
  void realAlphaBandIsHonoured() {
    SKYTRACE_REQUIRE_SHARED();
    const std::string path =
        sharedPath("data/brighton_beach/odm_reference/nodeodm_test_odm_orthophoto.tif").toStdString();
    const Basemap map = Basemap::open(path);
    QCOMPARE(map.validitySource(), ValiditySource::AlphaBand);
    const BasemapWindow w = map.readWindow(map.mapBounds(), 0.0);
    QCOMPARE(w.valid.cols, map.width());
    GDALAllRegister();
    GDALDatasetH ds = GDALOpen(path.c_str(), GA_ReadOnly);
    QVERIFY(ds != nullptr);
    cv::Mat alpha(map.height(), map.width(), CV_8UC1);
    QCOMPARE(GDALRasterIO(GDALGetRasterBand(ds, 4), GF_Read, 0, 0, map.width(), map.height(), alpha.data,
                          map.width(), map.height(), GDT_Byte, 0, 0),
             CE_None);
    GDALClose(ds);
    cv::Mat expected;
    cv::compare(alpha, 127, expected, cv::CMP_GT);
    QCOMPARE(cv::norm(w.valid, expected, cv::NORM_INF), 0.0);
    const int invalid = w.valid.rows * w.valid.cols - cv::countNonZero(w.valid);
    QVERIFY2(invalid > w.valid.rows * w.valid.cols / 100, "the ortho has a masked border (~2 %)");
    QVERIFY(cv::countNonZero(w.valid) > w.valid.rows * w.valid.cols / 3);
  }

  void coarserGsdGivesSmallerImage() {
    SKYTRACE_REQUIRE_SHARED();
    const Basemap map = Basemap::open(ortho("australia.tif"));
    const MapRect all = map.mapBounds();  // 13.518 m x 12.744 m
    const BasemapWindow w = map.readWindow(all, 0.1);
    const int expected_w = int(std::lround(751 * map.pixelSizeXM() / 0.1));
    const int expected_h = int(std::lround(708 * map.pixelSizeYM() / 0.1));
    QCOMPARE(w.rgb.cols, expected_w);
    QCOMPARE(w.rgb.rows, expected_h);
    QVERIFY(std::abs(w.gsd_m - 0.1) < 0.002);
    // The returned geotransform covers the requested rectangle.
    const MapPoint br = w.map_from_pixel.mapFromPixel(w.rgb.cols, w.rgb.rows);
    QVERIFY(std::abs(br.x - all.max_x) < 1e-6 && std::abs(br.y - all.min_y) < 1e-6);
    // Averaging preserves the mean colour within a few levels.
    const BasemapWindow native = map.readWindow(all, 0.0);
    const cv::Scalar mean_native = cv::mean(native.rgb), mean_coarse = cv::mean(w.rgb);
    for (int c = 0; c < 3; ++c) QVERIFY(std::abs(mean_native[c] - mean_coarse[c]) < 3.0);
    QCOMPARE(cv::countNonZero(w.valid), w.valid.cols * w.valid.rows);
  }

  // A window half outside the raster is padded with valid = 0; the inside half is imagery
  // and matches a direct read of the same pixels.
  void windowBeyondRasterIsPadded() {
    SKYTRACE_REQUIRE_SHARED();
    const Basemap map = Basemap::open(ortho("australia.tif"));
    const GeoTransform& gt = map.mapFromPixel();
    const MapPoint tl = gt.mapFromPixel(-100, 200);
    const MapPoint br = gt.mapFromPixel(100, 300);
    const BasemapWindow w = map.readWindow(MapRect{tl.x, br.y, br.x, tl.y}, 0.0);
    QCOMPARE(w.rgb.cols, 200);
    QCOMPARE(w.rgb.rows, 100);
    QCOMPARE(validFraction(w.valid, {0, 0, 100, 100}), 0.0);
    QCOMPARE(validFraction(w.valid, {100, 0, 100, 100}), 1.0);
    const BasemapWindow inside = map.readWindow(
        MapRect{gt.mapFromPixel(0, 300).x, gt.mapFromPixel(0, 300).y, br.x, tl.y}, 0.0);
    QCOMPARE(cv::norm(inside.rgb, w.rgb(cv::Rect(100, 0, 100, 100)), cv::NORM_INF), 0.0);
    // Entirely outside: all invalid, no exception.
    const MapPoint far = gt.mapFromPixel(5000, 5000);
    const BasemapWindow none = map.readWindow(MapRect{far.x, far.y - 1, far.x + 1, far.y}, 0.0);
    QCOMPARE(cv::countNonZero(none.valid), 0);
  }

  void wgs84BoxRead() {
    SKYTRACE_REQUIRE_SHARED();
    const Basemap map = Basemap::open(ortho("OSBS_029.tif"));
    const GeoBBox box = map.footprint().bbox;
    const GeoBBox inner{box.min_lat_deg + 0.25 * (box.max_lat_deg - box.min_lat_deg),
                        box.min_lon_deg + 0.25 * (box.max_lon_deg - box.min_lon_deg),
                        box.max_lat_deg - 0.25 * (box.max_lat_deg - box.min_lat_deg),
                        box.max_lon_deg - 0.25 * (box.max_lon_deg - box.min_lon_deg)};
    const BasemapWindow w = map.readWindow(inner, 0.0);
    // About half the 400 px width (UTM grid convergence makes the envelope slightly larger).
    QVERIFY2(w.rgb.cols >= 199 && w.rgb.cols <= 206, qPrintable(QString::number(w.rgb.cols)));
    const GeoPoint centre = map.converter().geoFromMap(w.map_from_pixel.mapFromPixel(w.rgb.cols / 2.0, w.rgb.rows / 2.0));
    QVERIFY(std::abs(centre.lat_deg - 0.5 * (inner.min_lat_deg + inner.max_lat_deg)) < 2e-7);
    QVERIFY(std::abs(centre.lon_deg - 0.5 * (inner.min_lon_deg + inner.max_lon_deg)) < 2e-7);
  }

  // writeGeoTiff -> Basemap round trip: georeference, alpha mask, overviews, coarse reads.
  void writeReadRoundTripWithAlphaAndOverviews() {
    QTemporaryDir dir;
    const std::string path = (dir.path() + "/synthetic.tif").toStdString();
    writeSynthetic(path, true);
    const Basemap map = Basemap::open(path);
    QCOMPARE(map.width(), 600);
    QCOMPARE(map.height(), 400);
    QCOMPARE(map.bandCount(), 4);
    QCOMPARE(map.validitySource(), ValiditySource::AlphaBand);
    QCOMPARE(map.overviewCount(), 1);  // 600 px: factor 2 only (down to >= 256 px)
    QVERIFY(map.mapFromPixel() == GeoTransform::northUp(500000.0, 5000000.0, 0.5, 0.5));
    QVERIFY(map.crsName().find("UTM zone 33N") != std::string::npos);
    const BasemapWindow native = map.readWindow(map.mapBounds(), 0.0);
    QCOMPARE(native.rgb.at<cv::Vec3b>(7, 300), cv::Vec3b(300 % 256, 7, 100));  // R,G,B order
    QCOMPARE(validFraction(native.valid, {200, 100, 100, 100}), 0.0);
    QCOMPARE(cv::countNonZero(native.valid), 600 * 400 - 100 * 100);
    // Half resolution: GDAL reads the overview; hole stays invalid at 300x200.
    const BasemapWindow half = map.readWindow(map.mapBounds(), 2 * map.pixelSizeM());
    QCOMPARE(half.rgb.cols, 300);
    QCOMPARE(half.rgb.rows, 200);
    QCOMPARE(validFraction(half.valid, {101, 51, 48, 48}), 0.0);
    QCOMPARE(validFraction(half.valid, {0, 0, 100, 50}), 1.0);
    // Upsampled read (4x finer): size follows.
    const MapRect small{500010.0, 4999990.0, 500020.0, 5000000.0};
    QCOMPARE(map.readWindow(small, 0.125).rgb.cols, 80);
  }

  // A geographic (EPSG:4326) raster: x = lon, y = lat despite the authority's lat/lon
  // order; ground pixel sizes from the ellipsoid's radii of curvature.
  void geographicRasterPixelSizeAndFootprint() {
    QTemporaryDir dir;
    const std::string path = (dir.path() + "/wgs84.tif").toStdString();
    const cv::Mat rgb(200, 300, CV_8UC3, cv::Scalar(90, 120, 30));
    const double lon0 = 9.07, lat0 = 48.52, step = 1e-5;
    writeGeoTiff(path, rgb, {}, GeoTransform::northUp(lon0, lat0, step, step), "EPSG:4326");
    const Basemap map = Basemap::open(path);
    QVERIFY(map.crs().is_geographic);
    const Footprint& fp = map.footprint();
    QVERIFY(std::abs(fp.corners[0].lat_deg - lat0) < 1e-12 && std::abs(fp.corners[0].lon_deg - lon0) < 1e-12);
    QVERIFY(std::abs(fp.corners[2].lat_deg - (lat0 - 200 * step)) < 1e-12);
    QVERIFY(std::abs(fp.corners[2].lon_deg - (lon0 + 300 * step)) < 1e-12);
    const double phi = (lat0 - 100 * step) * M_PI / 180.0;
    const double w = std::sqrt(1 - kWgs84E2 * std::sin(phi) * std::sin(phi));
    const double n = 6378137.0 / w;                              // prime vertical radius
    const double m = 6378137.0 * (1 - kWgs84E2) / (w * w * w);  // meridian radius
    const double expected_x = n * std::cos(phi) * step * M_PI / 180.0;
    const double expected_y = m * step * M_PI / 180.0;
    QVERIFY2(std::abs(map.pixelSizeXM() - expected_x) < 1e-5, qPrintable(QString::number(map.pixelSizeXM(), 'g', 9)));
    QVERIFY2(std::abs(map.pixelSizeYM() - expected_y) < 1e-5, qPrintable(QString::number(map.pixelSizeYM(), 'g', 9)));
    // A 2 m read: output size follows each axis's ground size.
    const BasemapWindow coarse = map.readWindow(map.mapBounds(), 2.0);
    QCOMPARE(coarse.rgb.cols, int(std::lround(300 * expected_x / 2.0)));
    QCOMPARE(coarse.rgb.rows, int(std::lround(200 * expected_y / 2.0)));
  }

  // A polar stereographic raster (EPSG:3413) centred on the north pole: its footprint's
  // box reaches latitude 90 and spans every longitude (the corners alone are at ~89.1).
  void footprintAroundThePoleContainsIt() {
    QTemporaryDir dir;
    const std::string path = (dir.path() + "/arctic.tif").toStdString();
    const cv::Mat rgb(100, 100, CV_8UC3, cv::Scalar(200, 200, 200));
    writeGeoTiff(path, rgb, {}, GeoTransform::northUp(-100000.0, 100000.0, 2000.0, 2000.0), "EPSG:3413");
    const Basemap map = Basemap::open(path);
    const Footprint& fp = map.footprint();
    QVERIFY2(fp.corners[0].lat_deg < 89.0, qPrintable(QString::number(fp.corners[0].lat_deg)));
    QCOMPARE(fp.bbox.max_lat_deg, 90.0);
    QVERIFY(fp.bbox.min_lat_deg < 89.0 && fp.bbox.min_lat_deg > 88.0);
    QCOMPARE(fp.bbox.min_lon_deg, -180.0);
    QCOMPARE(fp.bbox.max_lon_deg, 180.0);
  }

  // Other GDAL formats: VRT, PNG/JPEG + world file + .prj, GeoPackage raster.
  void otherFormats() {
    QTemporaryDir dir;
    const std::string tif = (dir.path() + "/base.tif").toStdString();
    writeSynthetic(tif, false);
    const std::string png = (dir.path() + "/image.png").toStdString();
    gdalTranslate(tif, png, {"-of", "PNG", "-co", "WORLDFILE=YES"});
    {
      // gdal_translate writes image.wld; the CRS goes into a .prj sidecar (as many tools do).
      std::ofstream prj(dir.path().toStdString() + "/image.prj");
      prj << describeCrs("EPSG:32633").wkt;
    }
    const std::string vrt = (dir.path() + "/mosaic.vrt").toStdString();
    gdalTranslate(tif, vrt, {"-of", "VRT"});
    const std::string gpkg = (dir.path() + "/tiles.gpkg").toStdString();
    gdalTranslate(tif, gpkg, {"-of", "GPKG"});
    // JPEG + .jgw + .prj (lossy, no alpha: georeference only).
    const std::string jpeg = (dir.path() + "/photo.jpg").toStdString();
    gdalTranslate(tif, jpeg, {"-of", "JPEG", "-b", "1", "-b", "2", "-b", "3", "-co", "WORLDFILE=YES"});
    {
      std::ofstream prj(dir.path().toStdString() + "/photo.prj");
      prj << describeCrs("EPSG:32633").wkt;
    }
    const Basemap jpeg_map = Basemap::open(jpeg);
    QCOMPARE(QString::fromStdString(jpeg_map.driverName()), QString("JPEG"));
    QVERIFY(jpeg_map.mapFromPixel() == GeoTransform::northUp(500000.0, 5000000.0, 0.5, 0.5));
    QVERIFY(jpeg_map.crsName().find("UTM zone 33N") != std::string::npos);
    for (const std::string& path : {png, vrt, gpkg}) {
      const Basemap map = Basemap::open(path);
      QVERIFY2(map.crsName().find("UTM zone 33N") != std::string::npos, path.c_str());
      const MapPoint tl = map.mapFromPixel().mapFromPixel(0, 0);
      QVERIFY2(std::abs(tl.x - 500000.0) < 1e-6 && std::abs(tl.y - 5000000.0) < 1e-6, path.c_str());
      QVERIFY(std::abs(map.pixelSizeM() - 0.5) < 0.01);
      const BasemapWindow w = map.readWindow(map.mapBounds(), 0.0);
      QCOMPARE(w.rgb.at<cv::Vec3b>(7, 300), cv::Vec3b(300 % 256, 7, 100));
      QCOMPARE(validFraction(w.valid, {200, 100, 100, 100}), 0.0);
    }
  }

  // COG (same grid, with overviews) and MBTiles (GDAL reprojects to EPSG:3857 tiles): the
  // footprint stays where the source is; the 3857 pixel size is reported in ground metres
  // (map pixel * cos(lat)), not in Mercator units.
  void cogAndMbtiles() {
    QTemporaryDir dir;
    const std::string tif = (dir.path() + "/base.tif").toStdString();
    writeSynthetic(tif, false);
    const Basemap source = Basemap::open(tif);
    const std::string cog = (dir.path() + "/cog.tif").toStdString();
    gdalTranslate(tif, cog, {"-of", "COG"});
    const Basemap cog_map = Basemap::open(cog);
    QVERIFY(cog_map.overviewCount() >= 1);
    QVERIFY(cog_map.mapFromPixel() == source.mapFromPixel());
    const std::string mbtiles = (dir.path() + "/tiles.mbtiles").toStdString();
    gdalTranslate(tif, mbtiles, {"-of", "MBTILES"});
    const Basemap web = Basemap::open(mbtiles);
    QCOMPARE(QString::fromStdString(web.driverName()), QString("MBTiles"));
    QVERIFY2(web.crsName().find("3857") != std::string::npos, web.crsName().c_str());
    const double lat = 0.5 * (source.footprint().bbox.min_lat_deg + source.footprint().bbox.max_lat_deg);
    const double ground = web.mapFromPixel().pixelWidth() * std::cos(lat * M_PI / 180.0);
    QVERIFY2(std::abs(web.pixelSizeXM() - ground) / ground < 0.01,
             qPrintable(QString("%1 vs %2").arg(web.pixelSizeXM()).arg(ground)));
    // Same box within two MBTiles pixels (~1.2 m, 1.6e-5 deg); imagery (alpha) inside.
    const GeoBBox& s = source.footprint().bbox;
    const GeoBBox& w = web.footprint().bbox;
    constexpr double kTol = 1.6e-5;
    QVERIFY(std::abs(w.min_lat_deg - s.min_lat_deg) < kTol && std::abs(w.max_lat_deg - s.max_lat_deg) < kTol);
    QVERIFY(std::abs(w.min_lon_deg - s.min_lon_deg) < kTol && std::abs(w.max_lon_deg - s.max_lon_deg) < kTol);
    const BasemapWindow inner = web.readWindow(
        GeoBBox{s.min_lat_deg + 0.3 * (s.max_lat_deg - s.min_lat_deg), s.min_lon_deg + 0.1 * (s.max_lon_deg - s.min_lon_deg),
                s.min_lat_deg + 0.4 * (s.max_lat_deg - s.min_lat_deg), s.min_lon_deg + 0.2 * (s.max_lon_deg - s.min_lon_deg)},
        0.0);
    QVERIFY(validFraction(inner.valid, {0, 0, inner.valid.cols, inner.valid.rows}) > 0.99);
  }

  // Grey, paletted and 16-bit rasters become RGB: grey replicated, palette looked up
  // (nodata index / transparent entries invalid), 16-bit stretched (2nd..98th percentile) to 0..255.
  void greyPaletteAnd16BitBecomeRgb() {
    QTemporaryDir dir;
    GDALAllRegister();
    GDALDriver* gtiff = GetGDALDriverManager()->GetDriverByName("GTiff");
    const auto create = [&](const char* name, GDALDataType type) {
      const std::string path = (dir.path() + "/" + name).toStdString();
      GDALDataset* ds = gtiff->Create(path.c_str(), 100, 50, 1, type, nullptr);
      double gt[6] = {500000.0, 1.0, 0.0, 5000000.0, 0.0, -1.0};
      ds->SetGeoTransform(gt);
      OGRSpatialReference srs;
      srs.importFromEPSG(32633);
      ds->SetSpatialRef(&srs);
      return std::make_pair(path, ds);
    };
    {
      auto [path, ds] = create("grey.tif", GDT_Byte);
      std::vector<uint8_t> v(100 * 50);
      for (int i = 0; i < 5000; ++i) v[i] = uint8_t(1 + (i % 100) * 2);
      QCOMPARE(ds->GetRasterBand(1)->RasterIO(GF_Write, 0, 0, 100, 50, v.data(), 100, 50, GDT_Byte, 0, 0, nullptr), CE_None);
      GDALClose(ds);
      const Basemap map = Basemap::open(path);
      QCOMPARE(QString::fromStdString(map.colorDescription()), QString("grey"));
      const BasemapWindow w = map.readWindow(map.mapBounds(), 0.0);
      QCOMPARE(w.rgb.at<cv::Vec3b>(10, 40), cv::Vec3b(81, 81, 81));
    }
    {
      auto [path, ds] = create("palette.tif", GDT_Byte);
      GDALColorTable table;
      const GDALColorEntry transparent{0, 0, 0, 0}, red{255, 0, 0, 255}, teal{0, 128, 128, 255};
      table.SetColorEntry(0, &transparent);
      table.SetColorEntry(1, &red);
      table.SetColorEntry(2, &teal);
      ds->GetRasterBand(1)->SetColorTable(&table);
      ds->GetRasterBand(1)->SetColorInterpretation(GCI_PaletteIndex);
      ds->GetRasterBand(1)->SetNoDataValue(0);  // TIFF palettes carry no alpha: nodata index
      std::vector<uint8_t> v(100 * 50);
      for (int i = 0; i < 5000; ++i) v[i] = uint8_t((i % 100) / 34);  // columns 0-33: 0, 34-67: 1, 68+: 2
      QCOMPARE(ds->GetRasterBand(1)->RasterIO(GF_Write, 0, 0, 100, 50, v.data(), 100, 50, GDT_Byte, 0, 0, nullptr), CE_None);
      GDALClose(ds);
      const Basemap map = Basemap::open(path);
      QCOMPARE(QString::fromStdString(map.colorDescription()), QString("palette"));
      const BasemapWindow w = map.readWindow(map.mapBounds(), 0.0);
      QCOMPARE(validFraction(w.valid, {0, 0, 34, 50}), 0.0);
      QCOMPARE(validFraction(w.valid, {34, 0, 66, 50}), 1.0);
      QCOMPARE(w.rgb.at<cv::Vec3b>(5, 50), cv::Vec3b(255, 0, 0));
      QCOMPARE(w.rgb.at<cv::Vec3b>(5, 90), cv::Vec3b(0, 128, 128));
    }
    {
      auto [path, ds] = create("uint16.tif", GDT_UInt16);
      std::vector<uint16_t> v(100 * 50);
      for (int i = 0; i < 5000; ++i) v[i] = uint16_t(1000 + (i % 100) * 30);  // 1000..3970 along x
      QCOMPARE(ds->GetRasterBand(1)->RasterIO(GF_Write, 0, 0, 100, 50, v.data(), 100, 50, GDT_UInt16, 0, 0, nullptr), CE_None);
      GDALClose(ds);
      const Basemap map = Basemap::open(path);
      QCOMPARE(QString::fromStdString(map.dataTypeName()), QString("UInt16"));
      const BasemapWindow w = map.readWindow(map.mapBounds(), 0.0);
      QVERIFY(w.rgb.at<cv::Vec3b>(0, 0)[0] == 0);      // below the 2nd percentile
      QVERIFY(w.rgb.at<cv::Vec3b>(0, 99)[0] == 255);   // above the 98th percentile
      const int mid = w.rgb.at<cv::Vec3b>(0, 50)[0];   // the middle of the range
      QVERIFY2(std::abs(mid - 128) < 8, qPrintable(QString::number(mid)));
    }
  }

  // One Basemap shared by several threads: concurrent reads equal the serial ones.
  void concurrentReadsOnSharedBasemap() {
    QTemporaryDir dir;
    const std::string path = (dir.path() + "/shared.tif").toStdString();
    writeSynthetic(path, true);
    const Basemap map = Basemap::open(path);
    const MapRect bounds = map.mapBounds();
    std::vector<MapRect> rects;
    for (int i = 0; i < 16; ++i) {
      const double x0 = bounds.min_x + 7.0 * i, y0 = bounds.min_y + 5.0 * i;
      rects.push_back({x0, y0, x0 + 90.0, y0 + 60.0});
    }
    std::vector<cv::Mat> serial;
    for (const MapRect& r : rects) serial.push_back(map.readWindow(r, 0.5 + 0.25 * (serial.size() % 3)).rgb);
    std::vector<cv::Mat> parallel(rects.size());
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        for (std::size_t i = t; i < rects.size(); i += 4) {
          parallel[i] = map.readWindow(rects[i], 0.5 + 0.25 * (i % 3)).rgb;
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    for (std::size_t i = 0; i < rects.size(); ++i) {
      QCOMPARE(parallel[i].size(), serial[i].size());
      QCOMPARE(cv::norm(parallel[i], serial[i], cv::NORM_INF), 0.0);
    }
  }

  void missingFileIsIoError() {
    try {
      Basemap::open("/nonexistent/folder/map.tif");
      QFAIL("expected IoError");
    } catch (const skytrace::IoError& e) {
      QVERIFY2(QString(e.what()).contains("/nonexistent/folder/map.tif"), e.what());
    }
  }

  void corruptRasterIsFormatError() {
    QTemporaryDir dir;
    const QString path = dir.path() + "/corrupt.tif";
    {
      std::ofstream out(path.toStdString(), std::ios::binary);
      for (int i = 0; i < 4096; ++i) out.put(char((i * 7919 + 13) % 251));
    }
    try {
      Basemap::open(path.toStdString());
      QFAIL("expected FormatError");
    } catch (const skytrace::GeoreferenceError& e) {
      QFAIL(e.what());
    } catch (const skytrace::FormatError& e) {
      QVERIFY2(QString(e.what()).contains(path), e.what());
      QVERIFY2(QString(e.what()).contains("not a raster GDAL can read"), e.what());
      QVERIFY2(QString(e.what()).contains("corrupt"), e.what());
    }
  }

  // A GeoTIFF cut after its header opens, but reading pixels is a FormatError naming the
  // file and carrying GDAL's reason.
  void truncatedRasterFailsOnRead() {
    SKYTRACE_REQUIRE_SHARED();
    QTemporaryDir dir;
    const QString path = dir.path() + "/truncated.tif";
    const std::string bytes = skytrace::readFileBytes(ortho("australia.tif"));
    skytrace::writeFileAtomically(path.toStdString(), bytes.substr(0, 20000));
    const Basemap map = Basemap::open(path.toStdString());
    try {
      map.readWindow(map.mapBounds(), 0.0);
      QFAIL("expected FormatError");
    } catch (const skytrace::FormatError& e) {
      QVERIFY2(QString(e.what()).contains(path + ": reading pixels failed"), e.what());
      QVERIFY2(QString(e.what()).contains("TIFF", Qt::CaseInsensitive) ||
                   QString(e.what()).contains("read", Qt::CaseInsensitive),
               e.what());
    }
  }

  void plainPngIsGeoreferenceError() {
    QTemporaryDir dir;
    const QString path = dir.path() + "/photo.png";
    cv::Mat bgr(64, 64, CV_8UC3, cv::Scalar(10, 200, 30));
    QVERIFY(cv::imwrite(path.toStdString(), bgr));
    try {
      Basemap::open(path.toStdString());
      QFAIL("expected GeoreferenceError");
    } catch (const skytrace::GeoreferenceError& e) {
      QVERIFY2(QString(e.what()).contains(path + " has no georeference (no geotransform/CRS"), e.what());
    }
  }

  void writeFailureKeepsExistingFile() {
    QTemporaryDir dir;
    const std::string path = (dir.path() + "/keep.tif").toStdString();
    writeSynthetic(path, false);
    const std::string before = skytrace::readFileBytes(path);
    // Wrong mask size: rejected before anything is written.
    cv::Mat rgb(10, 10, CV_8UC3, cv::Scalar(1, 2, 3)), bad_mask(5, 5, CV_8UC1);
    QVERIFY_THROWS_EXCEPTION(skytrace::InvalidArgument,
                             writeGeoTiff(path, rgb, bad_mask, GeoTransform::northUp(0, 0, 1, 1), "EPSG:32633"));
    // Bad CRS: rejected as well.
    QVERIFY_THROWS_EXCEPTION(skytrace::Error,
                             writeGeoTiff(path, rgb, {}, GeoTransform::northUp(0, 0, 1, 1), "no such crs"));
    QCOMPARE(skytrace::readFileBytes(path), before);
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);  // no temp left
    QVERIFY_THROWS_EXCEPTION(skytrace::IoError,
                             writeGeoTiff(dir.path().toStdString() + "/missing/x.tif", rgb, {},
                                          GeoTransform::northUp(0, 0, 1, 1), "EPSG:32633"));
  }
};

QTEST_GUILESS_MAIN(TestBasemap)
#include "test_basemap.moc"
