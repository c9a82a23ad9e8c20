// The flight report, offscreen, on the synthetic processed flight (tests/synthetic_flight.h):
// Export > Flight Report writes a self-contained HTML file (its map and plots inside it)
// holding the summary, the flagged stretch, the events and the settings, and a PDF of
// the same content whose pages, rendered back to PNG (poppler's pdftoppm), show text and
// the pictures; `skytrace --results DIR --report FILE.html` writes both from the command
// line, and a folder that cannot be written is a clear error.
#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <set>

#include "tests/synthetic_flight.h"
#include "tests/ui/window_test_support.h"
#include "ui/flight_report.h"
#include "ui/main_window.h"

using namespace skytrace;

namespace {

constexpr int kTimeoutMs = 60000;

QString readText(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

int distinctColours(const QImage& image) {
  std::set<QRgb> colours;
  for (int y = 0; y < image.height(); y += 2)
    for (int x = 0; x < image.width(); x += 2) colours.insert(image.pixel(x, y));
  return static_cast<int>(colours.size());
}

}  // namespace

class TestFlightReport : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(dir_.isValid());
    flight_ = test::writeSyntheticFlight(dir_.path());
  }

  void theMenuWritesAnHtmlFileAndItsPdf() {
    ui::MainWindow window(test::batchOptions());
    window.resize(1280, 800);
    window.show();
    QVERIFY(test::openProjectAndWait(window, flight_.project, kTimeoutMs));
    QVERIFY(window.action("exportFlightReport")->isEnabled());

    QTemporaryDir out;
    window.setFileChooser([&](const QString&, const QString&, const QString&) { return out.filePath("report"); });
    window.action("exportFlightReport")->trigger();  // ".html" is appended
    const QString html = readText(out.filePath("report.html"));
    QVERIFY(!html.isEmpty());
    QVERIFY(html.contains("Flight report: flight.mp4"));
    QCOMPARE(html.count("src=\"data:image/png;base64,"), 2);  // the map and the plots, inside
    QVERIFY(html.contains("5 accepted, 1 rejected"));
    QVERIFY(html.contains("<td>0:03.0</td><td>0:04.0</td><td>40.0 m</td>"));  // the flagged stretch
    QVERIFY(html.contains("Registration rejected") && html.contains("Odometry lost"));
    QVERIFY(html.contains("too few matches agree (1)"));
    QVERIFY(html.contains("report.json") && html.contains("&quot;feature_model&quot;"));
    // Accuracy: no reference scored here, so how to score one; the uncertainty table; the
    // GNSS comparison table.
    QVERIFY(html.contains("No reference track was scored") && html.contains("skytrace-cli eval"));
    QVERIFY(html.contains("Estimated uncertainty (1 sigma)"));
    QVERIFY(html.contains("<th align=\"left\">Frames compared</th><td>60</td>"));

    const QString pdf = out.filePath("report.pdf");
    QFile file(pdf);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.read(5), QByteArray("%PDF-"));
    file.close();
    const QString pdftoppm = QStandardPaths::findExecutable("pdftoppm");
    if (pdftoppm.isEmpty()) QSKIP("pdftoppm (poppler-utils, scripts/debian-packages.txt) is not installed");
    QCOMPARE(QProcess::execute(pdftoppm, {"-r", "50", "-png", pdf, out.filePath("page")}), 0);
    const QStringList pages = QDir(out.path()).entryList({"page*.png"}, QDir::Files, QDir::Name);
    QVERIFY2(pages.size() >= 2, qPrintable(pages.join(",")));
    // The pictures' pages hold the map's imagery and the plots' colours; the first page text.
    int most = 0;
    for (const QString& page : pages) most = std::max(most, distinctColours(QImage(out.filePath(page))));
    QVERIFY2(most > 1000, qPrintable(QString::number(most)));
    const QImage first(out.filePath(pages.front()));
    int dark = 0;
    for (int y = 0; y < first.height(); ++y)
      for (int x = 0; x < first.width(); ++x) dark += qGray(first.pixel(x, y)) < 96;
    QVERIFY2(dark > 500, qPrintable(QString::number(dark)));
  }

  // Issue 20: a results folder with an evaluation (accuracy.json) reports its score.
  void theAccuracyTableShowsTheScoreAgainstAReference() {
    app::FlightResults results = app::readResultsFolder(flight_.results.toStdString());
    app::AccuracySummary a;
    a.reference = "/flights/rtk.csv";
    a.alignment = "none";
    a.reference_frames = 60;
    a.fraction_with_position = 59.0 / 60.0;
    a.rmse_m = 1.53;
    a.median_m = 1.2;
    a.p90_m = 2.5;
    a.max_m = 4.75;
    a.within_5m = 1.0;
    a.within_10m = 1.0;
    a.within_20m = 1.0;
    a.heading_rmse_deg = 0.8;
    results.accuracy = a;
    const QString html = ui::FlightReport::html(results, {}, {}, "test", 400);
    QVERIFY(html.contains("Against a reference track"));
    QVERIFY(html.contains("<td>rtk.csv</td>"));
    QVERIFY(html.contains("<td>59 of 60</td>"));
    QVERIFY2(html.contains("RMSE 1.53 m, median 1.20 m, p90 2.50 m, largest 4.75 m"), qPrintable(html));
    QVERIFY(html.contains("100.0 % / 100.0 % / 100.0 %"));
    QVERIFY(html.contains("<td>0.80 deg</td>"));
    QVERIFY(!html.contains("Vertical error"));  // not compared
    QVERIFY(!html.contains("No reference track was scored"));
  }

  void theCommandLineWritesItToo() {
    QTemporaryDir out;
    QProcess process;
    process.start(qEnvironmentVariable("SKYTRACE_BUILD_DIR") + "/app/gui/skytrace",
                  {"--results", flight_.results, "--report", out.filePath("cli.html")});
    QVERIFY(process.waitForFinished(kTimeoutMs));
    QVERIFY2(process.exitCode() == 0, qPrintable(QString::fromLocal8Bit(process.readAllStandardError())));
    QVERIFY(readText(out.filePath("cli.html")).contains("Flight report"));
    QVERIFY(QFile::exists(out.filePath("cli.pdf")));

    // A folder that does not exist: exit 1 and the reason, no file.
    process.start(qEnvironmentVariable("SKYTRACE_BUILD_DIR") + "/app/gui/skytrace",
                  {"--results", flight_.results, "--report", out.filePath("missing/cli.html")});
    QVERIFY(process.waitForFinished(kTimeoutMs));
    QCOMPARE(process.exitCode(), 1);
    QVERIFY(QString::fromLocal8Bit(process.readAllStandardError()).contains("does not exist"));
  }

 private:
  QTemporaryDir dir_;
  test::SyntheticFlight flight_;
};

QTEST_MAIN(TestFlightReport)
#include "test_flight_report.moc"
