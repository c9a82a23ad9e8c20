// skytrace-cli features / match end to end on the OpenCV graf samples (label data):
// the files they promise exist and agree with each other, and `match` reports the
// homography's corner error against H1to3p under 2 px.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/test_support.h"

class TestMatcherCli : public QObject {
  Q_OBJECT

 private:
  static QString cli() {
    return qEnvironmentVariable("SKYTRACE_BUILD_DIR") + "/app/cli/skytrace-cli";
  }

  static QJsonObject readJson(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(file.readAll()).object();
  }

  // True when `path` is a PNG (signature) of more than a few bytes.
  static bool isPng(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return false;
    return file.size() > 1000 && file.read(8) == QByteArray("\x89PNG\r\n\x1a\n", 8);
  }

  static int run(const QStringList& args, QString* out) {
    QProcess process;
    process.start(cli(), args);
    if (!process.waitForFinished(120000)) return -1;
    *out = QString::fromUtf8(process.readAllStandardOutput() + process.readAllStandardError());
    return process.exitCode();
  }

 private Q_SLOTS:
  void initTestCase() {
    if (!QFile::exists(cli())) QSKIP("skytrace-cli not built (SKYTRACE_BUILD_DIR)");
  }

  void matchGrafReportsCornerError() {
    SKYTRACE_REQUIRE_SHARED();
    QTemporaryDir dir;
    QString out;
    const int code = run({"match", skytrace::test::sharedPath("data/opencv_samples/graf1.png"),
                          skytrace::test::sharedPath("data/opencv_samples/graf3.png"),
                          "--truth-homography",
                          skytrace::test::sharedPath("data/opencv_samples/H1to3p.xml"), "--out",
                          dir.path()},
                         &out);
    QVERIFY2(code == 0, qPrintable(out));
    QVERIFY2(out.contains("mean corner error"), qPrintable(out));

    const QJsonObject json = readJson(dir.filePath("homography.json"));
    const double corner = json["mean_corner_error_px"].toDouble(1e9);
    qInfo("skytrace-cli match graf1 graf3: %d matches, %d inliers, corner error %.3f px",
          json["matches"].toInt(), json["inliers"].toInt(), corner);
    QVERIFY(corner < 2.0);
    QVERIFY(json["inliers"].toInt() >= 50);
    QCOMPARE(json["homography"].toArray().size(), 3);

    QFile csv(dir.filePath("matches.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = csv.readAll().trimmed().split('\n');
    QCOMPARE(lines.first(), QByteArray("index_a,index_b,x_a,y_a,x_b,y_b,score,inlier"));
    QCOMPARE(lines.size() - 1, json["matches"].toInt());
    int inliers = 0;
    for (int i = 1; i < lines.size(); ++i) inliers += lines[i].endsWith(",1") ? 1 : 0;
    QCOMPARE(inliers, json["inliers"].toInt());
    QVERIFY(isPng(dir.filePath("matches.png")));
  }

  void featuresWritesJsonAndPng() {
    SKYTRACE_REQUIRE_SHARED();
    QTemporaryDir dir;
    QString out;
    const QString json_path = dir.filePath("sub/aero1.json");
    const int code = run({"features", "--model", "orb", "--max-keypoints", "500", "--image",
                          skytrace::test::sharedPath("data/opencv_samples/aero1.jpg"), "--out",
                          json_path},
                         &out);
    QVERIFY2(code == 0, qPrintable(out));
    const QJsonObject json = readJson(json_path);
    QCOMPARE(json["count"].toInt(), 500);
    QCOMPARE(json["keypoints"].toArray().size(), 500);
    QCOMPARE(json["descriptors"].toArray().size(), 500);
    QCOMPARE(json["descriptors"].toArray().first().toArray().size(), 256);
    QCOMPARE(json["width"].toInt(), 640);
    QVERIFY(isPng(dir.filePath("sub/aero1.png")));
  }

  void badArgumentsExitWithUsageCode() {
    QString out;
    QCOMPARE(run({"match", "only_one_image.png", "--out", "/tmp/x"}, &out), 2);
    QCOMPARE(run({"features", "--model", "surf", "--image", "a.png", "--out", "/tmp/x.json"}, &out), 2);
  }
};

QTEST_GUILESS_MAIN(TestMatcherCli)
#include "test_matcher_cli.moc"
