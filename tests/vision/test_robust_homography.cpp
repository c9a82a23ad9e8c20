// estimateHomography (core/vision/robust_homography.h): MAGSAC++, LO-RANSAC and
// MAGSAC++ backed by LO-RANSAC on the same synthetic correspondences (a known
// homography, noise, outliers) give the model and report inliers in the same terms;
// `auto` picks magsac-first on the CPU, LO-RANSAC on a GPU.
#include <QtTest>

#include <algorithm>
#include <numeric>
#include <random>

#include "core/util/error.h"
#include "core/vision/robust_homography.h"
#include "tests/test_support.h"

using namespace skytrace;
using namespace skytrace::vision;

namespace {

const Matrix3d kTruth = {0.92, -0.21, 35.0, 0.18, 0.95, -12.0, 2.0e-4, -1.0e-4, 1.0};

struct Correspondences {
  std::vector<Point2d> a, b;
  std::vector<uint8_t> is_inlier;
};

// n_in correspondences b = H a + N(0, noise_px) and n_out random pairs, interleaved.
Correspondences makeCorrespondences(int n_in, int n_out, double noise_px, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> ux(0, 640), uy(0, 480);
  std::normal_distribution<double> noise(0.0, noise_px);
  Correspondences c;
  for (int i = 0; i < n_in + n_out; ++i) {
    const Point2d a{ux(rng), uy(rng)};
    Point2d b;
    const bool inlier = i < n_in;
    if (inlier) {
      b = transformPoint(kTruth, a);
      b.x += noise(rng);
      b.y += noise(rng);
    } else {
      b.x = ux(rng);
      b.y = uy(rng);
    }
    c.a.push_back(a);
    c.b.push_back(b);
    c.is_inlier.push_back(inlier ? 1 : 0);
  }
  std::vector<std::size_t> order(c.a.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  Correspondences shuffled;
  for (std::size_t i : order) {
    shuffled.a.push_back(c.a[i]);
    shuffled.b.push_back(c.b[i]);
    shuffled.is_inlier.push_back(c.is_inlier[i]);
  }
  return shuffled;
}

RansacOptions homographyOptions() {
  RansacOptions options;
  options.model = GeometricModelType::Homography;
  options.inlier_threshold_px = 3.0;
  return options;
}

}  // namespace

class TestRobustHomography : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { configureTorchRuntime(1); }

  void namesParseAndAutoPicksByDevice() {
    for (RobustEstimator e : {RobustEstimator::Auto, RobustEstimator::LoRansac, RobustEstimator::Magsac,
                              RobustEstimator::MagsacFirst})
      QVERIFY(parseRobustEstimator(toString(e)) == e);
    const QString message = test::errorMessageOf<InvalidArgument>([] { parseRobustEstimator("usac"); });
    QVERIFY2(message.contains("auto, lo-ransac, magsac or magsac-first"), qPrintable(message));
    QVERIFY(resolveRobustEstimator(RobustEstimator::Auto, DeviceSpec{}) == RobustEstimator::MagsacFirst);
    QVERIFY(resolveRobustEstimator(RobustEstimator::Auto, DeviceSpec{true, 0}) == RobustEstimator::LoRansac);
    QVERIFY(resolveRobustEstimator(RobustEstimator::LoRansac, DeviceSpec{}) == RobustEstimator::LoRansac);
    QVERIFY(resolveRobustEstimator(RobustEstimator::Magsac, DeviceSpec{true, 1}) == RobustEstimator::Magsac);
  }

  void bothEstimatorsRecoverTheHomography_data() {
    QTest::addColumn<int>("inliers");
    QTest::addColumn<int>("outliers");
    QTest::newRow("video pair: 90 % inliers") << 900 << 100;
    QTest::newRow("map pair: 30 % inliers") << 300 << 700;
    QTest::newRow("hard map pair: 15 % inliers") << 150 << 850;
  }

