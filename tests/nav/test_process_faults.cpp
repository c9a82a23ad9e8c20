// `skytrace-cli process` under faults and bad input (label data): nothing lost, nothing
// invented. A 2 s flight at 5 fps (320x240, ORB) over a real orthophoto is rendered once;
// each case breaks one input or the results folder and checks what a user finds:
// - --out naming a folder of other files is refused before any work and left alone;
// - a second run into a results folder replaces it whole (no file of the first run stays);
// - report.json names the feature model that ran after a fallback;
// - a GPX log with one point outside WGS84 still gives a complete run, with a warning;
// - a log without any GNSS position is refused before any work;
// - frames too small to navigate are a clear error;
// - registration without a prior over a 10^6 x 10^6 px basemap is bounded in time, and
//   a run that placed no frame on the map exits 1 saying why, its results written;
// - a video cut short (index first, "faststart") gives an incomplete run (exit 1,
//   "completed": false, the reason in the warnings) whose track ends at the last frame
//   the file holds.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <opencv2/imgcodecs.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "core/geo/track_io.h"
#include "tests/test_support.h"

using namespace skytrace;

namespace {

using test::cliPath;

// Each run here is seconds long; 300 s is the bound for a loaded machine.
int runCli(const QStringList& args, QString* output = nullptr, int timeout_ms = 300000,
           const QString& model_dir = QString()) {
  return test::runCli(args, output, timeout_ms, model_dir);
}

nlohmann::json readJson(const QString& path) {
  std::ifstream in(path.toStdString());
  return nlohmann::json::parse(in, nullptr, false);
}

QString readText(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

bool writeText(const QString& path, const QString& text) {
  QFile file(path);
  return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(text.toUtf8()) == text.toUtf8().size();
}

bool warningsContain(const nlohmann::json& report, const std::string& text) {
  for (const auto& w : report["warnings"])
    if (w.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

class TestProcessFaults : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  QString flight_;
  QString basemap_;

  QStringList processArgs(const QString& video) const {
    return {"process", "--video", video, "--basemap", basemap_, "--model", "orb", "--mode", "sequential"};
  }

 private Q_SLOTS:
  void initTestCase() {
    SKYTRACE_REQUIRE_SHARED();
    if (!QFileInfo::exists(cliPath())) QSKIP("skytrace-cli not built");
    basemap_ = test::sharedPath("data/orthophotos/5b90f92da0d7280005fab355_4310.tif");
    flight_ = dir_.filePath("flight");
    QString log;
    const int code = runCli({"render", "--basemap", basemap_, "--out", flight_, "--size", "320x240", "--fps", "5",
                             "--alt-m", "80", "--hfov-deg", "50", "--duration-s", "2", "--seed", "4"},
                            &log);
    QVERIFY2(code == 0, qPrintable(log));
  }

  void outHoldingOtherFilesIsRefusedFirst() {
    const QString out = dir_.filePath("videos");
    QVERIFY(QDir().mkpath(out));
    QVERIFY(writeText(out + "/my_flight.mp4", "precious"));
    QString log;
    const auto start = std::chrono::steady_clock::now();
    QCOMPARE(runCli(processArgs(flight_ + "/flight.mp4") + QStringList{"--out", out}, &log), 1);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    QVERIFY2(log.contains(out) && log.contains("report.json"), qPrintable(log));
    QVERIFY2(!log.contains("frame "), qPrintable(log));  // no progress: refused before any frame
    qInfo("refused after %.2f s", seconds);
    QCOMPARE(QDir(out).entryList(QDir::Files | QDir::Hidden), QStringList({"my_flight.mp4"}));
    QCOMPARE(readText(out + "/my_flight.mp4"), QString("precious"));
  }

  void secondRunReplacesTheFolderWhole() {
    const QString out = dir_.filePath("twice");
    QString log;
    QVERIFY2(runCli(processArgs(flight_ + "/flight.mp4") +
                        QStringList{"--telemetry", flight_ + "/flight.srt", "--out", out},
                    &log) == 0,
             qPrintable(log));
    QVERIFY(QFileInfo::exists(out + "/gnss.csv"));
    QVERIFY2(runCli(processArgs(flight_ + "/flight.mp4") + QStringList{"--out", out}, &log) == 0, qPrintable(log));
    QVERIFY2(!QFileInfo::exists(out + "/gnss.csv"), "the first run's gnss.csv survived the second run");
    QVERIFY(readJson(out + "/report.json")["inputs"]["telemetry"].is_null());
    // No staging folder left beside it.
    QCOMPARE(QDir(dir_.path()).entryList({".twice*"}, QDir::Dirs | QDir::Hidden).size(), 0);
  }

  // report.json names the model that ran: ALIKED without its weights falls back to ORB,
  // and the report said "aliked-n16rot" all the same.
  void fallbackModelIsReported() {
    const QString empty_models = dir_.filePath("no_models");
    QVERIFY(QDir().mkpath(empty_models));
    const QString out = dir_.filePath("fallback");
    QString log;
    const int code = runCli({"process", "--video", flight_ + "/flight.mp4", "--basemap", basemap_, "--model",
                             "aliked-n16rot", "--mode", "sequential", "--out", out},
                            &log, 300000, empty_models);
    QVERIFY2(code == 0, qPrintable(log));
    const auto report = readJson(out + "/report.json");
    const std::string model = report["feature_model"].get<std::string>();
    QVERIFY2(model.rfind("orb+", 0) == 0, model.c_str());
    // The registration stage fell back too (VLAD retrieval + local features).
    QCOMPARE(report["registration_model"].get<std::string>(), std::string("vlad+orb"));
    QCOMPARE(report["satellite_models"]["fine_matching"].get<std::string>(), std::string("orb"));
    QVERIFY2(report["fallback_reason"].get<std::string>().find("aliked-n16rot") != std::string::npos,
             report["fallback_reason"].dump().c_str());
  }

  void gpxPointOutsideWgs84IsIgnoredWithAWarning() {
    const QString gpx = dir_.filePath("log.gpx");
    QString log;
    QVERIFY2(runCli({"export", "--track", flight_ + "/truth.csv", "--format", "gpx", "--out", gpx}, &log) == 0,
             qPrintable(log));
    QString text = readText(gpx);
    const int at = text.indexOf("lat=\"", text.indexOf("<trkpt", text.indexOf("<trkpt") + 1));
    QVERIFY(at > 0);
    const int end = text.indexOf('"', at + 5);
    text.replace(at + 5, end - at - 5, "95.0");  // the second point: latitude 95
    QVERIFY(writeText(gpx, text));
    const QString out = dir_.filePath("bad_gpx");
    const int code = runCli(processArgs(flight_ + "/flight.mp4") + QStringList{"--telemetry", gpx, "--out", out}, &log);
    QVERIFY2(code == 0, qPrintable(log));
    const auto report = readJson(out + "/report.json");
    QCOMPARE(report["completed"].get<bool>(), true);
    QVERIFY2(warningsContain(report, "outside WGS84"), report["warnings"].dump().c_str());
    QVERIFY(QFileInfo::exists(out + "/gnss.csv"));
  }

  void logWithoutPositionsIsRefusedFirst() {
    const QString csv = dir_.filePath("no_positions.csv");
    QVERIFY(writeText(csv, "t_s,alt_m\n0,100\n1,101\n2,102\n"));
    QString log;
    const int code = runCli(processArgs(flight_ + "/flight.mp4") +
                                QStringList{"--telemetry", csv, "--out", dir_.filePath("no_positions")},
                            &log);
    QVERIFY2(code == 1 || code == 2, qPrintable(log));
    QVERIFY2(log.contains("no_positions.csv") && (log.contains("no GNSS positions") || log.contains("lat")),
             qPrintable(log));
    QVERIFY(!QFileInfo::exists(dir_.filePath("no_positions/report.json")));
  }

  // Frames too small to navigate are a clear error naming the video, not an OpenCV
  // assertion from deep inside feature extraction.
  void tinyFramesAreAClearError() {
    const QString folder = dir_.filePath("tiny");
    QVERIFY(QDir().mkpath(folder));
    for (int i = 0; i < 3; ++i)
      QVERIFY(cv::imwrite((folder + QString("/%1.png").arg(i)).toStdString(), cv::Mat(1, 1, CV_8UC3, cv::Scalar(90, 90, 90))));
    QString log;
    QCOMPARE(runCli(processArgs(folder) + QStringList{"--out", dir_.filePath("tiny_out")}, &log), 1);
    QVERIFY2(log.contains("tiny") && log.contains("too small"), qPrintable(log));
    QVERIFY2(!log.contains("OpenCV"), qPrintable(log));
  }

  // Registration without a position prior over a basemap of 10^6 x 10^6 pixels (100 km
  // at 0.1 m) is bounded: the global search is not started (it ran for minutes at
  // 1.2 GB), the attempts are rejected at once with a reason that says why.
  void hugeBasemapWithoutPriorIsBounded() {
    const QString vrt = dir_.filePath("huge.vrt");
    QVERIFY(writeText(vrt, R"(<VRTDataset rasterXSize="1000000" rasterYSize="1000000">
  <SRS>EPSG:32651</SRS>
  <GeoTransform>250000, 0.1, 0, 1700000, 0, -0.1</GeoTransform>
  <VRTRasterBand dataType="Byte" band="1"><ColorInterp>Red</ColorInterp></VRTRasterBand>
  <VRTRasterBand dataType="Byte" band="2"><ColorInterp>Green</ColorInterp></VRTRasterBand>
  <VRTRasterBand dataType="Byte" band="3"><ColorInterp>Blue</ColorInterp></VRTRasterBand>
</VRTDataset>
)"));
    QString log;
    const auto start = std::chrono::steady_clock::now();
    const QString out = dir_.filePath("huge_out");
    const int code = runCli({"process", "--video", flight_ + "/flight.mp4", "--basemap", vrt, "--model", "orb",
                             "--mode", "sequential", "--out", out},
                            &log, 120000);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    qInfo("process over a 10^6 px basemap without a prior: %.1f s", seconds);
    QVERIFY2(seconds < 60.0, qPrintable(QString::number(seconds)));
    // Nothing was placed on the map: a failure that says why, with the results kept.
    QVERIFY2(code == 1, qPrintable(log));
    QVERIFY2(log.contains("no frame was placed on the basemaps") && log.contains("map_too_large_for_global_search: "),
             qPrintable(log));
    const auto report = readJson(out + "/report.json");
    QVERIFY2(report["fixes"]["rejected_by_reason"].contains("map_too_large_for_global_search"),
             report["fixes"].dump().c_str());
    QCOMPARE(report["frames"]["with_position"].get<int>(), 0);
    QVERIFY(warningsContain(report, "basemaps cover the flight"));
    QVERIFY(QFile::exists(out + "/fixes.csv"));
  }

  void truncatedVideoIsAnIncompleteRun() {
    if (QStandardPaths::findExecutable(QStringLiteral("ffmpeg")).isEmpty())
      QSKIP("ffmpeg (scripts/debian-packages.txt) is needed to move the MP4 index to the front");
    // A longer flight so that half of it still holds a few keyframes' worth of frames.
    const QString longer = dir_.filePath("long");
    QString log;
    QVERIFY2(runCli({"render", "--basemap", basemap_, "--out", longer, "--size", "320x240", "--fps", "5",
                     "--alt-m", "80", "--hfov-deg", "50", "--duration-s", "8", "--seed", "4"},
                    &log) == 0,
             qPrintable(log));
    const QString cut = longer + "/cut.mp4";
    QProcess remux;
    remux.start(QStringLiteral("ffmpeg"), {"-loglevel", "error", "-y", "-i", longer + "/flight.mp4", "-c", "copy",
                                           "-movflags", "+faststart", cut});
    QVERIFY(remux.waitForFinished(60000) && remux.exitCode() == 0);
    std::filesystem::resize_file(cut.toStdString(), std::filesystem::file_size(cut.toStdString()) / 2);

    const QString out = dir_.filePath("truncated");
    const int code =
        runCli(processArgs(cut) + QStringList{"--telemetry", longer + "/flight.srt", "--out", out}, &log);
    QVERIFY2(code == 1, qPrintable(log));
    const auto report = readJson(out + "/report.json");
    QCOMPARE(report["completed"].get<bool>(), false);
    QVERIFY2(warningsContain(report, "although the container announces 40"), report["warnings"].dump().c_str());
    const int processed = report["frames"]["processed"].get<int>();
    QVERIFY2(processed > 5 && processed < 40, qPrintable(QString::number(processed)));
    // Every pose belongs to a frame the file holds.
    const geo::Track track = geo::readTrack((out + "/odometry.csv").toStdString());
    QVERIFY(!track.poses.empty());
    QVERIFY2(track.poses.back().frame < processed, qPrintable(QString::number(track.poses.back().frame)));
  }
};

QTEST_GUILESS_MAIN(TestProcessFaults)
#include "test_process_faults.moc"
