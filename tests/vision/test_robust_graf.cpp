// Real data: graf1 -> graf3 (OpenCV samples, 40 degree viewpoint change) with the
// published ground-truth homography H1to3p. Our pipeline (SIFT -> MNN -> batched
// LO-RANSAC) against OpenCV's USAC MAGSAC++ on the same matches.
#include <QtTest>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgcodecs.hpp>

#include <chrono>

#include "core/vision/homography_pipeline.h"
#include "tests/test_support.h"

using namespace skytrace;
using namespace skytrace::vision;

class TestRobustGraf : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void grafHomographyAgainstTruthAndMagsac() {
    SKYTRACE_REQUIRE_SHARED();
    configureTorchRuntime(0);
    const cv::Mat graf1 = cv::imread(test::sharedPath("data/opencv_samples/graf1.png").toStdString());
    const cv::Mat graf3 = cv::imread(test::sharedPath("data/opencv_samples/graf3.png").toStdString());
    QVERIFY(!graf1.empty() && !graf3.empty());
    const Matrix3d truth =
        readHomographyFile(test::sharedPath("data/opencv_samples/H1to3p.xml").toStdString());
    QVERIFY(std::abs(truth[2] - 225.67123) < 1e-4);  // read the XML right

    ExtractorOptions features;
    features.model = "sift";
    features.max_keypoints = 4096;
    const auto extractor = createFeatureExtractor(features);
    const auto matcher = createMatcher("mnn");
    RansacOptions ransac;
    ransac.inlier_threshold_px = 3.0;
    const ImagePairHomography ours =
        estimateImagePairHomography(*extractor, *matcher, graf1, graf3, ransac);
    QVERIFY(ours.ransac.found);
    const double ours_error = meanCornerTransferError(ours.ransac.model, truth, graf1.cols, graf1.rows);

    std::vector<cv::Point2f> a, b;
    for (size_t k = 0; k < ours.points_a.size(); ++k) {
      a.emplace_back(static_cast<float>(ours.points_a[k].x), static_cast<float>(ours.points_a[k].y));
      b.emplace_back(static_cast<float>(ours.points_b[k].x), static_cast<float>(ours.points_b[k].y));
    }
    const auto start = std::chrono::steady_clock::now();
    cv::Mat cv_mask;
    const cv::Mat cv_h = cv::findHomography(a, b, cv::USAC_MAGSAC, 3.0, cv_mask, 10000, 0.9999);
    const double cv_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    QVERIFY(!cv_h.empty());
    Matrix3d magsac;
    for (int i = 0; i < 9; ++i) magsac[i] = cv_h.at<double>(i / 3, i % 3);
    const double cv_error = meanCornerTransferError(magsac, truth, graf1.cols, graf1.rows);

    qInfo("graf1->graf3: %d/%d keypoints, %d MNN matches", ours.features_a.size(),
          ours.features_b.size(), ours.matches.size());
    qInfo("ours (batched LO-RANSAC, %d hypotheses): %d inliers, corner error %.3f px, %.1f ms",
          ours.ransac.hypotheses_evaluated, ours.ransac.num_inliers, ours_error, ours.ransac_ms);
    qInfo("OpenCV USAC_MAGSAC: %d inliers, corner error %.3f px, %.1f ms",
          cv::countNonZero(cv_mask), cv_error, cv_ms);
    QVERIFY2(ours_error < 2.0, qPrintable(QString("corner error %1 px").arg(ours_error)));
    QVERIFY(ours.ransac.num_inliers >= 50);
  }
};

QTEST_GUILESS_MAIN(TestRobustGraf)
#include "test_robust_graf.moc"
