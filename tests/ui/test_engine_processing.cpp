// The GUI processes through the engine, offscreen, on the synthetic flight of
// tests/synthetic_flight.h (60 frames over a procedural basemap, known true track):
// - overlapped (the default) reaches the end: every video frame processed, every fix the
//   engine applied shown live and written to fixes.csv, the results track close to the
//   true one; the latency plot got the engine's stages live; the VO inlier overlays are
//   consistent; the sequential mode of the same project, the overlapped mode registering
//   every keyframe, and `skytrace-cli process` run on it (CliProcessRunner, with
//   --register-every-keyframe), process the same frames within the same bounds, and each
//   report names the keyframe policy the run applied;
// - pause stops the frames, cancel while paused ends the run with partial results;
// - the model choice (models, devices, mode, keyframe policy) is saved with the project
//   and loaded back, older projects load with their meaning, the options widget
//   round-trips it (the keyframe policy box enabled in overlapped mode only), and the
//   ProcessingChoice and the CLI arguments carry it;
// - missing weights of a chosen model: the error names the file and where the authors
//   publish it, reaches the status bar and errorReported, no modal dialog, and the
//   results shown before stay.
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <set>

#include "core/engine/latency_recorder.h"
#include "core/geo/geodesy.h"
#include "core/geo/track_io.h"
#include "core/io/project_file.h"
#include "tests/synthetic_flight.h"
#include "tests/ui/cli_process_runner.h"
#include "core/app/flight_results.h"
#include "ui/latency_plot.h"
#include "core/vision/model_paths.h"
#include "ui/main_window.h"
#include "tests/ui/window_test_support.h"
#include "ui/plots_panel.h"
#include "ui/processing_choice.h"
#include "ui/processing_controller.h"
#include "ui/processing_options.h"
#include "ui/results_model.h"

using namespace skytrace;
using test::batchOptions;

namespace {

constexpr int kRunTimeoutMs = 50000;
constexpr int kLoadTimeoutMs = 20000;

QJsonObject readJson(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(file.readAll()).object();
}

// Horizontal distance (m) of each pose of `track` from the true pose of the same frame.
std::vector<double> errorsAgainst(const geo::Track& track, const geo::Track& truth) {
  std::vector<double> errors;
  for (const geo::TrackPose& p : track.poses) {
    if (p.frame < 0 || p.frame >= static_cast<std::int64_t>(truth.poses.size()) || !std::isfinite(p.lat_deg))
      continue;
    const geo::TrackPose& t = truth.poses[static_cast<std::size_t>(p.frame)];
    errors.push_back(geo::horizontalDistanceM({t.lat_deg, t.lon_deg, 0.0}, {p.lat_deg, p.lon_deg, 0.0}));
  }
  return errors;
}

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// Of the overlay's keypoint -> keyframe point displacements, the fraction within 3 px of
// their median: the synthetic flight is a pure translation at constant height over flat
// ground, so true inlier pairs all move alike.
double consistentFraction(const ui::LiveFrameUpdate& update) {
  std::vector<double> dx, dy;
  for (int i = 0; i < update.keypoints_px.size(); ++i) {
    dx.push_back(update.keypoints_px[i].x() - update.matches_from_px[i].x());
    dy.push_back(update.keypoints_px[i].y() - update.matches_from_px[i].y());
  }
  std::vector<double> sx = dx, sy = dy;
  std::nth_element(sx.begin(), sx.begin() + sx.size() / 2, sx.end());
  std::nth_element(sy.begin(), sy.begin() + sy.size() / 2, sy.end());
  int close = 0;
  for (std::size_t i = 0; i < dx.size(); ++i)
    close += std::hypot(dx[i] - sx[sx.size() / 2], dy[i] - sy[sy.size() / 2]) < 3.0;
  return double(close) / double(dx.size());
}

// Counts the live updates the controller hands to the GUI thread (queued, so the count
// is read on the GUI thread only), and checks the overlays they carry.
struct LiveCounter {
  explicit LiveCounter(ui::ProcessingController* controller) {
    QObject::connect(controller, &ui::ProcessingController::workerFrame, &context,
                     [this](const ui::LiveFrameUpdate& update) {
                       ++frames;
                       last_frame = update.frame;
                       localised[update.frame] = update.has_pose;
                       if (update.keypoints_px.size() < 8) return;
                       if (update.matches_from_px.size() != update.keypoints_px.size()) ++bad_overlays;
                       else if (consistentFraction(update) < 0.9) ++bad_overlays;
                       else ++good_overlays;
                     }, Qt::QueuedConnection);
    QObject::connect(controller, &ui::ProcessingController::workerFix, &context,
                     [this](const app::RegistrationFixRecord& fix) {
                       ++fixes;
                       fix_frames.push_back(fix.frame);
                       last_frame_at_fix.push_back(last_frame);
                     }, Qt::QueuedConnection);
  }
  QObject context;
  int frames = 0;
  int fixes = 0;
  int good_overlays = 0;  // >= 8 inlier pairs, moving alike
  int bad_overlays = 0;
  std::int64_t last_frame = -1;
  std::map<std::int64_t, bool> localised;       // per frame: the run had a position
  std::vector<std::int64_t> fix_frames;         // in the order the fixes were fused
  std::vector<std::int64_t> last_frame_at_fix;  // the newest frame shown by then

