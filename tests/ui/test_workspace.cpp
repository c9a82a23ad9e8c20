// The analyst's workspace end to end, offscreen, on a synthetic processed flight
// (tests/synthetic_flight.h): a project opens and shows its results without
// recomputing (map overlays and their legend, plots, video frame, timeline with the
// log's UTC time); measuring from the View menu reads out in the status bar; a results
// folder opened alone brings its run's inputs;
// a click on the map seeks the timeline and the video; exports through the menus write
// files that read back; live processing (a fake runner) reaches the plots in batches of
// at most one per 40 ms, and pause/cancel work; the timeline plays, steps and jumps.
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTextStream>
#include <QThread>
#include <QToolButton>
#include <QtTest>

#include <atomic>

#include "core/engine/run_control.h"
#include "core/vision/torch_runtime.h"
#include "core/geo/track_io.h"
#include "core/io/project_file.h"
#include "core/util/error.h"
#include "core/util/atomic_file.h"
#include "tests/test_support.h"
#include "tests/synthetic_flight.h"
#include "tests/ui/cli_process_runner.h"
#include "ui/frame_loader.h"
#include "ui/log_offset_widget.h"
#include "core/app/flight_results.h"
#include "ui/latency_plot.h"
#include "ui/main_window.h"
#include "tests/ui/window_test_support.h"
#include "ui/map_view.h"
#include "ui/open_flight_dialog.h"
#include "ui/plots_panel.h"
#include "ui/qcustomplot_include.h"
#include "ui/processing_choice.h"
#include "ui/processing_controller.h"
#include "ui/processing_options.h"
#include "ui/results_model.h"
#include "ui/time_model.h"
#include "ui/time_plot.h"
#include "ui/timeline_widget.h"
#include "ui/trajectory_plot.h"
#include "ui/video_panel.h"

using namespace skytrace;
using test::batchOptions;

namespace {

constexpr int kLoadTimeoutMs = 20000;

const ui::MapView::TrackOverlay* overlayNamed(const ui::MapView* map, const QString& name) {
  for (const auto& overlay : map->trackOverlays())
    if (overlay.name == name) return &overlay;
  return nullptr;
}

// Feeds `frames` synthetic frames, fixes and latency samples as fast as it can, or with
// `delay_ms` per frame (then it honours pause/cancel at every frame).
class FakeRunner final : public ui::ProcessingRunner {
 public:
  // `frames_done` outlives the runner (the controller deletes the runner after the run).
  FakeRunner(const geo::Track& truth, int delay_ms,
             std::shared_ptr<std::atomic<std::int64_t>> frames_done = std::make_shared<std::atomic<std::int64_t>>(0))
      : frames_done(std::move(frames_done)), truth_(truth), delay_ms_(delay_ms) {}
  std::string name() const override { return "fake feeder"; }
  void run(const io::Project&, ui::ProcessingSink& sink) override {
    const auto n = static_cast<std::int64_t>(truth_.poses.size());
    for (std::int64_t i = 0; i < n; ++i) {
      sink.control().checkpoint();
      ui::LiveFrameUpdate update;
      update.frame = i;
      update.t_s = truth_.poses[i].t_s;
      update.has_pose = update.has_odometry = true;
      update.online = update.odometry = truth_.poses[i];
      update.keypoints_px = {QPointF(10, 10), QPointF(50, 60)};
      update.matches_from_px = {QPointF(12, 11)};
      sink.frameProcessed(update);
      if (i % 10 == 0) {
        app::RegistrationFixRecord fix;
        fix.frame = i;
        fix.t_s = update.t_s;
        fix.lat_deg = truth_.poses[i].lat_deg;
        fix.lon_deg = truth_.poses[i].lon_deg;
        fix.accepted = true;
        fix.inliers = 100;
        fix.mode = "prior";
        sink.fixComputed(fix);
      }
      engine::LatencySample sample;
      sample.frame = i;
      sample.stage = engine::Stage::Extract;
      sample.duration_ms = 10.0 + i % 3;
      sink.latencySamples({sample});
      sink.progress(i + 1, n, "visual odometry");
      frames_done->store(i + 1);
      if (delay_ms_ > 0) QThread::msleep(delay_ms_);
    }
  }
  std::shared_ptr<std::atomic<std::int64_t>> frames_done;

 private:
  geo::Track truth_;
  int delay_ms_;
};

// A copy of the video in its own folder: the run's default results folder (beside the
// video) must not be the synthetic flight's, which the window would show at the end.
QString copyOfVideo(const QString& video, const QTemporaryDir& dir) {
  const QString copy = dir.filePath("live.mp4");
  QFile::copy(video, copy);
  return copy;
}

}  // namespace

