// LiteSAM port against the reference outputs of the original implementation
// (shared/fixtures/parity/litesam, boyagesmile/LiteSAM 8b49e8d, CPU float32, random
// float16-rounded weights): checkpoint keys vs keys_full.json, MobileOne feature crops
// and norms, per-layer transformer crops, conf-matrix rows/maxima/argmax/sum, coarse
// matches, FPN crop, fine windows, fine softmax, 3x3 heatmaps, offsets and keypoints,
// at the tolerances of the fixture README; the reparameterised backbone; the public
// DenseMatcher on the fixture's bytes; the "matcher." prefix of release checkpoints.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <memory>

#include <opencv2/core.hpp>

#include "core/util/error.h"
#include "core/vision/checkpoint_impl.h"
#include "core/vision/dense_matcher.h"
#include "core/vision/litesam_model_impl.h"
#include "tests/test_support.h"

using namespace skytrace::vision;

namespace {

double maxAbsDiff(const at::Tensor& a, const at::Tensor& b) {
  if (a.sizes() != b.sizes()) return 1e30;
  if (a.numel() == 0) return 0.0;
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>();
}

bool sameValues(const at::Tensor& a, const at::Tensor& b) {
  return a.sizes() == b.sizes() && at::equal(a.to(at::kDouble), b.to(at::kDouble));
}

// [..., rows, cols] slice [begin, end) on the last two dimensions.
at::Tensor crop(const at::Tensor& t, int64_t begin, int64_t end) {
  return t.slice(-2, begin, end).slice(-1, begin, end);
}

// Channel L2 norm of [B, C, H, W] -> [B, H, W].
at::Tensor channelNorm(const at::Tensor& t) { return at::linalg_vector_norm(t, 2, {1}); }

at::Tensor both(const at::Tensor& a, const at::Tensor& b) { return at::cat({a, b}, 0); }

std::string fixture(const std::string& file) {
  return skytrace::test::sharedPath(QString::fromStdString("fixtures/parity/litesam/" + file))
      .toStdString();
}

#define CHECK_TOL(name, value, tol)                                            \
  do {                                                                         \
    const double v_ = (value);                                                 \
    qInfo("%-28s max abs diff %.3g (tolerance %.0e)", name, v_, double(tol)); \
    QVERIFY2(v_ <= (tol), name);                                               \
  } while (false)

}  // namespace

class TestLiteSamParity : public QObject {
  Q_OBJECT

 private:
  StateDict weights_, inputs_, ref_;
  std::unique_ptr<litesam::LiteSamModel> model_;
  litesam::LiteSamTrace trace_;
  litesam::LiteSamOutput out_;

  const at::Tensor& R(const std::string& key) const { return ref_.at(key); }

 private Q_SLOTS:
  void initTestCase() {
    SKYTRACE_REQUIRE_SHARED();
    at::set_num_threads(2);
    weights_ = loadTorchCheckpoint(fixture("weights.pt"));
    inputs_ = loadTorchCheckpoint(fixture("inputs.pt"));
    ref_ = loadTorchCheckpoint(fixture("outputs.pt"));
    model_ = std::make_unique<litesam::LiteSamModel>(weights_, at::kCPU);
    c10::InferenceMode inference;
    out_ = model_->forward(inputs_.at("image0"), inputs_.at("image1"), &trace_);
  }

  // Every key and shape of keys_full.json is what the fixture's state dict holds, and the
  // model bound exactly those (the binder rejects missing and unexpected keys).
  void checkpointKeys() {
    QFile file(QString::fromStdString(fixture("keys_full.json")));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject keys = QJsonDocument::fromJson(file.readAll()).object();
    QCOMPARE(static_cast<size_t>(keys.size()), weights_.tensors.size());
    for (auto it = keys.begin(); it != keys.end(); ++it) {
      const std::string key = it.key().toStdString();
      QVERIFY2(weights_.contains(key), key.c_str());
      std::vector<int64_t> shape;
      for (const auto& v : it.value().toArray()) shape.push_back(v.toInteger());
      QVERIFY2(weights_.at(key).sizes().vec() == shape, key.c_str());
    }
    // The input the model ran on is the stored bytes / 255.
    const at::Tensor from_bytes =
        inputs_.at("image0_u8").permute({2, 0, 1}).unsqueeze(0).to(at::kFloat).div(255);
    QCOMPARE(maxAbsDiff(from_bytes, inputs_.at("image0")), 0.0);
  }

