// The renderer on synthetic, independently known basemaps: the centre pixel of a nadir
// frame is the basemap colour at the true ground point; geometry of an oblique frame;
// pixels off the map are black and counted; flights stay inside their area; the SRT
// written parses back (independent regex parser) to the true poses within the noise;
// the procedural demo basemap is a georeferenced UTM GeoTIFF with aerial-like content;
// the usable area of a map with nodata keeps clear of its edge, not of its speckle.
#include <QTemporaryDir>
#include <QtTest>

#include <gdal_priv.h>

#include <opencv2/imgproc.hpp>

#include <cmath>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>

#include "core/geo/basemap.h"
#include "core/io/telemetry/srt_reader.h"
#include "core/sim/flight_path.h"
#include "core/sim/flight_renderer.h"
#include "core/sim/flight_simulation.h"
#include "core/sim/procedural_basemap.h"
#include "core/sim/srt_writer.h"

using namespace skytrace;
using namespace skytrace::nav;
using namespace skytrace::sim;

namespace {

constexpr double kEasting0 = 500000.0, kNorthing0 = 5000600.0, kGsd = 0.5;

// 1200 x 1200 px at 0.5 m in UTM 33N: smooth colour gradients + a fine random pattern,
// so every ground point has a distinct, known colour.
std::string writeTestBasemap(const QTemporaryDir& dir, cv::Mat* rgb_out) {
  cv::Mat rgb(1200, 1200, CV_8UC3);
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int> jitter(0, 40);
  for (int r = 0; r < rgb.rows; ++r) {
    for (int c = 0; c < rgb.cols; ++c) {
      rgb.at<cv::Vec3b>(r, c) = cv::Vec3b(uchar(20 + c / 6 + jitter(rng)), uchar(20 + r / 6),
                                          uchar(60 + ((c / 8 + r / 8) % 2) * 120));
    }
  }
  cv::GaussianBlur(rgb, rgb, {0, 0}, 3.0);  // smooth enough for bilinear sampling
  const std::string path = dir.filePath("basemap.tif").toStdString();
  geo::writeGeoTiff(path, rgb, cv::Mat(), geo::GeoTransform::northUp(kEasting0, kNorthing0, kGsd, kGsd),
                    "EPSG:32633");
  *rgb_out = rgb;
  return path;
}

// The basemap colour (bilinear, R,G,B) at a map point, straight from the raster array.
cv::Vec3d colourAt(const cv::Mat& rgb, double easting, double northing) {
  const double col = (easting - kEasting0) / kGsd - 0.5, row = (kNorthing0 - northing) / kGsd - 0.5;
  cv::Mat patch;
  cv::getRectSubPix(rgb, {1, 1}, cv::Point2f(float(col), float(row)), patch, CV_32F);
  const cv::Vec3f v = patch.at<cv::Vec3f>(0, 0);
  return {v[0], v[1], v[2]};
}

struct SrtRecord {
  long long frame;
  double lat, lon, rel_alt, abs_alt, yaw;
};

// An independent reader of the DJI block layout (not the writer's code).
std::vector<SrtRecord> parseSrt(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  const std::regex block(
      R"(FrameCnt: (\d+), DiffTime: \d+ms\n[0-9: .-]+\n.*\[latitude: ([-0-9.]+)\] \[longitude: ([-0-9.]+)\] \[rel_alt: ([-0-9.]+) abs_alt: ([-0-9.]+)\] \[gb_yaw: ([-0-9.]+))");
  std::vector<SrtRecord> records;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), block); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    records.push_back({std::stoll(m[1]) - 1, std::stod(m[2]), std::stod(m[3]), std::stod(m[4]),
                       std::stod(m[5]), std::stod(m[6])});
  }
  return records;
}

}  // namespace

