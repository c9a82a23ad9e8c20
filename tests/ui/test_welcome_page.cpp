// The welcome page offscreen: a fresh window shows it (the ways in, the recent projects),
// a recent project opens from it and the map takes its place; "Open the Demo" builds the
// demo flight with the real skytrace-cli (progress on the page), opens demo.skytrace and
// starts processing it; a built demo opens again without being rebuilt.
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/synthetic_flight.h"
#include "ui/demo_builder.h"
#include "ui/main_window.h"
#include "tests/ui/window_test_support.h"
#include "ui/map_view.h"
#include "ui/processing_controller.h"
#include "ui/welcome_page.h"

using namespace skytrace;
using test::batchOptions;

namespace {

constexpr int kTimeoutMs = 120000;

}  // namespace

class TestWelcomePage : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("SkytraceTests"));
    QCoreApplication::setApplicationName(QStringLiteral("test_welcome_page"));
    QSettings().clear();
    qputenv("SKYTRACE_CLI", SKYTRACE_CLI_EXECUTABLE);
  }

  void aFreshWindowWelcomesAndOpensARecentProject() {
    QTemporaryDir dir;
    const test::SyntheticFlight flight = test::writeSyntheticFlight(dir.path());
    ui::MainWindowOptions remembering = batchOptions();
    remembering.persist_settings = true;  // the recent list, as a user's session keeps it
    ui::MainWindow window(remembering);
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.isWelcomeShown());
    ui::WelcomePage* page = window.welcomePage();
    QVERIFY(page->isVisible());
    QVERIFY(page->openDemoButton()->isVisible() && page->openFlightButton()->isVisible());
    QCOMPARE(page->recentList()->count(), 0);

    // A project opened once is listed; choosing it opens it and the map replaces the page.
    QSignalSpy loaded(&window, &ui::MainWindow::resultsLoaded);
    QVERIFY(window.openProject(flight.project));
    QVERIFY(loaded.wait(kTimeoutMs));
    QVERIFY(!window.isWelcomeShown());
    QVERIFY(window.mapView()->isVisible());
    QCOMPARE(page->recentList()->count(), 2);  // the project and its results folder
    QVERIFY(page->recentList()->item(0)->text().contains("flight_results"));  // read last: first
    QVERIFY(page->recentList()->item(1)->text().contains("flight.skytrace"));

    ui::MainWindow second(remembering);
    second.show();
    QVERIFY(second.isWelcomeShown());
    QCOMPARE(second.welcomePage()->recentList()->count(), 2);
    QSignalSpy opened(&second, &ui::MainWindow::projectOpened);
    QListWidgetItem* item = second.welcomePage()->recentList()->item(1);  // the project
    QTest::mouseClick(second.welcomePage()->recentList()->viewport(), Qt::LeftButton, {},
                      second.welcomePage()->recentList()->visualItemRect(item).center());
    QCOMPARE(opened.count(), 1);
    QVERIFY(!second.isWelcomeShown());
  }

  void theDemoIsBuiltOpenedAndProcessed() {
    QTemporaryDir dir;
    const QString folder = dir.filePath("demo");
    ui::MainWindow window(batchOptions());
    window.resize(1280, 800);
    window.show();
    QSignalSpy opened(&window, &ui::MainWindow::projectOpened);
    QSignalSpy started(window.processing(), &ui::ProcessingController::started);
    QSignalSpy finished(window.processing(), &ui::ProcessingController::finished);
    QSignalSpy errors(&window, &ui::MainWindow::errorReported);
    QVERIFY(window.openDemo(folder));
    QVERIFY(window.welcomePage()->demoProgress()->isVisible());
    QVERIFY(!window.welcomePage()->openDemoButton()->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(opened.count() == 1 || errors.count() > 0, kTimeoutMs);
    QVERIFY2(errors.isEmpty(), errors.isEmpty() ? "" : qPrintable(errors.first().first().toString()));
    QCOMPARE(opened.first().first().toString(), QFileInfo(folder + "/demo.skytrace").absoluteFilePath());
    QVERIFY(!window.welcomePage()->demoProgress()->isVisible());
    QVERIFY(!window.isWelcomeShown());
    QCOMPARE(window.mapView()->basemapCount(), 1);
    QCOMPARE(QString::fromStdString(window.project().feature_model), QString("orb"));
    // Processing starts by itself; stop it (a run of the whole demo is test_cli_demo's).
    QTRY_VERIFY_WITH_TIMEOUT(started.count() == 1, kTimeoutMs);
    window.action("cancelProcessing")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, kTimeoutMs);

    // Built once: opening it again does not rebuild.
    ui::MainWindow again(batchOptions());
    again.show();
    QSignalSpy opened_again(&again, &ui::MainWindow::projectOpened);
    QVERIFY(again.openDemo(folder));
    QCOMPARE(opened_again.count(), 1);  // at once, without a build
    QVERIFY(!again.welcomePage()->demoProgress()->isVisible());
    again.action("cancelProcessing")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!again.processing()->isRunning(), kTimeoutMs);
  }

  void aMissingCommandLineToolIsAClearError() {
    qputenv("SKYTRACE_CLI", "/nonexistent/skytrace-cli");
    ui::MainWindow window(batchOptions());
    QSignalSpy errors(&window, &ui::MainWindow::errorReported);
    QTemporaryDir dir;
    window.openDemo(dir.filePath("demo"));
    QTRY_VERIFY_WITH_TIMEOUT(errors.count() == 1, 10000);
    QVERIFY2(errors.first().first().toString().contains("skytrace-cli"), qPrintable(errors.first().first().toString()));
    QVERIFY(window.welcomePage()->openDemoButton()->isEnabled());
    qputenv("SKYTRACE_CLI", SKYTRACE_CLI_EXECUTABLE);
  }
};

QTEST_MAIN(TestWelcomePage)
#include "test_welcome_page.moc"