  void backbone() {
    const auto& b0 = trace_.backbone0;
    const auto& b1 = trace_.backbone1;
    CHECK_TOL("feats_c_crop", maxAbsDiff(crop(both(b0.feats_c, b1.feats_c), 18, 42), R("feats_c_crop")), 2e-4);
    CHECK_TOL("feats_c_norm", maxAbsDiff(channelNorm(both(b0.feats_c, b1.feats_c)), R("feats_c_norm")), 2e-4);
    CHECK_TOL("feats_x2_crop", maxAbsDiff(crop(both(b0.feats_x2, b1.feats_x2), 48, 72), R("feats_x2_crop")), 2e-4);
    CHECK_TOL("feats_x2_norm", maxAbsDiff(channelNorm(both(b0.feats_x2, b1.feats_x2)), R("feats_x2_norm")), 2e-4);
    CHECK_TOL("feats_x1_crop", maxAbsDiff(crop(both(b0.feats_x1, b1.feats_x1), 108, 132), R("feats_x1_crop")), 2e-4);
    CHECK_TOL("feats_x1_norm", maxAbsDiff(channelNorm(both(b0.feats_x1, b1.feats_x1)), R("feats_x1_norm")), 2e-4);
  }

  void transformer() {
    const auto& layers = trace_.transformer.layer_outputs;
    QCOMPARE(layers.size(), size_t(8));
    CHECK_TOL("tf_layer0_out_crop", maxAbsDiff(crop(both(layers[0][0], layers[0][1]), 22, 38), R("tf_layer0_out_crop")), 5e-4);
    CHECK_TOL("tf_layer1_out_crop", maxAbsDiff(crop(both(layers[1][0], layers[1][1]), 22, 38), R("tf_layer1_out_crop")), 5e-4);
    const at::Tensor t = both(trace_.transformer_out[0], trace_.transformer_out[1]);
    CHECK_TOL("feat_c_tf_crop", maxAbsDiff(crop(t, 18, 42), R("feat_c_tf_crop")), 2e-3);
    CHECK_TOL("feat_c_tf_norm", maxAbsDiff(channelNorm(t), R("feat_c_tf_norm")), 5e-3);
    const at::Tensor cells0 = trace_.transformer_out[0][0].flatten(1).t();  // [L, C]
    const at::Tensor cells1 = trace_.transformer_out[1][0].flatten(1).t();
    CHECK_TOL("feat_c0_tf_at_i_ids", maxAbsDiff(cells0.index_select(0, R("i_ids")), R("feat_c0_tf_at_i_ids")), 2e-3);
    CHECK_TOL("feat_c1_tf_at_j_ids", maxAbsDiff(cells1.index_select(0, R("j_ids")), R("feat_c1_tf_at_j_ids")), 2e-3);
  }

