// removeTree: a folder goes with everything in it, a symbolic link inside it is removed
// without touching what it points to, a single file goes, and a missing path is no error.
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "core/util/remove_tree.h"

using namespace skytrace;
namespace fs = std::filesystem;

class TestRemoveTree : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void removesAFolderWithEverythingInIt() {
    QTemporaryDir dir;
    const fs::path root = dir.filePath("results").toStdString();
    fs::create_directories(root / "a" / "b");
    std::ofstream(root / "report.json") << "{}";
    std::ofstream(root / "a" / "b" / "track.csv") << "frame\n";
    std::ofstream(root / "a" / ".hidden") << "x";
    QVERIFY(removeTree(root));
    QVERIFY(!fs::exists(root));
  }

  void doesNotFollowSymbolicLinks() {
    QTemporaryDir dir;
    const fs::path outside = dir.filePath("keep").toStdString();
    fs::create_directories(outside);
    std::ofstream(outside / "video.mp4") << "frames";
    const fs::path root = dir.filePath("results").toStdString();
    fs::create_directories(root);
    fs::create_directory_symlink(outside, root / "link");
    QVERIFY(removeTree(root));
    QVERIFY(!fs::exists(root));
    QVERIFY2(fs::exists(outside / "video.mp4"), "the link's target must survive");
  }

  void removesAFileAndAcceptsAMissingPath() {
    QTemporaryDir dir;
    const fs::path file = dir.filePath("bench.json").toStdString();
    std::ofstream(file) << "{}";
    QVERIFY(removeTree(file));
    QVERIFY(!fs::exists(file));
    QVERIFY(removeTree(dir.filePath("never-there").toStdString()));
  }

  void reportsWhatItCannotRemove() {
    if (::geteuid() == 0) QSKIP("root removes entries of read-only folders");
    QTemporaryDir dir;
    const fs::path root = dir.filePath("locked").toStdString();
    fs::create_directories(root / "inner");
    std::ofstream(root / "inner" / "f") << "x";
    fs::permissions(root / "inner", fs::perms::owner_read | fs::perms::owner_exec);
    QVERIFY(!removeTree(root));
    QVERIFY(fs::exists(root / "inner" / "f"));
    fs::permissions(root / "inner", fs::perms::owner_all);
  }
};

QTEST_GUILESS_MAIN(TestRemoveTree)
#include "test_remove_tree.moc"
