// TimePlot and TimePlotStack offscreen on series of known values: zooming time in one
// plot moves the others, the mouse over one gives every plot's read-out at that time,
// a legend click hides a series, the value axis ignores far outliers, only the bottom
// plot labels time, the shown plots are kept by key, and the stack exports as one image.
#include <QMouseEvent>
#include <QRegularExpression>
#include <QSplitter>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

#include <cmath>
#include <limits>
#include <memory>

#include "ui/qcustomplot_include.h"
#include "ui/time_plot.h"
#include "ui/time_plot_stack.h"

using namespace skytrace;

namespace {

// 101 samples over 0..10 s: value(t) per sample.
template <typename F>
void fill(ui::TimePlot* plot, int series, F value) {
  QVector<double> t, v;
  for (int i = 0; i <= 100; ++i) {
    t << i * 0.1;
    v << value(i * 0.1);
  }
  plot->setSeriesData(series, t, v);
}

ui::TimePlot* makePlot(const QString& name) {
  auto* plot = new ui::TimePlot();
  plot->addSeries(Qt::red);
  plot->setSeriesName(0, name);
  plot->setAxisTitles("Video time [s]", name);
  return plot;
}

}  // namespace

class TestTimePlotStack : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void plotsShareOneTimeAxis() {
    ui::TimePlotStack stack;
    ui::TimePlot* speed = makePlot("Speed");
    ui::TimePlot* height = makePlot("Height");
    ui::TimePlot* hidden = makePlot("Hidden");
    fill(speed, 0, [](double t) { return 10.0 + t; });
    fill(height, 0, [](double t) { return 100.0 - t; });
    stack.addPlot(speed, "speed", true);
    stack.addPlot(height, "height", true);
    stack.addPlot(hidden, "hidden", false);
    stack.resize(800, 500);
    stack.show();
    QVERIFY(QTest::qWaitForWindowExposed(&stack));

    // Zoom in one plot: every plot, shown or not, shows the same time window.
    speed->plot()->xAxis->setRange(2.0, 4.0);
    QCOMPARE(height->plot()->xAxis->range().lower, 2.0);
    QCOMPARE(hidden->plot()->xAxis->range().upper, 4.0);

    // Only the bottom shown plot labels time; hiding it passes the label up.
    QVERIFY(!speed->plot()->xAxis->tickLabels());
    QVERIFY(height->plot()->xAxis->tickLabels());
    QCOMPARE(height->plot()->xAxis->label(), QString("Video time [s]"));
    stack.toggleButton(height)->click();
    QVERIFY(height->isHidden());
    QVERIFY(speed->plot()->xAxis->tickLabels());
    QCOMPARE(stack.shownKeys(), QStringList({"speed"}));
    stack.setShownKeys({"speed", "height"});
    QVERIFY(!height->isHidden());
    QVERIFY(stack.toggleButton(height)->isChecked());

