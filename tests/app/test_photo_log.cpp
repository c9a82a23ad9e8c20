// A photo folder as its own flight log (core/app/photo_log.h), on the real Toledo
// sequence of ../shared (47 DJI photos with EXIF GPS, no basemap):
// - one sample per photo, at the folder's frame times (EXIF capture times, 7 s apart),
//   with the photos' GPS positions and altitudes; a missing folder and a folder without
//   GPS are refused with what to do;
// - `process --video DIR --telemetry DIR --no-registration --use-gnss-prior` needs no
//   basemap, takes the lens from the photos' 35 mm focal length, holds the odometry's
//   height at the photos' altitude above the given ground, and gives a track whose shape
//   matches the GPS after a similarity alignment (RMSE under 5 % of the path; 3.5 %
//   measured); without --no-registration a basemap is still required.
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

#include <opencv2/imgcodecs.hpp>

#include "core/app/photo_log.h"
#include "core/util/error.h"
#include "tests/test_support.h"

using namespace skytrace;

namespace {

QString toledoImages() { return test::sharedPath("data/real_sequences/toledo_2015/images"); }

nlohmann::json readJson(const QString& path) {
  std::ifstream in(path.toStdString());
  return nlohmann::json::parse(in);
}

}  // namespace

class TestPhotoLog : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;

 private Q_SLOTS:
  void initTestCase() { SKYTRACE_REQUIRE_SHARED(); }

  void readsOneSamplePerPhoto() {
    const io::TelemetrySeries log = app::readPhotoFolderLog(toledoImages().toStdString());
    QCOMPARE(log.format, std::string("photo-exif"));
    QCOMPARE(log.abs_alt_reference, std::string("msl"));
    QCOMPARE(int(log.samples.size()), 47);
    const auto gps = test::csvRows(test::sharedPath("data/real_sequences/toledo_2015/gps.csv"));
    QCOMPARE(gps.size(), 47);
    for (int i = 0; i < 47; ++i) {
      const io::TelemetrySample& s = log.samples[std::size_t(i)];
      QCOMPARE(s.frame, std::int64_t(i));
      QVERIFY(std::abs(s.lat_deg - gps[i]["lat_deg"].toDouble()) < 1e-7);
      QVERIFY(std::abs(s.lon_deg - gps[i]["lon_deg"].toDouble()) < 1e-7);
      QVERIFY(std::abs(s.alt_abs_m - gps[i]["alt_m"].toDouble()) < 0.01);
      if (i > 0) QVERIFY(s.log_t_s > log.samples[std::size_t(i - 1)].log_t_s);
    }
    QCOMPARE(log.samples.front().log_t_s, 0.0);
    QCOMPARE(log.samples[1].log_t_s, 7.0);  // 13:23:16 -> 13:23:23
    // The dispatcher reads a folder as photos.
    QCOMPARE(app::readFlightLog(toledoImages().toStdString()).samples.size(), log.samples.size());
  }

  void refusesFoldersWithoutPositions() {
    QVERIFY(test::errorMessageOf<IoError>([&] { app::readPhotoFolderLog(dir_.filePath("none").toStdString()); })
                .contains("no such folder"));
    const QString plain = dir_.filePath("plain");
    QVERIFY(QDir().mkpath(plain));
    QVERIFY(cv::imwrite((plain + "/a.png").toStdString(), cv::Mat(64, 64, CV_8UC3, cv::Scalar(90, 120, 60))));
    const QString message =
        test::errorMessageOf<FormatError>([&] { app::readPhotoFolderLog(plain.toStdString()); });
    QVERIFY2(message.contains("EXIF GPS") && message.contains("--telemetry"), qPrintable(message));
  }

  void processesOdometryAgainstThePhotosOwnGps() {
    if (!QFileInfo::exists(test::cliPath())) QSKIP("skytrace-cli not built");
    const QString out = dir_.filePath("toledo");
    QString log;
    // Toledo's EXIF altitudes are above take-off: the ground is 0 there, which is the
    // geoid undulation (-36 m) as an ellipsoidal height.
    const int code = test::runCli({"process", "--video", toledoImages(), "--telemetry", toledoImages(),
                                   "--no-registration", "--use-gnss-prior", "--ground-alt-m", "-36", "--model",
                                   "orb", "--out", out},
                                  &log);
    QVERIFY2(code == 0, qPrintable(log));
    // The lens from EXIF: 20 mm equivalent, 84 deg across.
    QVERIFY(std::abs(readJson(out + "/camera.json")["hfov_deg"].get<double>() - 83.97) < 0.1);
    // One odometry pose per photo, each at the photo's height above the ground (~120 m;
    // alt_m is ellipsoidal: the ground's -36 m plus the height). Without the photos'
    // altitudes the height drifted from 100 to 56 m over the flight.
    const auto odometry = test::csvRows(out + "/odometry.csv");
    QCOMPARE(odometry.size(), 47);
    for (int i = 0; i < odometry.size(); ++i) {
      const double height = odometry[i]["alt_m"].toDouble() + 36.0;
      QVERIFY2(height > 110 && height < 130, qPrintable(QString("frame %1 at %2 m").arg(i).arg(height)));
    }
    // The shape of the GPS track after a similarity alignment.
    const QString truth = dir_.filePath("truth.csv");
    {
      QFile file(truth);
      QVERIFY(file.open(QIODevice::WriteOnly));
      const auto gps = test::csvRows(test::sharedPath("data/real_sequences/toledo_2015/gps.csv"));
      QString text = "frame,t_s,lat_deg,lon_deg,alt_m,yaw_deg,pitch_deg,roll_deg\n";
      double path_m = 0.0;
      for (int i = 0; i < gps.size(); ++i) {
        text += QString("%1,%2,%3,%4,%5,,,\n")
                    .arg(i)
                    .arg(odometry[i]["t_s"], gps[i]["lat_deg"], gps[i]["lon_deg"], gps[i]["alt_m"]);
        if (i > 0) {
          const double lat = gps[i]["lat_deg"].toDouble() * M_PI / 180.0;
          path_m += std::hypot(
              (gps[i]["lon_deg"].toDouble() - gps[i - 1]["lon_deg"].toDouble()) * 111320.0 * std::cos(lat),
              (gps[i]["lat_deg"].toDouble() - gps[i - 1]["lat_deg"].toDouble()) * 110540.0);
        }
      }
      file.write(text.toUtf8());
      file.close();
      QVERIFY(test::runCli({"eval", "--truth", truth, "--track", out + "/odometry.csv", "--align", "similarity",
                            "--out", dir_.filePath("eval.json")}) == 0);
      const double rmse = readJson(dir_.filePath("eval.json"))["overall"]["ate_rmse_m"];
      qInfo("odometry after a similarity alignment: RMSE %.1f m over a %.0f m path (%.2f %%)", rmse, path_m,
            100.0 * rmse / path_m);
      QVERIFY(rmse < 0.05 * path_m);
    }
    // A basemap is still needed for registration.
    QCOMPARE(test::runCli({"process", "--video", toledoImages(), "--telemetry", toledoImages(), "--out",
                           dir_.filePath("refused")},
                          &log),
             2);
    QVERIFY2(log.contains("--no-registration"), qPrintable(log));
  }
};

QTEST_GUILESS_MAIN(TestPhotoLog)
#include "test_photo_log.moc"
