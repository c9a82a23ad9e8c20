// skytrace: GUI entry point.
//   skytrace [--project P.skytrace] [--results DIR] [--basemap FILE]... [--video PATH]
//            [--telemetry LOG] [--process] [--frame N] [--plot NAME[,NAME]] [--lang en|de]
//            [--screenshot FILE.png | --report FILE.html] [FILE...]
// Positional files are opened by kind (project, results folder, video, basemap, log).
// --process processes what was opened (in process, views updating live) once loaded;
// with --screenshot the window is captured after the run has ended and its results
// folder is shown, or, with --frame N, live, as soon as frame N has been processed
// (the run is then cancelled: its results folder holds the frames done so far).
// --screenshot renders the window to PNG once everything named on the command line has
// loaded (results read, map tiles and video frame shown), then quits: exit code 0, or 1
// with a message on stderr when loading or writing failed. That mode opens no modal dialog.
// --report is the same batch mode but writes the flight report (FILE.html and the PDF
// beside it, ui/flight_report.h) instead of the screenshot.
#include <QApplication>
#include <QCommandLineParser>
#include <QLibraryInfo>
#include <QLocale>
#include <QPixmap>
#include <QTabWidget>
#include <QTextStream>
#include <QTimer>
#include <QTranslator>

#include "ui/main_window.h"
#include "ui/map_view.h"
#include "ui/open_flight_dialog.h"
#include "ui/processing_controller.h"
#include "ui/plots_panel.h"
#include "ui/results_model.h"
#include "ui/time_model.h"

namespace {

constexpr int kScreenshotTimeoutMs = 60000;             // loading what was named
constexpr int kProcessScreenshotTimeoutMs = 3600000;    // --process: the whole run

// --lang must be known before the parser is built, so that its help is translated.
QString requestedLanguage(const QStringList& args) {
  for (int i = 1; i < args.size(); ++i) {
    if (args[i] == QLatin1String("--lang") && i + 1 < args.size()) return args[i + 1];
    if (args[i].startsWith(QLatin1String("--lang="))) return args[i].mid(7);
  }
  return QLocale::system().name().startsWith(QLatin1String("de")) ? QStringLiteral("de")
                                                                  : QStringLiteral("en");
}

void printError(const QString& message) {
  QTextStream(stderr) << "skytrace: " << message << "\n";
}

// Takes the screenshot when everything has loaded (polled: results, map tiles, video
// frame); exits the event loop.
class ScreenshotJob : public QObject {
 public:
  // report: write the flight report to `path` instead of a screenshot.
  ScreenshotJob(skytrace::ui::MainWindow* window, QString path, int frame, int timeout_ms, bool live, bool report)
      : window_(window), path_(std::move(path)), frame_(frame), live_(live), report_(report) {
    connect(window_, &skytrace::ui::MainWindow::errorReported, this, [this](const QString&) {
      failed_ = true;
      QCoreApplication::exit(1);  // the window already printed the message to stderr
    });
    connect(&poll_, &QTimer::timeout, this, &ScreenshotJob::takeWhenLoaded);
    poll_.start(100);
    QTimer::singleShot(timeout_ms, this, [] {
      printError(QCoreApplication::translate("skytrace", "timed out waiting for the map to load"));
      QCoreApplication::exit(1);
    });
  }

 private:
  void takeWhenLoaded() {
    if (failed_ || done_) return;
    if (live_) {  // while processing: once frame N is done and the views had a tick
      const auto& latency = window_->resultsModel()->results().latency;
      if (!window_->processing()->isRunning() || latency.empty() || latency.back().frame < frame_) return;
      if (++quiet_polls_ < 3) return;
      grabAndExit();
      return;
    }
    if (window_->isLoading()) return;
    if (frame_ >= 0 && !frame_set_) {  // after the results set the timeline
      frame_set_ = true;
      window_->timeModel()->setCurrentFrame(frame_);
      return;
    }
    if (++quiet_polls_ < 3) return;  // loaded for 300 ms: nothing more is coming
    grabAndExit();
  }

  void grabAndExit() {
    done_ = true;
    if (report_) {
      QCoreApplication::exit(window_->exportFlightReport(path_) ? 0 : 1);  // the window printed why
      return;
    }
    const QPixmap pixmap = window_->grab();
    if (!pixmap.save(path_, "PNG")) {
      printError(QCoreApplication::translate("skytrace", "cannot write the screenshot %1").arg(path_));
      QCoreApplication::exit(1);
      return;
    }
    QCoreApplication::exit(0);
  }

