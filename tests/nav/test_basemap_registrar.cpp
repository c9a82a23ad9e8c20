// BasemapRegistrar's global search over a map larger than one window (a 210 m procedural
// orthophoto at 0.1 m, a 32 m camera footprint: 64 tiles), ORB + VLAD:
// - the search monitor sees the whole preparation, from (0, total) to (total, total),
//   in order, once per unit of work;
// - a monitor that throws Cancelled stops the search: registerFrame rethrows it, and the
//   next request continues from the tile where it stopped (no tile is half-built) and
//   gives a global-mode fix;
// - between requests, prepareWhileIdle prepares the global search the latest request
//   would need, one tile per call, so that a global request then starts prepared and
//   answers as on demand; a search larger than its bound is left to a global request;
// - the search's map windows are read on a thread of their own: a map damaged after the
//   registrar opened it fails the request with the read's error, and the next request
//   (the file whole again) prepares the search anew and answers as an intact map does,
//   its prior-mode refinement reading the new file through a handle opened anew;
// - between requests, prepareWhileIdle also extracts the map feature tiles within one
//   tile of the latest prior-mode window, so that a keyframe 30 m on finds its tiles
//   extracted (without idle time it extracts them itself);
// - before any request, a registrar told the first request's height prepares that
//   search, and the first (global) request finds it prepared;
// - a prepared resolution is not prepared again, and at most one more than the search
//   heights are kept: a flight whose height estimate wanders does not add one per height
//   for the whole run, and a few percent of height keep their search;
// - retrieval fine-matches the best global_candidates tiles of a textured frame and more
//   (few_feature_candidates) of a frame of few features, whose VLAD vector cannot rank
//   them; a frame without features is not searched ("no_texture");
// - without a height (no log, no fix yet) the search tries every search height: a frame
//   whose height is far from 100 m is placed at its true height, and its fix, refined in
//   prior mode around itself, within 1 m and 2 deg of tilt, in one fine-match span; told
//   that the first height is unknown, the registrar prepares every search height before
//   the request;
// - prior mode gathers the map's features from tiles extracted once: a wrong prior (2.5 m
//   off) is corrected to the frame's true place, and the next keyframes over the same
//   area reuse the tiles (none read or extracted again);
// - without a logged attitude, a fix through a lens too narrow to show a 5 deg tilt at
//   the map's resolution is the nadir camera; through a 60 deg lens the fitted tilt is
//   kept.
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <opencv2/imgproc.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "core/geo/geodesy.h"
#include "core/nav/basemap_registration.h"
#include "core/nav/camera_model.h"
#include "core/nav/camera_pose.h"
#include "core/sim/procedural_basemap.h"
#include "core/util/error.h"

using namespace skytrace;

namespace {

struct MonitorCall {
  int done;
  int total;
};

// The spans a registration marks, in order of their ends; checks that they nest.
class RecordedStages final : public StageMarker {
 public:
  void begin(Stage stage) override { open_.push_back(stage); }
  void end(Stage stage) override {
    QVERIFY(!open_.empty() && open_.back() == stage);
    open_.pop_back();
    spans.push_back(stage);
  }
  std::vector<Stage> spans;

 private:
  std::vector<Stage> open_;
};

}  // namespace

