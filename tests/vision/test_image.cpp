// vision::Image (core/vision/image.h) on the CPU: host views and clones, tensors as
// images, transfer counting, extraction from an Image equal to extraction from the
// cv::Mat it wraps, warps (host and tensor form), and feature subsets and gathers
// (core/vision/features.h). The device side is checked by test_vision_cuda (label gpu).
#include <QtTest>

#include <ATen/ATen.h>

#include <algorithm>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "core/util/error.h"
#include "core/vision/feature_set_impl.h"
#include "core/vision/features.h"
#include "core/vision/image.h"
#include "core/vision/image_impl.h"
#include "tests/test_support.h"

using namespace skytrace;
using namespace skytrace::vision;

namespace {
cv::Mat texture(int width, int height) {
  cv::Mat bgr(height, width, CV_8UC3);
  cv::RNG rng(7);
  rng.fill(bgr, cv::RNG::UNIFORM, 0, 256);
  return bgr;
}
}  // namespace

class TestImage : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void hostViewsAndClones() {
    cv::Mat pixels = texture(64, 48);
    const Image view = Image::fromHost(pixels);
    QVERIFY(!view.empty() && view.onHost());
    QCOMPARE(view.width(), 64);
    QCOMPARE(view.height(), 48);
    QCOMPARE(view.channels(), 3);
    QVERIFY(!view.device().cuda);
    ImageTransfers transfers;
    QCOMPARE(view.hostPixels(&transfers).data, pixels.data);  // a view: no copy
    QCOMPARE(transfers.downloads, std::int64_t(0));
    const Image kept = view.clone();
    pixels.setTo(cv::Scalar(0, 0, 0));  // the owner reuses its buffer
    QVERIFY(kept.hostPixels().data != pixels.data);
    QVERIFY(cv::norm(kept.hostPixels(), cv::NORM_INF) > 0);  // the clone kept the old pixels
    QCOMPARE(view.to(DeviceSpec{}, &transfers).hostPixels().data, pixels.data);  // there already
    QCOMPARE(transfers.uploads + transfers.downloads, std::int64_t(0));
    QVERIFY(Image().empty());
    QVERIFY(Image::fromHost(cv::Mat()).empty());
  }

  void refusesPixelsItCannotFeed() {
    const QString message =
        test::errorMessageOf<InvalidArgument>([] { Image::fromHost(cv::Mat(8, 8, CV_32FC3)); });
    QVERIFY2(message.contains("8-bit"), qPrintable(message));
    QVERIFY(test::errorMessageOf<InvalidArgument>([] { imageFromTensor(at::zeros({4, 4, 2}, at::kByte)); })
                .contains("uint8"));
  }

  // A CPU tensor is a host image over the tensor's memory; a gray [H,W] gets one channel.
  void tensorsBecomeImages() {
    const at::Tensor bgr = at::randint(0, 255, {10, 12, 3}, at::kByte);
    const Image image = imageFromTensor(bgr);
    QVERIFY(image.onHost());
    QCOMPARE(image.width(), 12);
    QCOMPARE(image.height(), 10);
    QCOMPARE(static_cast<void*>(image.hostPixels().data), bgr.data_ptr());
    ImageTransfers transfers;
    const at::Tensor same = imageTensorOn(image, at::Device(at::kCPU), &transfers);
    QVERIFY(at::equal(same, bgr));
    QCOMPARE(transfers.uploads + transfers.downloads, std::int64_t(0));
    const Image gray = imageFromTensor(at::zeros({5, 6}, at::kByte));
    QCOMPARE(gray.channels(), 1);
    // A non-contiguous tensor is copied into memory the image keeps alive.
    const Image transposed = imageFromTensor(at::randint(0, 255, {12, 10, 3}, at::kByte).transpose(0, 1));
    QCOMPARE(transposed.width(), 12);
    QVERIFY(transposed.hostPixels().isContinuous());
  }

  // An extractor fed an Image gives what it gives for the cv::Mat, and counts no copy on
  // the CPU.
  void extractionFromAnImageEqualsTheMat() {
    const cv::Mat pixels = texture(320, 240);
    ExtractorOptions options;
    options.model = "orb";
    const auto extractor = createFeatureExtractor(options);
    const FeatureSet from_mat = extractor->extract(pixels);
    const FeatureSet from_image = extractor->extract(Image::fromHost(pixels));
    QVERIFY(from_mat.size() > 100);
    QCOMPARE(from_image.size(), from_mat.size());
    QVERIFY(at::equal(from_image.impl().keypoints_px, from_mat.impl().keypoints_px));
    QCOMPARE(extractor->transfers().uploads + extractor->transfers().downloads, std::int64_t(0));
  }

  // warpPerspective: host images through OpenCV; the tensor form (what device images
  // use) agrees with OpenCV up to interpolation rounding (OpenCV's bilinear weights are
  // fixed point, 1/32 px) and reads zeros outside the source and behind the camera.
  void warpAgreesWithOpenCv() {
    cv::Mat pixels;
    cv::GaussianBlur(texture(160, 120), pixels, cv::Size(5, 5), 1.5);
    const cv::Matx33d target_from_source(0.9, -0.3, 40.0, 0.25, 0.95, 10.0, 0.0004, -0.0002, 1.0);
    const cv::Size size(200, 150);
    cv::Mat expected;
    cv::warpPerspective(pixels, expected, cv::Mat(target_from_source), size, cv::INTER_LINEAR, cv::BORDER_CONSTANT);
    const Image host = warpPerspective(Image::fromHost(pixels), target_from_source, size);
    QVERIFY(host.onHost());
    QCOMPARE(cv::norm(host.hostPixels(), expected, cv::NORM_INF), 0.0);

    const at::Tensor source = at::from_blob(pixels.data, {pixels.rows, pixels.cols, 3}, at::kByte).clone();
    // The image keeps the tensor's memory alive; its host pixels are a view of it.
    const Image warped_image = imageFromTensor(warpPerspectiveTensor(source, target_from_source, size));
    const cv::Mat warped = warped_image.hostPixels();
    QCOMPARE(warped.size(), size);
    cv::Mat diff;
    cv::absdiff(warped, expected, diff);
    // Where each target pixel reads the source: well inside (1.5 px from its border) the
    // two agree up to rounding; well outside both are zero.
    const cv::Matx33d source_from_target = target_from_source.inv();
    cv::Mat inside(size, CV_8UC1, cv::Scalar(0)), outside(size, CV_8UC1, cv::Scalar(0));
    for (int y = 0; y < size.height; ++y) {
      for (int x = 0; x < size.width; ++x) {
        const cv::Vec3d p = source_from_target * cv::Vec3d(x, y, 1.0);
        const double u = p[0] / p[2], v = p[1] / p[2];
        const double margin = std::min({u, v, pixels.cols - 1 - u, pixels.rows - 1 - v});
        if (p[2] > 0 && margin > 1.5) inside.at<uchar>(y, x) = 255;
        if (p[2] <= 0 || margin < -1.5) outside.at<uchar>(y, x) = 255;
      }
    }
    QVERIFY(cv::countNonZero(inside) > 10000 && cv::countNonZero(outside) > 5000);
    const double worst = cv::norm(warped, expected, cv::NORM_INF, inside);
    const cv::Scalar mean = cv::mean(diff, inside);
    QVERIFY2(worst <= 3.0 && mean[0] < 0.6 && mean[1] < 0.6 && mean[2] < 0.6,
             qPrintable(QString("max %1, mean %2").arg(worst).arg(mean[0])));
    QCOMPARE(cv::norm(warped, cv::NORM_INF, outside), 0.0);
    QCOMPARE(cv::norm(expected, cv::NORM_INF, outside), 0.0);
    // A homography that puts the whole target behind the camera reads nothing.
    const cv::Matx33d behind(1, 0, 0, 0, 1, 0, 0, 0, -1);
    QCOMPARE(at::count_nonzero(warpPerspectiveTensor(source, behind, size)).item<int64_t>(), int64_t(0));
  }

  // selectFeatures keeps the rows asked for, in order; gatherFeatures takes rows of
  // several sets, part after part, with the positions it is given.
  void featureSubsetsAndGathers() {
    const std::vector<cv::Point2f> points = {{1, 1}, {10, 5}, {20, 20}, {39, 29}};
    const std::vector<float> scores = {0.1f, 0.2f, 0.3f, 0.4f};
    cv::Mat descriptors(4, 8, CV_32F);
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 8; ++c) descriptors.at<float>(r, c) = float(r == c);
    const FeatureSet all = makeFeatureSetFromHost(points, scores, descriptors, 40, 30, DeviceSpec{});
    const FeatureSet some = selectFeatures(all, {3, 1});
    QCOMPARE(some.size(), 2);
    QCOMPARE(some.keypoints()[0], points[3]);
    QCOMPARE(some.keypoints()[1], points[1]);
    QCOMPARE(some.scores()[0], 0.4f);
    QCOMPARE(some.descriptors().at<float>(1, 1), 1.0f);
    QCOMPARE(selectFeatures(all, {}).size(), 0);
    QVERIFY(test::errorMessageOf<InvalidArgument>([&] { selectFeatures(all, {4}); }).contains("outside"));

    // Rows 0, 1 of the first part, nothing of an empty one, row 2 of the second.
    const std::vector<cv::Point2f> moved = {{1, 1}, {10, 5}, {60, 20}};
    const FeatureSet gathered = gatherFeatures({all, FeatureSet(), all}, {{0, 1}, {}, {2}}, moved, cv::Size(80, 30));
    QCOMPARE(gathered.size(), 3);
    QCOMPARE(gathered.imageWidth(), 80);
    QCOMPARE(gathered.keypoints()[2], cv::Point2f(60, 20));
    QCOMPARE(gathered.scores()[2], 0.3f);
    QCOMPARE(gathered.descriptors().at<float>(2, 2), 1.0f);
    QCOMPARE(gathered.descriptors().at<float>(1, 1), 1.0f);
    QVERIFY(gatherFeatures({all}, {{}}, {}, cv::Size(4, 4)).empty());
    QVERIFY(test::errorMessageOf<InvalidArgument>([&] {
              gatherFeatures({all}, {{0, 1}}, {cv::Point2f(0, 0)}, cv::Size(4, 4));
            }).contains("keypoints for 2 rows"));
  }
};

QTEST_GUILESS_MAIN(TestImage)
#include "test_image.moc"
