// The events panel and the timeline's markers, offscreen, on the synthetic processed
// flight (tests/synthetic_flight.h: a registration rejected at 2.0 s, GNSS flagged from
// 3.0 to 4.0 s, odometry lost at frames 45-47): the rows in time order, a click seeks
// the timeline, the filter hides a kind in the list and on the slider, the slider shows
// the markers in their colours, live results grow a lost run, and a typed time hands
// the keyboard back to the playback shortcuts.
#include <QLineEdit>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeWidget>
#include <QtTest>

#include "tests/synthetic_flight.h"
#include "ui/events_panel.h"
#include "ui/main_window.h"
#include "tests/ui/window_test_support.h"
#include "ui/results_model.h"
#include "ui/time_model.h"
#include "ui/timeline_widget.h"
#include "ui/video_panel.h"

using namespace skytrace;
using test::batchOptions;
using app::FlightEventKind;

namespace {

constexpr int kLoadTimeoutMs = 20000;

// Pixels of `image` within `tolerance` of `colour` in every channel.
int pixelsOfColour(const QImage& image, const QColor& colour, int tolerance = 12) {
  int count = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      const QColor c = image.pixelColor(x, y);
      if (std::abs(c.red() - colour.red()) <= tolerance && std::abs(c.green() - colour.green()) <= tolerance &&
          std::abs(c.blue() - colour.blue()) <= tolerance)
        ++count;
    }
  return count;
}

}  // namespace

