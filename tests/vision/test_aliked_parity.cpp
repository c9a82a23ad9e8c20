// ALIKED port against the reference outputs of the original implementation
// (shared/fixtures/parity/aliked-{t16,n16rot}, Shiaoming/ALIKED 683d7c6, CPU float32):
// encoder crops, score logits/map, dense descriptor map, DKD keypoints/scores/
// dispersity (matched as a set, near-tied NMS peaks may swap ranks), SDDH patches,
// samples, offsets and descriptors, within the tolerances of the fixture README.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>

#include <QtTest>

#include "core/vision/aliked_model_impl.h"
#include "core/vision/checkpoint_impl.h"
#include "tests/test_support.h"

using namespace skytrace::vision;

namespace {

double maxAbsDiff(const at::Tensor& a, const at::Tensor& b) {
  if (a.sizes() != b.sizes()) return 1e30;
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>();
}

at::Tensor crop(const at::Tensor& map, const at::Tensor& origin, int64_t size = 16) {
  const int64_t r = origin[0].item<int64_t>(), c = origin[1].item<int64_t>();
  return map.narrow(2, r, size).narrow(3, c, size);
}

std::string path(const QString& relative) {
  return skytrace::test::sharedPath(relative).toStdString();
}

}  // namespace

class TestAlikedParity : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    SKYTRACE_REQUIRE_SHARED();
    at::set_num_threads(2);
    inputs_ = loadTorchCheckpoint(path("fixtures/parity/aliked-n16rot/inputs.pt"));
  }

  void parity_data() {
    QTest::addColumn<QString>("variant");
    QTest::addColumn<QString>("image");
    for (const char* variant : {"aliked-t16", "aliked-n16rot"})
      for (const char* image : {"im0", "im1"})
        QTest::newRow((std::string(variant) + "/" + image).c_str()) << variant << image;
  }

  void parity() {
    QFETCH(QString, variant);
    QFETCH(QString, image);
    const std::string v = variant.toStdString();
    const std::string im = image.toStdString();
    const StateDict ref =
        loadTorchCheckpoint(path("fixtures/parity/" + variant + "/outputs.pt"));
    const auto R = [&](const std::string& key) { return ref.at(im + "_" + key); };
    const aliked::AlikedModel model =
        aliked::loadAlikedModel(v, path("models/aliked/" + variant + ".pth"), at::kCPU);
    c10::InferenceMode inference;

    // Preprocessing: ToTensor of the stored RGB bytes gives the stored float input.
    const std::string index = im == "im0" ? "0" : "1";
    const at::Tensor input = inputs_.at("image" + index);
    const at::Tensor from_bytes =
        inputs_.at("image" + index + "_rgb_u8").permute({2, 0, 1}).unsqueeze(0).to(at::kFloat).div(255);
    QCOMPARE(maxAbsDiff(from_bytes, input), 0.0);

    // Dense part.
    aliked::DenseTrace trace;
    const aliked::DenseMaps maps = model.extractDenseMap(input, &trace);
    const at::Tensor pad = R("pad_lrtb");
    for (int i = 0; i < 4; ++i) QCOMPARE(trace.pad_lrtb[i], pad[i].item<int64_t>());
    for (int k = 1; k <= 3; ++k) {
      const std::string n = std::to_string(k);
      const double block = maxAbsDiff(crop(trace.blocks[k - 1], R("enc_block" + n + "_crop_origin")),
                                      R("enc_block" + n + "_crop"));
      const double conv = maxAbsDiff(crop(trace.projections[k - 1], R("enc_conv" + n + "_crop_origin")),
                                     R("enc_conv" + n + "_crop"));
      qInfo("%s %s block%d %.3g conv%d %.3g", v.c_str(), im.c_str(), k, block, k, conv);
      QVERIFY2(block < 1e-4, ("block" + n).c_str());
      QVERIFY2(conv < 1e-4, ("conv" + n).c_str());
    }
    const double block4 = maxAbsDiff(trace.blocks[3], R("enc_block4"));
    const double conv4 = maxAbsDiff(trace.projections[3], R("enc_conv4"));
    const double logits = maxAbsDiff(crop(trace.score_logits, R("score_logits_padded_crop_origin")),
                                     R("score_logits_padded_crop"));
    const double score_map = maxAbsDiff(maps.score_map, R("score_map"));
    const double feature_crop = maxAbsDiff(crop(maps.feature_map, R("feature_map_crop_origin")),
                                           R("feature_map_crop"));
    qInfo("%s %s block4 %.3g conv4 %.3g logits %.3g score_map %.3g feature_map_crop %.3g",
          v.c_str(), im.c_str(), block4, conv4, logits, score_map, feature_crop);
    QVERIFY(block4 < 1e-4);
    QVERIFY(conv4 < 1e-4);
    QVERIFY(logits < 1e-4);
    QVERIFY(score_map < 1e-4);
    QVERIFY(feature_crop < 1e-5);

    // Descriptor head on the reference keypoints: independent of detection ties.
    aliked::SddhTrace sddh_trace;
    const aliked::SddhResult on_ref = model.descriptorHead()(
        aliked::DenseFeatureLookup(maps.feature_map.contiguous()), R("keypoints"), &sddh_trace);
    const double patches = maxAbsDiff(sddh_trace.patches.narrow(0, 0, 8), R("desc_patches_first8"));
    const double sampled = maxAbsDiff(sddh_trace.sampled.narrow(0, 0, 8), R("desc_sampled_first8"));
    const double offsets = maxAbsDiff(on_ref.offsets, R("desc_offsets"));
    const double descriptors = maxAbsDiff(on_ref.descriptors, R("descriptors"));
    qInfo("%s %s SDDH on reference keypoints: patches %.3g sampled %.3g offsets %.3g px "
          "descriptors %.3g", v.c_str(), im.c_str(), patches, sampled, offsets, descriptors);
    QVERIFY(patches < 1e-5);
    QVERIFY(sampled < 1e-4);
    QVERIFY(offsets < 1e-3);
    QVERIFY(descriptors < 1e-4);

    // Full forward, top-1024 as the fixture; keypoints compared as a set.
    aliked::DkdOptions detection;
    detection.top_k = 1024;
    const aliked::AlikedOutput out = model.forward(input, detection);
    const int64_t n = R("keypoints_px").size(0);
    QCOMPARE(out.keypoints_px.size(0), n);
    const at::Tensor distance = at::cdist(R("keypoints_px").to(at::kDouble),
                                          out.keypoints_px.to(at::kDouble));  // [ref, ours]
    const auto [nearest, ours_of_ref] = distance.min(1);
    const int64_t in_set = (nearest < 0.01).sum().item<int64_t>();
    const int64_t same_index =
        (ours_of_ref == at::arange(n, ours_of_ref.options())).sum().item<int64_t>();
    const at::Tensor aligned = ours_of_ref;
    const double px = maxAbsDiff(out.keypoints_px.index_select(0, aligned), R("keypoints_px"));
    const double kp = maxAbsDiff(out.keypoints.index_select(0, aligned), R("keypoints"));
    const double scores = maxAbsDiff(out.scores.index_select(0, aligned), R("scores"));
    const double dispersity =
        maxAbsDiff(out.dispersity.index_select(0, aligned), R("score_dispersity"));
    const double desc = maxAbsDiff(out.descriptors.index_select(0, aligned), R("descriptors"));
    const double offs = maxAbsDiff(out.offsets.index_select(0, aligned), R("desc_offsets"));
    qInfo("%s %s keypoints in_set %lld/%lld same_index %lld px %.3g norm %.3g scores %.3g "
          "dispersity %.3g descriptors %.3g offsets %.3g",
          v.c_str(), im.c_str(), static_cast<long long>(in_set), static_cast<long long>(n),
          static_cast<long long>(same_index), px, kp, scores, dispersity, desc, offs);
    QCOMPARE(in_set, n);
    QVERIFY(same_index >= n * 99 / 100);
    QVERIFY(px < 1e-3);
    QVERIFY(scores < 1e-4);
    QVERIFY(dispersity < 1e-4);
    QVERIFY(desc < 1e-4);
    QVERIFY(offs < 1e-3);
    QVERIFY(maxAbsDiff(out.score_map, R("score_map")) < 1e-4);
  }

 private:
  StateDict inputs_;
};

QTEST_GUILESS_MAIN(TestAlikedParity)
#include "test_aliked_parity.moc"
