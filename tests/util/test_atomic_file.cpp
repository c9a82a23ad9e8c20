#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "core/util/atomic_file.h"
#include "core/util/error.h"

using namespace skytrace;

class TestAtomicFile : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void writesNewFile() {
    QTemporaryDir dir;
    const std::filesystem::path target = dir.filePath("a.txt").toStdString();
    writeFileAtomically(target, "hello");
    QCOMPARE(QString::fromStdString(readFileBytes(target)), QStringLiteral("hello"));
  }

  void failedWriteKeepsExistingFile() {
    QTemporaryDir dir;
    const std::filesystem::path target = dir.filePath("keep.txt").toStdString();
    writeFileAtomically(target, "original");
    try {
      AtomicFile file(target);
      std::ofstream(file.temporaryPath()) << "partial";
      throw std::runtime_error("writer failed half way");
    } catch (const std::runtime_error&) {
    }
    QCOMPARE(QString::fromStdString(readFileBytes(target)), QStringLiteral("original"));
    // No temporary files are left behind.
    int entries = 0;
    for (auto& entry : std::filesystem::directory_iterator(dir.path().toStdString())) {
      (void)entry;
      ++entries;
    }
    QCOMPARE(entries, 1);
  }

  void missingFolderIsClearError() {
    QVERIFY_THROWS_EXCEPTION(IoError, AtomicFile("/nonexistent-folder/x.csv"));
  }

  void readMissingFileNamesIt() {
    try {
      readFileBytes("/no/such/file.bin");
      QFAIL("expected IoError");
    } catch (const IoError& e) {
      QVERIFY(QString(e.what()).contains("/no/such/file.bin"));
    }
  }
};

QTEST_GUILESS_MAIN(TestAtomicFile)
#include "test_atomic_file.moc"
