// The Debian package, as a distributor and then a user meet it (packaging/CMakeLists.txt):
// `cpack -G DEB` from the build under test gives one skytrace_<version>_<arch>.deb that
//   - lintian accepts without an error or a warning,
//   - states its run-time dependencies (shlibdeps plus what it cannot see),
//   - holds the programs, a manual page per program and command, the Debian copyright
//     file and changelog, the desktop file and AppStream metainfo that validates;
// and, unpacked into a scratch root, runs from the installed paths: `skytrace-cli demo`
// completes, and the GUI shows the demo's flight and results in a screenshot.
#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/ui/image_checks.h"

namespace {

struct Run {
  int exit_code = -1;  // -1: did not start or timed out, -2: crashed
  QString output;      // stdout and stderr
};

Run run(const QString& program, const QStringList& args, int timeout_ms = 300000,
        const QString& working_dir = QString()) {
  QProcess process;
  process.setProcessChannelMode(QProcess::MergedChannels);
  if (!working_dir.isEmpty()) process.setWorkingDirectory(working_dir);
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  process.setProcessEnvironment(env);
  process.start(program, args);
  Run result;
  if (!process.waitForFinished(timeout_ms)) {
    process.kill();
    process.waitForFinished();
    result.output = QString::fromUtf8(process.readAll()) + "\n(timed out or did not start)";
    return result;
  }
  result.output = QString::fromUtf8(process.readAll());
  result.exit_code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
  return result;
}

// The path of a tool the package checks need (empty when it is not installed).
QString tool(const QString& name) { return QStandardPaths::findExecutable(name); }

}  // namespace

