// MapView on a real orthophoto (offscreen): the view fits the raster, shows imagery,
// keeps nodata transparent, and pan/zoom move the map rectangle exactly as the mouse did;
// the legend, the context menu and the distance/area measurement act on what is under
// the cursor.
#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QMenu>
#include <QMouseEvent>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QSignalSpy>
#include <QWheelEvent>
#include <QtTest>

#include <memory>

#include "core/geo/basemap.h"
#include "core/geo/geodesy.h"
#include "tests/test_support.h"
#include "tests/ui/image_checks.h"
#include "ui/map_view.h"

using namespace skytrace;

namespace {

constexpr int kIdleTimeoutMs = 20000;

std::shared_ptr<const geo::Basemap> openShared(const QString& relative) {
  return std::make_shared<const geo::Basemap>(
      geo::Basemap::open(test::sharedPath(relative).toStdString()));
}

void sendMouse(QWidget* widget, QEvent::Type type, QPointF pos, Qt::MouseButton button,
               Qt::MouseButtons buttons) {
  QMouseEvent event(type, pos, widget->mapToGlobal(pos), button, buttons, Qt::NoModifier);
  QCoreApplication::sendEvent(widget, &event);
}

// Shows `view` at `size` with `basemap` and waits until its first read is on screen.
bool showWithBasemap(ui::MapView& view, std::shared_ptr<const geo::Basemap> basemap, QSize size) {
  view.resize(size);
  view.show();
  if (!QTest::qWaitForWindowExposed(&view)) return false;
  view.addBasemap(std::move(basemap));
  return QTest::qWaitFor([&] { return view.isIdle(); }, kIdleTimeoutMs);
}

void click(QWidget* widget, QPointF pos) {
  sendMouse(widget, QEvent::MouseButtonPress, pos, Qt::LeftButton, Qt::LeftButton);
  sendMouse(widget, QEvent::MouseButtonRelease, pos, Qt::LeftButton, Qt::NoButton);
}

// A track overlay with one clickable point (video time t_s) under a widget pixel.
void addClickablePoint(ui::MapView& view, QPointF at, double t_s) {
  ui::MapView::TrackOverlay track;
  track.name = "track";
  track.points = {*view.geoFromWidget(at)};
  track.t_s = {t_s};
  track.color = Qt::red;
  view.setTrackOverlay(track);
}

QAction* actionNamed(QMenu* menu, const char* name) {
  for (QAction* action : menu->actions())
    if (action->objectName() == QLatin1String(name)) return action;
  return nullptr;
}

}  // namespace