  void coarseMatching() {
    const at::Tensor conf = trace_.conf_matrix[0];  // [3600, 3600]
    CHECK_TOL("conf_matrix_rows_at_i_ids", maxAbsDiff(conf.index_select(0, R("i_ids")), R("conf_matrix_rows_at_i_ids")), 2e-3);
    CHECK_TOL("conf_matrix_block", maxAbsDiff(conf.slice(0, 1800, 1860), R("conf_matrix_block")), 1e-4);
    const auto [row_max, row_arg] = conf.max(1);
    const auto [col_max, col_arg] = conf.max(0);
    CHECK_TOL("conf_matrix_rowmax", maxAbsDiff(row_max, R("conf_matrix_rowmax")), 2e-3);
    CHECK_TOL("conf_matrix_colmax", maxAbsDiff(col_max, R("conf_matrix_colmax")), 2e-3);
    for (const auto& [ours, key] : {std::make_pair(row_arg, std::string("conf_matrix_rowargmax")),
                                    std::make_pair(col_arg, std::string("conf_matrix_colargmax"))}) {
      const at::Tensor defined = R(key) >= 0;
      const int64_t n = defined.sum().item<int64_t>();
      const int64_t agree = (ours.masked_select(defined) == R(key).masked_select(defined)).sum().item<int64_t>();
      qInfo("%s: %lld of %lld defined entries agree", key.c_str(), (long long)agree, (long long)n);
      QCOMPARE(agree, n);
    }
    const double sum = conf.to(at::kDouble).sum().item<double>();
    CHECK_TOL("conf_matrix_sum", std::abs(sum - R("conf_matrix_sum").item<double>()), 5e-3);

    QVERIFY(sameValues(out_.i_ids, R("i_ids")));
    QVERIFY(sameValues(out_.j_ids, R("j_ids")));
    QVERIFY(sameValues(at::zeros_like(out_.i_ids), R("b_ids")));
    QVERIFY(sameValues(at::zeros_like(out_.i_ids), R("m_bids")));
    CHECK_TOL("mconf", maxAbsDiff(out_.mconf, R("mconf")), 2e-3);
    QVERIFY(sameValues(trace_.mkpts0_c_pre_fine, R("mkpts0_c_pre_fine")));
    QVERIFY(sameValues(trace_.mkpts1_c_pre_fine, R("mkpts1_c_pre_fine")));
    // Grid sizes the original reports: hw*_i, hw*_c, hw*_f (= 8 x coarse).
    const auto hw = [](const at::Tensor& t) { return at::tensor({t.size(2), t.size(3)}); };
    QVERIFY(sameValues(hw(inputs_.at("image0")), R("hw0_i")));
    QVERIFY(sameValues(hw(inputs_.at("image1")), R("hw1_i")));
    QCOMPARE(R("bs").item<int64_t>(), inputs_.at("image0").size(0));
    QVERIFY(sameValues(hw(trace_.backbone0.feats_c), R("hw0_c")));
    QVERIFY(sameValues(hw(trace_.backbone1.feats_c), R("hw1_c")));
    QVERIFY(sameValues(hw(trace_.fpn[0]), R("hw0_f")));
    QVERIFY(sameValues(hw(trace_.fpn[1]), R("hw1_f")));
    QCOMPARE(R("W").item<int64_t>(), litesam::FineMatching::kWindow);
  }

  void fineStage() {
    const at::Tensor fpn = both(trace_.fpn[0], trace_.fpn[1]);
    CHECK_TOL("fpn_out_crop", maxAbsDiff(crop(fpn, 224, 256), R("fpn_out_crop")), 5e-4);
    CHECK_TOL("feat_f0_unfold", maxAbsDiff(trace_.feat_f0_unfold, R("feat_f0_unfold")), 5e-4);
    CHECK_TOL("feat_f1_unfold", maxAbsDiff(trace_.feat_f1_unfold, R("feat_f1_unfold")), 5e-4);
    const auto& fine = trace_.fine;
    CHECK_TOL("softmax_matrix_f", maxAbsDiff(fine.softmax_matrix_f, R("softmax_matrix_f")), 1e-5);
    QVERIFY(sameValues(fine.idx_l, R("idx_l")));
    QVERIFY(sameValues(fine.idx_r, R("idx_r")));
    CHECK_TOL("heatmap_3x3", maxAbsDiff(fine.heatmap_3x3, R("heatmap_3x3")), 2e-4);
    CHECK_TOL("offset_xy", maxAbsDiff(fine.offset_xy, R("offset_xy")), 2e-5);
    QVERIFY(sameValues(out_.mkpts0_c, R("mkpts0_c")));
    QVERIFY(sameValues(out_.mkpts1_c, R("mkpts1_c")));
    QVERIFY(sameValues(out_.mkpts0_f, R("mkpts0_f")));
    CHECK_TOL("mkpts1_f", maxAbsDiff(out_.mkpts1_f, R("mkpts1_f")), 1e-4);
  }