class TestWorkspace : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("SkytraceTests"));
    QCoreApplication::setApplicationName(QStringLiteral("test_workspace"));
    QVERIFY(dir_.isValid());
    flight_ = test::writeSyntheticFlight(dir_.path());
  }

  void projectOpensWithResultsShown() {
    ui::MainWindow window(batchOptions());
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QSignalSpy loaded(&window, &ui::MainWindow::resultsLoaded);
    QSignalSpy trajectory_data(window.plotsPanel()->trajectoryPlot(), &ui::TrajectoryPlot::dataUpdated);
    QSignalSpy latency_data(window.plotsPanel()->latencyPlot(), &ui::TimePlot::dataUpdated);
    QSignalSpy errors(&window, &ui::MainWindow::errorReported);
    QVERIFY(window.openProject(flight_.project));
    QVERIFY(loaded.wait(kLoadTimeoutMs));
    QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kLoadTimeoutMs);
    QCOMPARE(errors.count(), 0);

    // Map: every layer in its own style, the camera with its footprint.
    const ui::MapView* map = window.mapView();
    QCOMPARE(map->basemapCount(), 1);
    QCOMPARE(int(overlayNamed(map, "result:visual")->points.size()), flight_.frames);
    QCOMPARE(int(overlayNamed(map, "result:odometry")->points.size()), flight_.frames);
    QCOMPARE(overlayNamed(map, "result:odometry")->line_style, Qt::DashLine);
    QCOMPARE(int(overlayNamed(map, "result:gnss")->points.size()), flight_.frames);
    QCOMPARE(int(overlayNamed(map, "result:fixes-accepted")->points.size()), flight_.accepted_fixes);
    QCOMPARE(int(overlayNamed(map, "result:fixes-rejected")->points.size()), flight_.rejected_fixes);
    QCOMPARE(int(overlayNamed(map, "result:fixes-set-aside")->points.size()), flight_.set_aside_fixes);
    QCOMPARE(int(overlayNamed(map, "result:flagged0")->points.size()), 11);  // frames 30..40
    QVERIFY(map->cameraMarker().has_value());
    QCOMPARE(int(map->cameraMarker()->footprint.size()), 4);
    QVERIFY(std::abs(map->cameraMarker()->position.lat_deg - flight_.visual.poses[0].lat_deg) < 1e-8);

    // Plots got the data.
    QVERIFY(trajectory_data.count() >= 1);
    QCOMPARE(trajectory_data.last().first().toInt(), 3 * flight_.frames);
    QCOMPARE(window.plotsPanel()->trajectoryPlot()->pointCount(ui::TrajectoryPlot::Visual), flight_.frames);
    QVERIFY(latency_data.count() >= 1);
    QCOMPARE(window.plotsPanel()->latencyPlot()->barCount(), flight_.frames);
    QVERIFY(window.plotsPanel()->latencyPlot()->readoutText().contains("p99"));
    QCOMPARE(window.plotsPanel()->discrepancyPlot()->shadedSpanCount(), 1);
    QCOMPARE(window.plotsPanel()->altitudePlot()->pointCount(0), flight_.frames);

    // Video and timeline: frame 0 decoded in the background, the log's UTC time shown.
    QTRY_VERIFY_WITH_TIMEOUT(!window.videoPanel()->frame().isNull(), kLoadTimeoutMs);
    QCOMPARE(window.videoPanel()->frame().size(), QSize(320, 180));
    QVERIFY(window.videoPanel()->caption().contains("frame 0 of 60"));
    QVERIFY2(window.videoPanel()->badge().contains("global"), qPrintable(window.videoPanel()->badge()));
    QCOMPARE(window.timeModel()->frameCount(), flight_.frames);
    QCOMPARE(window.timeline()->timeLabel()->text(), QString("2024-06-01 10:00:00.000 UTC"));

    // The legend names every kind of overlay drawn.
    QStringList legend;
    for (const auto& entry : map->legendEntries()) legend << entry.label;
    QCOMPARE(legend, QStringList({"Visual track", "Raw visual odometry", "Logged GNSS", "GNSS flagged",
                                  "Registration accepted", "Registration set aside by the track",
                                  "Registration rejected"}));
    QVERIFY(!map->legendRamp().has_value());

    // Colour by uncertainty: sigma grows from 2 m to 12 m along the track, green to red;
    // the legend shows the scale instead of the plain track's colour.
    window.action("colourUncertainty")->trigger();
    QVERIFY(map->legendRamp().has_value());
    QCOMPARE(map->legendRamp()->high_label, QString("12.0 m"));
    QCOMPARE(map->legendEntries().front().label, QString("Raw visual odometry"));
    const auto* coloured = overlayNamed(map, "result:visual");
    QCOMPARE(int(coloured->point_colors.size()), flight_.frames);
    QVERIFY(coloured->point_colors.front().green() > coloured->point_colors.front().red());
    QVERIFY(coloured->point_colors.back().red() > coloured->point_colors.back().green());
    window.action("colourPlain")->trigger();
    QVERIFY(overlayNamed(map, "result:visual")->point_colors.empty());
    QVERIFY(!map->legendRamp().has_value());

    // Measuring through the View menu: the status bar reads out the path and its area.
    window.action("measure")->trigger();
    QVERIFY(window.mapView()->isMeasuring());
    window.mapView()->addMeasurePoint({flight_.visual.poses[0].lat_deg, flight_.visual.poses[0].lon_deg, 0});
    window.mapView()->addMeasurePoint({flight_.visual.poses[59].lat_deg, flight_.visual.poses[59].lon_deg, 0});
    // The synthetic track runs 300 m east and 200 m north: 360.6 m.
    QVERIFY2(window.statusBar()->currentMessage().startsWith("Distance 360."),
             qPrintable(window.statusBar()->currentMessage()));
    window.action("measure")->trigger();
    QVERIFY(!window.mapView()->isMeasuring());
  }

  // The log's clock offset under the timeline: a log without UTC starts with the video
  // (assumed); a typed offset moves its track and the logged position marker at once and
  // goes into the project; "Use Measured" takes the results' log_alignment offset;
  // "Automatic" forgets the typed one.
  void logClockOffsetMovesTheLoggedPosition() {
    ui::MainWindow window(batchOptions());
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(test::openProjectAndWait(window, flight_.project, kLoadTimeoutMs));
    ui::LogOffsetWidget* offset = window.logOffset();
    QVERIFY(!offset->offsetBox()->isEnabled());  // no log yet
    QVERIFY(!offset->measuredButton()->isEnabled());

    QTemporaryDir dir;
    const QString log = dir.filePath("relative.csv");
    {
      QFile file(log);
      QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Text));
      QTextStream out(&file);
      out.setRealNumberPrecision(12);
      out << "t_s,lat_deg,lon_deg,alt_m\n";
      for (int i = 0; i < 50; ++i)
        out << i * 0.1 << "," << flight_.gnss.poses[i].lat_deg << "," << flight_.gnss.poses[i].lon_deg << ",30\n";
    }
    QVERIFY(window.openTelemetry(log));
    const QString track_name = QStringLiteral("gnss:") + QFileInfo(log).absoluteFilePath();
    QVERIFY(offset->offsetBox()->isEnabled());
    QCOMPARE(offset->offset(), 0.0);
    QVERIFY(!offset->automaticButton()->isEnabled());  // nothing typed yet
    QCOMPARE(overlayNamed(window.mapView(), track_name)->t_s.front(), 0.0);
    // The results measured 0.8 s from the images (report.json log_alignment).
    QVERIFY(offset->measuredButton()->isEnabled());

    offset->offsetBox()->setValue(1.5);  // as if typed: the track moves at once
    QCOMPARE(window.project().telemetry_time_offset_s.value_or(NAN), 1.5);
    QCOMPARE(overlayNamed(window.mapView(), track_name)->t_s.front(), 1.5);
    QVERIFY(offset->automaticButton()->isEnabled());
    // At video time 2.0 s the log is 0.5 s in: the marker shows that logged position.
    window.timeModel()->setCurrentFrame(20);
    QTRY_VERIFY_WITH_TIMEOUT(overlayNamed(window.mapView(), "gnss-now") != nullptr, kLoadTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(
        std::abs(overlayNamed(window.mapView(), "gnss-now")->points.front().lat_deg - flight_.gnss.poses[5].lat_deg) <
            1e-9,
        kLoadTimeoutMs);
    // Before the log starts there is no logged position.
    window.timeModel()->setCurrentFrame(10);
    QTRY_VERIFY_WITH_TIMEOUT(overlayNamed(window.mapView(), "gnss-now") == nullptr, kLoadTimeoutMs);

    offset->measuredButton()->click();
    QCOMPARE(offset->offset(), 0.8);
    QCOMPARE(window.project().telemetry_time_offset_s.value_or(NAN), 0.8);
    QCOMPARE(overlayNamed(window.mapView(), track_name)->t_s.front(), 0.8);
    const QString saved = dir.filePath("offset.skytrace");
    QVERIFY(window.saveProject(saved));
    QCOMPARE(io::readProjectFile(saved.toStdString()).telemetry_time_offset_s.value_or(NAN), 0.8);
    {  // File > Open Flight keeps the offset with its log, and drops it for another log.
      ui::OpenFlightDialog dialog;
      dialog.setProject(window.project());
      QCOMPARE(dialog.project().telemetry_time_offset_s.value_or(NAN), 0.8);
      dialog.addPaths({dir.filePath("other.csv")});
      QVERIFY(!dialog.project().telemetry_time_offset_s.has_value());
    }

    offset->automaticButton()->click();
    QVERIFY(!window.project().telemetry_time_offset_s.has_value());
    QCOMPARE(offset->offset(), 0.0);
    QCOMPARE(overlayNamed(window.mapView(), track_name)->t_s.front(), 0.0);

    // Reopened, the saved project brings its offset back.
    QVERIFY(window.openProject(saved));
    QCOMPARE(offset->offset(), 0.8);
  }

  // Issue 20: a results folder opened on its own (Recent Files, --results, Ctrl+R) comes
  // with the video, basemaps and camera its report names; missing ones are named in the
  // status bar; with inputs already open, the folder's are left alone.
  void resultsFolderOpensWithItsInputs() {
    {
      ui::MainWindow window(batchOptions());
      window.resize(1280, 800);
      window.show();
      QVERIFY(test::openResultsAndWait(window, flight_.results, kLoadTimeoutMs));
      QVERIFY(window.frameLoader()->isOpen());
      QCOMPARE(window.mapView()->basemapCount(), 1);
      QCOMPARE(QString::fromStdString(window.project().video_path), flight_.video);
      QCOMPARE(window.project().camera.source, io::CameraSource::File);  // the run's hfov, as camera.json
      QCOMPARE(QString::fromStdString(window.project().camera.file_path), flight_.results + "/camera.json");
      QTRY_VERIFY_WITH_TIMEOUT(window.videoPanel()->caption().contains("frame 0 of 60"), kLoadTimeoutMs);
    }
    QTemporaryDir moved;
    const QString copy = moved.filePath("results");
    QVERIFY(QDir().mkpath(copy));
    for (const QString& name : QDir(flight_.results).entryList(QDir::Files))
      QVERIFY(QFile::copy(flight_.results + "/" + name, copy + "/" + name));
    QFile report(copy + "/report.json");
    QVERIFY(report.open(QIODevice::ReadOnly));
    QString text = QString::fromUtf8(report.readAll());
    report.close();
    const QString gone = moved.filePath("gone.mp4");
    text.replace(flight_.video, gone);
    QVERIFY(report.open(QIODevice::WriteOnly | QIODevice::Truncate));
    report.write(text.toUtf8());
    report.close();
    {
      ui::MainWindow window(batchOptions());
      window.show();
      QSignalSpy errors(&window, &ui::MainWindow::errorReported);
      QVERIFY(test::openResultsAndWait(window, copy, kLoadTimeoutMs));
      QCOMPARE(errors.count(), 0);
      QCOMPARE(window.mapView()->basemapCount(), 1);
      QVERIFY(!window.frameLoader()->isOpen());
      QVERIFY2(window.statusBar()->currentMessage().contains(gone), qPrintable(window.statusBar()->currentMessage()));
    }
    {
      ui::MainWindow window(batchOptions());
      window.show();
      QVERIFY(window.openBasemap(flight_.basemap));
      QVERIFY(test::openResultsAndWait(window, flight_.results, kLoadTimeoutMs));
      QVERIFY(!window.frameLoader()->isOpen());  // the analyst's choice stays
    }
  }

  // Issue 20: a log opened without a video is a flight of its own: its samples make the
  // timeline (enabled, UTC where the log has it), the plots span the whole log, the map
  // follows it; a log that never passes over the basemap is said to be far from it.
  void aLogAloneIsReviewedOnItsOwnTimeline() {
    QTemporaryDir dir;
    auto write_log = [&](const QString& name, double lat_shift_deg) {
      const QString path = dir.filePath(name);
      QFile file(path);
      file.open(QIODevice::WriteOnly | QIODevice::Text);
      QTextStream out(&file);
      out.setRealNumberPrecision(12);
      out << "time_utc,lat_deg,lon_deg,alt_m\n";
      for (int i = 0; i < 600; ++i)  // 120 s at 5 Hz
        out << QDateTime::fromSecsSinceEpoch(1717236000, Qt::UTC).addMSecs(i * 200).toString(Qt::ISODateWithMs)
            << "," << flight_.gnss.poses[i % 60].lat_deg + lat_shift_deg << "," << flight_.gnss.poses[i % 60].lon_deg
            << ",30\n";
      return path;
    };
    ui::MainWindow window(batchOptions());
    window.resize(1280, 800);
    window.show();
    QVERIFY(window.openBasemap(flight_.basemap));
    QVERIFY(window.openTelemetry(write_log("alone.csv", 0.0)));
    QCOMPARE(window.timeModel()->frameCount(), 600);
    QVERIFY(window.timeline()->isEnabled());
    QVERIFY(std::abs(window.timeModel()->durationS() - 119.8) < 1e-3);
    QCOMPARE(window.timeline()->timeLabel()->text(), QString("2024-06-01 10:00:00.000 UTC"));
    QTRY_VERIFY_WITH_TIMEOUT(std::abs(window.plotsPanel()->speedPlot()->plot()->xAxis->range().upper - 119.8) < 1e-3, 2000);
    window.timeModel()->seekToTime(61.0);  // sample 305: the flight's frame 5
    QTRY_VERIFY_WITH_TIMEOUT(overlayNamed(window.mapView(), "gnss-now") != nullptr, kLoadTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(std::abs(overlayNamed(window.mapView(), "gnss-now")->points.front().lat_deg -
                                      flight_.gnss.poses[5].lat_deg) < 1e-9,
                             2000);  // at the next view tick
    QVERIFY(!window.statusBar()->currentMessage().contains("never passes"));

    // 1 degree north of the map: said so.
    QVERIFY(window.openTelemetry(write_log("far.csv", 1.0)));
    QVERIFY2(window.statusBar()->currentMessage().contains("never passes over the basemaps"),
             qPrintable(window.statusBar()->currentMessage()));
    QVERIFY(window.statusBar()->currentMessage().contains(" km "));
  }

  void clickOnMapSeeksTimelineAndVideo() {
    ui::MainWindow window(batchOptions());
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(test::openProjectAndWait(window, flight_.project, kLoadTimeoutMs));

    const int target = 47;  // not a fix frame, far from the other tracks' nearest points
    const geo::TrackPose& pose = flight_.visual.poses[target];
    const std::optional<QPointF> p = window.mapView()->widgetFromGeo({pose.lat_deg, pose.lon_deg, 0.0});
    QVERIFY(p.has_value());
    QVERIFY(window.mapView()->rect().contains(p->toPoint()));
    QTest::mouseClick(window.mapView(), Qt::LeftButton, {}, p->toPoint());
    QCOMPARE(window.timeModel()->currentFrame(), target);
    QTRY_VERIFY_WITH_TIMEOUT(window.videoPanel()->caption().contains("frame 47 of 60"), kLoadTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(std::abs(window.mapView()->cameraMarker()->position.lat_deg - pose.lat_deg) < 1e-8, 2000);
    QTRY_COMPARE_WITH_TIMEOUT(window.plotsPanel()->altitudePlot()->cursorTime(), target / flight_.fps, 2000);
    // A drag is not a click: the time stays.
    QTest::mousePress(window.mapView(), Qt::LeftButton, {}, QPoint(100, 100));
    QTest::mouseMove(window.mapView(), QPoint(160, 140));
    QTest::mouseRelease(window.mapView(), Qt::LeftButton, {}, QPoint(160, 140));
    QCOMPARE(window.timeModel()->currentFrame(), target);
  }

  void exportsThroughTheMenusWriteValidFiles() {
    ui::MainWindow window(batchOptions());
    window.resize(1280, 800);
    window.show();
    QVERIFY(test::openProjectAndWait(window, flight_.project, kLoadTimeoutMs));
    QTemporaryDir out;
    QString next_path;
    QStringList captions;
    window.setFileChooser([&](const QString& purpose, const QString& caption, const QString&) {
      captions << purpose + ":" + caption;
      return next_path;
    });
    QSignalSpy errors(&window, &ui::MainWindow::errorReported);

    for (const char* suffix : {"gpx", "geojson", "kml", "gpkg", "csv"}) {
      next_path = out.filePath(QString("track.%1").arg(suffix));
      window.action("exportTrack")->trigger();
      const geo::Track back = geo::readTrack(next_path.toStdString());
      QCOMPARE(int(back.poses.size()), flight_.frames);
      QVERIFY(std::abs(back.poses[33].lat_deg - flight_.visual.poses[33].lat_deg) < 1e-7);
      QVERIFY(std::abs(back.poses[33].lon_deg - flight_.visual.poses[33].lon_deg) < 1e-7);
    }
    QVERIFY(captions.first().startsWith("save:"));

    next_path = out.filePath("report.json");
    window.action("exportReport")->trigger();
    QFile report(next_path);
    QVERIFY(report.open(QIODevice::ReadOnly));
    QVERIFY(QJsonDocument::fromJson(report.readAll()).object().value("completed").toBool());

    next_path = out.filePath("latency.csv");
    window.action("exportLatency")->trigger();
    QFile latency(next_path);
    QVERIFY(latency.open(QIODevice::ReadOnly | QIODevice::Text));
    QCOMPARE(latency.readLine().trimmed(), QByteArray("frame,stage,start_ms,duration_ms,device,device_bytes_in_use"));
    int rows = 0;
    while (!latency.readLine().isEmpty()) ++rows;
    QCOMPARE(rows, 4 * flight_.frames);

    next_path = out.filePath("map.png");
    window.action("exportMapImage")->trigger();
    QCOMPARE(QImage(next_path).size(), window.mapView()->size());
    QVERIFY(window.plotsPanel()->showPlots({"latency", "speed"}));
    next_path = out.filePath("latency.pdf");
    window.action("exportPlotImage")->trigger();
    QFile pdf(next_path);
    QVERIFY(pdf.open(QIODevice::ReadOnly));
    QVERIFY(pdf.read(5) == "%PDF-");
    next_path = out.filePath("plot.png");
    window.action("exportPlotImage")->trigger();
    // Both shown plots one under the other, under a title line.
    QCOMPARE(QImage(next_path).size(), QSize(1400, 50 + 2 * 300));
    QCOMPARE(errors.count(), 0);

    // A flight log exports as a track too, with its UTC times and its heights' reference.
    QVERIFY(!window.action("exportLogTrack")->isEnabled());  // no log open
    const QString gpx_log = out.filePath("log.gpx");
    skytrace::writeFileAtomically(
        gpx_log.toStdString(),
        "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"x\" xmlns=\"http://www.topografix.com/GPX/1/1\">"
        "<trk><trkseg>"
        "<trkpt lat=\"14.5350\" lon=\"121.0510\"><ele>120.0</ele><time>2024-06-01T10:00:00Z</time></trkpt>"
        "<trkpt lat=\"14.5351\" lon=\"121.0511\"><ele>121.0</ele><time>2024-06-01T10:00:01Z</time></trkpt>"
        "<trkpt lat=\"14.5352\" lon=\"121.0512\"><ele>122.0</ele><time>2024-06-01T10:00:02Z</time></trkpt>"
        "</trkseg></trk></gpx>\n");
    QVERIFY(window.openTelemetry(gpx_log));
    QVERIFY(window.action("exportLogTrack")->isEnabled());
    next_path = out.filePath("log_track.kml");
    window.action("exportLogTrack")->trigger();
    QCOMPARE(errors.count(), 0);
    const geo::Track log_track = geo::readTrack(next_path.toStdString());
    QCOMPARE(int(log_track.poses.size()), 3);
    QCOMPARE(QString::fromStdString(log_track.alt_reference), QString("msl"));
    QCOMPARE(log_track.start_unix_s + log_track.poses[2].t_s, 1717236002.0);
    QCOMPARE(log_track.poses[2].alt_m, 122.0);

    next_path = out.filePath("track.xyz");  // unknown format: a clear error, nothing written
    window.action("exportTrack")->trigger();
    QCOMPARE(errors.count(), 1);
    QVERIFY(errors.last().first().toString().contains("unknown track format"));
    next_path.clear();  // cancelled dialog: nothing happens
    window.action("exportTrack")->trigger();
    QCOMPARE(errors.count(), 1);
  }

  void projectSavesAndReopens() {
    QTemporaryDir out;
    const QString path = out.filePath("copy.skytrace");
    {
      ui::MainWindow window(batchOptions());
      QVERIFY(window.openProject(flight_.project));
      window.setFileChooser([&](const QString&, const QString&, const QString&) { return out.filePath("copy"); });
      window.action("saveProjectAs")->trigger();  // ".skytrace" is appended
      QVERIFY(QFile::exists(path));
    }
    const io::Project project = io::readProjectFile(path.toStdString());
    QCOMPARE(QString::fromStdString(project.video_path), flight_.video);
    QCOMPARE(QString::fromStdString(project.results_dir), flight_.results);
    QCOMPARE(project.camera.source, io::CameraSource::HorizontalFov);
  }

  // Issue 20: a processed flight is a project on disk (a new flight's beside its video,
  // never over another project); processing again asks before replacing results, and
  // quitting asks before an unsaved project is lost.
  void processingSavesTheProjectAndAsksBeforeLosingAnything() {
    QTemporaryDir run_dir;
    const QString video = copyOfVideo(flight_.video, run_dir);
    QFile(run_dir.filePath("live.skytrace")).open(QIODevice::WriteOnly);  // someone else's project
    QStringList questions;
    QMessageBox::StandardButton answer = QMessageBox::Cancel;
    auto asker = [&](const QString& title, const QString&, QMessageBox::StandardButtons) {
      questions << title;
      return answer;
    };
    {
      ui::MainWindow window(batchOptions());
      window.setAsker(asker);
      window.show();
      QVERIFY(window.openBasemap(flight_.basemap));
      QVERIFY(window.openVideo(video));
      QVERIFY(window.hasUnsavedProject());  // a new flight, neither saved nor processed
      QSignalSpy finished(window.processing(), &ui::ProcessingController::finished);
      QVERIFY(window.startProcessing(std::make_unique<FakeRunner>(flight_.visual, 0)));
      QVERIFY(finished.wait(kLoadTimeoutMs));
      const QString saved = run_dir.filePath("live-2.skytrace");  // live.skytrace was taken
      QCOMPARE(window.projectPath(), saved);
      QCOMPARE(QString::fromStdString(io::readProjectFile(saved.toStdString()).results_dir),
               run_dir.filePath("live-2_results"));
      QVERIFY(window.recentFiles().contains(saved));
      QVERIFY(!window.hasUnsavedProject());
      QVERIFY(questions.isEmpty());

      // Results in the folder: processing again asks, and Cancel keeps them.
      QVERIFY(QDir().mkpath(run_dir.filePath("live-2_results")));
      QFile(run_dir.filePath("live-2_results/report.json")).open(QIODevice::WriteOnly);
      QVERIFY(!window.startProcessing(std::make_unique<FakeRunner>(flight_.visual, 0)));
      QCOMPARE(questions, QStringList({"Replace the Results?"}));
      QVERIFY(!window.processing()->isRunning());
      answer = QMessageBox::Yes;
      QVERIFY(window.startProcessing(std::make_unique<FakeRunner>(flight_.visual, 0)));
      QVERIFY(finished.wait(kLoadTimeoutMs));

      // A change not saved: quitting asks; Cancel keeps the window open.
      window.setLogOffset(1.5);
      QVERIFY(window.hasUnsavedProject());
      answer = QMessageBox::Cancel;
      QVERIFY(!window.close());
      QCOMPARE(questions.last(), QString("Save the Project?"));
      answer = QMessageBox::Save;
      QVERIFY(window.close());
      QCOMPARE(io::readProjectFile(saved.toStdString()).telemetry_time_offset_s.value_or(0.0), 1.5);
    }
  }

  void liveProcessingIsBatchedAndReachesThePlots() {
    QTemporaryDir run_dir;
    ui::MainWindow window(batchOptions());
    window.resize(1280, 800);
    window.show();
    QVERIFY(window.openBasemap(flight_.basemap));
    QVERIFY(window.openVideo(copyOfVideo(flight_.video, run_dir)));
    QSignalSpy trajectory_data(window.plotsPanel()->trajectoryPlot(), &ui::TrajectoryPlot::dataUpdated);
    QSignalSpy finished(window.processing(), &ui::ProcessingController::finished);
    QSignalSpy failed(window.processing(), &ui::ProcessingController::failed);

    // 3000 frames as fast as the feeder can push them.
    geo::Track long_track = flight_.visual;
    long_track.poses.clear();
    for (int k = 0; k < 50; ++k)
      for (geo::TrackPose p : flight_.visual.poses) {
        p.frame = static_cast<std::int64_t>(long_track.poses.size());
        p.t_s = p.frame / flight_.fps;
        long_track.poses.push_back(p);
      }
    const int changes_before = window.resultsModel()->changeCount();
    const int syncs_before = window.viewSyncCount();
    QElapsedTimer clock;
    clock.start();
    QVERIFY(window.startProcessing(std::make_unique<FakeRunner>(long_track, 0)));
    QVERIFY(finished.wait(kLoadTimeoutMs));
    QTest::qWait(100);  // the last coalesced update
    const qint64 elapsed_ms = clock.elapsed();
    QCOMPARE(failed.count(), 0);
    QCOMPARE(finished.first().at(0).toBool(), true);
    const app::FlightResults& r = window.resultsModel()->results();
    QCOMPARE(int(r.online.poses.size()), 3000);
    QCOMPARE(int(r.fixes.size()), 300);
    QCOMPARE(int(r.latency.size()), 3000);  // every sample, through the 40 ms publisher
    // At most one model change and one view sync per 40 ms (+2 for the edges).
    const int changes = window.resultsModel()->changeCount() - changes_before;
    const int syncs = window.viewSyncCount() - syncs_before;
    const int bound = static_cast<int>(elapsed_ms / 40) + 2;
    QVERIFY2(changes <= bound && syncs <= bound,
             qPrintable(QString("%1 changes, %2 syncs in %3 ms").arg(changes).arg(syncs).arg(elapsed_ms)));
    QVERIFY(trajectory_data.count() >= 1 && trajectory_data.count() <= bound);
    QCOMPARE(window.plotsPanel()->trajectoryPlot()->pointCount(ui::TrajectoryPlot::Visual), 3000);
    QCOMPARE(window.plotsPanel()->latencyPlot()->barCount(), 3000);
    QCOMPARE(int(overlayNamed(window.mapView(), "result:visual")->points.size()), 3000);

    // Keypoints are kept for the newest frames only (bounded memory).
    QVERIFY(window.resultsModel()->overlayFor(2999) != nullptr);
    QCOMPARE(window.resultsModel()->overlayFor(2999)->keypoints_px.size(), 2);
    QVERIFY(window.resultsModel()->overlayFor(100) == nullptr);
  }

  void pauseAndCancelStopTheRun() {
    QTemporaryDir run_dir;
    ui::MainWindow window(batchOptions());
    QVERIFY(window.openBasemap(flight_.basemap));
    QVERIFY(window.openVideo(copyOfVideo(flight_.video, run_dir)));
    QSignalSpy finished(window.processing(), &ui::ProcessingController::finished);
    QSignalSpy progress(window.processing(), &ui::ProcessingController::progressChanged);
    auto frames_done = std::make_shared<std::atomic<std::int64_t>>(0);
    QVERIFY(window.startProcessing(std::make_unique<FakeRunner>(flight_.visual, 20, frames_done)));
    QTRY_VERIFY_WITH_TIMEOUT(frames_done->load() >= 5, 5000);
    window.action("pauseProcessing")->trigger();
    QVERIFY(window.processing()->isPaused());
    QTest::qWait(100);
    const std::int64_t at_pause = frames_done->load();
    QTest::qWait(300);
    QVERIFY(frames_done->load() <= at_pause + 1);  // at most the frame in progress
    // Issue 20: the status bar said "navigating" (the stage it stopped in) while paused.
    QTRY_VERIFY_WITH_TIMEOUT(window.findChild<QLabel*>("etaLabel")->text().startsWith("paused"), 2000);
    QVERIFY(progress.count() >= 1);
    QVERIFY(progress.last().at(0).toDouble() > 0.0);
    window.action("cancelProcessing")->trigger();
    QVERIFY(finished.wait(5000));
    QCOMPARE(finished.first().at(0).toBool(), false);  // cancelled
    QVERIFY2(frames_done->load() < flight_.frames,
             qPrintable(QString("at pause %1, at the end %2").arg(at_pause).arg(frames_done->load())));
    // What was computed stays shown, keypoints and matches in the video too; K toggles them.
    QVERIFY(!window.resultsModel()->results().online.poses.empty());
    window.timeModel()->setCurrentFrame(3);
    QTRY_VERIFY_WITH_TIMEOUT(window.videoPanel()->hasFeatureOverlay(), 5000);
    QVERIFY(window.videoPanel()->overlayVisible());
    window.action("featureOverlay")->trigger();
    QVERIFY(!window.videoPanel()->overlayVisible());
    QVERIFY(!window.processing()->isRunning());
  }

  // The real navigation in process (NavigationRunner) on the rendered video, with no
  // project and no processing option chosen: the views get frames and latency while it
  // runs, and at the end the results folder it wrote (the same files as skytrace-cli
  // process, plus latency.csv) is shown. It runs what `process` runs with no options:
  // ALIKED-n16rot on this machine's devices by core/app's rules (no model folder here,
  // so ORB stands in, named as a fallback) and the layout those rules pick.
  void realProcessingUpdatesViewsAndWritesResults() {
    QTemporaryDir run_dir;
    const QString video = copyOfVideo(flight_.video, run_dir);
    QVERIFY(QFile::copy(flight_.results + "/camera.json", run_dir.filePath("camera.json")));
    ui::MainWindow window(batchOptions());
    window.resize(1280, 800);
    window.show();
    QVERIFY(window.openBasemap(flight_.basemap));
    QVERIFY(window.openVideo(video));
    QSignalSpy latency_data(window.plotsPanel()->latencyPlot(), &ui::TimePlot::dataUpdated);
    QSignalSpy finished(window.processing(), &ui::ProcessingController::finished);
    QSignalSpy failed(window.processing(), &ui::ProcessingController::failed);
    QSignalSpy loaded(&window, &ui::MainWindow::resultsLoaded);
    QElapsedTimer clock;
    clock.start();
    QVERIFY(window.startProcessing());
    QVERIFY(finished.wait(110000) || !failed.isEmpty());
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    QCOMPARE(finished.first().at(0).toBool(), true);
    qInfo("processed %d frames in %lld ms", flight_.frames, clock.elapsed());
    const int live_updates = latency_data.count();
    QVERIFY2(live_updates >= 2, qPrintable(QString::number(live_updates)));  // before the folder
    const QString results = run_dir.filePath("live_results");
    for (const char* file : {"report.json", "latency.csv", "fixes.csv", "camera.json"})
      QVERIFY2(QFile::exists(results + "/" + file), file);
    QVERIFY(loaded.wait(kLoadTimeoutMs));
    const app::FlightResults& r = window.resultsModel()->results();
    QCOMPARE(QString::fromStdString(r.folder), results);
    QVERIFY(r.completed);
    const app::ProcessingChoice defaults = app::processingChoiceFor(app::FlightRequest(), vision::cudaDeviceCount());
    QCOMPARE(r.mode, std::string(engine::navigationLayoutName(defaults.layout)));
    QCOMPARE(r.device, app::devicesText(defaults));
    QVERIFY2(r.feature_model == nav::visualOdometryModelName(defaults.options) ||
                 r.fallback_reason.find("aliked-n16rot.pth") != std::string::npos,
             (r.feature_model + " / " + r.fallback_reason).c_str());
    QVERIFY(std::isfinite(r.ground_alt_m));  // written by the runner for footprints
    // The views take the folder on their next 40 ms tick.
    QTRY_COMPARE_WITH_TIMEOUT(window.plotsPanel()->latencyPlot()->barCount(), flight_.frames, 2000);
    QVERIFY(!r.fixes.empty());
  }

  void timelinePlaysStepsAndJumps() {
    ui::TimeModel model;
    ui::TimelineWidget timeline(&model);
    model.setTimeline(600, 30.0, 1717236000.0);
    QCOMPARE(timeline.slider()->maximum(), 599);
    model.stepForward();
    model.stepForward();
    QCOMPARE(model.currentFrame(), 2);
    model.stepBackward();
    QCOMPARE(model.currentFrame(), 1);
    timeline.timeEdit()->setText("0:02.5");
    QMetaObject::invokeMethod(timeline.timeEdit(), "editingFinished");
    QCOMPARE(model.currentFrame(), 75);
    QCOMPARE(timeline.timeLabel()->text(), QString("2024-06-01 10:00:02.500 UTC"));
    timeline.slider()->setValue(300);
    QCOMPARE(model.currentFrame(), 300);

    QSignalSpy frames(&model, &ui::TimeModel::currentFrameChanged);
    timeline.speedBox()->setCurrentIndex(timeline.speedBox()->count() - 1);  // 16x
    QCOMPARE(model.speed(), 16.0);
    model.play();
    QTest::qWait(400);
    model.pause();
    // 0.4 s at 16x = 6.4 s = 192 frames (timer slack allowed), in <= 25 steps per second.
    const int advanced = model.currentFrame() - 300;
    QVERIFY2(advanced > 120 && advanced < 300, qPrintable(QString::number(advanced)));
    QVERIFY2(frames.count() <= 13, qPrintable(QString::number(frames.count())));
    model.setSpeed(0.1);
    QCOMPARE(model.speed(), 0.25);
    double t_s = 0;
    QVERIFY(ui::parseTimeText("1:02:03.5", &t_s));
    QCOMPARE(t_s, 3723.5);
    QVERIFY(ui::parseTimeText("0:50,25", &t_s));  // a decimal comma, as German shows it
    QCOMPARE(t_s, 50.25);
    QVERIFY(!ui::parseTimeText("abc", &t_s));
  }

  // Photos timed by their capture times (0, 20, 30, 90 s): the timeline shows each
  // photo's own time, a time jumps to the nearest photo, and dating the timeline keeps the
  // photo shown.
  void photoTimelineFollowsCaptureTimes() {
    ui::TimeModel model;
    ui::TimelineWidget timeline(&model);
    model.setTimeline(4, 3.0 / 90.0, std::nan(""), {0.0, 20.0, 30.0, 90.0});
    QCOMPARE(model.durationS(), 90.0);
    model.setCurrentFrame(2);
    QCOMPARE(model.currentTimeS(), 30.0);
    QCOMPARE(timeline.timeLabel()->text(), QString("t = 30.000 s"));
    QCOMPARE(model.frameAtTime(24.0), 1);
    QCOMPARE(model.frameAtTime(26.0), 2);
    QCOMPARE(model.frameAtTime(70.0), 3);
    QCOMPARE(model.frameAtTime(-5.0), 0);
    QCOMPARE(model.frameAtTime(500.0), 3);
    timeline.timeEdit()->setText("0:21");
    QMetaObject::invokeMethod(timeline.timeEdit(), "editingFinished");
    QCOMPARE(model.currentFrame(), 1);
    model.setStartUnixS(1717236000.0);
    QCOMPARE(model.currentFrame(), 1);
    QCOMPARE(timeline.timeLabel()->text(), QString("2024-06-01 10:00:20.000 UTC"));
  }

  // One-off work (a 500 ms frame among 2 ms ones) does not flatten the typical frame:
  // the axis ends at three times the frame p99 and the readout names what runs past it.
  void latencyAxisKeepsTheTypicalFrameReadable() {
    ui::LatencyPlot plot;
    std::vector<engine::LatencySample> samples;
    for (int frame = 0; frame < 100; ++frame) {
      engine::LatencySample s;
      s.frame = frame;
      s.stage = engine::Stage::Extract;
      s.duration_ms = frame == 50 ? 500.0 : 2.0;
      samples.push_back(s);
    }
    plot.setSamples(samples, 30.0);
    QCOMPARE(plot.axisTopMs(), 6.0);
    QVERIFY2(plot.readoutText().contains("slowest 500.0 ms (frame 50)"), qPrintable(plot.readoutText()));
    QVERIFY2(plot.readoutText().contains("frames above the axis: 1"), qPrintable(plot.readoutText()));
    samples[50].duration_ms = 2.5;  // nothing unusual: the axis ends just above the slowest frame
    plot.setSamples(samples, 30.0);
    QCOMPARE(plot.axisTopMs(), 2.75);
    QVERIFY(!plot.readoutText().contains("above the axis"));
  }

  void cliRunnerSpeaksTheProcessCommandLine() {
    QString stage;
    int percent = -1;
    QVERIFY(ui::parseCliProgressLine("[############..................] 42% frame 126/300, 7.9 fps, ETA 0:22",
                                     &stage, &percent));
    QCOMPARE(percent, 42);
    QCOMPARE(stage, QString("processing"));
    QVERIFY(ui::parseCliProgressLine("rendering 8%", &stage, &percent));
    QCOMPARE(stage, QString("rendering"));
    QVERIFY(!ui::parseCliProgressLine("frames: 300/300, with position: 298", &stage, &percent));
    io::Project project = io::readProjectFile(flight_.project.toStdString());
    project.telemetry_path = "/logs/f.srt";
    const QStringList args = ui::CliProcessRunner::argumentsFor(project);
    // No processing field set: the CLI's own defaults, as the in-process runner's.
    const QStringList expected{"process", "--video", flight_.video, "--basemap", flight_.basemap,
                               "--telemetry", "/logs/f.srt", "--hfov-deg", "70", "--keyframe-policy", "every",
                               "--out", flight_.results};
    QCOMPARE(args, expected);
    project.feature_model = "sift";
    project.device = "cpu";
    project.processing_mode = "overlapped";
    const QStringList chosen{"process", "--video", flight_.video, "--basemap", flight_.basemap,
                             "--telemetry", "/logs/f.srt", "--hfov-deg", "70", "--model", "sift",
                             "--device", "cpu", "--mode", "overlapped", "--keyframe-policy", "every",
                             "--out", flight_.results};
    QCOMPARE(ui::CliProcessRunner::argumentsFor(project), chosen);
  }

  void openFlightDialogSortsFilesAndExplainsMissingWeights() {
    QTemporaryDir models;
    qputenv("SKYTRACE_MODEL_DIR", models.path().toUtf8());
    ui::OpenFlightDialog dialog;
    QVERIFY(!dialog.validationMessage().isEmpty());  // no video, no basemap
    const QStringList unplaced = dialog.addPaths(
        {flight_.video, flight_.basemap, flight_.results + "/track.csv", flight_.results + "/camera.json",
         flight_.results, dir_.filePath("notes.txt")});
    QCOMPARE(unplaced, QStringList{dir_.filePath("notes.txt")});
    const io::Project project = dialog.project();
    QCOMPARE(QString::fromStdString(project.video_path), flight_.video);
    QCOMPARE(int(project.basemap_paths.size()), 1);
    QCOMPARE(QString::fromStdString(project.telemetry_path), flight_.results + "/track.csv");
    QCOMPARE(project.camera.source, io::CameraSource::File);
    QCOMPARE(QString::fromStdString(project.results_dir), flight_.results);
    QVERIFY2(dialog.validationMessage().isEmpty(), qPrintable(dialog.validationMessage()));

    // Nothing chosen yet: the defaults of `process`, whose weights this folder lacks.
    QCOMPARE(dialog.processingOptions()->voModelBox()->currentText(), QString("aliked-n16rot"));
    QCOMPARE(dialog.processingOptions()->voDeviceBox()->currentText(), QString("auto"));
    QVERIFY2(dialog.modelNote().contains("aliked-n16rot.pth"), qPrintable(dialog.modelNote()));
    dialog.processingOptions()->satelliteModelBox()->setCurrentText("sift");
    QComboBox* vo_model = dialog.processingOptions()->voModelBox();
    vo_model->setCurrentText("sift");
    QVERIFY(dialog.modelNote().isEmpty());
    vo_model->setCurrentText("aliked-n16rot");
    const QString note = dialog.modelNote();
    QVERIFY2(note.contains("aliked-n16rot.pth") && note.contains("ORB"), qPrintable(note));
    QCOMPARE(dialog.project().vo_model, std::string("aliked-n16rot"));
    // Issue 20: the dialog grew with the note and never shrank.
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    const int with_note = dialog.height();
    vo_model->setCurrentText("sift");
    QVERIFY2(dialog.height() < with_note, qPrintable(QString("%1 -> %2").arg(with_note).arg(dialog.height())));
    vo_model->setCurrentText("aliked-n16rot");
    QCOMPARE(dialog.height(), with_note);
    dialog.hide();
    QFile weights(models.filePath("aliked-n16rot.pth"));
    QVERIFY(weights.open(QIODevice::WriteOnly));
    weights.close();
    vo_model->setCurrentText("sift");
    vo_model->setCurrentText("aliked-n16rot");
    QVERIFY2(dialog.modelNote().isEmpty(), qPrintable(dialog.modelNote()));
    qunsetenv("SKYTRACE_MODEL_DIR");
  }

 private:
  QTemporaryDir dir_;
  test::SyntheticFlight flight_;
};

QTEST_MAIN(TestWorkspace)
#include "test_workspace.moc"
