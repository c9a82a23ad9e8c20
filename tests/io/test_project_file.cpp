// The .skytrace project file: a full round trip, paths relative to the project folder
// (the project moves with its data) and absolute outside it, defaults, and clear errors
// for files that are not projects.
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/io/project_file.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "tests/test_support.h"

using namespace skytrace;
namespace fs = std::filesystem;

namespace {

void writeText(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

io::Project sampleProject(const fs::path& folder, const fs::path& outside) {
  io::Project p;
  p.video_path = (folder / "flight" / "flight.mp4").string();
  p.basemap_paths = {(folder / "ortho.tif").string(), (outside / "sat.vrt").string()};
  p.telemetry_path = (folder / "flight" / "flight.srt").string();
  p.camera.source = io::CameraSource::File;
  p.camera.file_path = (folder / "flight" / "camera.json").string();
  p.feature_model = "aliked-n16rot";
  p.device = "cuda:1";
  p.register_every_keyframe = true;
  p.results_dir = (folder / "results").string();
  return p;
}

}  // namespace

class TestProjectFile : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void roundTripKeepsEveryField() {
    QTemporaryDir dir, other;
    const fs::path folder(dir.path().toStdString()), outside(other.path().toStdString());
    const io::Project written = sampleProject(folder, outside);
    const std::string path = (folder / "flight.skytrace").string();
    io::writeProjectFile(path, written);

    const io::Project read = io::readProjectFile(path);
    QCOMPARE(read.video_path, written.video_path);
    QCOMPARE(read.basemap_paths, written.basemap_paths);
    QCOMPARE(read.telemetry_path, written.telemetry_path);
    QCOMPARE(read.camera.source, io::CameraSource::File);
    QCOMPARE(read.camera.file_path, written.camera.file_path);
    QCOMPARE(read.feature_model, std::string("aliked-n16rot"));
    QCOMPARE(read.device, std::string("cuda:1"));
    QCOMPARE(read.register_every_keyframe, true);
    QCOMPARE(read.results_dir, written.results_dir);
    // Equality is what a file holds: the project read back equals the one written, and
    // any one field makes them differ.
    QVERIFY(read == written);
    io::Project changed = written;
    changed.vo_device = "cuda:0";
    QVERIFY(changed != written);
    changed = written;
    changed.camera.hfov_deg = 80.0;
    QVERIFY(changed != written);
    changed = written;
    changed.telemetry_time_offset_s = 0.0;
    QVERIFY(changed != written);

    // The keyframe policy is stored under "processing" and reads back either way.
    const nlohmann::json root = nlohmann::json::parse(readFileBytes(path));
    QCOMPARE(root["processing"]["register_every_keyframe"].get<bool>(), true);
    io::Project latest = written;
    latest.register_every_keyframe = false;
    io::writeProjectFile(path, latest);
    QCOMPARE(io::readProjectFile(path).register_every_keyframe, false);

    // The log's time offset: absent unless set, then stored and read back.
    QVERIFY(!read.telemetry_time_offset_s.has_value());
    QVERIFY(!nlohmann::json::parse(readFileBytes(path)).contains("telemetry_time_offset_s"));
    io::Project shifted = written;
    shifted.telemetry_time_offset_s = -20.5;
    io::writeProjectFile(path, shifted);
    QCOMPARE(nlohmann::json::parse(readFileBytes(path))["telemetry_time_offset_s"].get<double>(), -20.5);
    QCOMPARE(io::readProjectFile(path).telemetry_time_offset_s.value_or(0.0), -20.5);

    // Float16 and LightGlue's depth: absent unless set (false, adaptive), then read back.
    QVERIFY(!read.half_precision && read.lightglue_depth.empty());
    QVERIFY(!nlohmann::json::parse(readFileBytes(path))["processing"].contains("half_precision"));
    io::Project fast = written;
    fast.half_precision = true;
    fast.lightglue_depth = "full";
    QVERIFY(fast != written);
    io::writeProjectFile(path, fast);
    const io::Project fast_read = io::readProjectFile(path);
    QVERIFY(fast_read.half_precision);
    QCOMPARE(fast_read.lightglue_depth, std::string("full"));
    fast.lightglue_depth = "deepest";
    QVERIFY(test::errorMessageOf<InvalidArgument>([&] { io::writeProjectFile(path, fast); }).contains("LightGlue"));
  }