  void bothEstimatorsRecoverTheHomography() {
    QFETCH(int, inliers);
    QFETCH(int, outliers);
    const Correspondences c = makeCorrespondences(inliers, outliers, 0.7, 7);
    for (RobustEstimator estimator :
         {RobustEstimator::LoRansac, RobustEstimator::Magsac, RobustEstimator::MagsacFirst}) {
      const RansacResult fit = estimateHomography(c.a, c.b, homographyOptions(), estimator);
      const QString name = QString::fromStdString(toString(estimator));
      QVERIFY2(fit.found, qPrintable(name));
      const double corner_px = meanCornerTransferError(fit.model, kTruth, 640, 480);
      QVERIFY2(corner_px < 0.5, qPrintable(name + QString(": corner error %1 px").arg(corner_px)));
      QCOMPARE(fit.model[8], 1.0);
      // Inliers as robust_estimation.h defines them, whichever estimator ran.
      const std::vector<double> errors = geometricErrors(c.a, c.b, GeometricModelType::Homography, fit.model);
      int counted = 0, true_inliers_found = 0;
      for (std::size_t i = 0; i < errors.size(); ++i) {
        QCOMPARE(fit.inlier_mask[i] != 0, errors[i] <= 3.0);
        counted += fit.inlier_mask[i];
        true_inliers_found += fit.inlier_mask[i] && c.is_inlier[i];
      }
      QCOMPARE(fit.num_inliers, counted);
      QVERIFY2(true_inliers_found >= inliers * 97 / 100,
               qPrintable(name + QString(": %1 of %2 true inliers").arg(true_inliers_found).arg(inliers)));
      QVERIFY2(fit.rms_inlier_error_px > 0.3 && fit.rms_inlier_error_px < 1.5,
               qPrintable(QString::number(fit.rms_inlier_error_px)));
    }
  }

  // magsac-first: MAGSAC++ alone where most pairs agree (its answer, unchanged), and the
  // fit with more inliers of MAGSAC++ and LO-RANSAC where few do.
  void magsacFirstFallsBackOnlyOnFewInliers() {
    const RansacOptions options = homographyOptions();
    const Correspondences easy = makeCorrespondences(700, 300, 0.7, 13);
    const RansacResult easy_first = estimateHomography(easy.a, easy.b, options, RobustEstimator::MagsacFirst);
    const RansacResult easy_magsac = estimateHomography(easy.a, easy.b, options, RobustEstimator::Magsac);
    QVERIFY(easy_first.model == easy_magsac.model);

    const Correspondences hard = makeCorrespondences(150, 850, 0.7, 17);
    const RansacResult first = estimateHomography(hard.a, hard.b, options, RobustEstimator::MagsacFirst);
    const RansacResult magsac = estimateHomography(hard.a, hard.b, options, RobustEstimator::Magsac);
    const RansacResult lo = estimateHomography(hard.a, hard.b, options, RobustEstimator::LoRansac);
    QVERIFY(first.found);
    QCOMPARE(first.num_inliers, std::max(magsac.num_inliers, lo.num_inliers));
    QVERIFY(first.model == (lo.num_inliers > magsac.num_inliers ? lo.model : magsac.model));
  }

  void magsacIsDeterministic() {
    const Correspondences c = makeCorrespondences(200, 600, 0.7, 11);
    const RansacResult first = estimateHomography(c.a, c.b, homographyOptions(), RobustEstimator::Magsac);
    const RansacResult second = estimateHomography(c.a, c.b, homographyOptions(), RobustEstimator::Magsac);
    QVERIFY(first.found);
    QVERIFY(first.model == second.model);
    QVERIFY(first.inlier_mask == second.inlier_mask);
  }

  void tooFewOrNoStructureIsNotFound() {
    const Correspondences three = makeCorrespondences(3, 0, 0.0, 3);
    const RansacResult fit = estimateHomography(three.a, three.b, homographyOptions(), RobustEstimator::Magsac);
    QVERIFY(!fit.found);
    QCOMPARE(fit.inlier_mask.size(), std::size_t(3));
    QCOMPARE(fit.num_inliers, 0);
  }

  void rejectsWrongModelsAndSizes() {
    const Correspondences c = makeCorrespondences(10, 0, 0.0, 5);
    RansacOptions affine = homographyOptions();
    affine.model = GeometricModelType::Affine;
    QVERIFY(test::errorMessageOf<InvalidArgument>([&] { estimateHomography(c.a, c.b, affine); })
                .contains("homographies"));
    std::vector<Point2d> shorter(c.b.begin(), c.b.end() - 1);
    QVERIFY(test::errorMessageOf<InvalidArgument>([&] { estimateHomography(c.a, shorter, homographyOptions()); })
                .contains("10 points in a, 9 in b"));
  }
};

QTEST_GUILESS_MAIN(TestRobustHomography)
#include "test_robust_homography.moc"
