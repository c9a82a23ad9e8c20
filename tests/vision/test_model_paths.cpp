// Weight lookup: --weights wins, else SKYTRACE_MODEL_DIR, else the app's model folder,
// each searched with one level of sub-folders; failures name the published file, the
// folder searched and where the authors publish it.
#include <QTemporaryDir>
#include <QtTest>

#include "tests/test_support.h"

#include <filesystem>
#include <fstream>

#include "core/util/error.h"
#include "core/vision/model_paths.h"

using namespace skytrace::vision;

namespace {

void touch(const std::filesystem::path& path) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << "x";
}

template <typename Fn>
QString errorOf(Fn&& fn) {
  return skytrace::test::errorMessageOf<skytrace::ModelError>(std::forward<Fn>(fn));
}

}  // namespace

class TestModelPaths : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void init() {
    qunsetenv("SKYTRACE_MODEL_DIR");
    setDefaultModelDirectory("");
  }

  void explicitPathWins() {
    QTemporaryDir dir;
    const std::filesystem::path file = dir.filePath("custom.pth").toStdString();
    touch(file);
    QCOMPARE(resolveWeightsPath("aliked-t16", file.string(), "aliked-t16.pth", "URL"), file.string());
    const QString missing = errorOf([&] {
      resolveWeightsPath("aliked-t16", dir.filePath("nope.pth").toStdString(), "aliked-t16.pth", "URL");
    });
    QVERIFY2(missing.contains("nope.pth") && missing.contains("--weights"), qPrintable(missing));
  }

  void environmentBeforeSetting() {
    QTemporaryDir env_dir, setting_dir;
    touch(std::filesystem::path(env_dir.path().toStdString()) / "aliked" / "aliked-t16.pth");
    touch(std::filesystem::path(setting_dir.path().toStdString()) / "aliked-t16.pth");
    setDefaultModelDirectory(setting_dir.path().toStdString());
    QCOMPARE(QString::fromStdString(modelDirectory()), setting_dir.path());
    QCOMPARE(QString::fromStdString(resolveWeightsPath("aliked-t16", "", "aliked-t16.pth", "URL")),
             setting_dir.filePath("aliked-t16.pth"));
    qputenv("SKYTRACE_MODEL_DIR", env_dir.path().toUtf8());
    QCOMPARE(QString::fromStdString(modelDirectory()), env_dir.path());
    // Found one level down (models/aliked/aliked-t16.pth, the published layout).
    QCOMPARE(QString::fromStdString(resolveWeightsPath("aliked-t16", "", "aliked-t16.pth", "URL")),
             env_dir.filePath("aliked/aliked-t16.pth"));
  }

  void failureNamesFileFolderAndSource() {
    QTemporaryDir dir;
    setDefaultModelDirectory(dir.path().toStdString());
    const QString message = errorOf([] {
      resolveWeightsPath("aliked-n32", "", "aliked-n32.pth",
                         "https://github.com/Shiaoming/ALIKED/tree/main/models");
    });
    QVERIFY2(message.contains("aliked-n32.pth") && message.contains(dir.path()) &&
                 message.contains("https://github.com/Shiaoming/ALIKED/tree/main/models") &&
                 message.contains("SKYTRACE_MODEL_DIR"),
             qPrintable(message));
    setDefaultModelDirectory("");
    const QString unconfigured =
        errorOf([] { resolveWeightsPath("aliked-n32", "", "aliked-n32.pth", "URL"); });
    QVERIFY2(unconfigured.contains("no model folder is configured"), qPrintable(unconfigured));
  }
};

QTEST_GUILESS_MAIN(TestModelPaths)
#include "test_model_paths.moc"
