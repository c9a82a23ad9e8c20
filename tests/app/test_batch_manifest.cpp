// readBatchManifest (core/app/batch_manifest.h): CSV and JSONL manifests, paths relative
// to the manifest, and a clear error naming the file and line for each malformed entry.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include "core/app/batch_manifest.h"
#include "core/util/error.h"
#include "tests/test_support.h"

using namespace skytrace;

namespace {

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
  const QString path = dir.filePath(name);
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return {};
  file.write(text);
  return path;
}

}  // namespace

class TestBatchManifest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void readsCsvWithQuotesListsAndRelativePaths() {
    QTemporaryDir dir;
    const QString path = writeFile(dir, "flights.csv",
                                   "# two flights\n"
                                   "id,video,basemaps,telemetry,time_offset_s,model,truth\n"
                                   "north-1,videos/north.mp4,\"maps/a.tif; /data/b.tif\",logs/n.srt,-20.5,orb,\n"
                                   "\n"
                                   "south_2,/abs/south.mp4,maps/a.tif,,,,truth/s.csv\n");
    const auto flights = app::readBatchManifest(path.toStdString());
    QCOMPARE(flights.size(), std::size_t(2));
    const std::string root = QDir(dir.path()).absolutePath().toStdString();
    QCOMPARE(flights[0].id, std::string("north-1"));
    QCOMPARE(flights[0].video_path, root + "/videos/north.mp4");
    QCOMPARE(flights[0].basemap_paths, (std::vector<std::string>{root + "/maps/a.tif", "/data/b.tif"}));
    QCOMPARE(flights[0].telemetry_path, root + "/logs/n.srt");
    QVERIFY(flights[0].time_offset_s && *flights[0].time_offset_s == -20.5);
    QCOMPARE(flights[0].feature_model, std::string("orb"));
    QVERIFY(flights[0].truth_path.empty());
    QCOMPARE(flights[0].line, 3);
    QCOMPARE(flights[1].video_path, std::string("/abs/south.mp4"));
    QVERIFY(flights[1].telemetry_path.empty() && !flights[1].time_offset_s);
    QCOMPARE(flights[1].truth_path, root + "/truth/s.csv");
  }

  void readsJsonLines() {
    QTemporaryDir dir;
    const QString path = writeFile(dir, "flights.jsonl",
                                   "{\"id\": \"a\", \"video\": \"a.mp4\", \"basemaps\": [\"m1.tif\", \"m2.tif\"], "
                                   "\"time_offset_s\": 3, \"sat_model\": \"dinov2+litesam\"}\n"
                                   "# comment\n"
                                   "{\"id\": \"b\", \"video\": \"b\", \"basemaps\": \"m1.tif;m2.tif\", \"camera\": \"c.json\"}\n");
    const auto flights = app::readBatchManifest(path.toStdString());
    QCOMPARE(flights.size(), std::size_t(2));
    QCOMPARE(flights[0].basemap_paths.size(), std::size_t(2));
    QCOMPARE(flights[1].basemap_paths, flights[0].basemap_paths);
    QVERIFY(flights[0].time_offset_s && *flights[0].time_offset_s == 3.0);
    QCOMPARE(flights[0].satellite_model, std::string("dinov2+litesam"));
    QCOMPARE(flights[1].camera_path, QDir(dir.path()).absoluteFilePath("c.json").toStdString());
    QCOMPARE(flights[1].line, 3);
  }

  void malformedEntriesNameFileAndLine_data() {
    QTest::addColumn<QByteArray>("csv");
    QTest::addColumn<QString>("expected");
    QTest::newRow("unknown key") << QByteArray("id,video,basemap\na,v.mp4,m.tif\n") << "flights.csv:1: unknown key 'basemap'";
    QTest::newRow("repeated id") << QByteArray("id,video,basemaps\na,v.mp4,m.tif\na,w.mp4,m.tif\n")
                                 << "flights.csv:3: id 'a' is used by an earlier flight";
    QTest::newRow("id not a folder name") << QByteArray("id,video,basemaps\n../x,v.mp4,m.tif\n")
                                          << "flights.csv:2: id '../x' must be";
    QTest::newRow("no video") << QByteArray("id,video,basemaps\na,,m.tif\n") << "flights.csv:2: flight 'a' has no video";
    QTest::newRow("no basemaps") << QByteArray("id,video,basemaps\na,v.mp4, ; \n")
                                 << "flights.csv:2: flight 'a' has no basemaps";
    QTest::newRow("offset not a number") << QByteArray("id,video,basemaps,time_offset_s\na,v.mp4,m.tif,20s\n")
                                         << "time_offset_s '20s' is not a number";
    QTest::newRow("field count") << QByteArray("id,video,basemaps\na,v.mp4\n") << "flights.csv:2: 2 fields, the header names 3";
    QTest::newRow("open quote") << QByteArray("id,video,basemaps\na,\"v.mp4,m.tif\n") << "quoted field is not closed";
    QTest::newRow("empty") << QByteArray("# nothing\n") << "no header row";
  }

  void malformedEntriesNameFileAndLine() {
    QFETCH(QByteArray, csv);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const QString path = writeFile(dir, "flights.csv", csv);
    const QString message =
        test::errorMessageOf<FormatError>([&] { app::readBatchManifest(path.toStdString()); });
    QVERIFY2(message.contains(expected), qPrintable(message));
  }

  void badJsonLineAndMissingFile() {
    QTemporaryDir dir;
    const QString path = writeFile(dir, "flights.jsonl", "{\"id\": \"a\", \"video\": \"v\", \"basemaps\": [1]}\n");
    QVERIFY(test::errorMessageOf<FormatError>([&] { app::readBatchManifest(path.toStdString()); })
                .contains("flights.jsonl:1: 'basemaps' must hold strings"));
    const QString broken = writeFile(dir, "broken.jsonl", "{\"id\": \"a\",\n");
    QVERIFY(test::errorMessageOf<FormatError>([&] { app::readBatchManifest(broken.toStdString()); })
                .contains("broken.jsonl:1: not a JSON object on one line"));
    QVERIFY(test::errorMessageOf<IoError>([&] { app::readBatchManifest(dir.filePath("none.csv").toStdString()); })
                .contains("none.csv"));
  }
};

QTEST_GUILESS_MAIN(TestBatchManifest)
#include "test_batch_manifest.moc"
