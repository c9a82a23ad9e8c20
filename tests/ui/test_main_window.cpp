// The main window offscreen: a shared orthophoto opens and is really drawn, bad files
// report clear errors without dialogs, recent files and layout persist in QSettings,
// the German translation is complete and switches the menus (Qt's own strings too), and
// the real `skytrace --screenshot` executable writes a non-blank PNG (or fails cleanly).
#include <QDockWidget>
#include <QFile>
#include <QMenu>
#include <QMessageBox>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTextStream>
#include <QTimer>
#include <QTranslator>
#include <QXmlStreamReader>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include <opencv2/imgproc.hpp>

#include "core/geo/basemap.h"
#include "core/io/video_source.h"
#include "core/sim/video_writer.h"
#include "tests/test_support.h"
#include "tests/ui/image_checks.h"
#include "ui/frame_loader.h"
#include "ui/latency_plot.h"
#include "ui/main_window.h"
#include "ui/plots_panel.h"
#include "ui/time_model.h"
#include "ui/time_plot_stack.h"
#include "ui/map_view.h"
#include "ui/time_model.h"
#include "ui/video_panel.h"

using namespace skytrace;

namespace {

constexpr int kIdleTimeoutMs = 20000;

ui::MainWindowOptions batchOptions() {
  ui::MainWindowOptions options;
  options.interactive = false;  // errors must not open modal dialogs in tests
  options.persist_settings = true;
  return options;
}

QString writeGarbage(const QTemporaryDir& dir, const QString& name) {
  const QString path = dir.filePath(name);
  QFile file(path);
  file.open(QIODevice::WriteOnly);
  QByteArray bytes(32 * 1024, '\0');
  for (int i = 0; i < bytes.size(); ++i) bytes[i] = char((i * 7919) >> 3);
  file.write(bytes);
  return path;
}

QString builtExecutable() {
  return qEnvironmentVariable("SKYTRACE_BUILD_DIR") + "/app/gui/skytrace";
}

}  // namespace

