// ORB/SIFT behind FeatureExtractor: descriptor conventions and spatial spread.
#include <QTemporaryDir>
#include <QtTest>

#include <opencv2/features2d.hpp>
#include <opencv2/imgcodecs.hpp>

#include <random>

#include "core/util/error.h"
#include "core/vision/classical_extractor.h"
#include "core/vision/keypoint_distribution.h"
#include "tests/test_support.h"

using namespace skytrace;
using namespace skytrace::vision;

namespace {

cv::Mat loadShared(const QString& relative) {
  const cv::Mat image = cv::imread(test::sharedPath(relative).toStdString(), cv::IMREAD_COLOR);
  if (image.empty()) qFatal("cannot read %s", qPrintable(relative));
  return image;
}

}  // namespace

class TestClassicalExtractor : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void orbBitsDotProductIsHamming() {
    std::mt19937 rng(3);
    cv::Mat bytes(20, 32, CV_8U);
    for (int r = 0; r < bytes.rows; ++r)
      for (int c = 0; c < 32; ++c) bytes.at<uchar>(r, c) = static_cast<uchar>(rng() & 0xff);
    const cv::Mat rows = orbBitsToUnitFloat(bytes);
    QCOMPARE(rows.cols, 256);
    for (int i = 0; i < rows.rows; ++i) {
      QVERIFY(std::abs(cv::norm(rows.row(i)) - 1.0) < 1e-6);
      for (int j = 0; j < rows.rows; ++j) {
        const double hamming = cv::norm(bytes.row(i), bytes.row(j), cv::NORM_HAMMING);
        QVERIFY(std::abs(rows.row(i).dot(rows.row(j)) - (1.0 - 2.0 * hamming / 256.0)) < 1e-6);
      }
    }
  }

  void rootSiftIsUnitAndNonNegative() {
    cv::Mat sift(5, 128, CV_32F);
    cv::randu(sift, 0.0, 50.0);
    const cv::Mat root = siftToRootSift(sift);
    for (int i = 0; i < root.rows; ++i) QVERIFY(std::abs(cv::norm(root.row(i)) - 1.0) < 1e-5);
    double lo = 0;
    cv::minMaxLoc(root, &lo);
    QVERIFY(lo >= 0.0);
  }

  void gridSelectionFillsCellsRoundRobin() {
    // 100 strong keypoints in one corner, one weak keypoint in each other cell.
    std::vector<cv::KeyPoint> candidates;
    for (int i = 0; i < 100; ++i) candidates.emplace_back(cv::Point2f(5 + i % 10, 5 + i / 10), 1, -1, 100.f + i);
    for (int cx = 0; cx < 4; ++cx)
      for (int cy = 0; cy < 4; ++cy)
        if (cx || cy) candidates.emplace_back(cv::Point2f(cx * 50 + 25, cy * 50 + 25), 1, -1, 1.f);
    const std::vector<int> chosen = selectByGrid(candidates, {200, 200}, 20, 50);
    QCOMPARE(chosen.size(), size_t(20));
    std::vector<cv::Point2f> points;
    for (int i : chosen) points.push_back(candidates[i].pt);
    QCOMPARE(gridCoverage(points, {200, 200}, 4, 4), 1.0);  // every cell got one
    QCOMPARE(candidates[chosen[0]].response, 199.f);          // strongest first
  }

  void anmsPrefersIsolatedKeypoints() {
    std::vector<cv::KeyPoint> candidates;
    for (int i = 0; i < 50; ++i)
      candidates.emplace_back(cv::Point2f(10 + i * 0.1f, 10), 1, -1, 100.f * std::pow(0.5f, i));
    candidates.emplace_back(cv::Point2f(190, 190), 1, -1, 1e-20f);
    const std::vector<int> chosen = selectByAnms(candidates, 2);
    QCOMPARE(chosen.size(), size_t(2));
    QCOMPARE(chosen[0], 0);   // the global maximum has infinite radius
    QCOMPARE(chosen[1], 50);  // the far, weak keypoint beats the clustered strong ones
  }

  void factoryAndOptions() {
    ExtractorOptions options;
    options.model = "surf";
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, createFeatureExtractor(options));
    options.model = "orb";
    options.max_keypoints = 0;
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, createFeatureExtractor(options));
    const auto names = availableFeatureModels();
    QVERIFY(std::find(names.begin(), names.end(), "aliked-n16rot") != names.end());
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, createFeatureExtractor(options));
    options.max_keypoints = 100;
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, createFeatureExtractor(options)->extract(cv::Mat()));
    // Both are local operators (registration crops tightly for them: basemap_registration).
    QVERIFY(createFeatureExtractor(options)->classical());
    options.model = "sift";
    QVERIFY(createFeatureExtractor(options)->classical());
  }

  // Images too small for the detectors are refused with a message naming the size, for
  // both models (ORB's pyramid asserted inside OpenCV, SIFT threw vector::_M_default_append).
  void tinyImagesAreAClearError() {
    for (const char* model : {"orb", "sift"}) {
      ExtractorOptions options;
      options.model = model;
      const auto extractor = createFeatureExtractor(options);
      for (const cv::Size size : {cv::Size(1, 1), cv::Size(31, 200)}) {
        const QString message = test::errorMessageOf<InvalidArgument>(
            [&] { extractor->extract(cv::Mat(size, CV_8UC3, cv::Scalar(128, 128, 128))); });
        QVERIFY2(message.contains(model) && message.contains("too small"), qPrintable(message));
      }
      QCOMPARE(extractor->extract(cv::Mat(32, 32, CV_8UC3, cv::Scalar(128, 128, 128))).size(), 0);
    }
  }

  void fallsBackToClassicalWithoutWeights() {
    QTemporaryDir empty_model_dir;
    qputenv("SKYTRACE_MODEL_DIR", empty_model_dir.path().toUtf8());
    ExtractorOptions options;
    options.model = "aliked-n16rot";
    options.max_keypoints = 300;
    std::string reason;
    const auto extractor = createFeatureExtractorOrFallback(options, "orb", &reason);
    QCOMPARE(extractor->name(), std::string("orb"));
    QVERIFY2(reason.find("aliked-n16rot.pth") != std::string::npos, reason.c_str());
    // A classical request is honoured as is, with no reason.
    options.model = "sift";
    QCOMPARE(createFeatureExtractorOrFallback(options, "orb", &reason)->name(), std::string("sift"));
    QVERIFY(reason.empty());
    // An explicit weights path that does not exist is also "missing".
    options.model = "aliked-t16";
    options.weights_path = empty_model_dir.filePath("nope.pth").toStdString();
    QCOMPARE(createFeatureExtractorOrFallback(options, "sift", &reason)->name(), std::string("sift"));
    qunsetenv("SKYTRACE_MODEL_DIR");
  }

  // On an aerial image plain ORB piles its keypoints into the most textured areas; the
  // grid-spread extractor covers most of the image with the same budget.
  void aerialKeypointsCoverTheImage_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("orb") << "orb";
    QTest::newRow("sift") << "sift";
  }

  void aerialKeypointsCoverTheImage() {
    SKYTRACE_REQUIRE_SHARED();
    QFETCH(QString, model);
    const cv::Mat image = loadShared("data/opencv_samples/aero1.jpg");
    ExtractorOptions options;
    options.model = model.toStdString();
    options.max_keypoints = 1024;
    ClassicalExtractorOptions plain;
    plain.spread_keypoints = false;
    const FeatureSet spread = createClassicalExtractor(options)->extract(image);
    const FeatureSet clustered = createClassicalExtractor(options, plain)->extract(image);
    const double spread_cover = gridCoverage(spread.keypoints(), image.size(), 16, 12);
    const double plain_cover = gridCoverage(clustered.keypoints(), image.size(), 16, 12);
    qInfo("%s on aero1 (%dx%d): %d keypoints cover %.0f%% of 16x12 cells; plain OpenCV %d cover %.0f%%",
          qPrintable(model), image.cols, image.rows, spread.size(), 100 * spread_cover,
          clustered.size(), 100 * plain_cover);
    QVERIFY(spread.size() > 900 && spread.size() <= 1024);
    QCOMPARE(spread.descriptorDim(), model == "orb" ? 256 : 128);
    QCOMPARE(spread.imageWidth(), image.cols);
    // ORB cannot describe keypoints within its 31 px patch border, which is most of the
    // outer ring of 40 px cells; SIFT can.
    QVERIFY(spread_cover >= (model == "orb" ? 0.85 : 0.95));
    QVERIFY(spread_cover > plain_cover + 0.1);
    const cv::Mat rows = spread.descriptors();
    for (int i = 0; i < rows.rows; i += 97) QVERIFY(std::abs(cv::norm(rows.row(i)) - 1.0) < 1e-5);
  }
};

QTEST_GUILESS_MAIN(TestClassicalExtractor)
#include "test_classical_extractor.moc"