  void pathsInsideTheFolderAreStoredRelative() {
    QTemporaryDir dir, other;
    const fs::path folder(dir.path().toStdString()), outside(other.path().toStdString());
    const std::string path = (folder / "p.skytrace").string();
    io::writeProjectFile(path, sampleProject(folder, outside));
    const nlohmann::json root = nlohmann::json::parse(readFileBytes(path));
    QCOMPARE(root["format"].get<std::string>(), std::string("skytrace-project"));
    QCOMPARE(root["video"].get<std::string>(), std::string("flight/flight.mp4"));
    QCOMPARE(root["basemaps"][0].get<std::string>(), std::string("ortho.tif"));
    QVERIFY(fs::path(root["basemaps"][1].get<std::string>()).is_absolute());  // outside
    QCOMPARE(root["results"].get<std::string>(), std::string("results"));

    // The moved project finds its data in the new place.
    QTemporaryDir moved;
    const fs::path moved_path = fs::path(moved.path().toStdString()) / "p.skytrace";
    fs::copy_file(path, moved_path);
    const io::Project read = io::readProjectFile(moved_path.string());
    QCOMPARE(read.video_path, (fs::path(moved.path().toStdString()) / "flight/flight.mp4").string());
    QCOMPARE(read.basemap_paths[1], (outside / "sat.vrt").string());
  }