class TestDebianPackage : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    for (const char* name : {"cpack", "dpkg-deb", "lintian", "appstreamcli", "apt-get"})
      QVERIFY2(!tool(name).isEmpty(),
               qPrintable(QString(name) + " not found: scripts/setup.sh installs it "
                                 "(scripts/debian-packages.txt)"));
    QVERIFY(work_.isValid());
    const QString build_dir = qEnvironmentVariable("SKYTRACE_BUILD_DIR");
    const Run cpack = run(tool("cpack"), {"-G", "DEB", "--config", build_dir + "/CPackConfig.cmake",
                                          "-B", work_.filePath("package")});
    QVERIFY2(cpack.exit_code == 0, qPrintable(cpack.output));
    const QStringList debs = QDir(work_.filePath("package")).entryList({"*.deb"}, QDir::Files);
    QCOMPARE(debs.size(), 1);
    deb_ = work_.filePath("package/" + debs.first());
    root_ = work_.filePath("root");
    const Run unpack = run(tool("dpkg-deb"), {"-x", deb_, root_});
    QVERIFY2(unpack.exit_code == 0, qPrintable(unpack.output));
  }

  void lintianFindsNoErrorOrWarning() {
    const Run lintian = run(tool("lintian"), {"--fail-on", "error,warning", deb_});
    QVERIFY2(lintian.exit_code == 0, qPrintable(lintian.output));
    QVERIFY2(!lintian.output.contains(QRegularExpression("^[EW]: ", QRegularExpression::MultilineOption)),
             qPrintable(lintian.output));
  }

  void controlFieldsNameThePackageAndItsDependencies() {
    const Run fields = run(tool("dpkg-deb"), {"-f", deb_, "Package", "Version", "Depends"});
    QVERIFY2(fields.exit_code == 0, qPrintable(fields.output));
    QVERIFY2(fields.output.contains("Package: skytrace\n"), qPrintable(fields.output));
    QVERIFY2(fields.output.contains(QRegularExpression("Version: \\d+\\.\\d+\\.\\d+\n")),
             qPrintable(fields.output));
    // Found by shlibdeps (the libraries the programs link) and named by hand (the BLAS
    // Skytrace is measured with, the GUI's run-time platform plugins).
    for (const char* dependency : {"libtorch1.13", "libqt6widgets6", "libgdal32", "libc6",
                                      "libopenblas0-openmp", "qt6-qpa-plugins"})
      QVERIFY2(fields.output.contains(dependency), qPrintable(QString(dependency) + " missing in\n" + fields.output));
    // A machine with the build's packages can install it (Depends resolve).
    const Run apt = run(tool("apt-get"), {"install", "--simulate", deb_});
    QVERIFY2(apt.exit_code == 0, qPrintable(apt.output));
  }

  void holdsProgramsManualsAndDesktopFiles() {
    const QDir usr(root_ + "/usr");
    for (const char* file : {"bin/skytrace-cli", "bin/skytrace", "share/doc/skytrace/copyright",
                                "share/doc/skytrace/changelog.gz",
                                "share/applications/org.skytrace.Skytrace.desktop",
                                "share/mime/packages/skytrace.xml",
                                "share/icons/hicolor/scalable/apps/skytrace.svg"})
      QVERIFY2(QFile::exists(usr.filePath(file)), qPrintable(file));
    // The licence text is in /usr/share/common-licenses (Debian), not in the package.
    QVERIFY(!QFile::exists(usr.filePath("share/doc/skytrace/LICENSE")));

    // A page per program and per command that `skytrace-cli --help` lists.
    const Run help = run(usr.filePath("bin/skytrace-cli"), {"--help"});
    QCOMPARE(help.exit_code, 0);
    QStringList pages = {"skytrace.1.gz", "skytrace-cli.1.gz"};
    const QRegularExpression command_line("^  ([a-z]+)  +\\S", QRegularExpression::MultilineOption);
    for (auto it = command_line.globalMatch(help.output); it.hasNext();)
      pages << "skytrace-cli-" + it.next().captured(1) + ".1.gz";
    QVERIFY2(pages.size() >= 12, qPrintable(help.output));
    for (const QString& page : pages)
      QVERIFY2(QFile::exists(usr.filePath("share/man/man1/" + page)), qPrintable(page));

    const Run appstream = run(tool("appstreamcli"),
                              {"validate", "--no-net",
                               usr.filePath("share/metainfo/org.skytrace.Skytrace.metainfo.xml")});
    QVERIFY2(appstream.exit_code == 0, qPrintable(appstream.output));
  }

  // The installed programs, from the scratch root: the demo as the README runs it, then
  // the GUI on the demo's flight and results.
  void installedProgramsRunTheDemoAndShowIt() {
    const QString cli = root_ + "/usr/bin/skytrace-cli";
    const QString demo = work_.filePath("demo");
    const Run version = run(cli, {"--version"});
    QVERIFY2(version.exit_code == 0 && version.output.startsWith("skytrace-cli "),
             qPrintable(version.output));
    const Run run_demo = run(cli, {"demo", "--out", demo}, 600000, work_.path());
    QVERIFY2(run_demo.exit_code == 0, qPrintable(run_demo.output.right(3000)));
    QFile report(demo + "/process/report.json");
    QVERIFY(report.open(QIODevice::ReadOnly));
    QVERIFY2(report.readAll().contains("\"completed\": true"), "the demo's report.json is not complete");

    const QString shot = work_.filePath("installed_gui.png");
    const Run gui = run(root_ + "/usr/bin/skytrace",
                        {"--video", demo + "/flight/flight.mp4", "--basemap",
                         demo + "/flight/basemap_degraded.tif", "--telemetry", demo + "/flight/flight.srt",
                         "--results", demo + "/process", "--frame", "200", "--screenshot", shot},
                        120000, work_.path());
    QVERIFY2(gui.exit_code == 0, qPrintable(gui.output.right(3000)));
    const QImage image(shot);
    QVERIFY2(!image.isNull() && image.width() >= 800 && image.height() >= 600, qPrintable(shot));
    // The map (top left) and the video (top right) show imagery, not an empty placeholder.
    const QRect map(0, image.height() / 10, image.width() / 2, image.height() / 3);
    const QRect video(image.width() * 3 / 4, image.height() / 10, image.width() / 5, image.height() / 3);
    QVERIFY2(skytrace::test::greyStdDev(image, map) > 15.0, "no basemap in the installed GUI");
    QVERIFY2(skytrace::test::greyStdDev(image, video) > 15.0, "no video in the installed GUI");
  }

 private:
  QTemporaryDir work_;
  QString deb_;
  QString root_;
};

QTEST_GUILESS_MAIN(TestDebianPackage)
#include "test_debian_package.moc"