class TestMainWindow : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // QSettings under ~/.qttest, not the user's
    QCoreApplication::setOrganizationName(QStringLiteral("SkytraceTests"));
    QCoreApplication::setApplicationName(QStringLiteral("test_main_window"));
    QSettings().clear();
  }
  void init() { QSettings().clear(); }  // each test starts without recent files or layout

  void opensSharedOrthophotoAndDrawsIt() {
    SKYTRACE_REQUIRE_SHARED();
    ui::MainWindow window(batchOptions());
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QSignalSpy errors(&window, &ui::MainWindow::errorReported);
    QVERIFY(window.openBasemap(test::sharedPath("data/orthophotos/australia.tif")));
    QTRY_VERIFY_WITH_TIMEOUT(window.mapView()->isIdle(), kIdleTimeoutMs);
    QCOMPARE(errors.count(), 0);
    QVERIFY(QString::fromStdString(window.mapView()->viewCrsName()).contains("UTM zone 53S"));

    const QImage shot = window.grab().toImage();
    QCOMPARE(shot.size(), window.size() * window.devicePixelRatio());
    const QRect map_area = window.mapView()->geometry();  // central widget, window coordinates
    QVERIFY(map_area.width() > 400 && map_area.height() > 300);
    const QRect inner = map_area.adjusted(map_area.width() / 4, map_area.height() / 4,
                                          -map_area.width() / 4, -map_area.height() / 4);
    const int colours = test::distinctColours(shot, inner);
    QVERIFY2(colours > 2000, qPrintable(QString("only %1 colours in the map area").arg(colours)));
    QVERIFY(test::greyStdDev(shot, inner) > 10.0);
    QVERIFY(window.statusBar()->currentMessage().contains("australia.tif"));
  }

  // A flight log's GNSS track is drawn over the basemap (issue 4: the GUI shows the log).
  void telemetryTrackIsDrawnOnTheMap() {
    SKYTRACE_REQUIRE_SHARED();
    const QString ortho = test::sharedPath("data/orthophotos/australia.tif");
    const geo::GeoBBox bbox = geo::Basemap::open(ortho.toStdString()).footprint().bbox;
    QTemporaryDir dir;
    const QString log_path = dir.filePath("diagonal.csv");
    {
      QFile file(log_path);
      QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Text));
      QTextStream out(&file);
      out.setRealNumberPrecision(10);
      out << "t_s,lat_deg,lon_deg,alt_m\n";
      for (int i = 0; i < 50; ++i) {
        const double f = 0.2 + 0.6 * i / 49.0;  // along the footprint's diagonal
        out << i * 0.1 << "," << bbox.min_lat_deg + f * (bbox.max_lat_deg - bbox.min_lat_deg) << ","
            << bbox.min_lon_deg + f * (bbox.max_lon_deg - bbox.min_lon_deg) << ",30\n";
      }
    }
    ui::MainWindow window(batchOptions());
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openBasemap(ortho));
    QTRY_VERIFY_WITH_TIMEOUT(window.mapView()->isIdle(), kIdleTimeoutMs);
    auto amberPixels = [&] {
      const QImage shot = window.mapView()->grab().toImage();
      int count = 0;
      for (int y = 0; y < shot.height(); ++y)
        for (int x = 0; x < shot.width(); ++x) {
          const QColor c = shot.pixelColor(x, y);
          if (c.red() > 235 && c.green() > 170 && c.green() < 220 && c.blue() < 40) ++count;
        }
      return count;
    };
    const int before = amberPixels();
    QSignalSpy errors(&window, &ui::MainWindow::errorReported);
    QVERIFY(window.openTelemetry(log_path));
    QCOMPARE(errors.count(), 0);
    // The track, and the logged position at the current time (the log's first sample).
    QCOMPARE(int(window.mapView()->trackOverlays().size()), 2);
    QCOMPARE(int(window.mapView()->trackOverlays().front().points.size()), 50);
    QCOMPARE(window.mapView()->trackOverlays().back().name, QStringLiteral("gnss-now"));
    QCOMPARE(int(window.mapView()->trackOverlays().back().points.size()), 1);
    QVERIFY(window.statusBar()->currentMessage().contains("50"));
    const int after = amberPixels();
    QVERIFY2(before < 20 && after > 300,
             qPrintable(QString("amber pixels before %1, after %2").arg(before).arg(after)));
  }

  // Issue 20: a log opened without a basemap is drawn on the grid map, and at the default
  // 1280 x 800 the status message about it is not clipped by the permanent widgets.
  void logWithoutBasemapIsOnTheMapAndItsMessageFits() {
    SKYTRACE_REQUIRE_SHARED();
    ui::MainWindow window(batchOptions());
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openTelemetry(test::sharedPath("data/flight_logs/dji_srt/m2zoom.SRT")));
    QVERIFY(window.mapView()->isGridView());
    const QString message = window.statusBar()->currentMessage();
    QVERIFY2(message.contains("7113 GNSS positions") && message.contains("grid"), qPrintable(message));
    QCoreApplication::processEvents();
    int permanent_px = 0;
    for (QWidget* child : window.statusBar()->findChildren<QWidget*>(QString(), Qt::FindDirectChildrenOnly))
      if (child->isVisible()) permanent_px += child->width();
    const int free_px = window.statusBar()->width() - permanent_px;
    const int message_px = window.statusBar()->fontMetrics().horizontalAdvance(message);
    QVERIFY2(message_px + 16 <= free_px, qPrintable(QString("message %1 px, room %2 px").arg(message_px).arg(free_px)));
    // The track is drawn: amber on the map.
    const QImage shot = window.mapView()->grab().toImage();
    int amber = 0;
    for (int y = 0; y < shot.height(); ++y)
      for (int x = 0; x < shot.width(); ++x) amber += shot.pixelColor(x, y) == QColor(255, 196, 0);
    QVERIFY2(amber > 300, qPrintable(QString::number(amber)));
  }

  void realFlightLogOpensAndBadOneIsReported() {
    SKYTRACE_REQUIRE_SHARED();
    ui::MainWindow window(batchOptions());
    QSignalSpy errors(&window, &ui::MainWindow::errorReported);
    QVERIFY(window.openTelemetry(test::sharedPath("data/flight_logs/dji_srt/mavic_pro.SRT")));
    QCOMPARE(int(window.mapView()->trackOverlays().front().points.size()), 468);
    QTemporaryDir dir;
    QVERIFY(!window.openTelemetry(writeGarbage(dir, "broken_log.ulg")));
    QCOMPARE(errors.count(), 1);
    QVERIFY(errors.first().first().toString().contains("broken_log.ulg"));
    QCOMPARE(int(window.mapView()->trackOverlays().size()), 1);  // the good track stays
  }

  void badBasemapIsReportedNotFatal() {
    QTemporaryDir dir;
    const QString bad = writeGarbage(dir, "broken_ortho.tif");
    ui::MainWindow window(batchOptions());
    window.show();
    QSignalSpy errors(&window, &ui::MainWindow::errorReported);
    QVERIFY(!window.openBasemap(bad));
    QCOMPARE(errors.count(), 1);
    const QString message = errors.first().first().toString();
    QVERIFY2(message.contains("broken_ortho.tif"), qPrintable(message));
    QVERIFY(window.statusBar()->currentMessage().contains("broken_ortho.tif"));
    QVERIFY(!window.mapView()->hasView());
    QVERIFY(!window.openBasemap(dir.filePath("does_not_exist.tif")));
    QCOMPARE(errors.count(), 2);
    QVERIFY(errors.last().first().toString().contains("does_not_exist.tif"));
    QVERIFY(!window.openVideo(writeGarbage(dir, "broken_flight.mp4")));
    QVERIFY(errors.last().first().toString().contains("not a readable video"));
    QVERIFY(window.recentFiles().isEmpty());  // failures are not remembered
  }

  void interactiveErrorShowsMessageBox() {
    QTemporaryDir dir;
    const QString bad = writeGarbage(dir, "unreadable_ortho.tif");
    ui::MainWindow window;  // interactive: errors open a message box
    window.show();
    QString shown;
    QTimer closer;
    connect(&closer, &QTimer::timeout, this, [&] {
      if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
        shown = box->text();
        box->accept();
      }
    });
    closer.start(20);
    QVERIFY(!window.openBasemap(bad));  // returns once the box is closed
    closer.stop();
    QVERIFY2(shown.contains("unreadable_ortho.tif"), qPrintable(shown));
    QVERIFY(window.isVisible());  // the window survives the error
  }

  void openVideoShowsFirstFrame() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("clip.mp4").toStdString();
    {
      sim::VideoWriter writer(path, {320, 240});
      for (int i = 0; i < 10; ++i) {
        cv::Mat frame(240, 320, CV_8UC3, cv::Scalar(0, 0, 0));
        cv::rectangle(frame, cv::Rect(0, 0, 160, 240), cv::Scalar(0, 200, 0), cv::FILLED);  // BGR green
        writer.write(frame);
      }
      writer.close();
    }
    ui::MainWindow window(batchOptions());
    window.show();
    QVERIFY(window.openVideo(QString::fromStdString(path)));
    // Decoded on the frame loader's thread, never on the GUI thread: it arrives shortly.
    QTRY_VERIFY_WITH_TIMEOUT(!window.videoPanel()->frame().isNull(), 10000);
    const QImage frame = window.videoPanel()->frame();
    QCOMPARE(frame.size(), QSize(320, 240));
    const QColor left = frame.pixelColor(40, 120);
    const QColor right = frame.pixelColor(280, 120);
    QVERIFY2(left.green() > 170 && left.red() < 40, "BGR frame shown with RGB channel order");
    QVERIFY(right.green() < 30);
    QVERIFY(window.videoPanel()->caption().contains("frame 0 of 10"));
  }

  // A recording cut short (its index first, as phones write them) announces frames it
  // lacks: past its data the video panel says so instead of showing the last frame the
  // file holds under the requested number, and the window does not wait for that frame.
  void truncatedVideoSaysWhereItsDataEnds() {
    if (QStandardPaths::findExecutable(QStringLiteral("ffmpeg")).isEmpty())
      QSKIP("ffmpeg (scripts/debian-packages.txt) is needed to move the MP4 index to the front");
    QTemporaryDir dir;
    const std::string whole = dir.filePath("whole.mp4").toStdString();
    {
      sim::VideoWriter writer(whole, {320, 240});
      for (int i = 0; i < 200; ++i) {
        cv::Mat frame(240, 320, CV_8UC3, cv::Scalar(0, 0, 0));
        cv::putText(frame, std::to_string(i), {20, 150}, cv::FONT_HERSHEY_SIMPLEX, 3.0, cv::Scalar(255, 255, 255), 5);
        writer.write(frame);
      }
      writer.close();
    }
    const QString cut = dir.filePath("cut.mp4");
    QProcess remux;
    remux.start(QStringLiteral("ffmpeg"), {"-loglevel", "error", "-y", "-i", QString::fromStdString(whole), "-c",
                                           "copy", "-movflags", "+faststart", cut});
    QVERIFY(remux.waitForFinished(60000) && remux.exitCode() == 0);
    std::filesystem::resize_file(cut.toStdString(), std::filesystem::file_size(cut.toStdString()) / 2);

    // The same probe as `info`: where the data ends.
    const int held = io::framesHeld(*io::openVideoSource(cut.toStdString()));
    QVERIFY2(held > 50 && held < 150, qPrintable(QString::number(held)));

    ui::MainWindow window(batchOptions());
    window.show();
    QVERIFY(window.openVideo(cut));
    QSignalSpy data_ends(window.frameLoader(), &ui::FrameLoader::dataEnds);
    // Once the first frame is shown, the timeline offers only the frames the file holds,
    // and the caption and status bar say that the file is cut short.
    QTRY_COMPARE_WITH_TIMEOUT(window.timeModel()->frameCount(), held, 10000);
    QCOMPARE(data_ends.count(), 1);
    QVERIFY(data_ends.front().at(1).toString().contains("although the container announces 200"));
    QTRY_VERIFY_WITH_TIMEOUT(window.videoPanel()->caption().contains(
                                 QString("frame 0 of %1 (the file is cut short: its container announces 200)").arg(held)),
                             10000);
    QVERIFY(window.statusBar()->currentMessage().contains(QString("holds %1 of the 200 frames").arg(held)));
    // The last frame offered decodes, under its own label.
    window.timeModel()->setCurrentFrame(190);
    QCOMPARE(window.timeModel()->currentFrame(), held - 1);
    QTRY_VERIFY2_WITH_TIMEOUT(window.videoPanel()->caption().contains(QString("frame %1 of %2").arg(held - 1).arg(held)),
                              qPrintable(window.videoPanel()->caption() + " | " + window.videoPanel()->message()), 10000);
    QVERIFY(window.videoPanel()->message().isEmpty());
    QVERIFY(!window.videoPanel()->frame().isNull());
    window.timeModel()->setCurrentFrame(5);  // back in the data: frames again
    QTRY_VERIFY_WITH_TIMEOUT(window.videoPanel()->caption().contains(QString("frame 5 of %1").arg(held)), 10000);
    QVERIFY(window.videoPanel()->message().isEmpty());
  }

  // A folder of photos: each at its capture time, dated by the first photo's EXIF GNSS time
  // (lewis_2015: 21:46:23 UTC; the second photo 20 s later); it opens as its own log too.
  void photoFolderTimelineShowsUtc() {
    SKYTRACE_REQUIRE_SHARED();
    ui::MainWindow window(batchOptions());
    window.show();
    QVERIFY(window.openVideo(test::sharedPath("data/real_sequences/lewis_2015/images")));
    window.timeModel()->setCurrentFrame(1);
    QCOMPARE(window.timeModel()->currentTimeS(), 20.0);
    QCOMPARE(window.timeModel()->logTimeText(window.timeModel()->currentTimeS()),
             QString("2015-06-02 21:46:43.000 UTC"));
    QTRY_VERIFY_WITH_TIMEOUT(window.videoPanel()->caption().contains("frame 1 of 55, t = 20.000 s"), 10000);
    // The same folder is its own flight log, as for `process`: one position per photo.
    QSignalSpy errors(&window, &ui::MainWindow::errorReported);
    QVERIFY(window.openTelemetry(test::sharedPath("data/real_sequences/lewis_2015/images")));
    QCOMPARE(errors.count(), 0);
    QCOMPARE(int(window.mapView()->trackOverlays().front().points.size()), 55);
  }

  void recentFilesAndLayoutPersist() {
    SKYTRACE_REQUIRE_SHARED();
    const QString ortho = test::sharedPath("data/orthophotos/OSBS_029.tif");
    {
      ui::MainWindow window(batchOptions());
      window.show();
      QVERIFY(window.openBasemap(ortho));
      QVERIFY(window.openBasemap(test::sharedPath("data/orthophotos/australia.tif")));
      QVERIFY(window.openBasemap(ortho));  // reopening moves it to the top, no duplicate
      QCOMPARE(window.recentFiles().size(), 2);
      QCOMPARE(window.recentFiles().first(), QFileInfo(ortho).absoluteFilePath());
      window.findChild<QDockWidget*>("plotDock")->hide();
      // Issue 20: speed, colour mode and the stacked plots shown are remembered too.
      window.timeModel()->setSpeed(4.0);
      window.action("colourUncertainty")->trigger();
      window.plotsPanel()->showPlots({"altitude", "latency"});
      window.close();
    }
    QVERIFY(QSettings().contains("mainWindow/geometry"));
    ui::MainWindow reopened(batchOptions());
    QCOMPARE(reopened.timeModel()->speed(), 4.0);
    QVERIFY(reopened.action("colourUncertainty")->isChecked());
    QCOMPARE(reopened.plotsPanel()->stack()->shownKeys(), QStringList({"altitude", "latency"}));
    QCOMPARE(reopened.recentFiles().size(), 2);
    QCOMPARE(reopened.recentFiles().first(), QFileInfo(ortho).absoluteFilePath());
    reopened.show();
    QVERIFY(reopened.findChild<QDockWidget*>("plotDock")->isHidden());  // dock layout restored
    // The Recent Files menu lists them and reopens one.
    QMenu* recent = nullptr;
    for (QAction* action : reopened.fileMenu()->actions())
      if (action->menu() && action->menu()->title().contains("Recent")) recent = action->menu();
    QVERIFY(recent);
    QVERIFY(recent->actions().first()->text().contains("OSBS_029.tif"));
    recent->actions().first()->trigger();
    QVERIFY(reopened.mapView()->hasView());
  }

  void germanTranslationIsComplete() {
    QFile file(QStringLiteral(SKYTRACE_SOURCE_DIR "/translations/skytrace_de.ts"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&file);
    int messages = 0;
    QString source;
    QStringList problems;
    while (!xml.atEnd()) {
      xml.readNext();
      if (!xml.isStartElement()) continue;
      if (xml.name() == QLatin1String("source")) {
        source = xml.readElementText();
      } else if (xml.name() == QLatin1String("translation")) {
        const QString type = xml.attributes().value("type").toString();
        const QString text = xml.readElementText();
        ++messages;
        if (!type.isEmpty()) problems << QString("%1 (%2)").arg(source, type);
        if (text.trimmed().isEmpty()) problems << QString("%1 (empty)").arg(source);
        // Every placeholder of the source survives the translation.
        for (int n = 1; n <= 9; ++n) {
          const QString placeholder = QString("%%1").arg(n);
          if (source.contains(placeholder) != text.contains(placeholder))
            problems << QString("%1 (placeholder %2)").arg(source, placeholder);
        }
      }
    }
    QVERIFY(!xml.hasError());
    QVERIFY2(messages >= 40, qPrintable(QString::number(messages)));
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join("; ")));
  }

  void switchingToGermanRetranslatesMenus() {
    ui::MainWindow window(batchOptions());
    QCOMPARE(window.fileMenu()->title(), QString("&File"));
    QTranslator german;
    QVERIFY2(german.load(qEnvironmentVariable("SKYTRACE_BUILD_DIR") + "/app/gui/skytrace_de.qm"),
             "build the skytrace target first (it compiles skytrace_de.qm)");
    QCoreApplication::installTranslator(&german);
    QCoreApplication::processEvents();  // delivers QEvent::LanguageChange
    QCOMPARE(window.fileMenu()->title(), QString("&Datei"));
    QCOMPARE(window.findChild<QDockWidget*>("plotDock")->windowTitle(), QString("Diagramme"));
    QCoreApplication::removeTranslator(&german);
    QCoreApplication::processEvents();
    QCOMPARE(window.fileMenu()->title(), QString("&File"));
  }

  // Issue 20: in German the numbers have decimal commas and the latency stages German
  // names (the files keep their stable English keys).
  void germanNumbersAndStageNames() {
    QTranslator german;
    QVERIFY(german.load(qEnvironmentVariable("SKYTRACE_BUILD_DIR") + "/app/gui/skytrace_de.qm"));
    QCoreApplication::installTranslator(&german);
    const QLocale previous;
    QLocale::setDefault(QLocale(QLocale::German, QLocale::Germany));
    ui::LatencyPlot plot;
    std::vector<engine::LatencySample> samples;
    for (int frame = 0; frame < 10; ++frame) {
      for (engine::Stage stage : {engine::Stage::Extract, engine::Stage::FineMatch}) {
        engine::LatencySample s;
        s.frame = frame;
        s.stage = stage;
        s.duration_ms = stage == engine::Stage::Extract ? 2.5 : 12.31;
        samples.push_back(s);
      }
    }
    plot.setSamples(samples, 30.0);
    const QString readout = plot.readoutText();
    QLocale::setDefault(previous);
    QCoreApplication::removeTranslator(&german);
    QVERIFY2(readout.contains("Merkmale: p50 2,5 / p99 2,5 ms"), qPrintable(readout));
    QVERIFY2(readout.contains("Feinzuordnung: p50 12,3"), qPrintable(readout));
    QCOMPARE(ui::stageDisplayName(engine::Stage::Extract), QString("Features"));  // English again
  }

  // Issue 20: Qt's own strings (here QCommandLineParser's) follow the interface language
  // too: qtbase_de.qm from qt6-translations-l10n (scripts/debian-packages.txt).
  void qtsOwnStringsAreGermanToo() {
    QProcess process;
    process.start(builtExecutable(), {"--lang", "de", "--help"});
    QVERIFY(process.waitForFinished(60000));
    const QString help = QString::fromUtf8(process.readAllStandardOutput());
    QVERIFY2(help.contains("Sprache der Oberfläche"), qPrintable(help));  // ours
    QVERIFY2(help.contains("Zeigt Hilfe zu den Kommandozeilenoptionen an."), qPrintable(help));  // Qt's
  }

  void screenshotExecutableWritesPng() {
    SKYTRACE_REQUIRE_SHARED();
    QTemporaryDir dir;
    const QString png = dir.filePath("shot.png");
    QProcess process;
    process.start(builtExecutable(),
                  {"--basemap", test::sharedPath("data/orthophotos/australia.tif"), "--lang", "de",
                   "--screenshot", png});
    QVERIFY2(process.waitForFinished(60000), "skytrace --screenshot did not finish in 60 s");
    QVERIFY2(process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0,
             qPrintable(QString::fromLocal8Bit(process.readAllStandardError())));
    const QImage shot(png);
    QVERIFY(!shot.isNull());
    QCOMPARE(shot.size(), QSize(1280, 800));
    // The map occupies the upper left of the default layout.
    const QRect map_area(200, 150, 400, 300);
    QVERIFY2(test::distinctColours(shot, map_area) > 2000,
             qPrintable(QString::number(test::distinctColours(shot, map_area))));
  }

  void screenshotExecutableFailsCleanly() {
    QTemporaryDir dir;
    const QString png = dir.filePath("never.png");
    QProcess process;
    process.start(builtExecutable(),
                  {"--basemap", writeGarbage(dir, "corrupt_basemap.tif"), "--screenshot", png});
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 1);
    QVERIFY(QString::fromLocal8Bit(process.readAllStandardError()).contains("corrupt_basemap.tif"));
    QVERIFY(!QFile::exists(png));
  }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