class TestEventsPanel : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(dir_.isValid());
    flight_ = test::writeSyntheticFlight(dir_.path());
  }

  void eventsAreListedAndSeekTheTimeline() {
    ui::MainWindow window(batchOptions());
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(test::openProjectAndWait(window, flight_.project, kLoadTimeoutMs));

    ui::EventsPanel* panel = window.eventsPanel();
    QTreeWidget* list = panel->list();
    QTRY_COMPARE_WITH_TIMEOUT(list->topLevelItemCount(), 4, 2000);
    QVERIFY(list->isVisible());
    QCOMPARE(list->topLevelItem(0)->text(0), QString("0:02.0"));
    QCOMPARE(list->topLevelItem(0)->text(1), QString("Registration rejected"));
    QVERIFY2(list->topLevelItem(0)->text(2).contains("too few matches agree (1)"),
             qPrintable(list->topLevelItem(0)->text(2)));
    QCOMPARE(list->topLevelItem(1)->text(1), QString("GNSS flagged"));
    QVERIFY(list->topLevelItem(1)->text(2).contains("40.0 m"));
    QCOMPARE(list->topLevelItem(2)->text(1), QString("Odometry lost"));
    QVERIFY(list->topLevelItem(2)->text(2).contains("3 frames"));
    // The accepted fix 30 m east of the track at frame 50, which the track set aside.
    QCOMPARE(list->topLevelItem(3)->text(1), QString("Registration set aside"));
    QVERIFY2(list->topLevelItem(3)->text(2).contains("140 inliers") && list->topLevelItem(3)->text(2).contains("30.0 m"),
             qPrintable(list->topLevelItem(3)->text(2)));
    // The UTC time of each event is its tooltip (the log dates the flight).
    QCOMPARE(list->topLevelItem(1)->toolTip(0), QString("2024-06-01 10:00:03.000 UTC"));
    QCOMPARE(panel->filterButton(FlightEventKind::FlaggedGnss)->text(), QString("GNSS flagged (1)"));
    QCOMPARE(panel->filterButton(FlightEventKind::GnssDropout)->text(), QString("GNSS dropout (0)"));

    // A click seeks the timeline (and the video with it) to the event's start.
    const QRect row = list->visualItemRect(list->topLevelItem(1));
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, row.center());
    QCOMPARE(window.timeModel()->currentFrame(), 30);
    QTRY_VERIFY_WITH_TIMEOUT(window.videoPanel()->caption().contains("frame 30 of 60"), kLoadTimeoutMs);

    // The slider carries one marker per event, in the kinds' colours.
    ui::TimelineWidget* timeline = window.timeline();
    QCOMPARE(int(timeline->markers().size()), 4);
    const QImage slider = timeline->slider()->grab().toImage();
    for (FlightEventKind kind : {FlightEventKind::FlaggedGnss, FlightEventKind::RejectedFixes,
                                 FlightEventKind::OdometryLost, FlightEventKind::FixFarFromTrack})
      QVERIFY2(pixelsOfColour(slider, ui::EventsPanel::colourOf(kind)) >= 6,
               app::flightEventKindName(kind));

    // Filtering a kind out hides its rows and its markers; the selection survives.
    panel->filterButton(FlightEventKind::RejectedFixes)->click();
    QCOMPARE(list->topLevelItemCount(), 3);
    QCOMPARE(list->currentItem()->text(1), QString("GNSS flagged"));
    QCOMPARE(int(timeline->markers().size()), 3);
    QCOMPARE(pixelsOfColour(timeline->slider()->grab().toImage(),
                            ui::EventsPanel::colourOf(FlightEventKind::RejectedFixes)),
             0);
    panel->filterButton(FlightEventKind::RejectedFixes)->click();
    QCOMPARE(list->topLevelItemCount(), 4);

    // Enter on a row seeks too.
    list->setFocus();
    list->setCurrentItem(list->topLevelItem(2));
    QTest::keyClick(list, Qt::Key_Return);
    QCOMPARE(window.timeModel()->currentFrame(), 45);
  }

  // While a flight is processed, lost frames arrive one by one: consecutive ones are one
  // run, and the panel follows.
  void liveLostFramesGrowOneRun() {
    ui::ResultsModel results;
    ui::TimeModel time;
    time.setTimeline(100, 10.0);
    ui::EventsPanel panel(&results, &time);
    results.beginLive("cpu", "orb");
    for (int frame = 0; frame < 20; ++frame) {
      ui::LiveFrameUpdate update;
      update.frame = frame;
      update.t_s = frame / 10.0;
      update.odometry_lost = (frame >= 5 && frame <= 8) || frame == 12;
      results.addFrame(update);
    }
    const auto& lost = results.results().odometry_lost;
    QCOMPARE(int(lost.size()), 2);
    QCOMPARE(lost[0].start_frame, std::int64_t(5));
    QCOMPARE(lost[0].end_frame, std::int64_t(8));
    QCOMPARE(lost[1].start_frame, std::int64_t(12));
    panel.refresh();
    QCOMPARE(panel.list()->topLevelItemCount(), 2);
    QVERIFY(panel.list()->topLevelItem(0)->text(2).contains("4 frames"));
  }

  // Issue 20: after Ctrl+J and a typed time, Space and Left went to the time field.
  void aTypedTimeHandsTheKeyboardBack() {
    ui::MainWindow window(batchOptions());
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QVERIFY(test::openProjectAndWait(window, flight_.project, kLoadTimeoutMs));

    QLineEdit* edit = window.timeline()->timeEdit();
    window.action("jumpToTime")->trigger();
    QTRY_VERIFY(edit->hasFocus());
    edit->selectAll();
    QTest::keyClicks(edit, "2.5");
    QTest::keyClick(edit, Qt::Key_Return);
    QCOMPARE(window.timeModel()->currentFrame(), 25);
    QVERIFY(!edit->hasFocus());
    QTest::keyClick(&window, Qt::Key_Left);
    QCOMPARE(window.timeModel()->currentFrame(), 24);

    // Escape drops what was typed.
    window.action("jumpToTime")->trigger();
    QTRY_VERIFY(edit->hasFocus());
    QTest::keyClicks(edit, "9");
    QTest::keyClick(edit, Qt::Key_Escape);
    QVERIFY(!edit->hasFocus());
    QCOMPARE(window.timeModel()->currentFrame(), 24);
    QCOMPARE(edit->text(), QString("2.40"));
  }

 private:
  QTemporaryDir dir_;
  test::SyntheticFlight flight_;
};

QTEST_MAIN(TestEventsPanel)
#include "test_events_panel.moc"