  // The fused (reparameterised) MobileOne computes the multi-branch backbone's features
  // within 1e-4 relative (both images, all three outputs).
  void reparameterizedBackbone() {
    StateDict backbone_only;
    backbone_only.source = weights_.source;
    for (const auto& [key, tensor] : weights_.tensors)
      if (key.rfind("backbone.", 0) == 0) backbone_only.tensors[key] = tensor;
    litesam::MobileOneS3Backbone fused;
    StateDictBinder binder(backbone_only, "LiteSAM backbone", at::TensorOptions().dtype(at::kFloat));
    fused.bind(binder, "backbone");
    binder.finish();
    fused.reparameterize();
    QVERIFY(fused.stage0.fused && fused.stage2.back().fused);
    c10::InferenceMode inference;
    const litesam::BackboneFeatures f =
        fused(at::cat({inputs_.at("image0"), inputs_.at("image1")}, 0));
    const auto relative = [](const at::Tensor& a, const at::Tensor& b) {
      return maxAbsDiff(a, b) / b.abs().max().item<double>();
    };
    const auto& b0 = trace_.backbone0;
    const auto& b1 = trace_.backbone1;
    CHECK_TOL("fused feats_c (relative)", relative(f.feats_c, both(b0.feats_c, b1.feats_c)), 1e-4);
    CHECK_TOL("fused feats_x2 (relative)", relative(f.feats_x2, both(b0.feats_x2, b1.feats_x2)), 1e-4);
    CHECK_TOL("fused feats_x1 (relative)", relative(f.feats_x1, both(b0.feats_x1, b1.feats_x1)), 1e-4);
  }

