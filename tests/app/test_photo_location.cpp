// app::locatePhotos: photos rendered over a procedural basemap at known poses are found
// where and with the heading they were taken; a photo of nothing is not located; missing
// camera facts and a cancel are reported, not guessed.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <string>

#include <opencv2/imgcodecs.hpp>

#include "core/app/photo_location.h"
#include "core/engine/run_control.h"
#include "core/geo/basemap.h"
#include "core/geo/geodesy.h"
#include "core/nav/camera_pose.h"
#include "core/nav/ground_projection.h"
#include "core/sim/flight_renderer.h"
#include "core/sim/procedural_basemap.h"
#include "core/util/error.h"

using namespace skytrace;

namespace {

constexpr double kHfovDeg = 70.0;
constexpr double kHeightM = 80.0;

class CancellingObserver : public app::LocateObserver {
 public:
  CancellingObserver() { control_.requestCancel(); }
  const engine::RunControl* control() const override { return &control_; }

 private:
  engine::RunControl control_;
};

double angleDifferenceDeg(double a, double b) { return std::abs(std::remainder(a - b, 360.0)); }

}  // namespace

class TestPhotoLocation : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  std::string basemap_;
  std::unique_ptr<geo::LocalEnuFrame> enu_;  // centred on the basemap, as locatePhotos' frame

  // A photo of the basemap taken from `pose` (ENU of enu_), written as PNG (no EXIF).
  std::string photo(const std::string& name, const nav::CameraPose& pose) {
    const geo::Basemap basemap = geo::Basemap::open(basemap_);
    const sim::FlightRenderer renderer(basemap, *enu_, nav::CameraModel::fromHorizontalFov(640, 480, kHfovDeg),
                                       sim::RenderOptions());
    const std::string path = dir_.filePath(QString::fromStdString(name)).toStdString();
    cv::imwrite(path, renderer.renderClean(pose).bgr);
    return path;
  }

  app::LocateRequest request(const std::vector<std::string>& photos) const {
    app::LocateRequest r;
    r.photo_paths = photos;
    r.basemap_paths = {basemap_};
    r.hfov_deg = kHfovDeg;
    r.height_m = kHeightM;
    r.feature_model = "orb";
    return r;
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    basemap_ = dir_.filePath("basemap.tif").toStdString();
    sim::ProceduralBasemapOptions map;
    map.size_px = 1024;
    map.gsd_m = 0.25;
    sim::writeProceduralBasemap(basemap_, map);
    const geo::GeoBBox box = geo::Basemap::open(basemap_).footprint().bbox;
    enu_ = std::make_unique<geo::LocalEnuFrame>(
        geo::GeoPoint{0.5 * (box.min_lat_deg + box.max_lat_deg), 0.5 * (box.min_lon_deg + box.max_lon_deg), 0.0});
  }

  // Issue 19: locate's heading was 14-170 deg off near nadir, where yaw and roll turn the
  // image about almost the same axis; it is now the heading of the image's top, as in
  // every track (roll folded into yaw).
  void aPhotoIsFoundWhereAndWithTheHeadingItWasTaken() {
    nav::CameraPose truth;
    truth.position_enu = {40.0, -30.0, kHeightM};
    truth.yaw_deg = 40.0;  // straight down: any split of the turn into yaw and roll fits
    truth.pitch_deg = -90.0;
    const std::string path = photo("nadir.png", truth);
    app::LocateObserver observer;
    const app::LocateOutcome outcome = app::locatePhotos(request({path}), observer);
    QCOMPARE(int(outcome.photos.size()), 1);
    const app::PhotoLocation& located = outcome.photos.front();
    QVERIFY2(located.fix.accepted, qPrintable(QString::fromStdString(located.fix.reason) + ", inliers " +
                                              QString::number(located.fix.inliers)));
    QCOMPARE(outcome.located, 1);
    QVERIFY(located.pose);

    nav::CameraPose heading = truth;
    nav::foldRollIntoYawNearNadir(&heading);
    const geo::TrackPose expected = nav::trackPoseFromCameraPose(heading, *enu_, 0);
    const double error_m =
        geo::horizontalDistanceM({located.pose->lat_deg, located.pose->lon_deg, 0.0},
                                 {expected.lat_deg, expected.lon_deg, 0.0});
    QVERIFY2(error_m < 1.0, qPrintable(QString("%1 m from where it was taken").arg(error_m)));
    const double heading_error_deg = angleDifferenceDeg(located.pose->yaw_deg, expected.yaw_deg);
    QVERIFY2(heading_error_deg < 2.0, qPrintable(QString("heading %1 deg, taken at %2 deg")
                                                     .arg(located.pose->yaw_deg)
                                                     .arg(expected.yaw_deg)));
    QVERIFY(!located.gps);  // a PNG has no EXIF GPS: no distance is invented
    QVERIFY(std::isnan(located.distance_to_gps_m));

    const std::string csv = app::locationsCsv(outcome);
    QVERIFY2(csv.rfind("image,lat_deg,lon_deg,yaw_deg,height_m,inliers,inlier_ratio,accepted,reason,", 0) == 0,
             csv.c_str());
    QVERIFY2(csv.find("distance_to_gps_m,gps_footprint_on_map\n") != std::string::npos, csv.c_str());
    QVERIFY2(csv.find(path + ",") != std::string::npos && csv.find(",1,,,,,\n") != std::string::npos, csv.c_str());
    QVERIFY(std::isnan(located.gps_footprint_on_map));  // nor a footprint without GPS
  }

  void aPhotoOfNothingIsNotLocated() {
    const std::string path = dir_.filePath("grey.png").toStdString();
    cv::imwrite(path, cv::Mat(480, 640, CV_8UC3, cv::Scalar(128, 128, 128)));
    app::LocateObserver observer;
    const app::LocateOutcome outcome = app::locatePhotos(request({path}), observer);
    QCOMPARE(outcome.located, 0);
    QCOMPARE(int(outcome.photos.size()), 1);
    QVERIFY(!outcome.photos.front().fix.accepted);
    QVERIFY(!outcome.photos.front().fix.reason.empty());
    QVERIFY(!outcome.photos.front().pose);
  }

  void aPhotoWithoutFieldOfViewIsRefusedByName() {
    nav::CameraPose pose;
    pose.position_enu = {0.0, 0.0, kHeightM};
    const std::string path = photo("no_exif.png", pose);
    app::LocateRequest r = request({path});
    r.hfov_deg = app::LocateRequest::kFromPhoto;
    app::LocateObserver observer;
    try {
      app::locatePhotos(r, observer);
      QFAIL("a photo without a field of view was located");
    } catch (const InvalidArgument& e) {
      const std::string what = e.what();
      QVERIFY2(what.find(path) != std::string::npos && what.find("--hfov-deg") != std::string::npos, e.what());
    }
  }

  void aCancelledRunLocatesNothingMore() {
    nav::CameraPose pose;
    pose.position_enu = {0.0, 0.0, kHeightM};
    const std::string path = photo("cancelled.png", pose);
    CancellingObserver observer;
    const app::LocateOutcome outcome = app::locatePhotos(request({path, path}), observer);
    QVERIFY(outcome.cancelled);
    QVERIFY(outcome.photos.empty());
  }

  void aBadRequestIsRefusedFirst() {
    app::LocateRequest r = request({});
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, r.check());
    r = request({"photo.jpg"});
    r.height_m = -5.0;
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, r.check());
  }
};

QTEST_GUILESS_MAIN(TestPhotoLocation)
#include "test_photo_location.moc"