class TestMapView : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void init() { SKYTRACE_REQUIRE_SHARED(); }

  void fitsAndShowsImagery() {
    auto basemap = openShared("data/orthophotos/australia.tif");
    ui::MapView view;
    QVERIFY(showWithBasemap(view, basemap, QSize(800, 600)));

    // The whole raster is visible and fills the view along its tighter axis (5 % margin).
    const geo::MapRect bounds = basemap->mapBounds();
    const geo::MapRect visible = view.visibleMapRect();
    QVERIFY(visible.min_x <= bounds.min_x && visible.max_x >= bounds.max_x);
    QVERIFY(visible.min_y <= bounds.min_y && visible.max_y >= bounds.max_y);
    const double fill = std::max(bounds.width() / visible.width(), bounds.height() / visible.height());
    QVERIFY2(std::abs(fill - 1.0 / 1.05) < 1e-6, qPrintable(QString::number(fill)));
    // UTM metres are ground metres within the projection's scale error (< 0.1 % here).
    QVERIFY(std::abs(view.metresPerPixel() / view.unitsPerPixel() - 1.0) < 1e-3);
    // australia.tif: 751 x 708 px at 0.018 m -> 708 * 0.018 * 1.05 / 600 m per widget px.
    QVERIFY(std::abs(view.metresPerPixel() - 708 * 0.018 * 1.05 / 600) < 2e-4);

    const QImage shot = view.grab().toImage();
    const QPoint centre = view.widgetFromMap({0.5 * (bounds.min_x + bounds.max_x),
                                              0.5 * (bounds.min_y + bounds.max_y)}).toPoint();
    const QRect map_area(centre - QPoint(150, 150), QSize(300, 300));
    QVERIFY2(test::distinctColours(shot, map_area) > 2000,
             qPrintable(QString::number(test::distinctColours(shot, map_area))));
    QVERIFY(test::greyStdDev(shot, map_area) > 10.0);

    // The cursor's lat/lon lies in the raster's WGS84 footprint (Australia, UTM 53S).
    const auto geo_point = view.geoFromWidget(centre);
    QVERIFY(geo_point.has_value());
    const geo::GeoBBox& box = basemap->footprint().bbox;
    QVERIFY(geo_point->lat_deg > box.min_lat_deg && geo_point->lat_deg < box.max_lat_deg);
    QVERIFY(geo_point->lon_deg > box.min_lon_deg && geo_point->lon_deg < box.max_lon_deg);
    QVERIFY(geo_point->lat_deg < -10.0 && geo_point->lat_deg > -20.0);
  }

  void nodataIsTransparent() {
    // An OpenAerialMap tile padded with nodata: where the basemap says "no imagery" the
    // view shows its own background, not black pixels.
    auto basemap = openShared("data/orthophotos/5b90f92da0d7280005fab355_4310.tif");
    const geo::BasemapWindow full = basemap->readWindow(basemap->mapBounds(), basemap->pixelSizeM() * 8);
    cv::Point invalid(-1, -1);
    for (int r = 2; r < full.valid.rows - 2 && invalid.x < 0; ++r)
      for (int c = 2; c < full.valid.cols - 2; ++c)
        if (cv::countNonZero(full.valid(cv::Rect(c - 2, r - 2, 5, 5))) == 0) {
          invalid = {c, r};
          break;
        }
    if (invalid.x < 0) QSKIP("this tile has no nodata area");
    const geo::MapPoint p_in_map = full.map_from_pixel.mapFromPixel(invalid.x + 0.5, invalid.y + 0.5);

    ui::MapView view;
    QVERIFY(showWithBasemap(view, basemap, QSize(640, 640)));
    const QImage shot = view.grab().toImage();
    const QPoint pixel = view.widgetFromMap(p_in_map).toPoint();
    QVERIFY(shot.rect().contains(pixel));
    QCOMPARE(QColor(shot.pixel(pixel)), QColor(38, 42, 48));  // MapView's background
  }

  void dragPansByTheMouseDistance() {
    auto basemap = openShared("data/orthophotos/australia.tif");
    ui::MapView view;
    QVERIFY(showWithBasemap(view, basemap, QSize(800, 600)));

    const geo::MapRect before = view.visibleMapRect();
    const double upp = view.unitsPerPixel();
    const QPointF start(400, 300);
    const QPointF end(500, 250);  // 100 px right, 50 px up
    sendMouse(&view, QEvent::MouseButtonPress, start, Qt::LeftButton, Qt::LeftButton);
    sendMouse(&view, QEvent::MouseMove, QPointF(450, 280), Qt::NoButton, Qt::LeftButton);
    sendMouse(&view, QEvent::MouseMove, end, Qt::NoButton, Qt::LeftButton);
    sendMouse(&view, QEvent::MouseButtonRelease, end, Qt::LeftButton, Qt::NoButton);

    // Content follows the mouse: the view moved 100 px west and 50 px south.
    const geo::MapRect after = view.visibleMapRect();
    QVERIFY(std::abs((after.min_x - before.min_x) - (-100 * upp)) < 1e-6);
    QVERIFY(std::abs((after.min_y - before.min_y) - (-50 * upp)) < 1e-6);
    QVERIFY(std::abs(after.width() - before.width()) < 1e-6);
    QCOMPARE(view.unitsPerPixel(), upp);
    QTRY_VERIFY_WITH_TIMEOUT(view.isIdle(), kIdleTimeoutMs);
  }

  void wheelZoomsAroundTheCursor() {
    auto basemap = openShared("data/orthophotos/australia.tif");
    ui::MapView view;
    QVERIFY(showWithBasemap(view, basemap, QSize(800, 600)));

    const QPointF cursor(250, 180);
    const geo::MapPoint under_cursor = view.mapFromWidget(cursor);
    const double upp = view.unitsPerPixel();
    QWheelEvent wheel(cursor, view.mapToGlobal(cursor), QPoint(), QPoint(0, 240), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(&view, &wheel);

    QVERIFY(std::abs(view.unitsPerPixel() - upp / 2.0) < 1e-12);  // two notches: 2x
    const geo::MapPoint still_under = view.mapFromWidget(cursor);
    QVERIFY(std::abs(still_under.x - under_cursor.x) < 1e-6);
    QVERIFY(std::abs(still_under.y - under_cursor.y) < 1e-6);
    QVERIFY(std::abs(view.visibleMapRect().width() - 800 * upp / 2.0) < 1e-6);

    // The new read is at the finer resolution and still shows imagery.
    QTRY_VERIFY_WITH_TIMEOUT(view.isIdle(), kIdleTimeoutMs);
    const QImage shot = view.grab().toImage();
    QVERIFY(test::distinctColours(shot, QRect(200, 150, 400, 300)) > 2000);

    // Zoom out past the limit is clamped, not inverted.
    for (int i = 0; i < 40; ++i) view.zoomBy(0.5);
    QVERIFY(view.unitsPerPixel() > upp);
    QVERIFY(std::isfinite(view.unitsPerPixel()));
    QTRY_VERIFY_WITH_TIMEOUT(view.isIdle(), kIdleTimeoutMs);
  }

  void layerInAnotherCrsLandsOnTheSameGround() {
    // australia.tif warped to WGS84 by GDAL's own gdalwarp, drawn over the UTM original:
    // if the CRS path places it right, the view looks the same as with the original only.
    const QString gdalwarp = QStandardPaths::findExecutable("gdalwarp");
    if (gdalwarp.isEmpty()) QSKIP("gdalwarp (gdal-bin) not installed");
    QTemporaryDir dir;
    const QString warped = dir.filePath("australia_wgs84.tif");
    QCOMPARE(QProcess::execute(gdalwarp, {"-q", "-t_srs", "EPSG:4326", "-r", "bilinear", "-dstalpha",
                                          test::sharedPath("data/orthophotos/australia.tif"), warped}),
             0);
    auto original = openShared("data/orthophotos/australia.tif");
    auto wgs84 = std::make_shared<const geo::Basemap>(geo::Basemap::open(warped.toStdString()));

    ui::MapView reference;
    reference.resize(600, 600);
    reference.show();
    QVERIFY(QTest::qWaitForWindowExposed(&reference));
    reference.addBasemap(original);
    reference.zoomBy(2.0);  // look at the interior, well inside both rasters
    QTRY_VERIFY_WITH_TIMEOUT(reference.isIdle(), kIdleTimeoutMs);

    ui::MapView stacked;
    stacked.resize(600, 600);
    stacked.show();
    QVERIFY(QTest::qWaitForWindowExposed(&stacked));
    stacked.addBasemap(original);
    stacked.addBasemap(wgs84);  // drawn on top, read in EPSG:4326
    stacked.setView(reference.centre(), reference.unitsPerPixel());
    QTRY_VERIFY_WITH_TIMEOUT(stacked.isIdle(), kIdleTimeoutMs);

    const QImage a = reference.grab().toImage().convertToFormat(QImage::Format_Grayscale8);
    const QImage b = stacked.grab().toImage().convertToFormat(QImage::Format_Grayscale8);
    auto meanAbsDiff = [&](const QImage& x, const QImage& y, int dx) {
      double sum = 0.0;
      int n = 0;
      for (int row = 150; row < 450; ++row)
        for (int col = 150; col < 450; ++col, ++n)
          sum += std::abs(int(x.constScanLine(row)[col]) - int(y.constScanLine(row)[col + dx]));
      return sum / n;
    };
    const double aligned = meanAbsDiff(a, b, 0);
    const double shifted_2px = meanAbsDiff(a, a, 2);  // what a 2 px misplacement costs
    qInfo("mean |grey difference|: stacked %.2f, reference shifted by 2 px %.2f", aligned, shifted_2px);
    QVERIFY2(aligned < 0.5 * shifted_2px,
             qPrintable(QString("aligned %1 vs 2 px shift %2").arg(aligned).arg(shifted_2px)));
  }

  // Issue 20: clicks while measuring add points; the path's length and enclosed area are
  // the ground's (UTM metres here, within the projection's 0.1 % scale error), drawn on
  // the map; Backspace takes the last point back, Escape ends measuring.
  void measuringClicksOutAPathAndItsArea() {
    auto basemap = openShared("data/orthophotos/australia.tif");
    ui::MapView view;
    QVERIFY(showWithBasemap(view, basemap, QSize(800, 600)));
    addClickablePoint(view, QPointF(100, 100), 12.5);  // where the first click lands
    QSignalSpy seeks(&view, &ui::MapView::timeClicked);
    QSignalSpy changes(&view, &ui::MapView::measurementChanged);

    view.setMeasuring(true);
    for (QPointF p : {QPointF(100, 100), QPointF(400, 100), QPointF(400, 400)}) click(&view, p);
    QCOMPARE(seeks.count(), 0);  // measuring, not seeking
    QCOMPARE(int(view.measurePoints().size()), 3);
    QCOMPARE(changes.count(), 3);
    const double mpp = view.metresPerPixel();
    QVERIFY2(std::abs(view.measuredLengthM() / (600 * mpp) - 1.0) < 2e-3,
             qPrintable(QString("%1 m, expected %2 m").arg(view.measuredLengthM()).arg(600 * mpp)));
    QVERIFY2(std::abs(view.measuredAreaM2() / (0.5 * 300 * 300 * mpp * mpp) - 1.0) < 4e-3,
             qPrintable(QString::number(view.measuredAreaM2())));
    const QImage shot = view.grab().toImage();
    QCOMPARE(QColor(shot.pixel(250, 100)), QColor(Qt::white));  // the first segment, drawn white
    QCOMPARE(QColor(shot.pixel(400, 250)), QColor(Qt::white));

    QTest::keyClick(&view, Qt::Key_Backspace);
    QCOMPARE(int(view.measurePoints().size()), 2);
    QCOMPARE(view.measuredAreaM2(), 0.0);
    QTest::keyClick(&view, Qt::Key_Escape);
    QVERIFY(!view.isMeasuring());
    QVERIFY(view.measurePoints().empty());
    click(&view, QPointF(100, 100));
    QCOMPARE(seeks.count(), 1);  // clicks seek again
    QCOMPARE(ui::lengthText(1234.6), QString("1.235 km"));
    QCOMPARE(ui::lengthText(12.34), QString("12.3 m"));
    QCOMPARE(ui::areaText(12500.0), QString("1.25 ha"));
  }

  // Issue 20: a log reviewed without any basemap is drawn on a metre grid in its UTM zone
  // (the map is never empty while there is a track); the first basemap takes the view
  // over, and closing it leaves the track on the grid.
  void trackWithoutBasemapIsDrawnOnAGrid() {
    ui::MapView view;
    view.resize(800, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(!view.hasView());
    // A 400 m track heading east, then 300 m north, over Adelaide (UTM zone 54S).
    const geo::LocalEnuFrame enu(geo::GeoPoint{-34.93, 138.60, 0.0});
    ui::MapView::TrackOverlay track;
    track.name = "gnss:log";
    track.color = QColor(255, 196, 0);
    track.casing = false;
    for (int k = 0; k <= 70; ++k) {
      const geo::EnuPoint p = k <= 40 ? geo::EnuPoint{10.0 * k, 0.0, 0.0} : geo::EnuPoint{400.0, 10.0 * (k - 40), 0.0};
      track.points.push_back(enu.toGeo(p));
      track.t_s.push_back(k);
    }
    view.setTrackOverlay(track);
    QVERIFY(view.hasView());
    QVERIFY(view.isGridView());
    QCOMPARE(QString::fromStdString(view.viewCrsName()), QString("WGS 84 / UTM zone 54S (EPSG:32754)"));
    // Fitted: the whole track inside the widget, the 400 m leg spanning most of it.
    for (const geo::GeoPoint& p : track.points) QVERIFY(QRectF(view.rect()).contains(*view.widgetFromGeo(p)));
    const QPointF west = *view.widgetFromGeo(track.points.front());
    const QPointF corner = *view.widgetFromGeo(track.points[40]);
    QVERIFY2(corner.x() - west.x() > 400, qPrintable(QString::number(corner.x() - west.x())));
    // East is right: grid north is within the meridian convergence (-1.4 deg here) of north.
    QVERIFY(std::abs(corner.y() - west.y()) < 0.03 * (corner.x() - west.x()));
    const double mpp = view.metresPerPixel();
    const double leg_px = std::hypot(corner.x() - west.x(), corner.y() - west.y());
    QVERIFY2(std::abs(leg_px * mpp / 400.0 - 1.0) < 2e-3, qPrintable(QString::number(mpp)));
    // What a person sees: the track's colour on the leg, grid lines elsewhere.
    const QImage shot = view.grab().toImage();
    const QPointF mid = (west + corner) / 2.0;
    QCOMPARE(QColor(shot.pixel(mid.toPoint())), QColor(255, 196, 0));
    QVERIFY(test::distinctColours(shot, QRect(0, 0, 800, 600)) >= 3);  // background, grid, track
    // Seeking and measuring work on the grid as on imagery.
    QSignalSpy seeks(&view, &ui::MapView::timeClicked);
    click(&view, corner);
    QCOMPARE(seeks.count(), 1);
    QCOMPARE(seeks.front().front().toDouble(), 40.0);
    view.setMeasuring(true);
    click(&view, west);
    click(&view, corner);
    QVERIFY2(std::abs(view.measuredLengthM() - 400.0) < 1.0, qPrintable(QString::number(view.measuredLengthM())));
    view.setMeasuring(false);

    // A basemap takes the view over; the track is placed in its CRS.
    auto basemap = openShared("data/orthophotos/australia.tif");
    view.addBasemap(basemap);
    QVERIFY(QTest::qWaitFor([&] { return view.isIdle(); }, kIdleTimeoutMs));
    QVERIFY(!view.isGridView());
    QCOMPARE(view.viewCrsName(), basemap->crsName());
    const geo::MapPoint in_basemap = basemap->converter().mapFromGeo(track.points[40]);
    const QPointF expected = view.widgetFromMap(in_basemap);
    QVERIFY((*view.widgetFromGeo(track.points[40]) - expected).manhattanLength() < 1e-6);

    view.clearBasemaps();  // the track stays, on the grid again
    QVERIFY(view.isGridView());
    QVERIFY(QRectF(view.rect()).contains(*view.widgetFromGeo(track.points[40])));
    view.clearTrackOverlays();  // nothing left: no view, the "no basemap" note
    QVERIFY(!view.hasView());
  }

  // A zoom to points asked for before the window is shown (opening a log at start-up)
  // is done at the size the view gets, not at the hidden widget's.
  void zoomBeforeShowingFitsTheShownView() {
    ui::MapView view;
    const geo::LocalEnuFrame enu(geo::GeoPoint{47.37, 8.54, 0.0});
    ui::MapView::TrackOverlay track;
    track.name = "gnss:log";
    track.color = Qt::yellow;
    for (int k = 0; k <= 20; ++k) track.points.push_back(enu.toGeo({10.0 * k, 5.0 * k, 0.0}));
    view.setTrackOverlay(track);
    view.zoomToGeoPoints(track.points, 0.1);
    view.resize(800, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QPointF a = *view.widgetFromGeo(track.points.front());
    const QPointF b = *view.widgetFromGeo(track.points.back());
    // 200 m east with 10 % margins: 667 px at 800 px wide (533 px if fitted to the hidden 640 px).
    QVERIFY2(b.x() - a.x() > 600.0, qPrintable(QString("%1 px").arg(b.x() - a.x())));
    QVERIFY(QRectF(view.rect()).contains(a) && QRectF(view.rect()).contains(b));
  }

  void legendSaysWhatIsDrawn() {
    auto basemap = openShared("data/orthophotos/australia.tif");
    ui::MapView view;
    QVERIFY(showWithBasemap(view, basemap, QSize(800, 600)));
    QVERIFY(view.legendRect().isEmpty());  // nothing to explain yet
    ui::MapView::LegendRamp ramp;
    ramp.title = "Uncertainty";
    ramp.low_label = "0 m";
    ramp.high_label = "12 m";
    ramp.stops = {QColor(0, 255, 0), QColor(255, 0, 0)};
    view.setLegend({{"Visual track", QColor(230, 50, 40)}, {"Logged GNSS", QColor(255, 196, 0)}}, ramp);
    const QRectF box = view.legendRect();
    QVERIFY(!box.isEmpty());
    QVERIFY(box.right() <= 800 && box.top() >= 0 && box.left() > 400);  // top right
    const QImage shot = view.grab().toImage();
    int amber = 0, red = 0;
    for (int y = int(box.top()); y < int(box.bottom()); ++y)
      for (int x = int(box.left()); x < int(box.right()); ++x) {
        const QColor c = shot.pixelColor(x, y);
        amber += c == QColor(255, 196, 0);
        red += c == QColor(230, 50, 40);
      }
    QVERIFY2(amber >= 20 && red >= 20, qPrintable(QString("%1 %2").arg(amber).arg(red)));
    view.setLegendVisible(false);
    QVERIFY(view.legendRect().isEmpty());
  }

  void contextMenuActsOnThePointUnderTheCursor() {
    auto basemap = openShared("data/orthophotos/australia.tif");
    ui::MapView view;
    QVERIFY(showWithBasemap(view, basemap, QSize(800, 600)));
    addClickablePoint(view, QPointF(300, 200), 42.0);
    QSignalSpy seeks(&view, &ui::MapView::timeClicked);

    const QPointF near(320, 210);  // 22 px from the track point
    std::unique_ptr<QMenu> menu(view.createContextMenu(near, &view));
    QVERIFY(actionNamed(menu.get(), "seekHere")->isEnabled());
    actionNamed(menu.get(), "seekHere")->trigger();
    QCOMPARE(seeks.count(), 1);
    QCOMPARE(seeks.first().first().toDouble(), 42.0);

    actionNamed(menu.get(), "copyCoordinates")->trigger();
    const std::optional<geo::GeoPoint> here = view.geoFromWidget(near);
    const QStringList copied = QGuiApplication::clipboard()->text().split(", ");
    QCOMPARE(copied.size(), 2);
    QVERIFY(std::abs(copied[0].toDouble() - here->lat_deg) < 1e-7);
    QVERIFY(std::abs(copied[1].toDouble() - here->lon_deg) < 1e-7);

    const geo::MapPoint target = view.mapFromWidget(near);
    actionNamed(menu.get(), "centreHere")->trigger();
    QVERIFY(std::abs(view.centre().x - target.x) < 1e-6 && std::abs(view.centre().y - target.y) < 1e-6);

    actionNamed(menu.get(), "measureFromHere")->trigger();
    QVERIFY(view.isMeasuring());
    QCOMPARE(int(view.measurePoints().size()), 1);

    std::unique_ptr<QMenu> far(view.createContextMenu(QPointF(700, 500), &view));
    QVERIFY(!actionNamed(far.get(), "seekHere")->isEnabled());  // no track point within 30 px
    QTRY_VERIFY_WITH_TIMEOUT(view.isIdle(), kIdleTimeoutMs);
  }

  void aTrackSplitsAtGapsLongerThanItsOwnSampling() {
    std::vector<double> video;
    for (int k = 0; k <= 300; ++k)
      if (k < 100 || k > 150) video.push_back(k * 0.1);  // 10 fps, 5 s without poses
    QCOMPARE(ui::trackSplitGapS(video), 2.0);             // the 5 s hole splits the line
    QCOMPARE(ui::trackSplitGapS({0.0, 7.0, 14.0, 21.0, 28.0, 37.0}), 21.0);  // photos 7 s apart: one line
    QCOMPARE(ui::trackSplitGapS({}), 2.0);
    QCOMPARE(ui::trackSplitGapS({5.0}), 2.0);
  }

  void idleSignalComesOncePerSettledView() {
    auto basemap = openShared("data/orthophotos/australia.tif");
    ui::MapView view;
    view.resize(400, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy idle(&view, &ui::MapView::idle);
    view.addBasemap(basemap);
    QVERIFY(!view.isIdle());
    // A burst of view changes inside the 40 ms window costs one read, not ten.
    for (int i = 0; i < 10; ++i) view.panByPixels(QPointF(3, 0));
    QTRY_VERIFY_WITH_TIMEOUT(idle.count() >= 1, kIdleTimeoutMs);
    QTest::qWait(150);
    QCOMPARE(idle.count(), 1);
    QVERIFY(view.isIdle());
  }
};

QTEST_MAIN(TestMapView)
#include "test_map_view.moc"