class TestBasemapRegistrar : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  std::string basemap_;
  cv::Mat map_rgb_;

  // A nadir frame cut from the map's centre: 320x240 px over 32x24 m (0.1 m/px).
  nav::RegistrationRequest centreRequest() const {
    const int side_x = 320, side_y = 240;  // map pixels
    const cv::Rect crop((map_rgb_.cols - side_x) / 2, (map_rgb_.rows - side_y) / 2, side_x, side_y);
    cv::Mat bgr;
    cv::cvtColor(map_rgb_(crop), bgr, cv::COLOR_RGB2BGR);
    nav::RegistrationRequest request;
    request.frame = 0;
    cv::Mat frame;
    cv::resize(bgr, frame, cv::Size(320, 240), 0, 0, cv::INTER_AREA);
    request.image = vision::Image::fromHost(frame);
    request.height_hint_m = 32.0 / 2.0 / std::tan(60.0 * M_PI / 360.0);  // hfov 60 deg
    return request;
  }

  // centreRequest() with a nadir prior at (east_m, north_m) at its height, 3 m sigma.
  nav::RegistrationRequest priorRequest(double east_m, double north_m) const {
    nav::RegistrationRequest request = centreRequest();
    nav::CameraPose prior;
    prior.position_enu = cv::Vec3d(east_m, north_m, request.height_hint_m);
    prior.yaw_deg = 0.0;
    prior.pitch_deg = -90.0;
    request.prior = prior;
    request.prior_sigma_m = 3.0;
    return request;
  }

  // The registrar's options: ORB, 256 keypoints, the default search heights.
  static nav::RegistrationOptions registrarOptions() {
    nav::RegistrationOptions options;
    options.features.model = "orb";
    options.features.max_keypoints = 256;
    return options;
  }

  // `search_heights_m` empty: the default search heights.
  nav::BasemapRegistrar makeRegistrar(const std::vector<double>& search_heights_m = {},
                                      nav::RegistrationOptions options = registrarOptions()) const {
    const nav::CameraModel camera = nav::CameraModel::fromHorizontalFov(320, 240, 60.0);
    if (!search_heights_m.empty()) options.search_heights_m = search_heights_m;
    const geo::LocalEnuFrame enu(nav::defaultEnuOrigin(basemap_, 0.0));
    return nav::BasemapRegistrar({basemap_}, enu, 0.0, camera, options);
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    sim::ProceduralBasemapOptions o;
    o.size_px = 2100;  // more than 2048 px at the frame's resolution: tiled
    o.gsd_m = 0.1;
    o.seed = 11;
    basemap_ = dir_.filePath("map.tif").toStdString();
    sim::writeProceduralBasemap(basemap_, o);
    map_rgb_ = sim::generateProceduralAerialImage(o);
  }

  void monitorSeesTheWholePreparationInOrder() {
    nav::BasemapRegistrar registrar = makeRegistrar();
    std::vector<MonitorCall> calls;
    registrar.setSearchMonitor([&](int done, int total) { calls.push_back({done, total}); });
    const nav::RegistrationFix fix = registrar.registerFrame(centreRequest());
    QVERIFY(fix.global_mode);
    QVERIFY(calls.size() >= 2);
    const int total = calls.front().total;
    QVERIFY2(total >= 50, qPrintable(QString::number(total)));  // a tiled search, not one window
    QCOMPARE(calls.front().done, 0);
    QCOMPARE(calls.back().done, total);
    for (std::size_t i = 0; i < calls.size(); ++i) {
      QCOMPARE(calls[i].total, total);
      if (i > 0) QVERIFY(calls[i].done >= calls[i - 1].done);
    }
    // One call per tile and a last one: no unit of work goes unannounced.
    QCOMPARE(int(calls.size()), total + 1);

    // The same resolution again: the prepared tiles are reused, nothing to announce.
    calls.clear();
    const nav::RegistrationFix again = registrar.registerFrame(centreRequest());
    QVERIFY(again.global_mode);
    QVERIFY(calls.empty());
  }

  void preparedSearchesAreBounded() {
    nav::BasemapRegistrar registrar = makeRegistrar({40.0});  // one search height: two kept
    int preparations = 0;
    registrar.setSearchMonitor([&](int done, int) { preparations += done == 0; });
    // Heights 30, 38 and 48 m: ground resolutions 0.108, 0.137 and 0.173 m/px (coarser
    // than the map's 0.1 m), each its own prepared search.
    const double heights[] = {30.0, 38.0, 48.0};
    for (double h : heights) {
      nav::RegistrationRequest request = centreRequest();
      request.height_hint_m = h;
      QVERIFY(registrar.registerFrame(request).global_mode);
      QVERIFY(registrar.preparedSearchCount() <= 2);
    }
    QCOMPARE(preparations, 3);
    QCOMPARE(registrar.preparedSearchCount(), std::size_t(2));
    // The most recent one is kept; the least recently used (30 m) was dropped.
    nav::RegistrationRequest again = centreRequest();
    again.height_hint_m = 48.0;
    registrar.registerFrame(again);
    QCOMPARE(preparations, 3);
    again.height_hint_m = 30.0;
    registrar.registerFrame(again);
    QCOMPARE(preparations, 4);
    QCOMPARE(registrar.preparedSearchCount(), std::size_t(2));
  }

  // At the map's resolution, a height that wanders by a few percent (20 -> 21.5 m: tiles
  // 7 % larger) keeps its prepared search.
  void aHeightThatWandersALittleKeepsItsSearch() {
    nav::BasemapRegistrar registrar = makeRegistrar({40.0});
    int preparations = 0;
    registrar.setSearchMonitor([&](int done, int) { preparations += done == 0; });
    for (const double h : {20.0, 21.5}) {
      nav::RegistrationRequest request = centreRequest();
      request.height_hint_m = h;
      QVERIFY(registrar.registerFrame(request).global_mode);
    }
    QCOMPARE(preparations, 1);
    QCOMPARE(registrar.preparedSearchCount(), std::size_t(1));
  }

  void priorModeReusesTheMapFeatures() {
    nav::BasemapRegistrar registrar = makeRegistrar();
    nav::RegistrationRequest request = priorRequest(2.0, -1.5);  // the frame is at (0, 0)
    const nav::RegistrationFix fix = registrar.registerFrame(request);
    QVERIFY2(fix.accepted, fix.reason.c_str());
    QVERIFY(!fix.global_mode);
    const double error_m = std::hypot(fix.pose.position_enu[0], fix.pose.position_enu[1]);
    QVERIFY2(error_m < 0.5, qPrintable(QString::number(error_m)));
    QVERIFY2(std::abs(fix.pose.position_enu[2] - request.height_hint_m) < 1.0,
             qPrintable(QString::number(fix.pose.position_enu[2])));
    const std::size_t tiles = registrar.mapFeatureTileCount();
    QVERIFY(tiles >= 1);
    QCOMPARE(registrar.preparedSearchCount(), std::size_t(0));  // no global search was needed

    // A later keyframe over the same ground (its window 0.7 m away, within the same
    // tiles): same answer, no tile built again.
    request.prior->position_enu = cv::Vec3d(1.5, -1.0, request.height_hint_m);
    const nav::RegistrationFix again = registrar.registerFrame(request);
    QVERIFY2(again.accepted, again.reason.c_str());
    QVERIFY(std::hypot(again.pose.position_enu[0], again.pose.position_enu[1]) < 0.5);
    QCOMPARE(registrar.mapFeatureTileCount(), tiles);
  }

  // Without a logged attitude a fix's tilt is the fitted homography's where the image
  // shows tilt: through a 24 deg lens (the same 32 m footprint, 75 m up) 5 deg of tilt
  // moves the frame by 2.8 map pixels, and the fit's tilt is kept (a nadir frame fits
  // within a degree or so, not at exactly -90; its camera 0.2-1.8 m off by build, the
  // ground it sees in place). Through a 12 deg lens (152 m up) 5 deg moves it by 1.4-1.9
  // px and through a 5.7 deg one (321 m up) by under 1 px: too little against the
  // matches' noise, and the fix is the nadir camera that views the frame as the fit
  // does, at the frame's true place.
  void aNarrowLensFixIsNadirWhereTheImageCannotShowTilt_data() {
    QTest::addColumn<double>("hfov_deg");
    QTest::addColumn<bool>("nadir");
    QTest::newRow("5.7 deg") << 5.7 << true;
    QTest::newRow("12 deg") << 12.0 << true;
    QTest::newRow("24 deg") << 24.0 << false;
  }
  void aNarrowLensFixIsNadirWhereTheImageCannotShowTilt() {
    QFETCH(double, hfov_deg);
    QFETCH(bool, nadir);
    const nav::CameraModel camera = nav::CameraModel::fromHorizontalFov(320, 240, hfov_deg);
    const geo::LocalEnuFrame enu(nav::defaultEnuOrigin(basemap_, 0.0));
    nav::BasemapRegistrar registrar({basemap_}, enu, 0.0, camera, registrarOptions());
    nav::RegistrationRequest request = priorRequest(2.0, -1.5);  // the frame is at (0, 0)
    const double height_m = 16.0 / std::tan(hfov_deg * M_PI / 360.0);
    request.height_hint_m = height_m;
    request.prior->position_enu[2] = height_m;
    const nav::RegistrationFix fix = registrar.registerFrame(request);
    QVERIFY2(fix.accepted, fix.reason.c_str());
    // The ground at the image centre is in place either way (the frame's is (0, 0)).
    cv::Vec3d centre_ground;
    QVERIFY(nav::groundFromPixel(camera, fix.pose, cv::Point2d(camera.cx_px, camera.cy_px), 0.0, &centre_ground));
    const double ground_error_m = std::hypot(centre_ground[0], centre_ground[1]);
    QVERIFY2(ground_error_m < 0.5, qPrintable(QString::number(ground_error_m)));
    if (!nadir) {
      QVERIFY(fix.pose.pitch_deg != -90.0);
      return;
    }
    QCOMPARE(fix.pose.pitch_deg, -90.0);
    QCOMPARE(fix.pose.roll_deg, 0.0);
    const double error_m = std::hypot(fix.pose.position_enu[0], fix.pose.position_enu[1]);
    QVERIFY2(error_m < 0.5, qPrintable(QString::number(error_m)));
    QVERIFY2(std::abs(fix.pose.position_enu[2] / height_m - 1.0) < 0.02,
             qPrintable(QString::number(fix.pose.position_enu[2])));
  }

  void aWideLensKeepsTheFittedTilt() {
    nav::BasemapRegistrar wide = makeRegistrar();  // 60 deg
    const nav::RegistrationFix fix = wide.registerFrame(priorRequest(2.0, -1.5));
    QVERIFY2(fix.accepted, fix.reason.c_str());
    QVERIFY(fix.pose.pitch_deg != -90.0);
  }

  void idleTimeExtractsTheMapAroundTheLatestKeyframe() {
    // A keyframe at the map's centre, then one 30 m east: its window reaches map tiles
    // the first did not need. Without idle time they are extracted by the second request;
    // with it, before, and the second request extracts none.
    const nav::RegistrationRequest first = priorRequest(0.0, 0.0);
    const nav::RegistrationRequest east = priorRequest(30.0, 0.0);

    nav::BasemapRegistrar busy = makeRegistrar();
    busy.registerFrame(first);
    const std::size_t busy_tiles = busy.mapFeatureTileCount();
    busy.registerFrame(east);
    QVERIFY2(busy.mapFeatureTileCount() > busy_tiles, "the test needs a window over new tiles");

    nav::BasemapRegistrar idle = makeRegistrar();
    idle.registerFrame(first);
    QCOMPARE(idle.mapFeatureTileCount(), busy_tiles);
    int units = 0;
    while (idle.prepareWhileIdle(0)) ++units;  // 0: no global search, the feature tiles only
    const std::size_t prepared = idle.mapFeatureTileCount();
    QCOMPARE(std::size_t(units), prepared - busy_tiles);  // one tile per unit
    QVERIFY(prepared > busy_tiles);
    idle.registerFrame(east);
    QCOMPARE(idle.mapFeatureTileCount(), prepared);  // nothing left to extract
    QVERIFY(!idle.prepareWhileIdle(0));
  }

  void cancelInsideTheSearchAbandonsItCleanly() {
    nav::BasemapRegistrar registrar = makeRegistrar();
    int seen = 0;
    registrar.setSearchMonitor([&](int done, int) {
      if (++seen == 5) throw Cancelled();
      QVERIFY(done < 4);  // (QVERIFY in a lambda only returns; the count below checks)
    });
    bool cancelled = false;
    try {
      registrar.registerFrame(centreRequest());
    } catch (const Cancelled&) {
      cancelled = true;
    }
    QVERIFY(cancelled);
    QCOMPARE(seen, 5);  // stopped at once, not at the end of the preparation

    std::vector<MonitorCall> calls;
    registrar.setSearchMonitor([&](int done, int total) { calls.push_back({done, total}); });
    const nav::RegistrationFix fix = registrar.registerFrame(centreRequest());
    QVERIFY(fix.global_mode);
    QVERIFY(!calls.empty());
    QCOMPARE(calls.front().done, 4);  // went on with the unit it stopped before
    QCOMPARE(calls.back().done, calls.back().total);
  }

  void idleTimePreparesTheNextGlobalSearch() {
    nav::BasemapRegistrar registrar = makeRegistrar();
    QVERIFY(!registrar.prepareWhileIdle(4096));  // no request yet: nothing to prepare
    // A prior-mode keyframe: its height says which resolution a global search would use.
    const nav::RegistrationRequest request = priorRequest(0.0, 0.0);
    QVERIFY(!registrar.registerFrame(request).global_mode);
    // First the map feature tiles around the keyframe's window; the global search's 64
    // tiles are more than the bound and left alone.
    int feature_units = 0;
    while (registrar.prepareWhileIdle(10)) ++feature_units;
    QVERIFY(feature_units >= 1);
    QCOMPARE(registrar.preparedSearchCount(), std::size_t(0));
    std::vector<MonitorCall> calls;
    registrar.setSearchMonitor([&](int done, int total) { calls.push_back({done, total}); });
    int steps = 0;
    while (registrar.prepareWhileIdle(4096)) ++steps;
    QVERIFY2(steps >= 50, qPrintable(QString::number(steps)));  // one tile per call
    QCOMPARE(int(calls.size()), calls.front().total + 1);
    QCOMPARE(registrar.preparedSearchCount(), std::size_t(1));
    QVERIFY(!registrar.prepareWhileIdle(4096));  // done: nothing more

    // The global request finds the search prepared (no unit of work left) and answers as
    // a search prepared on demand does.
    calls.clear();
    const nav::RegistrationFix fix = registrar.registerFrame(centreRequest());
    QVERIFY(fix.global_mode);
    QVERIFY(calls.empty());
    // The same requests without idle preparation (RANSAC's seed follows the registrar's
    // calls, so the prior-mode keyframe comes first there too).
    nav::BasemapRegistrar on_demand = makeRegistrar();
    QVERIFY(!on_demand.registerFrame(request).global_mode);
    const nav::RegistrationFix reference = on_demand.registerFrame(centreRequest());
    QCOMPARE(fix.reason, reference.reason);
    QCOMPARE(fix.inliers, reference.inliers);
    QCOMPARE(fix.accepted, reference.accepted);
  }

  void aMapThatCannotBeReadFailsTheSearchAndTheNextStartsOver() {
    // The search reads its windows on a thread of its own, with Basemaps it opens there:
    // a map damaged after the registrar opened it fails the request with the read's
    // error, and once the file is whole again the next request prepares the search anew.
    // The fix's refinement in prior mode reads through the registrar's own handle, still
    // on the damaged file: its failed read opens the file anew.
    const QString copy = dir_.filePath("map-copy.tif");
    QFile::remove(copy);
    QVERIFY(QFile::copy(QString::fromStdString(basemap_), copy));
    const nav::CameraModel camera = nav::CameraModel::fromHorizontalFov(320, 240, 60.0);
    const geo::LocalEnuFrame enu(nav::defaultEnuOrigin(basemap_, 0.0));
    nav::BasemapRegistrar registrar({copy.toStdString()}, enu, 0.0, camera, registrarOptions());
    {
      QFile file(copy);
      QVERIFY(file.open(QIODevice::ReadWrite));
      QVERIFY(file.resize(4096));
    }
    bool failed = false;
    try {
      registrar.registerFrame(centreRequest());
    } catch (const skytrace::Error& e) {
      failed = true;
      QVERIFY2(QString::fromStdString(e.what()).contains("map-copy.tif"), e.what());
    }
    QVERIFY(failed);
    QCOMPARE(registrar.preparedSearchCount(), std::size_t(0));

    QVERIFY(QFile::remove(copy));
    QVERIFY(QFile::copy(QString::fromStdString(basemap_), copy));
    const nav::RegistrationFix fix = registrar.registerFrame(centreRequest());
    QVERIFY(fix.global_mode);
    QCOMPARE(registrar.preparedSearchCount(), std::size_t(1));
    // The same history for RANSAC's seeds (they follow the registrar's calls and
    // candidates): a first call that ends before any matching, here a prior off the map.
    nav::BasemapRegistrar intact = makeRegistrar();
    QCOMPARE(intact.registerFrame(priorRequest(1e4, 1e4)).reason, std::string("no_candidate"));
    const nav::RegistrationFix reference = intact.registerFrame(centreRequest());
    QCOMPARE(fix.accepted, reference.accepted);
    QCOMPARE(fix.inliers, reference.inliers);
  }

  void theFirstRequestsSearchIsPreparedBeforeItComes() {
    nav::BasemapRegistrar registrar = makeRegistrar();
    QVERIFY(!registrar.prepareWhileIdle(4096));  // not told: nothing to prepare
    registrar.expectFirstRequestHeight(centreRequest().height_hint_m);
    int steps = 0;
    while (registrar.prepareWhileIdle(4096)) ++steps;
    QVERIFY2(steps >= 50, qPrintable(QString::number(steps)));
    QCOMPARE(registrar.preparedSearchCount(), std::size_t(1));
    std::vector<MonitorCall> calls;
    registrar.setSearchMonitor([&](int done, int total) { calls.push_back({done, total}); });
    const nav::RegistrationFix fix = registrar.registerFrame(centreRequest());
    QVERIFY(fix.global_mode);
    QVERIFY(calls.empty());  // nothing left to prepare
    QCOMPARE(registrar.preparedSearchCount(), std::size_t(1));
  }

  // Told that the first request's height is unknown (no log), the registrar prepares
  // the search at every search height, and a request without a height hint finds them
  // all prepared.
  void anUnknownFirstHeightPreparesEverySearchHeight() {
    nav::BasemapRegistrar registrar = makeRegistrar({25.0, 48.0, 77.0});
    registrar.expectFirstRequestHeight(std::numeric_limits<double>::quiet_NaN());
    while (registrar.prepareWhileIdle(4096)) {
    }
    QCOMPARE(registrar.preparedSearchCount(), std::size_t(3));
    std::vector<MonitorCall> calls;
    registrar.setSearchMonitor([&](int done, int total) { calls.push_back({done, total}); });
    nav::RegistrationRequest request = centreRequest();
    request.height_hint_m = 0.0;
    const nav::RegistrationFix fix = registrar.registerFrame(request);
    QVERIFY2(fix.accepted, fix.reason.c_str());
    QVERIFY(calls.empty());
    QCOMPARE(registrar.preparedSearchCount(), std::size_t(3));
  }

  // The frame flattened to its mean grey: over water or snow nothing has texture.
  static nav::RegistrationRequest flattened(nav::RegistrationRequest request) {
    const cv::Mat frame = request.image.hostPixels();
    request.image = vision::Image::fromHost(cv::Mat(frame.size(), frame.type(), cv::mean(frame)));
    return request;
  }

  // Retrieval ranks tiles by the frame's VLAD vector. The textured frame (256 ORB
  // features) has the best global_candidates (4) of the 64 tiles fine-matched. Counted
  // as a frame of few features (min_ranking_features above its 256), whose vector cannot
  // rank the tiles, it has few_feature_candidates of them fine-matched, and is placed as
  // well. A frame without texture (no feature) cannot be fixed and is not searched.
  void aFrameOfFewFeaturesIsMatchedAgainstMoreTiles() {
    nav::BasemapRegistrar registrar = makeRegistrar();
    const nav::RegistrationOptions defaults = registrarOptions();
    const nav::RegistrationFix textured = registrar.registerFrame(centreRequest());
    QVERIFY(textured.global_mode);
    QVERIFY2(textured.accepted, textured.reason.c_str());
    QCOMPARE(textured.candidates, defaults.global_candidates);

    const nav::RegistrationFix blank = registrar.registerFrame(flattened(centreRequest()));
    QVERIFY(blank.global_mode);
    QVERIFY(!blank.accepted);
    QCOMPARE(blank.reason, std::string("no_texture"));
    QCOMPARE(blank.candidates, 0);

    nav::RegistrationOptions options = registrarOptions();
    options.min_ranking_features = 512;
    options.few_feature_candidates = 16;
    nav::BasemapRegistrar few = makeRegistrar({}, options);
    const nav::RegistrationFix fix = few.registerFrame(centreRequest());
    QVERIFY(fix.global_mode);
    QCOMPARE(fix.candidates, 16);
    QVERIFY2(fix.accepted, fix.reason.c_str());
    // The same ranking: the 16 hold the 4, and the best fit of more tiles is no worse.
    QVERIFY2(fix.inliers >= textured.inliers,
             qPrintable(QString("%1 < %2 inliers").arg(fix.inliers).arg(textured.inliers)));
    const double error_m = std::hypot(fix.pose.position_enu[0], fix.pose.position_enu[1]);
    QVERIFY2(error_m < 1.5, qPrintable(QString::number(error_m)));
  }

  // A frame 27.7 m above the map. Told 100 m, the global search rejects what it finds
  // (a camera 27.7 m up is outside 0.6-1.6 x 100 m); told nothing (hint 0: no log, no
  // fix yet), it searches at every search height, and the frame is placed at its true
  // place and height.
  void aSearchWithoutAHeightTriesEverySearchHeight() {
    nav::BasemapRegistrar registrar = makeRegistrar();  // the default heights, 25-256 m
    nav::RegistrationRequest request = centreRequest();
    const double true_height_m = request.height_hint_m;
    request.height_hint_m = 100.0;
    const nav::RegistrationFix wrong = registrar.registerFrame(request);
    QVERIFY(wrong.global_mode);
    QVERIFY(!wrong.accepted);
    request.height_hint_m = 0.0;
    RecordedStages stages;
    const nav::RegistrationFix fix = registrar.registerFrame(request, &stages);
    QVERIFY(fix.global_mode);
    QVERIFY2(fix.accepted, fix.reason.c_str());
    // One retrieval and one fine-match span, the refinement inside the latter.
    QCOMPARE(stages.spans, std::vector<Stage>({Stage::Retrieval, Stage::FineMatch}));
    // Without a log the tilt is free: 1 deg of it moves the fix 0.5 m here. The best
    // tile holds part of the frame (its fit: 41 matches, 6 deg of tilt, 2.9 m off); the
    // fix refined in prior mode, the whole frame against the map around it, is 0.2 m off.
    const double error_m = std::hypot(fix.pose.position_enu[0], fix.pose.position_enu[1]);
    const double tilt_deg = 90.0 + fix.pose.pitch_deg;
    qInfo("%d of %d matches, tilt %.1f deg; placed %.2f m from the truth, %.2f m up (truth %.2f m)",
          fix.inliers, fix.matches, tilt_deg, error_m, fix.pose.position_enu[2], true_height_m);
    QVERIFY2(error_m < 1.0, qPrintable(QString::number(error_m)));
    QVERIFY2(std::abs(tilt_deg) < 2.0, qPrintable(QString::number(tilt_deg)));
    QVERIFY2(std::abs(fix.pose.position_enu[2] - true_height_m) < 1.0,
             qPrintable(QString::number(fix.pose.position_enu[2])));
    // One prepared search per search height (each its own resolution here); 100 m's
    // was prepared by the first request.
    QCOMPARE(registrar.preparedSearchCount(), nav::RegistrationOptions().search_heights_m.size());
  }
};

QTEST_GUILESS_MAIN(TestBasemapRegistrar)
#include "test_basemap_registrar.moc"