  void fovCameraAndDefaults() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("minimal.skytrace").toStdString();
    writeText(path, R"({"format": "skytrace-project", "version": 1, "video": "v.mp4",
                        "basemaps": ["b.tif"], "camera": {"source": "hfov", "hfov_deg": 82.5}})");
    const io::Project read = io::readProjectFile(path);
    QCOMPARE(read.camera.source, io::CameraSource::HorizontalFov);
    QCOMPARE(read.camera.hfov_deg, 82.5);
    QVERIFY(read.telemetry_path.empty());
    // No processing fields: every one unset, i.e. the defaults of `process` (core/app).
    QVERIFY(read.feature_model.empty() && read.device.empty() && read.processing_mode.empty());
    QVERIFY(read.effectiveVoModel().empty() && read.effectiveSatelliteDevice().empty());
    QCOMPARE(read.register_every_keyframe, false);  // no key: latest wins, as before the key existed
    QCOMPARE(read.results_dir, dir.filePath("minimal_results").toStdString());

    // Written back, unset fields stay unset ("mode": "auto"), set ones stay set.
    io::Project unset = read;
    io::writeProjectFile(path, unset);
    const io::Project reread = io::readProjectFile(path);
    QVERIFY(reread.feature_model.empty() && reread.device.empty() && reread.processing_mode.empty());
    unset.processing_mode = "sequential";
    unset.vo_device = "cpu";
    io::writeProjectFile(path, unset);
    QCOMPARE(io::readProjectFile(path).processing_mode, std::string("sequential"));
    QCOMPARE(io::readProjectFile(path).effectiveSatelliteDevice(), std::string(""));
    QCOMPARE(io::readProjectFile(path).effectiveVoDevice(), std::string("cpu"));

    // A file from before "mode" existed ran its feature_model through the engine.
    writeText(path, R"({"format": "skytrace-project", "version": 1, "video": "v.mp4", "basemaps": ["b.tif"],
                        "processing": {"feature_model": "sift", "device": "cpu"}})");
    QCOMPARE(io::readProjectFile(path).processing_mode, std::string("overlapped"));
    QCOMPARE(io::readProjectFile(path).effectiveSatelliteModel(), std::string("sift"));

    // A "processing" object without the key (written before it existed) reads the same.
    writeText(path, R"({"format": "skytrace-project", "version": 1, "video": "v.mp4", "basemaps": ["b.tif"],
                        "processing": {"feature_model": "orb", "device": "cpu", "mode": "overlapped"}})");
    QCOMPARE(io::readProjectFile(path).register_every_keyframe, false);
  }

  void invalidProjectsAreRefusedWithTheReason() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("bad.skytrace").toStdString();
    writeText(path, "{not json");
    QVERIFY(test::errorMessageOf<FormatError>([&] { io::readProjectFile(path); }).contains("not JSON"));
    writeText(path, R"({"format": "something-else", "version": 1})");
    QVERIFY(test::errorMessageOf<FormatError>([&] { io::readProjectFile(path); }).contains("format"));
    writeText(path, R"({"format": "skytrace-project", "version": 1, "basemaps": []})");
    QVERIFY(test::errorMessageOf<FormatError>([&] { io::readProjectFile(path); }).contains("\"video\""));
    writeText(path, R"({"format": "skytrace-project", "version": 9, "video": "v", "basemaps": []})");
    QVERIFY(test::errorMessageOf<FormatError>([&] { io::readProjectFile(path); }).contains("newer"));
    writeText(path, R"({"format": "skytrace-project", "version": 99999999999, "video": "v", "basemaps": []})");
    QVERIFY(test::errorMessageOf<FormatError>([&] { io::readProjectFile(path); }).contains("\"version\""));
    // Found by fuzz_project: a number beyond double's range made the JSON parser throw
    // out_of_range, which escaped the reader (the GUI would have stopped on it).
    writeText(path, "{\"format\": \"skytrace-project\", \"version\": 1" + std::string(400, '6') + "}");
    QVERIFY(test::errorMessageOf<FormatError>([&] { io::readProjectFile(path); }).contains("not JSON"));
    writeText(path, R"({"format": "skytrace-project", "version": 1, "video": "v", "basemaps": ["b"],
                        "processing": {"register_every_keyframe": "yes"}})");
    QVERIFY(test::errorMessageOf<FormatError>([&] { io::readProjectFile(path); })
                .contains("register_every_keyframe"));
    writeText(path, R"({"format": "skytrace-project", "version": 1, "video": "v", "basemaps": ["b"],
                        "processing": {"half_precision": 1}})");
    QVERIFY(test::errorMessageOf<FormatError>([&] { io::readProjectFile(path); }).contains("half_precision"));
    writeText(path, R"({"format": "skytrace-project", "version": 1, "video": "v", "basemaps": ["b"],
                        "processing": {"lightglue_depth": "shallow"}})");
    QVERIFY(test::errorMessageOf<FormatError>([&] { io::readProjectFile(path); }).contains("lightglue_depth"));
    writeText(path, R"({"format": "skytrace-project", "version": 1, "video": "v", "basemaps": ["b"],
                        "processing": {"mode": "fastest"}})");
    QVERIFY(test::errorMessageOf<FormatError>([&] { io::readProjectFile(path); }).contains("\"auto\""));
    writeText(path, R"({"format": "skytrace-project", "version": 1, "video": "v", "basemaps": ["b"],
                        "telemetry_time_offset_s": "-20"})");
    QVERIFY(test::errorMessageOf<FormatError>([&] { io::readProjectFile(path); })
                .contains("telemetry_time_offset_s"));
    QVERIFY(test::errorMessageOf<IoError>([&] { io::readProjectFile(dir.filePath("none").toStdString()); })
                .contains("none"));

    io::Project p;
    p.video_path = "v.mp4";
    QVERIFY(test::errorMessageOf<InvalidArgument>([&] { io::writeProjectFile(path, p); }).contains("basemap"));
    p.basemap_paths = {"b.tif"};
    p.camera.source = io::CameraSource::HorizontalFov;
    p.camera.hfov_deg = 200;
    QVERIFY(test::errorMessageOf<InvalidArgument>([&] { io::writeProjectFile(path, p); }).contains("field of view"));
  }
};

QTEST_GUILESS_MAIN(TestProjectFile)
#include "test_project_file.moc"
