// `render` on a real orthophoto (../shared, label data): a short flight produces a
// playable video whose frame count and fps read back through OpenCV, whose frames show
// the basemap under the true camera position, plus truth, SRT, camera and manifest.
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include <cmath>
#include <fstream>

#include "core/geo/basemap.h"
#include "core/sim/flight_simulation.h"
#include "core/sim/truth_csv.h"
#include "tests/test_support.h"

using namespace skytrace;
using namespace skytrace::nav;
using namespace skytrace::sim;

class TestRenderReal : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void shortFlightOverOrthophoto() {
    SKYTRACE_REQUIRE_SHARED();
    const QString ortho = test::sharedPath("data/orthophotos/5b90f92da0d7280005fab355_4310.tif");
    QTemporaryDir dir;
    FlightSimulationOptions o;
    o.basemap_path = ortho.toStdString();
    o.out_dir = dir.filePath("flight1").toStdString();
    o.width_px = 320;
    o.height_px = 180;
    o.fps = 10;
    o.duration_s = 2.4;
    o.attitude_jitter_deg = 0;  // exact nadir: the frame centre is under the camera
    o.effects = {};
    o.gnss.noise_sigma_m = 0;
    const FlightSimulationResult r = simulateFlight(o);
    QCOMPARE(r.frames, 24);
    QCOMPARE(r.frames_leaving_map, 0);  // the default path stays over valid imagery

    cv::VideoCapture video(r.video_path.string(), cv::CAP_FFMPEG);
    QVERIFY(video.isOpened());
    QCOMPARE(int(video.get(cv::CAP_PROP_FRAME_COUNT)), 24);
    QVERIFY(std::abs(video.get(cv::CAP_PROP_FPS) - 10.0) < 1e-6);
    QCOMPARE(int(video.get(cv::CAP_PROP_FRAME_WIDTH)), 320);

    const geo::Track truth = readCsvTrack(r.truth_path);
    QCOMPARE(int(truth.poses.size()), 24);
    const geo::Basemap basemap = geo::Basemap::open(ortho.toStdString());
    int decoded = 0;
    cv::Mat frame;
    while (video.read(frame)) {
      const geo::TrackPose& pose = truth.poses[decoded];
      // Independent of the renderer: the basemap patch under the true camera position.
      const geo::MapPoint m = basemap.converter().mapFromGeo({pose.lat_deg, pose.lon_deg, 0.0});
      const double half = 4.0;  // metres
      const geo::BasemapWindow patch =
          basemap.readWindow(geo::MapRect{m.x - half, m.y - half, m.x + half, m.y + half}, 0.0);
      const cv::Scalar expected = cv::mean(patch.rgb);
      // The same ground patch in the frame: a disc of radius 4 m around the centre (a disc,
      // so that the camera's yaw does not matter; the map window is a square, close enough
      // for smooth imagery at this tolerance).
      const double gsd = (pose.alt_m - 0.0) / (o.width_px / 2.0 / std::tan(o.hfov_deg * M_PI / 360.0));
      cv::Mat mask = cv::Mat::zeros(frame.size(), CV_8U);
      cv::circle(mask, {160, 90}, int(half / gsd), cv::Scalar(255), -1);
      const cv::Scalar got = cv::mean(frame, mask);
      for (int k = 0; k < 3; ++k) {
        QVERIFY2(std::abs(got[2 - k] - expected[k]) < 18.0,
                 qPrintable(QString("frame %1 channel %2: video %3, basemap %4")
                                .arg(decoded).arg(k).arg(got[2 - k]).arg(expected[k])));
      }
      ++decoded;
    }
    QCOMPARE(decoded, 24);

    const auto manifest = nlohmann::json::parse(std::ifstream(r.manifest_path));
    QCOMPARE(manifest["video"]["frames"].get<int>(), 24);
    QVERIFY(std::filesystem::exists(r.srt_path));
    QVERIFY(std::filesystem::exists(r.camera_path));
  }
};

QTEST_GUILESS_MAIN(TestRenderReal)
#include "test_render_real.moc"