  // The public interface on the fixture's uint8 images (480 = a multiple of 32, so no
  // resize) from a Lightning-style checkpoint whose keys carry "matcher.", with the
  // default fused backbone: the same matches and window argmaxes as the original's
  // multi-branch run, continuous outputs within the README's tolerances.
  void denseMatcherFusedFromPrefixedCheckpoint() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    std::map<std::string, at::Tensor> prefixed;
    for (const auto& [key, tensor] : weights_.tensors) prefixed["matcher." + key] = tensor;
    const std::string path = dir.filePath("litesam_prefixed.safetensors").toStdString();
    {
      std::ofstream file(path, std::ios::binary);
      file << saveSafetensorsBytes(prefixed);
    }
    DenseMatcherOptions options;
    options.weights_path = path;
    options.resize_long_side_px = 0;
    QVERIFY(options.reparameterize_backbone);
    const auto matcher = createDenseMatcher(options);
    QCOMPARE(QString::fromStdString(matcher->name()), QString("litesam"));
    const auto toMat = [](const at::Tensor& u8) {
      return cv::Mat(static_cast<int>(u8.size(0)), static_cast<int>(u8.size(1)), CV_8UC1,
                     u8.data_ptr()).clone();
    };
    DenseMatches matches =
        matcher->match(toMat(inputs_.at("image0_u8")), toMat(inputs_.at("image1_u8")));
    QCOMPARE(matches.size(), static_cast<int>(R("mkpts0_f").size(0)));
    const at::Tensor p0 = at::from_blob(matches.points_a.data(), {matches.size(), 2}, at::kFloat);
    const at::Tensor p1 = at::from_blob(matches.points_b.data(), {matches.size(), 2}, at::kFloat);
    const at::Tensor conf = at::from_blob(matches.confidence.data(), {matches.size()}, at::kFloat);
    // mkpts0_f is exact iff the coarse cells and idx_l agree; mkpts1_f within 1e-4 needs
    // the same j_ids and idx_r.
    QVERIFY(sameValues(p0, R("mkpts0_f")));
    CHECK_TOL("DenseMatcher points_b", maxAbsDiff(p1, R("mkpts1_f")), 1e-4);
    CHECK_TOL("DenseMatcher confidence", maxAbsDiff(conf, R("mconf")), 2e-3);
  }

  // Rectangular images of different sizes (the original's separate-backbone path; the
  // fixture has one square size): grid sizes, cell coordinates, and the coarse matches
  // against the original's rule evaluated densely on our conf matrix (threshold, border,
  // conf equal to its row AND column maximum, first such j per row).
  void rectangularPairOfDifferentSizes() {
    c10::InferenceMode inference;
    const at::Tensor a = inputs_.at("image0").slice(2, 0, 256).slice(3, 0, 320).contiguous();  // 320x256
    const at::Tensor b = inputs_.at("image1").slice(2, 64, 384).slice(3, 96, 320).contiguous();  // 224x320
    litesam::LiteSamTrace trace;
    const litesam::LiteSamOutput out = model_->forward(a, b, &trace);
    QCOMPARE(trace.backbone0.feats_c.sizes().vec(), (std::vector<int64_t>{1, 256, 32, 40}));
    QCOMPARE(trace.backbone1.feats_c.sizes().vec(), (std::vector<int64_t>{1, 256, 40, 28}));
    QCOMPARE(trace.conf_matrix.sizes().vec(), (std::vector<int64_t>{1, 1280, 1120}));
    QCOMPARE(trace.fpn[1].sizes().vec(), (std::vector<int64_t>{1, 64, 320, 224}));

    const at::Tensor conf = trace.conf_matrix[0];
    const int64_t border = 2;
    const auto inner = [&](int64_t h, int64_t w) {
      at::Tensor m = at::zeros({h, w}, at::kBool);
      m.slice(0, border, h - border).slice(1, border, w - border).fill_(true);
      return m.reshape(-1);
    };
    const at::Tensor mask = (conf > 0.2) & inner(32, 40).unsqueeze(1) & inner(40, 28).unsqueeze(0) &
                            (conf == std::get<0>(conf.max(1, true))) &
                            (conf == std::get<0>(conf.max(0, true)));
    const auto [mask_v, all_j] = mask.max(1);
    const at::Tensor i_ref = at::nonzero(mask_v).squeeze(1);
    qInfo("%lld coarse matches on the rectangular pair", static_cast<long long>(i_ref.size(0)));
    QVERIFY(i_ref.size(0) > 0);
    QVERIFY(sameValues(out.i_ids, i_ref));
    QVERIFY(sameValues(out.j_ids, all_j.index_select(0, i_ref)));
    const at::Tensor cells0 = at::stack({out.i_ids.remainder(40), out.i_ids.div(40, "floor")}, 1) * 8;
    const at::Tensor cells1 = at::stack({out.j_ids.remainder(28), out.j_ids.div(28, "floor")}, 1) * 8;
    QVERIFY(sameValues(trace.mkpts0_c_pre_fine, cells0));
    QVERIFY(sameValues(trace.mkpts1_c_pre_fine, cells1));
    // Fine step: inside the cell's 8x8 window (grid -3.5..3.5), then an offset in (-1, 1).
    QVERIFY(((out.mkpts0_f - cells0).abs() <= 3.5).all().item<bool>());
    QVERIFY(((out.mkpts1_f - out.mkpts1_c).abs() < 1.0).all().item<bool>());
  }

  void invalidInputsAreRejected() {
    c10::InferenceMode inference;
    const at::Tensor odd = at::zeros({1, 1, 100, 96});
    const QString message = skytrace::test::errorMessageOf<skytrace::InvalidArgument>(
        [&] { model_->forward(odd, odd); });
    QVERIFY2(message.contains("multiples of 32"), qPrintable(message));
    DenseMatcherOptions options;
    options.model = "loftr";
    QVERIFY(skytrace::test::errorMessageOf<skytrace::InvalidArgument>([&] { options.check(); })
                .contains("litesam"));

    // Missing weights: the message names the published file.
    QTemporaryDir empty_models;
    qputenv("SKYTRACE_MODEL_DIR", empty_models.path().toUtf8());
    const QString missing = skytrace::test::errorMessageOf<skytrace::ModelError>(
        [&] { createDenseMatcher(DenseMatcherOptions{}); });
    qunsetenv("SKYTRACE_MODEL_DIR");
    QVERIFY2(missing.contains("mloftr.ckpt"), qPrintable(missing));

    // Images too small for the model after resizing, or of an unsupported type.
    DenseMatcherOptions keep_size;
    keep_size.weights_path = fixture("weights.pt");
    keep_size.resize_long_side_px = 0;
    const auto matcher = createDenseMatcher(keep_size);
    const cv::Mat tiny(20, 40, CV_8UC1, cv::Scalar(128)), fine(64, 64, CV_8UC1, cv::Scalar(128));
    QVERIFY(skytrace::test::errorMessageOf<skytrace::InvalidArgument>([&] { matcher->match(tiny, fine); })
                .contains("smaller than 32x32"));
    const cv::Mat four_channels(64, 64, CV_8UC4);
    QVERIFY(skytrace::test::errorMessageOf<skytrace::InvalidArgument>(
                [&] { matcher->match(fine, four_channels); })
                .contains("8-bit BGR or grayscale"));
  }
};

QTEST_GUILESS_MAIN(TestLiteSamParity)
#include "test_litesam_parity.moc"