class TestFlightRender : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void nadirCentrePixelIsTheGroundColour() {
    QTemporaryDir dir;
    cv::Mat rgb;
    const geo::Basemap basemap = geo::Basemap::open(writeTestBasemap(dir, &rgb));
    const geo::MapPoint centre_map{kEasting0 + 300.0, kNorthing0 - 300.0};
    const geo::GeoPoint origin = basemap.converter().geoFromMap(centre_map, 200.0);
    const geo::LocalEnuFrame frame(origin);
    const CameraModel camera = CameraModel::fromHorizontalFov(401, 301, 60.0);
    const FlightRenderer renderer(basemap, frame, camera, RenderOptions{});
    int checked = 0;
    for (const CameraPose& pose : {CameraPose{0.0, {0, 0, 80}, 0, -90, 0},
                                   CameraPose{0.0, {37.3, -21.9, 120}, 65, -90, 0},
                                   CameraPose{0.0, {-55.1, 40.7, 60}, 200, -90, 0}}) {
      const RenderedFrame out = renderer.renderClean(pose);
      QCOMPARE(out.invalid_fraction, 0.0);
      // The true ground point under the camera, in the map CRS, by the geo layer.
      const geo::MapPoint truth = basemap.converter().mapFromEnu(
          frame, {pose.position_enu[0], pose.position_enu[1], 0.0});
      const cv::Vec3d expected = colourAt(rgb, truth.x, truth.y);
      const cv::Vec3b bgr = out.bgr.at<cv::Vec3b>(150, 200);  // the principal point
      for (int k = 0; k < 3; ++k) {
        QVERIFY2(std::abs(bgr[2 - k] - expected[k]) <= 2.0,
                 qPrintable(QString("channel %1: rendered %2, basemap %3").arg(k).arg(bgr[2 - k]).arg(expected[k])));
      }
      ++checked;
    }
    QCOMPARE(checked, 3);
  }

  void obliqueCornerPixelsMatchTheirGroundPoints() {
    QTemporaryDir dir;
    cv::Mat rgb;
    const geo::Basemap basemap = geo::Basemap::open(writeTestBasemap(dir, &rgb));
    const geo::GeoPoint origin = basemap.converter().geoFromMap({kEasting0 + 300, kNorthing0 - 300}, 0.0);
    const geo::LocalEnuFrame frame(origin);
    Distortion d;
    d.k1 = -0.08;
    const CameraModel camera = CameraModel::fromHorizontalFov(320, 240, 70.0, d);
    const FlightRenderer renderer(basemap, frame, camera, RenderOptions{});
    const CameraPose pose{0.0, {-20, -30, 90}, 30, -55, 3};
    const RenderedFrame out = renderer.renderClean(pose);
    QCOMPARE(out.invalid_fraction, 0.0);
    double worst = 0;
    for (const cv::Point pixel : {cv::Point(10, 10), cv::Point(309, 12), cv::Point(160, 120),
                                  cv::Point(15, 229), cv::Point(300, 230)}) {
      cv::Vec3d ground;
      QVERIFY(groundFromPixel(camera, pose, pixel, 0.0, &ground));
      const geo::MapPoint m = basemap.converter().mapFromEnu(frame, {ground[0], ground[1], 0.0});
      const cv::Vec3d expected = colourAt(rgb, m.x, m.y);
      const cv::Vec3b bgr = out.bgr.at<cv::Vec3b>(pixel);
      for (int k = 0; k < 3; ++k) worst = std::max(worst, std::abs(bgr[2 - k] - expected[k]));
    }
    QVERIFY2(worst <= 3.0, qPrintable(QString("worst channel difference %1").arg(worst)));
  }

  // A DSM sloping 10% up to the east: an oblique ray's ground point is the analytic
  // intersection with that slope, and the rendered pixel shows the map colour there.
  void dsmSlopeMovesGroundPoints() {
    QTemporaryDir dir;
    cv::Mat rgb;
    const geo::Basemap basemap = geo::Basemap::open(writeTestBasemap(dir, &rgb));
    const std::string dsm_path = dir.filePath("dsm.tif").toStdString();
    {
      GDALAllRegister();
      GDALDriver* driver = GetGDALDriverManager()->GetDriverByName("GTiff");
      std::unique_ptr<GDALDataset> ds(driver->Create(dsm_path.c_str(), 600, 600, 1, GDT_Float32, nullptr));
      double c[6] = {kEasting0, 1.0, 0, kNorthing0, 0, -1.0};
      ds->SetGeoTransform(c);
      OGRSpatialReference srs;
      srs.importFromEPSG(32633);
      ds->SetSpatialRef(&srs);
      std::vector<float> heights(600 * 600);
      for (int r = 0; r < 600; ++r)
        for (int col = 0; col < 600; ++col) heights[r * 600 + col] = float(0.1 * (col + 0.5));
      QCOMPARE(int(ds->GetRasterBand(1)->RasterIO(GF_Write, 0, 0, 600, 600, heights.data(), 600, 600,
                                                   GDT_Float32, 0, 0)), int(CE_None));
    }
    const SurfaceModel dsm = SurfaceModel::open(dsm_path);
    QVERIFY(std::abs(dsm.medianHeight_m() - 30.0) < 1.0);
    const geo::MapPoint centre_map{kEasting0 + 300.0, kNorthing0 - 300.0};
    const geo::LocalEnuFrame frame(basemap.converter().geoFromMap(centre_map, 0.0));
    const CameraModel camera = CameraModel::fromHorizontalFov(320, 240, 60.0);
    const FlightRenderer renderer(basemap, frame, camera, RenderOptions{}, &dsm);
    const CameraPose pose{0.0, {0, 0, 120}, 90, -70, 0};  // looking east, up the slope
    const RenderedFrame out = renderer.renderClean(pose);
    QCOMPARE(out.invalid_fraction, 0.0);
    double worst = 0;
    for (const cv::Point pixel : {cv::Point(20, 20), cv::Point(160, 120), cv::Point(300, 220)}) {
      const cv::Vec3d d = pose.enuFromCam() * camera.rayFromPixel(pixel);
      // Height at east e is 0.1 (e + 300) (UTM 33N central meridian: no grid rotation).
      const double t = (30.0 - 120.0) / (d[2] - 0.1 * d[0]);
      const double e = t * d[0], n = t * d[1];
      const geo::MapPoint m = basemap.converter().mapFromEnu(frame, {e, n, 0.1 * (e + 300)});
      const cv::Vec3d expected = colourAt(rgb, m.x, m.y);
      const cv::Vec3b bgr = out.bgr.at<cv::Vec3b>(pixel);
      for (int k = 0; k < 3; ++k) worst = std::max(worst, std::abs(bgr[2 - k] - expected[k]));
    }
    QVERIFY2(worst <= 3.0, qPrintable(QString("worst channel difference %1").arg(worst)));
  }

  void offMapPixelsAreBlack() {
    QTemporaryDir dir;
    cv::Mat rgb;
    const geo::Basemap basemap = geo::Basemap::open(writeTestBasemap(dir, &rgb));
    // Origin at the map's east edge: the right half of a nadir frame is off the map.
    const geo::GeoPoint origin = basemap.converter().geoFromMap({kEasting0 + 600.0, kNorthing0 - 300}, 0.0);
    const geo::LocalEnuFrame frame(origin);
    const CameraModel camera = CameraModel::fromHorizontalFov(200, 100, 60.0);
    const FlightRenderer renderer(basemap, frame, camera, RenderOptions{});
    const RenderedFrame out = renderer.renderClean({0.0, {0, 0, 100}, 0, -90, 0});
    QVERIFY(std::abs(out.invalid_fraction - 0.5) < 0.03);
    QCOMPARE(out.bgr.at<cv::Vec3b>(50, 190), cv::Vec3b(0, 0, 0));
    QVERIFY(out.bgr.at<cv::Vec3b>(50, 10) != cv::Vec3b(0, 0, 0));
    // Looking at the horizon: the sky is black too.
    const RenderedFrame sky = renderer.renderClean({0.0, {-300, 0, 50}, 90, 0, 0});
    QVERIFY(sky.invalid_fraction > 0.45);
  }

  void effectsAreSeededAndReproducible() {
    QTemporaryDir dir;
    cv::Mat rgb;
    const geo::Basemap basemap = geo::Basemap::open(writeTestBasemap(dir, &rgb));
    const geo::LocalEnuFrame frame(basemap.converter().geoFromMap({kEasting0 + 300, kNorthing0 - 300}, 0.0));
    const CameraModel camera = CameraModel::fromHorizontalFov(160, 120, 60.0);
    RenderOptions options;
    options.effects = {0.1, 0.05, 4.0, 0.01, 80, 7};
    const CameraPose a{1.0, {0, 0, 80}, 10, -90, 0}, b{1.1, {1, 0, 80}, 10, -90, 0};
    const FlightRenderer r1(basemap, frame, camera, options), r2(basemap, frame, camera, options);
    const cv::Mat f1 = r1.render(b, 11, &a).bgr, f2 = r2.render(b, 11, &a).bgr;
    QCOMPARE(cv::norm(f1, f2, cv::NORM_INF), 0.0);
    const cv::Mat clean = r1.renderClean(b).bgr;
    QVERIFY(cv::norm(f1, clean, cv::NORM_L1) / f1.total() > 1.0);  // effects changed pixels
  }

  // The usable area avoids the map's nodata edge and its large holes, not its speckle:
  // 400 x 400 px at 0.5 m, the western 100 columns nodata, 300 single nodata pixels
  // scattered over the rest (as a map declaring 255 nodata has on saturated sand).
  void usableAreaIgnoresSpeckleButNotHoles() {
    QTemporaryDir dir;
    cv::Mat rgb(400, 400, CV_8UC3, cv::Scalar(90, 120, 60));
    cv::Mat valid(400, 400, CV_8UC1, cv::Scalar(255));
    valid.colRange(0, 100).setTo(0);
    std::mt19937_64 rng(11);
    std::uniform_int_distribution<int> col(101, 398), row(1, 398);
    for (int i = 0; i < 300; ++i) valid.at<uchar>(row(rng), col(rng)) = 0;
    auto usableArea = [&](const cv::Mat& mask) {
      const std::string path = dir.filePath("speckled.tif").toStdString();
      geo::writeGeoTiff(path, rgb, mask, geo::GeoTransform::northUp(kEasting0, kNorthing0, kGsd, kGsd),
                        "EPSG:32633");
      return findUsableArea(geo::Basemap::open(path), 0.0).rect;
    };
    const EnuRect speckled = usableArea(valid);
    // 150 x 200 m of imagery, less a pixel of safety inside (the ENU frame is not
    // exactly the map grid: +0.5 m).
    QVERIFY2(speckled.width_m() > 147.0 && speckled.width_m() <= 150.5, qPrintable(QString::number(speckled.width_m())));
    QVERIFY2(speckled.height_m() > 197.0 && speckled.height_m() <= 200.5, qPrintable(QString::number(speckled.height_m())));
    // A 20 x 20 px hole (10 m, 5 % of the map) is a hole: the area goes round it.
    valid(cv::Rect(240, 190, 20, 20)).setTo(0);
    const EnuRect holed = usableArea(valid);
    QVERIFY2(holed.width_m() * holed.height_m() < 0.5 * 150.0 * 200.0,
             qPrintable(QString("%1 x %2").arg(holed.width_m()).arg(holed.height_m())));
  }

  void flightPathsStayInTheirArea() {
    for (auto kind : {TrajectoryKind::Lawnmower, TrajectoryKind::Orbit, TrajectoryKind::Transit,
                      TrajectoryKind::Random}) {
      FlightPathOptions o;
      o.kind = kind;
      o.area = {-100, -60, 140, 80};
      o.altitude_m = 90;
      o.altitude_variation_m = 5;
      o.attitude_jitter_deg = 1.0;
      o.fps = 10;
      o.duration_s = 40;
      o.seed = 3;
      const std::vector<CameraPose> poses = generateFlightPath(o);
      QCOMPARE(int(poses.size()), 400);
      double travelled = 0;
      for (size_t i = 0; i < poses.size(); ++i) {
        const cv::Vec3d p = poses[i].position_enu;
        QVERIFY(p[0] >= -100 - 1e-6 && p[0] <= 140 + 1e-6 && p[1] >= -60 - 1e-6 && p[1] <= 80 + 1e-6);
        QVERIFY(p[2] >= 90 - 5 - 1e-6 && p[2] <= 90 + 5 + 1e-6);
        QVERIFY(poses[i].pitch_deg <= 0.0);
        if (i > 0) travelled += cv::norm(p - poses[i - 1].position_enu);
      }
      // 10 m/s for 40 s, less a 6 s hover where the pattern is shorter (transit: 250 m).
      const double expected = kind == TrajectoryKind::Transit ? 400.0 - 60.0 : 400.0;
      QVERIFY2(std::abs(travelled - expected) < 30.0, qPrintable(QString::number(travelled)));
      QCOMPARE(generateFlightPath(o)[123].yaw_deg, poses[123].yaw_deg);  // seeded
    }
  }

  // A flight longer than its pattern flies it back and forth: at each end the drone
  // hovers and yaws round smoothly, never by more than a few degrees between frames.
  void patternsFlownBackAndForthTurnRoundSmoothly() {
    for (auto kind : {TrajectoryKind::Lawnmower, TrajectoryKind::Transit}) {
      FlightPathOptions o;
      o.kind = kind;
      o.area = {-60, -40, 60, 40};
      o.speed_mps = 8;
      o.fps = 30;
      o.attitude_jitter_deg = 0.0;
      o.duration_s = 0;
      const double pattern_s = double(generateFlightPath(o).size()) / o.fps;
      o.duration_s = 2.5 * pattern_s + 20.0;  // out, turn, back, turn, half out again
      const std::vector<CameraPose> poses = generateFlightPath(o);
      double worst_step_deg = 0.0;
      int hovering = 0, reversals = 0;
      for (size_t i = 1; i < poses.size(); ++i) {
        worst_step_deg = std::max(worst_step_deg, std::abs(wrapAngleDeg(poses[i].yaw_deg - poses[i - 1].yaw_deg)));
        if (cv::norm(poses[i].position_enu - poses[i - 1].position_enu) < 1e-9) ++hovering;
        if (i >= 2) {
          const cv::Vec3d a = poses[i - 1].position_enu - poses[i - 2].position_enu;
          const cv::Vec3d b = poses[i].position_enu - poses[i - 1].position_enu;
          if (a.dot(b) < 0) ++reversals;  // straight back without a hover between
        }
      }
      QVERIFY2(worst_step_deg < 3.0, qPrintable(QString("%1 deg between frames").arg(worst_step_deg)));
      QVERIFY2(hovering >= 2 * 6 * 30 - 4, qPrintable(QString("%1 frames hovering").arg(hovering)));
      QCOMPARE(reversals, 0);
    }
  }

  void srtParsesBackToTruthWithinTheNoise() {
    QTemporaryDir dir;
    const geo::GeoPoint origin{47.5, 8.5, 400.0};
    const geo::LocalEnuFrame frame(origin);
    std::vector<geo::TrackPose> truth;
    for (int i = 0; i < 300; ++i) {
      const geo::GeoPoint g = frame.toGeo({i * 0.5, 20.0 * std::sin(i / 50.0), 100.0});
      geo::TrackPose p;
      p.frame = i;
      p.t_s = i / 30.0;
      p.lat_deg = g.lat_deg;
      p.lon_deg = g.lon_deg;
      p.alt_m = g.alt_m;
      p.yaw_deg = 90;
      p.pitch_deg = -90;
      p.roll_deg = 0;
      truth.push_back(p);
    }
    GnssErrorModel model;
    model.noise_sigma_m = 2.0;
    model.baro_noise_sigma_m = 0.3;
    model.bias_m = 3.0;
    model.dropout_rate = 0.1;
    model.spoof_start_s = 6.0;
    model.spoof_duration_s = 2.0;
    model.spoof_offset_m = 80.0;
    model.seed = 9;
    const GnssSimulation sim = simulateGnss(truth, frame, 400.0, model);
    const std::string path = dir.filePath("flight.srt").toStdString();
    writeDjiSrt(path, sim.samples, 30.0, 1717236000.0);
    const std::vector<SrtRecord> records = parseSrt(path);
    QCOMPARE(int(records.size()), 300);
    int dropouts = 0, spoofed = 0;
    double mean_e = 0, mean_n = 0, max_gnss_up_m = 0;
    int clean = 0;
    for (int i = 0; i < 300; ++i) {
      const SrtRecord& r = records[i];
      QCOMPARE(r.frame, (long long)i);
      QCOMPARE(r.yaw, 90.0);
      if (!sim.samples[i].has_fix) {
        QCOMPARE(r.lat, 0.0);  // DJI writes 0/0 without a fix
        ++dropouts;
        continue;
      }
      const geo::EnuPoint got = frame.toEnu({r.lat, r.lon, r.abs_alt});
      const geo::EnuPoint want = frame.toEnu({truth[i].lat_deg, truth[i].lon_deg, truth[i].alt_m});
      const double de = got.east_m - want.east_m, dn = got.north_m - want.north_m;
      if (sim.samples[i].spoofed) {
        // After the 0.5 s ramp the spoofer's 80 m drag dominates the error.
        if (truth[i].t_s >= 6.5) QVERIFY(std::abs(std::hypot(de, dn) - 80.0) < 3.0 + 5 * 2.0 * 1.5);
        continue;
      }
      // Within the noise set: bias 3 m + 5 sigma of 2 m + SRT rounding (1e-6 deg ~ 0.11 m).
      QVERIFY2(std::hypot(de, dn) < 3.0 + 5 * 2.0 * std::sqrt(2.0) + 0.2,
               qPrintable(QString("frame %1: %2 m").arg(i).arg(std::hypot(de, dn))));
      // rel_alt is the barometer's: its own error, within 5 sigma of 0.3 m, whatever the
      // GNSS height (abs_alt) says; the SRT's 3 decimals round.
      const double true_rel_alt_m = truth[i].alt_m - 400.0;
      QVERIFY(std::abs(r.rel_alt - true_rel_alt_m - sim.samples[i].error_rel_alt_m) < 2e-3);
      QVERIFY(std::abs(sim.samples[i].error_rel_alt_m) < 5 * 0.3);
      max_gnss_up_m = std::max(max_gnss_up_m, std::abs(r.abs_alt - truth[i].alt_m));
      mean_e += de;
      mean_n += dn;
      ++clean;
    }
    QVERIFY(dropouts > 5 && dropouts < 80);
    QVERIFY2(max_gnss_up_m > 2.0, qPrintable(QString("GNSS height error at most %1 m").arg(max_gnss_up_m)));
    for (const auto& sample : sim.samples) spoofed += sample.spoofed;

    // The project's own DJI SRT reader (core/io) reads the same file back: every fix,
    // at its video time, to the written position (6 decimals), gimbal angles included;
    // dropout blocks (0, 0) are "no fix".
    const io::TelemetrySeries series = io::readDjiSrt(path);
    QCOMPARE(int(series.positionCount()), 300 - dropouts);
    for (const auto& sample : series.samples) {
      if (!sample.hasPosition()) continue;
      const long index = std::lround(sample.log_t_s * 30.0);
      QVERIFY(index >= 0 && index < 300);
      const GnssSample& written = sim.samples[size_t(index)];
      QVERIFY(written.has_fix);
      QVERIFY(std::abs(sample.lat_deg - written.lat_deg) <= 5.1e-7);
      QVERIFY(std::abs(sample.lon_deg - written.lon_deg) <= 5.1e-7);
      QVERIFY(std::abs(sample.alt_rel_m - written.rel_alt_m) < 2e-3);
      QCOMPARE(sample.gimbal_yaw_deg, 90.0);
      QCOMPARE(sample.gimbal_pitch_deg, -90.0);
    }
    QCOMPARE(spoofed, 60);  // 6.0 s .. 8.0 s at 30 fps
    // The bias shows as the mean offset, in its documented direction, within the noise.
    mean_e /= clean;
    mean_n /= clean;
    const double b = sim.bias_bearing_deg * M_PI / 180.0;
    QVERIFY2(std::hypot(mean_e - 3.0 * std::sin(b), mean_n - 3.0 * std::cos(b)) < 2.5,
             qPrintable(QString("mean offset %1, %2").arg(mean_e).arg(mean_n)));
  }

  void srtWithoutNoiseIsExact() {
    QTemporaryDir dir;
    const geo::LocalEnuFrame frame({-33.9, 151.2, 30.0});
    std::vector<geo::TrackPose> truth(10);
    for (int i = 0; i < 10; ++i) {
      const geo::GeoPoint g = frame.toGeo({i * 3.0, -i * 1.0, 60.0});
      truth[i] = {};
      truth[i].frame = i;
      truth[i].t_s = i * 0.1;
      truth[i].lat_deg = g.lat_deg;
      truth[i].lon_deg = g.lon_deg;
      truth[i].alt_m = g.alt_m;
      truth[i].yaw_deg = -45;
      truth[i].pitch_deg = -80;
      truth[i].roll_deg = 0;
    }
    const GnssSimulation sim = simulateGnss(truth, frame, 30.0, {});
    const std::string path = dir.filePath("exact.srt").toStdString();
    writeDjiSrt(path, sim.samples, 10.0, 1717236000.0);
    const auto records = parseSrt(path);
    QCOMPARE(int(records.size()), 10);
    for (int i = 0; i < 10; ++i) {
      QVERIFY(std::abs(records[i].lat - truth[i].lat_deg) <= 5.1e-7);
      QVERIFY(std::abs(records[i].lon - truth[i].lon_deg) <= 5.1e-7);
      QVERIFY(std::abs(records[i].rel_alt - 60.0) < 2e-3);  // 60 m above the take-off ground
    }
  }

  void proceduralBasemapIsGeoreferencedAndAerial() {
    QTemporaryDir dir;
    sim::ProceduralBasemapOptions o;
    o.size_px = 768;
    o.gsd_m = 0.5;
    o.seed = 5;
    const std::string path = dir.filePath("demo.tif").toStdString();
    sim::writeProceduralBasemap(path, o);
    const geo::Basemap basemap = geo::Basemap::open(path);
    QVERIFY(QString::fromStdString(basemap.crsName()).contains("UTM zone 32N"));
    QCOMPARE(basemap.width(), 768);
    QVERIFY(std::abs(basemap.pixelSizeM() - 0.5) < 0.01);
    QVERIFY(basemap.footprint().bbox.min_lat_deg > 48.0 && basemap.footprint().bbox.max_lat_deg < 48.5);
    const geo::BasemapWindow all = basemap.readWindow(basemap.mapBounds(), 0.0);
    QCOMPARE(cv::countNonZero(all.valid), 768 * 768);
    // Aerial-like: green vegetation, grey asphalt, blue-ish water and red roofs all present.
    cv::Mat hsv;
    cv::cvtColor(all.rgb, hsv, cv::COLOR_RGB2HSV);
    int green = 0, grey = 0, water = 0, roof = 0;
    for (int r = 0; r < hsv.rows; ++r) {
      for (int c = 0; c < hsv.cols; ++c) {
        const cv::Vec3b p = hsv.at<cv::Vec3b>(r, c);
        green += p[0] >= 30 && p[0] <= 80 && p[1] > 60;
        grey += p[1] < 30 && p[2] > 60 && p[2] < 120;
        water += p[0] >= 85 && p[0] <= 110 && p[1] > 60;
        roof += (p[0] <= 10 || p[0] >= 170) && p[1] > 100 && p[2] > 100;
      }
    }
    const double n = 768.0 * 768.0;
    QVERIFY(green / n > 0.2);
    QVERIFY(grey / n > 0.005);
    QVERIFY(water / n > 0.002);
    QVERIFY(roof / n > 0.0005);
    // Same seed, same pixels.
    QCOMPARE(cv::norm(sim::generateProceduralAerialImage(o), all.rgb, cv::NORM_INF), 0.0);
  }
};

QTEST_GUILESS_MAIN(TestFlightRender)
#include "test_flight_render.moc"