    // The mouse over one plot: the read-out at that time in both.
    speed->plot()->replot();
    height->plot()->replot();
    const QCPAxis* x = speed->plot()->xAxis;
    const QPointF at(x->coordToPixel(3.0), speed->plot()->axisRect()->center().y());
    QMouseEvent move(QEvent::MouseMove, at, speed->plot()->mapToGlobal(at), Qt::NoButton, Qt::NoButton,
                     Qt::NoModifier);
    QCoreApplication::sendEvent(speed->plot(), &move);
    QVERIFY2(speed->hoverText().contains("Speed: 13.00"), qPrintable(speed->hoverText()));
    QVERIFY2(height->hoverText().contains("Height: 97.00"), qPrintable(height->hoverText()));
    QVERIFY(height->hoverText().startsWith("t = 3.00 s"));
  }

  void legendClickHidesASeriesAndTheAxisFitsTheRest() {
    ui::TimePlot plot;
    plot.addSeries(Qt::blue);
    plot.addSeries(Qt::red);
    plot.setSeriesName(0, "GNSS");
    plot.setSeriesName(1, "Visual");
    // Visual: 15 m/s with one 600 m/s spike; GNSS: 1000 m/s throughout.
    fill(&plot, 1, [](double t) { return std::abs(t - 5.0) < 0.05 ? 600.0 : 15.0 + std::sin(t); });
    fill(&plot, 0, [](double) { return 1000.0; });
    plot.resize(600, 300);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.plot()->replot();

    QCPAbstractLegendItem* gnss = plot.plot()->legend->item(0);
    QVERIFY(gnss);
    const QPoint centre = gnss->rect().center();
    QTest::mouseClick(plot.plot(), Qt::LeftButton, {}, centre);
    QVERIFY(!plot.isSeriesShown(0));
    plot.rescale(10.0);
    // The visual series alone, its spike off the axis: 14..16 m/s fills the plot.
    QVERIFY2(plot.plot()->yAxis->range().upper < 30.0, qPrintable(QString::number(plot.plot()->yAxis->range().upper)));
    QVERIFY(plot.plot()->yAxis->range().lower > 10.0);
    QTest::mouseClick(plot.plot(), Qt::LeftButton, {}, centre);
    QVERIFY(plot.isSeriesShown(0));
    plot.rescale(10.0);
    QVERIFY(plot.plot()->yAxis->range().upper > 1000.0);  // shown again, fitted again

    // The legend lists only series with data, in series order; an empty plot has none.
    plot.addSeries(Qt::green);
    plot.setSeriesName(2, "Raw visual odometry");
    plot.commitData();
    QCOMPARE(plot.plot()->legend->itemCount(), 2);
    plot.setSeriesData(0, {}, {});
    plot.commitData();
    QCOMPARE(plot.plot()->legend->itemCount(), 1);
    QVERIFY(plot.plot()->legend->hasItemWithPlottable(plot.plot()->graph(1)));
    fill(&plot, 2, [](double) { return 3.0; });
    fill(&plot, 0, [](double) { return 1000.0; });
    plot.commitData();
    QCOMPARE(plot.plot()->legend->itemCount(), 3);
    QVERIFY(plot.plot()->legend->itemWithPlottable(plot.plot()->graph(0)) == plot.plot()->legend->item(0));
    for (int k = 0; k < 3; ++k) plot.setSeriesData(k, {}, {});
    plot.commitData();
    QVERIFY(!plot.plot()->legend->visible());  // no empty legend box
  }

  // Issue 20: where the flight's UTC is known, the time axis reads UTC clock times at
  // round UTC seconds (not round offsets from the video start) and the hover read-out
  // says the UTC time; without it, video seconds.
  void aFlatSeriesGetsAReadableAxis() {
    ui::TimePlot plot;
    plot.addSeries(Qt::blue);
    fill(&plot, 0, [](double) { return 0.889; });  // one GNSS distance repeated
    plot.rescale(10.0);
    const QCPRange range = plot.plot()->yAxis->range();
    QVERIFY2(range.lower <= -0.1 && range.upper >= 1.8,
             qPrintable(QString("%1 .. %2").arg(range.lower).arg(range.upper)));
    fill(&plot, 0, [](double) { return 120.0; });  // a constant height: 10 % either side
    plot.rescale(10.0);
    QCOMPARE(plot.plot()->yAxis->range().lower, 108.0);
    QCOMPARE(plot.plot()->yAxis->range().upper, 132.0);
  }

  void timeAxisShowsUtcWhereKnown() {
    std::unique_ptr<ui::TimePlot> plot(makePlot("Speed"));
    fill(plot.get(), 0, [](double t) { return t; });
    plot->resize(800, 200);
    plot->show();
    QVERIFY(QTest::qWaitForWindowExposed(plot.get()));
    plot->plot()->xAxis->setRange(0.0, 120.0);
    plot->plot()->replot();
    QCOMPARE(plot->plot()->xAxis->label(), QString("Video time [s]"));
    QVERIFY2(plot->timeTickLabels().contains("50"), qPrintable(plot->timeTickLabels().join(' ')));

    const double start_unix_s = 1585840848.77 - 50.05;  // m2zoom.SRT: 15:20:48.770 at 50.05 s
    plot->setTimeOrigin(start_unix_s);
    plot->plot()->replot();
    QCOMPARE(plot->plot()->xAxis->label(), QString("Time [UTC]"));
    const QStringList labels = plot->timeTickLabels();
    QVERIFY2(labels.size() >= 3, qPrintable(labels.join(' ')));
    QVector<double> ticks;
    plot->plot()->xAxis->ticker()->generate(plot->plot()->xAxis->range(), QLocale(), 'g', 6, ticks, nullptr, nullptr);
    QCOMPARE(ticks.size(), labels.size());
    for (int k = 0; k < labels.size(); ++k) {
      QVERIFY2(QRegularExpression("^15:2[01]:[0-5][0-9]$").match(labels[k]).hasMatch(), qPrintable(labels[k]));
      const double utc_s = start_unix_s + ticks[k];
      QVERIFY2(std::abs(utc_s - std::round(utc_s / 10.0) * 10.0) < 1e-3, qPrintable(labels[k]));  // round times
    }
    plot->setHoverTime(50.05);
    QVERIFY2(plot->hoverText().contains("15:20:48.770 UTC"), qPrintable(plot->hoverText()));

    plot->setTimeOrigin(std::numeric_limits<double>::quiet_NaN());
    plot->plot()->replot();
    QCOMPARE(plot->plot()->xAxis->label(), QString("Video time [s]"));
    QVERIFY2(plot->timeTickLabels().contains("50"), qPrintable(plot->timeTickLabels().join(' ')));
  }

  void theStackExportsAsOneTitledImage() {
    ui::TimePlotStack stack;
    ui::TimePlot* a = makePlot("A");
    ui::TimePlot* b = makePlot("B");
    fill(a, 0, [](double t) { return t; });
    fill(b, 0, [](double t) { return -t; });
    stack.addPlot(a, "a", true);
    stack.addPlot(b, "b", true);
    stack.resize(600, 400);
    stack.show();
    QTemporaryDir dir;
    const QString png = dir.filePath("plots.png");
    QVERIFY(stack.exportImage(png, "Skytrace: test flight"));
    const QImage image(png);
    QCOMPARE(image.size(), QSize(1400, 50 + 2 * 300));
    int dark = 0;  // the title's text
    for (int y = 0; y < 50; ++y)
      for (int x = 0; x < 400; ++x) dark += qGray(image.pixel(x, y)) < 100;
    QVERIFY2(dark > 50, qPrintable(QString::number(dark)));
    const QString pdf = dir.filePath("plots.pdf");
    QVERIFY(stack.exportImage(pdf, "Skytrace: test flight"));
    QFile file(pdf);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.read(5), QByteArray("%PDF-"));
  }
};

QTEST_MAIN(TestTimePlotStack)
#include "test_time_plot_stack.moc"