  skytrace::ui::MainWindow* window_;
  QString path_;
  int frame_;
  bool live_;
  bool report_;
  QTimer poll_;
  bool failed_ = false;
  bool done_ = false;
  bool frame_set_ = false;
  int quiet_polls_ = 0;
};

// A headless machine (CI, docs builds) has no display: --screenshot then renders with
// the offscreen platform instead of failing to connect to X11/Wayland.
void preferOffscreenForHeadlessScreenshots(int argc, char** argv) {
  bool screenshot = false;
  for (int i = 1; i < argc; ++i)
    screenshot = screenshot || qstrncmp(argv[i], "--screenshot", 12) == 0 || qstrncmp(argv[i], "--report", 8) == 0;
  if (screenshot && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") &&
      qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
}

}  // namespace

int main(int argc, char** argv) {
  preferOffscreenForHeadlessScreenshots(argc, argv);
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("Skytrace"));
  QApplication::setApplicationVersion(QStringLiteral(SKYTRACE_VERSION));
  QApplication::setOrganizationName(QStringLiteral("Skytrace"));
  QApplication::setDesktopFileName(QStringLiteral("org.skytrace.Skytrace"));

  const QString language = requestedLanguage(QCoreApplication::arguments());
  if (language != QLatin1String("en") && language != QLatin1String("de")) {
    printError(QStringLiteral("unknown language '%1' (use en or de)").arg(language));
    return 2;
  }
  // Numbers follow the interface language (a decimal comma in German), unless the
  // system's locale already speaks it (de_CH keeps its own conventions).
  if (!QLocale::system().name().startsWith(language)) QLocale::setDefault(QLocale(language));
  QTranslator translator;
  if (translator.load(QStringLiteral(":/i18n/skytrace_%1.qm").arg(language)))
    QCoreApplication::installTranslator(&translator);
  QTranslator qt_translator;  // Qt's own strings (dialog buttons), when installed
  if (qt_translator.load(QStringLiteral("qtbase_%1").arg(language),
                         QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
    QCoreApplication::installTranslator(&qt_translator);

  QCommandLineParser parser;
  parser.setApplicationDescription(QCoreApplication::translate(
      "skytrace", "Skytrace: review UAV flights against georeferenced basemaps."));
  parser.addHelpOption();
  parser.addVersionOption();
  const QCommandLineOption basemap_option(
      QStringLiteral("basemap"),
      QCoreApplication::translate("skytrace", "Open a basemap raster (repeat for several)."),
      QStringLiteral("FILE"));
  const QCommandLineOption video_option(
      QStringLiteral("video"),
      QCoreApplication::translate("skytrace", "Open a flight video or a folder of images."),
      QStringLiteral("PATH"));
  const QCommandLineOption telemetry_option(
      QStringLiteral("telemetry"),
      QCoreApplication::translate("skytrace",
                                  "Open a flight log (DJI SRT, PX4 ULog, ArduPilot .bin, MAVLink .tlog, GPX, CSV) and show its GNSS track."),
      QStringLiteral("LOG"));
  const QCommandLineOption project_option(
      QStringLiteral("project"),
      QCoreApplication::translate("skytrace", "Open a Skytrace project (.skytrace) and its results."),
      QStringLiteral("P"));
  const QCommandLineOption results_option(
      QStringLiteral("results"),
      QCoreApplication::translate("skytrace", "Show a results folder written by skytrace-cli process."),
      QStringLiteral("DIR"));
  const QCommandLineOption frame_option(
      QStringLiteral("frame"),
      QCoreApplication::translate("skytrace", "Start at this video frame."),
      QStringLiteral("N"));
  const QCommandLineOption process_option(
      QStringLiteral("process"),
      QCoreApplication::translate("skytrace", "Process the opened flight right away (results into the project's results folder)."));
  const QCommandLineOption plot_option(
      QStringLiteral("plot"),
      QCoreApplication::translate("skytrace", "Plots to show, comma-separated: trajectory, or time plots stacked on one time axis: altitude, heading, speed, discrepancy, latency, gpu."),
      QStringLiteral("NAME[,NAME]"));
  const QCommandLineOption lang_option(
      QStringLiteral("lang"),
      QCoreApplication::translate("skytrace", "User interface language: en or de."),
      QStringLiteral("LANG"));
  const QCommandLineOption screenshot_option(
      QStringLiteral("screenshot"),
      QCoreApplication::translate(
          "skytrace", "Render the window to a PNG file after loading, then quit (no dialogs)."),
      QStringLiteral("FILE.png"));
  const QCommandLineOption report_option(
      QStringLiteral("report"),
      QCoreApplication::translate("skytrace",
                                  "Write the flight report (FILE.html and FILE.pdf) after loading, then quit (no dialogs)."),
      QStringLiteral("FILE.html"));
  parser.addOptions({project_option, results_option, basemap_option, video_option, telemetry_option,
                     frame_option, process_option, plot_option, lang_option, screenshot_option, report_option});
  parser.addPositionalArgument(
      QStringLiteral("files"),
      QCoreApplication::translate("skytrace", "Projects, results folders, videos, basemaps or logs to open."),
      QStringLiteral("[FILE...]"));
  parser.process(app);
  bool frame_ok = true;
  const int start_frame = parser.isSet(frame_option) ? parser.value(frame_option).toInt(&frame_ok) : -1;
  if (!frame_ok || (parser.isSet(frame_option) && start_frame < 0)) {
    printError(QCoreApplication::translate("skytrace", "--frame needs a frame number >= 0"));
    return 2;
  }
  for (const QString& path : parser.positionalArguments()) {
    if (skytrace::ui::classifyInputPath(path) == skytrace::ui::InputKind::Unknown) {
      printError(QCoreApplication::translate("skytrace", "unexpected argument %1 (see --help)").arg(path));
      return 2;
    }
  }

  const QString screenshot = parser.value(screenshot_option);
  const QString report = parser.value(report_option);
  if (!screenshot.isEmpty() && !report.isEmpty()) {
    printError(QCoreApplication::translate("skytrace", "--screenshot and --report cannot be combined"));
    return 2;
  }
  const bool batch = !screenshot.isEmpty() || !report.isEmpty();
  skytrace::ui::MainWindowOptions options;
  options.interactive = !batch;
  options.persist_settings = !batch;  // screenshots are reproducible: no saved layout
  skytrace::ui::MainWindow window(options);
  if (batch) window.resize(1280, 800);
  if (parser.isSet(plot_option)) {
    const QStringList plots = parser.value(plot_option).split(QLatin1Char(','), Qt::SkipEmptyParts);
    if (!window.plotsPanel()->showPlots(plots)) {
      printError(QCoreApplication::translate("skytrace", "unknown --plot %1").arg(parser.value(plot_option)));
      return 2;
    }
  }
  window.show();

  bool loaded = true;
  if (parser.isSet(project_option)) loaded = window.openProject(parser.value(project_option)) && loaded;
  for (const QString& path : parser.positionalArguments()) {
    using skytrace::ui::InputKind;
    switch (skytrace::ui::classifyInputPath(path)) {
      case InputKind::Project: loaded = window.openProject(path) && loaded; break;
      case InputKind::ResultsFolder: loaded = window.openResults(path) && loaded; break;
      case InputKind::Video:
      case InputKind::ImageFolder: loaded = window.openVideo(path) && loaded; break;
      case InputKind::Basemap: loaded = window.openBasemap(path) && loaded; break;
      case InputKind::Telemetry: loaded = window.openTelemetry(path) && loaded; break;
      case InputKind::CameraFile:
      case InputKind::Unknown: break;
    }
  }
  for (const QString& path : parser.values(basemap_option)) loaded = window.openBasemap(path) && loaded;
  if (parser.isSet(video_option)) loaded = window.openVideo(parser.value(video_option)) && loaded;
  if (parser.isSet(telemetry_option))
    loaded = window.openTelemetry(parser.value(telemetry_option)) && loaded;
  if (parser.isSet(results_option)) loaded = window.openResults(parser.value(results_option)) && loaded;
  if (parser.isSet(process_option) && loaded) loaded = window.startProcessing();
  if (!batch) {
    if (start_frame >= 0) {
      QObject::connect(&window, &skytrace::ui::MainWindow::resultsLoaded, &window,
                       [&window, start_frame] { window.timeModel()->setCurrentFrame(start_frame); });
      window.timeModel()->setCurrentFrame(start_frame);
    }
    return app.exec();
  }
  if (!loaded) return 1;  // the window printed why
  const bool process = parser.isSet(process_option);
  ScreenshotJob job(&window, report.isEmpty() ? screenshot : report, start_frame,
                    process ? kProcessScreenshotTimeoutMs : kScreenshotTimeoutMs, process && start_frame >= 0,
                    !report.isEmpty());
  return app.exec();
}
