// AtomicFolder: a results folder is replaced as a whole or not at all, and a target that
// holds anything but results is refused before any work.
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "core/util/atomic_file.h"
#include "core/util/atomic_folder.h"
#include "core/util/error.h"

using namespace skytrace;
namespace fs = std::filesystem;

namespace {

void writeText(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

QStringList entries(const QString& folder) {
  return QDir(folder).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
}

}  // namespace

class TestAtomicFolder : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void commitCreatesTheFolder() {
    QTemporaryDir dir;
    const fs::path target = dir.filePath("runs/out").toStdString();  // parents created too
    AtomicFolder folder(target, "report.json");
    QVERIFY(!fs::exists(target));  // nothing visible until commit
    writeText(folder.stagingPath() / "report.json", "{}");
    writeText(folder.stagingPath() / "track.csv", "t");
    folder.commit();
    QCOMPARE(entries(QString::fromStdString(target.string())), QStringList({"report.json", "track.csv"}));
    QCOMPARE(entries(dir.filePath("runs")), QStringList({"out"}));  // no staging left
  }

  // A second run replaces the first one's files as a whole: none of the first run's
  // files survives beside the second run's report.
  void commitReplacesPreviousResults() {
    QTemporaryDir dir;
    const fs::path target = dir.filePath("out").toStdString();
    {
      AtomicFolder first(target, "report.json");
      writeText(first.stagingPath() / "report.json", "first");
      writeText(first.stagingPath() / "track.gpx", "first");
      first.commit();
    }
    AtomicFolder second(target, "report.json");
    writeText(second.stagingPath() / "report.json", "second");
    second.commit();
    QCOMPARE(entries(QString::fromStdString(target.string())), QStringList({"report.json"}));
    QCOMPARE(QString::fromStdString(readFileBytes(target / "report.json")), QString("second"));
    QCOMPARE(entries(dir.path()), QStringList({"out"}));
  }

  // A run that fails (or is destroyed) before commit leaves the previous results as they
  // were and no staging folder behind.
  void failedRunKeepsPreviousResults() {
    QTemporaryDir dir;
    const fs::path target = dir.filePath("out").toStdString();
    fs::create_directory(target);
    writeText(target / "report.json", "previous");
    {
      AtomicFolder failing(target, "report.json");
      writeText(failing.stagingPath() / "track.csv", "half");
      QVERIFY_THROWS_EXCEPTION(IoError, failing.commit());  // no report.json written
    }
    QCOMPARE(entries(QString::fromStdString(target.string())), QStringList({"report.json"}));
    QCOMPARE(QString::fromStdString(readFileBytes(target / "report.json")), QString("previous"));
    QCOMPARE(entries(dir.path()), QStringList({"out"}));
  }

  // A folder that holds other files (a home folder given as --out by mistake) is never
  // replaced: refused at construction, before any work, and left alone.
  void refusesFoldersThatAreNotResults() {
    QTemporaryDir dir;
    const fs::path target = dir.filePath("videos").toStdString();
    fs::create_directory(target);
    writeText(target / "flight.mp4", "precious");
    try {
      AtomicFolder folder(target, "report.json");
      QFAIL("expected IoError");
    } catch (const IoError& e) {
      QVERIFY2(QString(e.what()).contains("videos") && QString(e.what()).contains("report.json"), e.what());
    }
    QCOMPARE(entries(QString::fromStdString(target.string())), QStringList({"flight.mp4"}));
    QCOMPARE(entries(dir.path()), QStringList({"videos"}));

    // An empty folder is fine.
    const fs::path empty = dir.filePath("empty").toStdString();
    fs::create_directory(empty);
    AtomicFolder folder(empty, "report.json");
    writeText(folder.stagingPath() / "report.json", "{}");
    folder.commit();
    QCOMPARE(entries(QString::fromStdString(empty.string())), QStringList({"report.json"}));
  }

  void unwritablePlaceFailsFirst() {
    QTemporaryDir dir;
    writeText(dir.filePath("file").toStdString(), "x");
    QVERIFY_THROWS_EXCEPTION(IoError, AtomicFolder(dir.filePath("file").toStdString(), "report.json"));
    QVERIFY_THROWS_EXCEPTION(IoError, AtomicFolder(dir.filePath("file/out").toStdString(), "report.json"));
  }
};

QTEST_GUILESS_MAIN(TestAtomicFolder)
#include "test_atomic_folder.moc"
