// End to end through skytrace-cli (built beside the tests): render over a small
// procedural basemap, then eval the truth against itself and against the SRT-free
// truth shifted east; checks exit codes, files and report fields. Skips visibly when
// the CLI has not been built.
#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

#include "core/geo/geodesy.h"
#include "core/sim/procedural_basemap.h"
#include "core/sim/truth_csv.h"

using namespace skytrace;

namespace {

QString cliPath() {
  return qEnvironmentVariable("SKYTRACE_BUILD_DIR") + "/app/cli/skytrace-cli";
}

int runCli(const QStringList& args, QString* output = nullptr) {
  QProcess process;
  process.setProcessChannelMode(QProcess::MergedChannels);
  process.start(cliPath(), args);
  if (!process.waitForFinished(120000)) return -1;
  if (output) *output = QString::fromUtf8(process.readAll());
  return process.exitCode();
}

}  // namespace

class TestRenderCli : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void renderThenEval() {
    if (!QFileInfo::exists(cliPath())) QSKIP("skytrace-cli not built: end-to-end test skipped");
    QTemporaryDir dir;
    sim::ProceduralBasemapOptions map;
    map.size_px = 1024;
    map.gsd_m = 0.5;
    const QString basemap = dir.filePath("map.tif");
    sim::writeProceduralBasemap(basemap.toStdString(), map);

    const QString out = dir.filePath("flight");
    QString log;
    QCOMPARE(runCli({"render", "--basemap", basemap, "--out", out, "--duration-s", "2", "--fps", "5",
                     "--size", "160x90", "--trajectory", "transit", "--gnss-noise-m", "0"},
                    &log),
             0);
    for (const char* name : {"flight.mp4", "flight.srt", "truth.csv", "camera.json", "flight.json",
                             "gnss_truth.json"}) {
      QVERIFY2(QFileInfo::exists(out + "/" + name), name);
    }
    const auto manifest = nlohmann::json::parse(std::ifstream((out + "/flight.json").toStdString()));
    QCOMPARE(manifest["video"]["frames"].get<int>(), 10);
    QCOMPARE(manifest["frames_leaving_map"].get<int>(), 0);

    // Truth against itself: zero error.
    const QString report = dir.filePath("self.json");
    QCOMPARE(runCli({"eval", "--truth", out + "/truth.csv", "--track", out + "/truth.csv", "--out", report}), 0);
    auto j = nlohmann::json::parse(std::ifstream(report.toStdString()));
    QVERIFY(j["overall"]["ate_rmse_m"].get<double>() < 1e-3);
    QVERIFY(QFileInfo(dir.filePath("self.png")).size() > 1000);

    // Truth moved 3 m east (exactly, through an ENU frame): RMSE 3 m, all within 5 m.
    geo::Track truth = sim::readCsvTrack((out + "/truth.csv").toStdString());
    const geo::LocalEnuFrame frame({truth.poses[0].lat_deg, truth.poses[0].lon_deg, truth.poses[0].alt_m});
    for (auto& p : truth.poses) {
      const geo::EnuPoint q = frame.toEnu({p.lat_deg, p.lon_deg, p.alt_m});
      const geo::GeoPoint g = frame.toGeo({q.east_m + 3.0, q.north_m, q.up_m});
      p.lat_deg = g.lat_deg;
      p.lon_deg = g.lon_deg;
      p.alt_m = g.alt_m;
    }
    const QString shifted = dir.filePath("shifted.csv");
    sim::writeTruthCsv(shifted.toStdString(), truth);
    QCOMPARE(runCli({"eval", "--truth", out + "/truth.csv", "--track", shifted, "--out", report}), 0);
    j = nlohmann::json::parse(std::ifstream(report.toStdString()));
    QVERIFY(std::abs(j["overall"]["ate_rmse_m"].get<double>() - 3.0) < 1e-3);
    QCOMPARE(j["overall"]["within_5m"].get<double>(), 1.0);
    QCOMPARE(QString::fromStdString(j["alignment"]["type"].get<std::string>()), QStringLiteral("none"));

    // A bad option is a usage error (exit 2) naming it.
    QCOMPARE(runCli({"render", "--basemap", basemap, "--out", out, "--trajectory", "zigzag"}, &log), 2);
    QVERIFY(log.contains("zigzag"));
  }
};

QTEST_GUILESS_MAIN(TestRenderCli)
#include "test_render_cli.moc"
