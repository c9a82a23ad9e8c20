// `skytrace-cli locate` on real Brighton Beach photos (../shared, SIFT, no model files):
// a photo is located within 3 m of its EXIF GPS; photos that are not say why with a
// measure, the share of their GPS-placed footprint on the orthophoto (DJI_0018 sees
// mostly ground outside the map: 40 %). A fit with fewer inliers than a search without
// a prior needs (22-39 of 40: DJI_0023, 0026, 0027, 0029, 0030) is accepted where the
// camera is at the photo's own height and looks down, and refused when it is not (a
// wrong lens).
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/test_support.h"

namespace {

// The CSV's rows by the image's file name: column name -> value.
QMap<QString, QMap<QString, QString>> rowsByImage(const QString& path) {
  QMap<QString, QMap<QString, QString>> rows;
  for (const QMap<QString, QString>& row : skytrace::test::csvRows(path))
    rows[QFileInfo(row["image"]).fileName()] = row;
  return rows;
}

}  // namespace

class TestCliLocate : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;

 private Q_SLOTS:
  void initTestCase() {
    SKYTRACE_REQUIRE_SHARED();
    if (!QFileInfo::exists(skytrace::test::cliPath())) QSKIP("skytrace-cli not built");
  }

  void unlocatedPhotosSayHowMuchOfThemIsOnTheMap() {
    const QString out = dir_.filePath("locate.csv");
    QStringList args = {"locate", "--basemap",
                        skytrace::test::sharedPath("data/brighton_beach/odm_reference/nodeodm_test_odm_orthophoto.tif"),
                        "--out", out};
    for (const char* name : {"DJI_0018.JPG", "DJI_0023.JPG", "DJI_0026.JPG", "DJI_0027.JPG", "DJI_0029.JPG",
                             "DJI_0030.JPG", "DJI_0033.JPG"})
      args << skytrace::test::sharedPath(QStringLiteral("data/brighton_beach/images/") + name);
    QString log;
    QCOMPARE(skytrace::test::runCli(args, &log), 0);
    QVERIFY2(log.contains("DJI_0018.JPG: not located") && log.contains("% of its GPS footprint on the map"),
             qPrintable(log));
    const auto rows = rowsByImage(out);
    QCOMPARE(rows.size(), 7);
    QVERIFY(rows["DJI_0018.JPG"].contains("gps_footprint_on_map"));
    const double edge = rows["DJI_0018.JPG"]["gps_footprint_on_map"].toDouble();
    const double inside = rows["DJI_0026.JPG"]["gps_footprint_on_map"].toDouble();
    QVERIFY2(edge > 0.3 && edge < 0.5, qPrintable(QString::number(edge)));
    QVERIFY2(inside > 0.9, qPrintable(QString::number(inside)));
    QCOMPARE(rows["DJI_0033.JPG"]["accepted"], QString("1"));
    QVERIFY(rows["DJI_0033.JPG"]["distance_to_gps_m"].toDouble() < 3.0);
    // Five photos whose fits have 22-39 inliers here (a few more or fewer on another CPU's
    // SIFT): most are located, within 4 m of their GPS, some with fewer than 40 inliers.
    int located = 0, verified = 0;
    for (const char* name : {"DJI_0023.JPG", "DJI_0026.JPG", "DJI_0027.JPG", "DJI_0029.JPG", "DJI_0030.JPG"}) {
      if (rows[name]["accepted"] != "1") continue;
      ++located;
      verified += rows[name]["inliers"].toInt() < 40 ? 1 : 0;
      QVERIFY2(rows[name]["distance_to_gps_m"].toDouble() < 4.0, qPrintable(name + rows[name]["distance_to_gps_m"]));
    }
    QVERIFY2(located >= 3 && verified >= 1, qPrintable(QString("%1 located, %2 below 40 inliers").arg(located).arg(verified)));
  }

  // DJI_0026 through a lens narrower than its own (64 deg, not about 84): a fit with
  // 20-39 inliers (29 here) puts the camera about 1.4 x higher than the photo's XMP
  // height, so it does not count as verified, and without a prior it is refused.
  void aFewInliersAtTheWrongHeightAreRefused() {
    const QString out = dir_.filePath("wrong_lens.csv");
    const QStringList args = {"locate", "--basemap",
                              skytrace::test::sharedPath("data/brighton_beach/odm_reference/nodeodm_test_odm_orthophoto.tif"),
                              "--hfov-deg", "64", "--out", out,
                              skytrace::test::sharedPath("data/brighton_beach/images/DJI_0026.JPG")};
    QString log;
    QCOMPARE(skytrace::test::runCli(args, &log), 1);  // no photo located
    const auto rows = rowsByImage(out);
    QCOMPARE(rows["DJI_0026.JPG"]["accepted"], QString("0"));
    QCOMPARE(rows["DJI_0026.JPG"]["reason"], QString("too_few_inliers"));
    const int inliers = rows["DJI_0026.JPG"]["inliers"].toInt();
    QVERIFY2(inliers >= 20 && inliers < 40, qPrintable(QString::number(inliers)));  // refused by the geometry
  }
};

QTEST_GUILESS_MAIN(TestCliLocate)
#include "test_cli_locate.moc"