  // Registration attempts made without a position never overlap: each came after the
  // previous attempt's fix was fused (as in the sequential driver). Empty when so.
  QString overlappingAttempts() const {
    for (std::size_t i = 0; i + 1 < fix_frames.size(); ++i) {
      const auto it = localised.find(fix_frames[i + 1]);
      if (it != localised.end() && !it->second && fix_frames[i + 1] <= last_frame_at_fix[i])
        return QString("attempt at frame %1 made before the fix of frame %2 was fused (after frame %3)")
            .arg(fix_frames[i + 1]).arg(fix_frames[i]).arg(last_frame_at_fix[i]);
    }
    return {};
  }
};

}  // namespace

class TestEngineProcessing : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    flight_ = test::writeSyntheticFlight(dir_.path());
    QVERIFY(models_.isValid());
    qputenv("SKYTRACE_MODEL_DIR", models_.path().toUtf8());  // empty: no learned weights
  }

  void overlappedRunReachesTheEndWithEveryFrameAndFix() { runToTheEnd("overlapped"); }
  void sequentialRunProcessesTheSameFrames() { runToTheEnd("sequential"); }
  // The engine with back-pressure (Processing Options: register every keyframe).
  void overlappedRunRegisteringEveryKeyframe() { runToTheEnd("overlapped", false, true); }
  // The same project through skytrace-cli process (CliProcessRunner passes the choice
  // on, here with --register-every-keyframe): the same frames, the same model names,
  // mode and keyframe policy, within the same bounds.
  void cliProcessOfTheSameProjectAgrees() { runToTheEnd("overlapped", true, true); }

  // One application layer: the same project through the GUI's in-process runner and
  // through `skytrace-cli process` (both app::processFlight) gives report.json with the
  // same keys and the same descriptions of the run, and the same track (sequential
  // mode: the same computation in the same order).
  void cliAndInProcessRunsGiveTheSameResults() {
    QTemporaryDir gui_dir, cli_dir;
    const io::Project gui_project = projectIn(gui_dir, "sequential");
    const io::Project cli_project = projectIn(cli_dir, "sequential");
    const QString gui_results = runToCompletion(gui_project, false);
    const QString cli_results = runToCompletion(cli_project, true);
    QVERIFY(!gui_results.isEmpty() && !cli_results.isEmpty());
    const QJsonObject gui = readJson(gui_results + "/report.json");
    const QJsonObject cli = readJson(cli_results + "/report.json");
    QCOMPARE(gui.keys(), cli.keys());
    for (const char* object : {"frames", "fixes", "odometry", "timings", "satellite_models", "inputs"})
      QCOMPARE(gui.value(object).toObject().keys(), cli.value(object).toObject().keys());
    const QJsonObject timings = cli.value("timings").toObject();
    for (const char* part : {"first_frame_s", "registration_wait_s", "finish_s"}) {
      QVERIFY2(timings.contains(part), part);
      QVERIFY(timings.value(part).toDouble() >= 0.0);
      QVERIFY(timings.value(part).toDouble() <= timings.value("navigation_s").toDouble());
    }
    for (const char* key : {"feature_model", "registration_model", "mode", "keyframe_policy", "device",
                               "device_placement", "fallback_reason"})
      QCOMPARE(gui.value(key).toString(), cli.value(key).toString());
    QCOMPARE(gui.value("satellite_models").toObject(), cli.value("satellite_models").toObject());
    QCOMPARE(gui.value("inputs").toObject(), cli.value("inputs").toObject());
    QCOMPARE(gui.value("ground_alt_m").toDouble(), cli.value("ground_alt_m").toDouble());
    QCOMPARE(gui.value("frames").toObject(), cli.value("frames").toObject());
    const geo::Track gui_track = geo::readTrack((gui_results + "/track.csv").toStdString());
    const geo::Track cli_track = geo::readTrack((cli_results + "/track.csv").toStdString());
    QVERIFY(gui_track.poses.size() >= std::size_t(flight_.frames * 9 / 10));
    QCOMPARE(gui_track.poses.size(), cli_track.poses.size());
    double max_m = 0.0;
    for (std::size_t i = 0; i < gui_track.poses.size(); ++i) {
      const geo::TrackPose& a = gui_track.poses[i];
      const geo::TrackPose& b = cli_track.poses[i];
      QCOMPARE(a.frame, b.frame);
      max_m = std::max(max_m, geo::horizontalDistanceM({a.lat_deg, a.lon_deg, 0}, {b.lat_deg, b.lon_deg, 0}));
    }
    qInfo("in-process vs skytrace-cli: %zu poses, largest difference %.3g m", gui_track.poses.size(), max_m);
    QVERIFY2(max_m < 0.01, qPrintable(QString::number(max_m)));
  }

  void pauseStopsFramesAndCancelKeepsPartialResults() {
    QTemporaryDir run_dir;
    io::Project project = projectIn(run_dir, "overlapped");
    project.vo_model = "sift";  // slower VO: the run is surely still going when paused
    ui::MainWindow window(batchOptions());
    QVERIFY(window.applyProject(project));
    LiveCounter live(window.processing());
    QSignalSpy finished(window.processing(), &ui::ProcessingController::finished);
    QSignalSpy failed(window.processing(), &ui::ProcessingController::failed);
    QVERIFY(window.startProcessing());
    QTRY_VERIFY_WITH_TIMEOUT(live.frames >= 5, kRunTimeoutMs);
    window.processing()->setPaused(true);
    QTest::qWait(300);  // frames already inside the VO step still arrive
    const int at_pause = live.frames;
    QTest::qWait(700);
    QVERIFY2(live.frames - at_pause <= 1, qPrintable(QString("%1 -> %2").arg(at_pause).arg(live.frames)));
    QVERIFY(live.frames < flight_.frames);
    QElapsedTimer clock;
    clock.start();
    window.processing()->cancel();
    QVERIFY(finished.wait(10000));
    qInfo("cancel while paused took %lld ms", clock.elapsed());
    QVERIFY(failed.isEmpty());
    QCOMPARE(finished.first().at(0).toBool(), false);
    QVERIFY(!window.processing()->isRunning());
    const QJsonObject report = readJson(run_dir.filePath("results/report.json"));
    QCOMPARE(report.value("completed").toBool(true), false);
    const int processed = report.value("frames").toObject().value("processed").toInt();
    QVERIFY2(processed >= at_pause && processed < flight_.frames, qPrintable(QString::number(processed)));
  }

  void modelChoiceIsSavedWithTheProjectAndLoadsBack() {
    QTemporaryDir run_dir;
    ui::MainWindow window(batchOptions());
    QVERIFY(window.openProject(flight_.project));
    io::Project choice = window.project();
    choice.feature_model = "superpoint";
    choice.vo_model = "superpoint+lightglue";
    choice.satellite_model = "dinov2+litesam";
    choice.vo_device = "cuda:0";
    choice.satellite_device = "cuda:1";
    choice.processing_mode = "sequential";
    choice.register_every_keyframe = true;
    choice.half_precision = true;
    choice.lightglue_depth = "full";
    window.setProcessingOptions(choice);
    const QString saved = run_dir.filePath("choice.skytrace");
    QVERIFY(window.saveProject(saved));
    const QJsonObject processing = readJson(saved).value("processing").toObject();
    QCOMPARE(processing.value("vo_model").toString(), QString("superpoint+lightglue"));
    QCOMPARE(processing.value("satellite_model").toString(), QString("dinov2+litesam"));
    QCOMPARE(processing.value("mode").toString(), QString("sequential"));
    QCOMPARE(processing.value("register_every_keyframe").toBool(false), true);
    QCOMPARE(processing.value("half_precision").toBool(false), true);
    QCOMPARE(processing.value("lightglue_depth").toString(), QString("full"));

    ui::MainWindow reopened(batchOptions());
    QVERIFY(reopened.openProject(saved));
    const io::Project& loaded = reopened.project();
    QCOMPARE(loaded.vo_model, std::string("superpoint+lightglue"));
    QCOMPARE(loaded.satellite_model, std::string("dinov2+litesam"));
    QCOMPARE(loaded.vo_device, std::string("cuda:0"));
    QCOMPARE(loaded.satellite_device, std::string("cuda:1"));
    QCOMPARE(loaded.processing_mode, std::string("sequential"));
    QCOMPARE(loaded.feature_model, std::string("superpoint"));
    QCOMPARE(loaded.register_every_keyframe, true);
    QCOMPARE(loaded.half_precision, true);
    QCOMPARE(loaded.lightglue_depth, std::string("full"));

    // The options widget shows the choice and gives it back unchanged.
    ui::ProcessingOptionsWidget widget;
    widget.setProject(loaded);
    QCOMPARE(widget.voModelBox()->currentText(), QString("superpoint+lightglue"));
    QCOMPARE(widget.satelliteDeviceBox()->currentText(), QString("cuda:1"));
    QVERIFY(widget.everyKeyframeBox()->isChecked());
    QVERIFY(!widget.everyKeyframeBox()->isEnabled());  // sequential registers every keyframe anyway
    QVERIFY(widget.halfPrecisionBox()->isChecked());
    QVERIFY(widget.lightGlueFullDepthBox()->isChecked() && widget.lightGlueFullDepthBox()->isEnabled());
    io::Project round_trip = loaded;
    round_trip.vo_model = round_trip.satellite_model = round_trip.processing_mode = "x";
    round_trip.register_every_keyframe = false;
    round_trip.half_precision = false;
    round_trip.lightglue_depth.clear();
    widget.applyTo(&round_trip);
    QCOMPARE(round_trip.half_precision, true);
    QCOMPARE(round_trip.lightglue_depth, std::string("full"));
    QCOMPARE(round_trip.vo_model, loaded.vo_model);
    QCOMPARE(round_trip.satellite_model, loaded.satellite_model);
    QCOMPARE(round_trip.processing_mode, loaded.processing_mode);
    QCOMPARE(round_trip.register_every_keyframe, true);
    widget.modeBox()->setCurrentIndex(widget.modeBox()->findData(QString("overlapped")));
    QVERIFY(widget.everyKeyframeBox()->isEnabled());
    widget.everyKeyframeBox()->setChecked(false);
    widget.applyTo(&round_trip);
    QCOMPARE(round_trip.processing_mode, std::string("overlapped"));
    QCOMPARE(round_trip.register_every_keyframe, false);
    widget.setProject(loaded);
    QCOMPARE(round_trip.device, std::string("cuda:0"));
    QVERIFY2(widget.problem().isEmpty(), qPrintable(widget.problem()));
    widget.voModelBox()->setCurrentText("superpoint+nosuchmatcher");
    QVERIFY(widget.problem().contains("nosuchmatcher"));

    // The CLI runner passes the same choice on.
    const QStringList args = ui::CliProcessRunner::argumentsFor(loaded);
    for (const QString& expected : {QString("--vo-model superpoint+lightglue"), QString("--sat-model dinov2+litesam"),
                                    QString("--vo-device cuda:0"), QString("--sat-device cuda:1"),
                                    QString("--mode sequential")})
      QVERIFY2(args.join(' ').contains(expected), qPrintable(args.join(' ')));
    QVERIFY(!args.contains("--keyframe-policy"));  // the option of the engine only
    io::Project overlapped = loaded;
    overlapped.processing_mode = "overlapped";
    QVERIFY(ui::CliProcessRunner::argumentsFor(overlapped).join(' ').contains("--keyframe-policy every"));
    overlapped.register_every_keyframe = false;
    QVERIFY(ui::CliProcessRunner::argumentsFor(overlapped).join(' ').contains("--keyframe-policy latest"));
    // The log's clock offset goes with the log (and only with one).
    io::Project shifted = overlapped;
    shifted.telemetry_path = "/data/flight.ulg";
    shifted.telemetry_time_offset_s = -20.25;
    QVERIFY(ui::CliProcessRunner::argumentsFor(shifted).join(' ').contains("--telemetry /data/flight.ulg --time-offset -20.25"));
    shifted.telemetry_path.clear();
    QVERIFY(!ui::CliProcessRunner::argumentsFor(shifted).contains("--time-offset"));

    // The processing choice carries the policy to the engine (ORB: no weights needed).
    io::Project cpu_choice = projectIn(run_dir, "overlapped");
    cpu_choice.register_every_keyframe = false;
    QCOMPARE(ui::processingChoiceFor(cpu_choice, 0).keyframe_policy, engine::KeyframePolicy::LatestWins);
    cpu_choice.register_every_keyframe = true;
    const ui::ProcessingChoice every = ui::processingChoiceFor(cpu_choice, 0);
    QCOMPARE(every.keyframe_policy, engine::KeyframePolicy::EveryKeyframe);
    QCOMPARE(every.layout, engine::NavigationLayout::Overlapped);

    // A project written before the choice existed keeps its meaning: feature_model for
    // both stages on `device`, through the engine.
    const QString old_project = run_dir.filePath("old.skytrace");
    QFile file(old_project);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QString(R"({"format": "skytrace-project", "version": 1, "video": "%1", "basemaps": ["%2"],
      "processing": {"feature_model": "sift", "device": "cpu"}})")
                   .arg(flight_.video, flight_.basemap)
                   .toUtf8());
    file.close();
    const io::Project old = io::readProjectFile(old_project.toStdString());
    QCOMPARE(old.effectiveVoModel(), std::string("sift"));
    QCOMPARE(old.effectiveSatelliteModel(), std::string("sift"));
    QCOMPARE(old.effectiveSatelliteDevice(), std::string("cpu"));
    QCOMPARE(old.processing_mode, std::string("overlapped"));
    QCOMPARE(old.register_every_keyframe, false);
  }

  void missingWeightsAreReportedWithoutDialogAndKeepTheResults() {
    ui::MainWindow window(batchOptions());
    QVERIFY(window.openProject(flight_.project));  // shows the synthetic results
    QSignalSpy loaded(&window, &ui::MainWindow::resultsLoaded);
    QVERIFY(loaded.wait(kLoadTimeoutMs));
    QCOMPARE(int(window.resultsModel()->results().track.poses.size()), flight_.frames);

    io::Project choice = window.project();
    choice.vo_model = "orb";
    choice.satellite_model = "dinov2+litesam";
    // The options show what is missing before anything runs.
    const QString note = ui::ProcessingOptionsWidget::weightsNoteFor(choice);
    QVERIFY2(note.contains("mloftr.ckpt") && note.contains("github.com/boyagesmile/LiteSAM"), qPrintable(note));
    QVERIFY2(note.contains("dinov2_vits14_pretrain.pth") && note.contains("dl.fbaipublicfiles.com"),
             qPrintable(note));
    choice.satellite_model = "orb";
    choice.vo_model = "aliked-n16rot";
    const QString fallback_note = ui::ProcessingOptionsWidget::weightsNoteFor(choice);
    QVERIFY2(fallback_note.contains("aliked-n16rot.pth") && fallback_note.contains("ORB"),
             qPrintable(fallback_note));
    // Issue 20: VO would fall back to ORB, but the satellite stage stops the run: the note
    // says that once, not both.
    choice.satellite_model = "dinov2+litesam";
    const QString stopping_note = ui::ProcessingOptionsWidget::weightsNoteFor(choice);
    QVERIFY2(stopping_note.contains("Processing stops") && !stopping_note.contains("uses ORB"),
             qPrintable(stopping_note));
    if (qEnvironmentVariableIsEmpty("SKYTRACE_MODEL_DIR")) {
      // The Model folder of Processing Options is where the files are looked for.
      QTemporaryDir models;
      QFile(models.filePath("aliked-n16rot.pth")).open(QIODevice::WriteOnly);
      ui::ProcessingOptionsWidget widget;
      widget.modelFolderEdit()->setText(models.path());
      QMetaObject::invokeMethod(widget.modelFolderEdit(), "editingFinished");
      QCOMPARE(QString::fromStdString(vision::defaultModelDirectory()), models.path());
      choice.satellite_model = "orb";
      QVERIFY2(ui::ProcessingOptionsWidget::weightsNoteFor(choice).isEmpty(),
               qPrintable(ui::ProcessingOptionsWidget::weightsNoteFor(choice)));
      vision::setDefaultModelDirectory("");
    }

    choice.vo_model = "orb";
    choice.satellite_model = "dinov2+litesam";
    window.setProcessingOptions(choice);
    QSignalSpy errors(&window, &ui::MainWindow::errorReported);
    QSignalSpy failed(window.processing(), &ui::ProcessingController::failed);
    QVERIFY(window.startProcessing());
    QVERIFY(failed.wait(kRunTimeoutMs));
    const QString message = failed.first().first().toString();
    QVERIFY2(message.contains("dinov2_vits14_pretrain.pth") || message.contains("mloftr.ckpt"),
             qPrintable(message));
    QCOMPARE(errors.count(), 1);
    QCOMPARE(window.statusBar()->currentMessage(), message);
    QVERIFY(QApplication::activeModalWidget() == nullptr);
    QVERIFY(!window.processing()->isRunning());
    // The results shown before the run come back (nothing was computed to replace them).
    QVERIFY(loaded.wait(kLoadTimeoutMs));
    QCOMPARE(int(window.resultsModel()->results().track.poses.size()), flight_.frames);
    QCOMPARE(window.project().satellite_model, std::string("dinov2+litesam"));  // the choice stays
  }

 private:
  // ORB for both stages (fast on 2 cores, no weights), results in a fresh folder.
  io::Project projectIn(const QTemporaryDir& run_dir, const std::string& mode) const {
    io::Project project = io::readProjectFile(flight_.project.toStdString());
    project.vo_model = "orb";
    project.satellite_model = "sift";
    project.vo_device = "cpu";
    project.satellite_device = "cpu";
    project.processing_mode = mode;
    project.results_dir = run_dir.filePath("results").toStdString();
    return project;
  }

  // Processes the project in `mode` in the GUI (NavigationRunner), or through
  // `skytrace-cli process` (CliProcessRunner: no live data, the CLI's own overlapped run),
  // registering every keyframe when `every_keyframe` (the engine's back-pressure policy).
  void runToTheEnd(const std::string& mode, bool through_cli = false, bool every_keyframe = false) {
    QTemporaryDir run_dir;
    io::Project project = projectIn(run_dir, mode);
    project.register_every_keyframe = every_keyframe;
    ui::MainWindow window(batchOptions());
    window.resize(1280, 800);
    window.show();
    QVERIFY(window.applyProject(project));
    LiveCounter live(window.processing());
    std::set<engine::Stage> live_stages;
    int live_samples = 0;
    QObject::connect(window.processing(), &ui::ProcessingController::latencyReceived, &live.context,
                     [&](const QVector<engine::LatencySample>& samples) {
                       live_samples += samples.size();
                       for (const auto& s : samples) live_stages.insert(s.stage);
                     });
    QSignalSpy latency_batches(window.processing(), &ui::ProcessingController::latencyReceived);
    QSignalSpy finished(window.processing(), &ui::ProcessingController::finished);
    QSignalSpy failed(window.processing(), &ui::ProcessingController::failed);
    QSignalSpy loaded(&window, &ui::MainWindow::resultsLoaded);
    QElapsedTimer clock;
    clock.start();
    if (through_cli)
      QVERIFY(window.startProcessing(std::make_unique<ui::CliProcessRunner>(QStringLiteral(SKYTRACE_CLI_EXECUTABLE))));
    else
      QVERIFY(window.startProcessing());
    QVERIFY(finished.wait(kRunTimeoutMs) || !failed.isEmpty());
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    QCOMPARE(finished.first().at(0).toBool(), true);
    const qint64 elapsed_ms = clock.elapsed();

    // Every frame went through VO and reached the GUI thread live, most with the VO's
    // inlier keypoints and their keyframe matches for the video overlay.
    if (!through_cli) {
      QCOMPARE(live.frames, flight_.frames);
      QCOMPARE(live.bad_overlays, 0);
      QVERIFY2(live.good_overlays >= flight_.frames / 2, qPrintable(QString::number(live.good_overlays)));
    }
    const QString results = run_dir.filePath("results");
    const QJsonObject report = readJson(results + "/report.json");
    QCOMPARE(report.value("mode").toString(), QString::fromStdString(mode));
    // As the run applied it: the engine's policy; the sequential driver registers every keyframe.
    QCOMPARE(report.value("keyframe_policy").toString(),
             QString(every_keyframe || mode == "sequential" ? "every" : "latest"));
    QCOMPARE(report.value("frames").toObject().value("processed").toInt(), flight_.frames);
    QCOMPARE(report.value("frames").toObject().value("total").toInt(), flight_.frames);
    QCOMPARE(report.value("feature_model").toString(), QString("orb+mnn"));
    QCOMPARE(report.value("registration_model").toString(), QString("vlad+sift"));
    const int attempted = report.value("fixes").toObject().value("attempted").toInt();
    const int accepted = report.value("fixes").toObject().value("accepted").toInt();
    // Latest wins: how many attempts fit depends on the satellite stage's speed relative to
    // VO (one global search may span the whole 60 frames on a loaded 2-core machine); the
    // newest request is never dropped, so at least one registration completes. Every
    // keyframe (and sequential): every request the session makes is registered, the
    // engine waiting for an attempt without a position as the sequential driver does
    // (13 on this flight on an idle machine, in both).
    const bool every_request = every_keyframe || mode == "sequential";
    QVERIFY2(accepted >= (every_request ? 10 : 1),
             QJsonDocument(report.value("fixes").toObject()).toJson().constData());
    if (!through_cli) {
      // Every fix the session fused was shown live (the run waits for outstanding fixes).
      QCOMPARE(live.fixes, attempted);
      QVERIFY2(live.overlappingAttempts().isEmpty(), qPrintable(live.overlappingAttempts()));
      // The latency plot was fed live from the engine's recorder, in batches.
      QVERIFY2(latency_batches.count() >= 2, qPrintable(QString::number(latency_batches.count())));
      for (engine::Stage stage : {engine::Stage::Decode, engine::Stage::Extract, engine::Stage::Match,
                                  engine::Stage::Pose, engine::Stage::Fusion, engine::Stage::FineMatch})
        QVERIFY2(live_stages.count(stage), engine::stageName(stage));
      // One recorder: the plot got exactly the samples latency.csv holds.
      QFile csv(results + "/latency.csv");
      QVERIFY(csv.open(QIODevice::ReadOnly));
      const int csv_rows = int(csv.readAll().trimmed().split('\n').size()) - 1;
      QCOMPARE(live_samples, csv_rows);
    }

    // The results folder the run wrote is shown, and its track follows the true one.
    QVERIFY(loaded.wait(kLoadTimeoutMs));
    const app::FlightResults& r = window.resultsModel()->results();
    QCOMPARE(QString::fromStdString(r.folder), results);
    QCOMPARE(r.mode, mode);
    const std::vector<double> errors = errorsAgainst(r.track, flight_.visual);
    QVERIFY2(int(errors.size()) >= flight_.frames * 9 / 10, qPrintable(QString::number(errors.size())));
    const double median_m = median(errors);
    const double max_m = *std::max_element(errors.begin(), errors.end());
    qInfo("%s%s%s: %d frames, %d fixes (%d accepted) in %lld ms; error median %.2f m, max %.2f m",
          through_cli ? "skytrace-cli " : "", mode.c_str(), every_keyframe ? " (every keyframe)" : "", report.value("frames").toObject().value("processed").toInt(),
          attempted, accepted, elapsed_ms, median_m, max_m);
    QVERIFY2(median_m < 3.0, qPrintable(QString::number(median_m)));
    QVERIFY2(max_m < 8.0, qPrintable(QString::number(max_m)));
  }

  // Runs `project` to the end in a window (in process, or through `skytrace-cli
  // process`); empty when it did not finish.
  QString runToCompletion(const io::Project& project, bool through_cli) {
    ui::MainWindow window(batchOptions());
    if (!window.applyProject(project)) return {};
    QSignalSpy finished(window.processing(), &ui::ProcessingController::finished);
    QSignalSpy failed(window.processing(), &ui::ProcessingController::failed);
    const bool started =
        through_cli ? window.startProcessing(std::make_unique<ui::CliProcessRunner>(QStringLiteral(SKYTRACE_CLI_EXECUTABLE)))
                    : window.startProcessing();
    if (!started || !(finished.wait(kRunTimeoutMs) || !failed.isEmpty())) return {};
    if (!failed.isEmpty()) qWarning("%s", qPrintable(failed.first().first().toString()));
    return failed.isEmpty() ? QString::fromStdString(project.results_dir) : QString();
  }

  QTemporaryDir dir_;
  QTemporaryDir models_;
  test::SyntheticFlight flight_;
};

QTEST_MAIN(TestEngineProcessing)
#include "test_engine_processing.moc"
