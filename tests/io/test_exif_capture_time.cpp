// EXIF capture time: the tag parsers on the forms GDAL returns, and the shared real
// photos: lewis_2015 states its GNSS time (UTC 21:46:23, local clock 16:46:23), toledo
// and Brighton (DJI) only a local time, which must not be taken for UTC.
#include <QtTest>

#include <cmath>

#include "core/io/exif_capture_time.h"
#include "core/io/video_source.h"
#include "tests/test_support.h"

using namespace skytrace;
using namespace skytrace::io;

class TestExifCaptureTime : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void gpsTimeIsUtc() {
    QCOMPARE(exifGpsUnixSeconds("2015:06:02", "(21) (46) (23)").value_or(NAN), 1433281583.0);
    QCOMPARE(exifGpsUnixSeconds("2024:06:01", "(10) (0) (1.5)").value_or(NAN), 1717236001.5);
    for (const auto& [date, time] : std::initializer_list<std::pair<const char*, const char*>>{
             {"", "(21) (46) (23)"}, {"2015:06:02", ""}, {"2015:13:02", "(21) (46) (23)"},
             {"2015:06:02", "(24) (0) (0)"}, {"2015:06:02", "(21) (46)"}, {"2015:06:02", "(21) (-4) (0)"},
             {"    :  :  ", "(0) (0) (0)"}, {"2015:06:02", "(nan) (0) (0)"}})
      QVERIFY2(!exifGpsUnixSeconds(date, time), date);
  }

  void localTimeNeedsItsOffset() {
    // 16:46:23 at UTC-05:00 is 21:46:23 UTC; SubSecTime "25" is 0.25 s.
    QCOMPARE(exifOffsetUnixSeconds("2015:06:02 16:46:23", "-05:00").value_or(NAN), 1433281583.0);
    QCOMPARE(exifOffsetUnixSeconds("2015:06:02 16:46:23", "-05:00", "25").value_or(NAN), 1433281583.25);
    QCOMPARE(exifOffsetUnixSeconds("2015:06:03 02:16:23", "+04:30").value_or(NAN), 1433281583.0);
    QVERIFY(!exifOffsetUnixSeconds("2015:06:02 16:46:23", ""));  // the zone is unknown
    QVERIFY(!exifOffsetUnixSeconds("2015:06:02 16:46:23", "05:00"));
    QVERIFY(!exifOffsetUnixSeconds("2015:06:02 16:46:23", "+25:00"));
    QVERIFY(!exifOffsetUnixSeconds("2015:06:02", "+01:00"));
    QVERIFY(!exifOffsetUnixSeconds("2015:06:02 16:46:23", "+01:00", "2x"));
  }

  // DateTimeOriginal on the camera's clock: the zone is unknown, the intervals are right.
  void cameraClockKeepsIntervals() {
    QCOMPARE(exifCameraClockSeconds("2015:06:02 16:46:23").value_or(NAN), 1433263583.0);
    QCOMPARE(exifCameraClockSeconds("2015:06:02 16:46:23", "25").value_or(NAN), 1433263583.25);
    QCOMPARE(exifCameraClockSeconds("2015:06:02 16:46:23", "5  ").value_or(NAN), 1433263583.5);
    QVERIFY(!exifCameraClockSeconds("2015:06:02"));
    QVERIFY(!exifCameraClockSeconds("    :  :     :  :  "));
    QVERIFY(!exifCameraClockSeconds("2015:06:02 16:46:23", "2 5"));
  }

  void realPhotos() {
    SKYTRACE_REQUIRE_SHARED();
    const auto lewis =
        readExifCaptureTime(test::sharedPath("data/real_sequences/lewis_2015/images/img_4074.jpg").toStdString());
    QVERIFY(lewis.has_value());
    QCOMPARE(lewis->unix_s, 1433281583.0);  // 2015-06-02T21:46:23Z
    QCOMPARE(QString::fromStdString(lewis->source), QStringLiteral("exif gps time"));
    QVERIFY(!readExifCaptureTime(test::sharedPath("data/real_sequences/toledo_2015/images/DJI_0061.JPG").toStdString()));
    QVERIFY(!readExifCaptureTime("/nonexistent/photo.jpg"));

    // An image folder is dated by its first photo.
    const auto folder = openVideoSource(test::sharedPath("data/real_sequences/lewis_2015/images").toStdString());
    QCOMPARE(folder->info().creation_unix_s, 1433281583.0);
    QCOMPARE(QString::fromStdString(folder->info().creation_source), QStringLiteral("exif gps time"));
  }

  // A folder of photos is timed by when each was taken: lewis_2015's 55 photos span
  // 1,373 s with gaps (img_4074 at 16:46:23, img_4078 at 16:46:43, gps.csv), not 5.4 s at
  // the nominal 10 frames/s.
  void photosAreTimedByTheirCaptureTimes() {
    SKYTRACE_REQUIRE_SHARED();
    const auto folder = openVideoSource(test::sharedPath("data/real_sequences/lewis_2015/images").toStdString());
    const VideoInfo& info = folder->info();
    QCOMPARE(QString::fromStdString(info.frame_timing), QStringLiteral("exif capture times"));
    QCOMPARE(info.frame_times_s.size(), std::size_t(55));
    QCOMPARE(info.frame_times_s[1], 20.0);
    QCOMPARE(info.frame_times_s.back(), 1373.0);
    QVERIFY(std::abs(info.fps - 54.0 / 1373.0) < 1e-9);
    folder->seek(1);
    VideoFrame frame;
    QVERIFY(folder->read(&frame));
    QCOMPARE(frame.index, 1);
    QCOMPARE(frame.t_s, 20.0);
    QVERIFY(folder->warnings().empty());
  }

  // Photos whose times do not increase in file order cannot time the frames: the nominal
  // rate does, and a warning names the photo.
  void photosOutOfOrderFallBackToTheNominalRate() {
    SKYTRACE_REQUIRE_SHARED();
    QTemporaryDir dir;
    const QString images = test::sharedPath("data/real_sequences/lewis_2015/images/");
    QVERIFY(QFile::link(images + "img_4078.jpg", dir.filePath("shot_1.jpg")));  // 16:46:43
    QVERIFY(QFile::link(images + "img_4074.jpg", dir.filePath("shot_2.jpg")));  // 16:46:23
    QVERIFY(QFile::link(images + "img_4080.jpg", dir.filePath("shot_3.jpg")));
    const auto folder = openVideoSource(dir.path().toStdString());
    QCOMPARE(QString::fromStdString(folder->info().frame_timing), QStringLiteral("nominal frame rate"));
    QVERIFY(folder->info().frame_times_s.empty());
    QCOMPARE(folder->info().fps, 10.0);
    QCOMPARE(folder->info().frameTimeS(2), 0.2);
    QCOMPARE(folder->warnings().size(), std::size_t(1));
    const QString warning = QString::fromStdString(folder->warnings().front().message);
    QVERIFY2(warning.contains("frame 1") && warning.contains("shot_2.jpg") && warning.contains("before"),
             qPrintable(warning));
  }
};

QTEST_GUILESS_MAIN(TestExifCaptureTime)
#include "test_exif_capture_time.moc"
