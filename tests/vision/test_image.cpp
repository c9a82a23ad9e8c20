// vision::Image (core/vision/image.h) on the CPU: host views and clones, tensors as
// images, transfer counting, and extraction from an Image equal to extraction from the
// cv::Mat it wraps. The device side is checked by test_vision_cuda (label gpu).
#include <QtTest>

#include <ATen/ATen.h>

#include <opencv2/core.hpp>

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
};

QTEST_GUILESS_MAIN(TestImage)
#include "test_image.moc"
