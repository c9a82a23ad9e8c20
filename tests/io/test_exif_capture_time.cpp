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
};

QTEST_GUILESS_MAIN(TestExifCaptureTime)
#include "test_exif_capture_time.moc"
