// skytrace: GUI entry point.
//   skytrace [--basemap FILE]... [--video PATH] [--telemetry LOG] [--lang en|de] [--screenshot FILE.png]
// --screenshot renders the window to PNG once everything named on the command line has
// loaded (the map view reports idle), then quits: exit code 0, or 1 with a message on
// stderr when loading or writing failed. That mode opens no modal dialog.
#include <QApplication>
#include <QCommandLineParser>
#include <QLibraryInfo>
#include <QLocale>
#include <QPixmap>
#include <QTextStream>
#include <QTimer>
#include <QTranslator>

#include "ui/main_window.h"
#include "ui/map_view.h"

namespace {

constexpr int kScreenshotTimeoutMs = 60000;

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

// Takes the screenshot when the map has finished loading; exits the event loop.
class ScreenshotJob : public QObject {
 public:
  ScreenshotJob(skytrace::ui::MainWindow* window, QString path)
      : window_(window), path_(std::move(path)) {
    connect(window_, &skytrace::ui::MainWindow::errorReported, this, [this](const QString&) {
      failed_ = true;
      QCoreApplication::exit(1);  // the window already printed the message to stderr
    });
    connect(window_->mapView(), &skytrace::ui::MapView::idle, this, &ScreenshotJob::takeWhenIdle,
            Qt::QueuedConnection);
    QTimer::singleShot(kScreenshotTimeoutMs, this, [] {
      printError(QCoreApplication::translate("skytrace", "timed out waiting for the map to load"));
      QCoreApplication::exit(1);
    });
    QTimer::singleShot(0, this, &ScreenshotJob::takeWhenIdle);
  }

 private:
  void takeWhenIdle() {
    if (failed_ || done_ || !window_->mapView()->isIdle()) return;
    done_ = true;
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
  bool failed_ = false;
  bool done_ = false;
};

// A headless machine (CI, docs builds) has no display: --screenshot then renders with
// the offscreen platform instead of failing to connect to X11/Wayland.
void preferOffscreenForHeadlessScreenshots(int argc, char** argv) {
  bool screenshot = false;
  for (int i = 1; i < argc; ++i)
    screenshot = screenshot || qstrncmp(argv[i], "--screenshot", 12) == 0;
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
  QApplication::setDesktopFileName(QStringLiteral("skytrace"));

  const QString language = requestedLanguage(QCoreApplication::arguments());
  if (language != QLatin1String("en") && language != QLatin1String("de")) {
    printError(QStringLiteral("unknown language '%1' (use en or de)").arg(language));
    return 2;
  }
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
                                  "Open a flight log (DJI SRT, PX4 ULog, GPX, CSV) and show its GNSS track."),
      QStringLiteral("LOG"));
  const QCommandLineOption lang_option(
      QStringLiteral("lang"),
      QCoreApplication::translate("skytrace", "User interface language: en or de."),
      QStringLiteral("LANG"));
  const QCommandLineOption screenshot_option(
      QStringLiteral("screenshot"),
      QCoreApplication::translate(
          "skytrace", "Render the window to a PNG file after loading, then quit (no dialogs)."),
      QStringLiteral("FILE.png"));
  parser.addOptions({basemap_option, video_option, telemetry_option, lang_option, screenshot_option});
  parser.process(app);
  if (!parser.positionalArguments().isEmpty()) {
    printError(QCoreApplication::translate("skytrace", "unexpected argument %1 (see --help)")
                   .arg(parser.positionalArguments().first()));
    return 2;
  }

  const QString screenshot = parser.value(screenshot_option);
  const bool batch = !screenshot.isEmpty();
  skytrace::ui::MainWindowOptions options;
  options.interactive = !batch;
  options.persist_settings = !batch;  // screenshots are reproducible: no saved layout
  skytrace::ui::MainWindow window(options);
  if (batch) window.resize(1280, 800);
  window.show();

  bool loaded = true;
  for (const QString& path : parser.values(basemap_option)) loaded = window.openBasemap(path) && loaded;
  if (parser.isSet(video_option)) loaded = window.openVideo(parser.value(video_option)) && loaded;
  if (parser.isSet(telemetry_option))
    loaded = window.openTelemetry(parser.value(telemetry_option)) && loaded;
  if (!batch) return app.exec();
  if (!loaded) return 1;  // the window printed why
  ScreenshotJob job(&window, screenshot);
  return app.exec();
}
