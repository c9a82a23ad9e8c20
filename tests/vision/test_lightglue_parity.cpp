// LightGlue port against the reference outputs of the original implementation
// (shared/fixtures/parity/lightglue_superpoint: cvg/LightGlue 1fd587b, features =
// superpoint, 3 layers, adaptivity off, random float16-rounded weights with the release
// key names, CPU float32): normalised keypoints, positional encodings, the first self
// block, descriptors after layers 0 and 2, the log assignment, matches and scores,
// within the fixture README's tolerances; the same through the Matcher interface.
// The release checkpoint layout: a 9-layer model binds exactly the keys and shapes of
// keys_full.json (11,851,601 parameters), the ALIKED variant adds input_proj, and
// missing/unexpected keys are reported by name.
// Adaptive depth and width: the early-exit decision and the pruned set after layer 0
// are recomputed independently from the stored weights and reference descriptors.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>

#include <QtTest>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/util/error.h"
#include "core/vision/checkpoint_impl.h"
#include "core/vision/feature_set_impl.h"
#include "core/vision/lightglue_model_impl.h"
#include "core/vision/matcher.h"
#include "tests/test_support.h"

using namespace skytrace;
using namespace skytrace::vision;

namespace {

double maxAbsDiff(const at::Tensor& a, const at::Tensor& b) {
  if (a.sizes() != b.sizes()) return 1e30;
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>();
}

bool sameIndices(const at::Tensor& a, const at::Tensor& b) {
  return a.sizes() == b.sizes() && a.to(at::kLong).equal(b.to(at::kLong));
}

std::string fixture(const std::string& file) {
  return test::sharedPath(QString::fromStdString("fixtures/parity/lightglue_superpoint/" + file))
      .toStdString();
}

// Zero tensors with the keys and shapes of keys_full.json (the 9-layer release model).
StateDict fullSizeStateDict(int64_t* parameter_count) {
  std::ifstream file(fixture("keys_full.json"));
  const nlohmann::json keys = nlohmann::json::parse(file);
  StateDict dict;
  dict.source = "keys_full.json";
  *parameter_count = 0;
  for (const auto& [key, shape] : keys.items()) {
    const std::vector<int64_t> sizes = shape.get<std::vector<int64_t>>();
    dict.tensors[key] = at::zeros(sizes, at::kFloat);
    *parameter_count += dict.tensors[key].numel();
  }
  return dict;
}

lightglue::LightGlueInput input(const StateDict& inputs, const std::string& index) {
  return {inputs.at("keypoints" + index)[0], inputs.at("descriptors" + index)[0],
          inputs.at("image_size" + index)[0][0].item<double>(),
          inputs.at("image_size" + index)[0][1].item<double>()};
}

lightglue::LightGlueOptions nonAdaptive() {
  lightglue::LightGlueOptions options;
  options.depth_confidence = -1;
  options.width_confidence = -1;
  return options;
}

}  // namespace

class TestLightGlueParity : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    SKYTRACE_REQUIRE_SHARED();
    at::set_num_threads(2);
    inputs_ = loadTorchCheckpoint(fixture("inputs.pt"));
    ref_ = loadTorchCheckpoint(fixture("outputs.pt"));
    weights_ = loadTorchCheckpoint(fixture("weights.pt"));
  }

  void parity() {
    QCOMPARE(lightglue::layerCountOf(weights_), 3);
    const lightglue::LightGlueModel model =
        lightglue::loadLightGlueModel("superpoint", fixture("weights.pt"), at::kCPU);
    c10::InferenceMode inference;
    lightglue::LightGlueTrace trace;
    const lightglue::LightGlueOutput out =
        model.forward(input(inputs_, "0"), input(inputs_, "1"), nonAdaptive(), &trace);

    double encoding = 0, normalized = 0, self_block = 0, layer0 = 0, layer2 = 0;
    for (int i = 0; i < 2; ++i) {
      const std::string s = std::to_string(i);
      normalized = std::max(normalized, maxAbsDiff(trace.keypoints_normalized[i],
                                                   ref_.at("kpts" + s + "_normalized")[0]));
      encoding = std::max(encoding, maxAbsDiff(trace.encoding[i].narrow(1, 0, 64),
                                               ref_.at("encoding" + s + "_first64").view({2, 64, 64})));
      self_block = std::max(self_block, maxAbsDiff(trace.self_block0[i].narrow(0, 0, 64),
                                                   ref_.at("desc" + s + "_after_layer0_selfblock_first64")[0]));
      QCOMPARE(trace.descriptors[i].size(), size_t{3});
      layer0 = std::max(layer0, maxAbsDiff(trace.descriptors[i][0], ref_.at("desc" + s + "_after_layer0")[0]));
      layer2 = std::max(layer2, maxAbsDiff(trace.descriptors[i][2], ref_.at("desc" + s + "_after_layer2")[0]));
    }
    const double log_assignment = maxAbsDiff(trace.log_assignment, ref_.at("log_assignment")[0]);
    const double relative =
        ((trace.log_assignment - ref_.at("log_assignment")[0]).abs() /
         ref_.at("log_assignment")[0].abs().clamp_min(1.0)).max().item<double>();
    const double scores0 = maxAbsDiff(out.scores0, ref_.at("matching_scores0")[0]);
    const double scores1 = maxAbsDiff(out.scores1, ref_.at("matching_scores1")[0]);
    const double match_scores = maxAbsDiff(out.match_scores, ref_.at("match_scores"));
    qInfo("normalized %.3g encoding %.3g selfblock0 %.3g layer0 %.3g layer2 %.3g "
          "log_assignment %.3g (relative %.3g) scores0 %.3g scores1 %.3g match_scores %.3g; %lld matches",
          normalized, encoding, self_block, layer0, layer2, log_assignment, relative, scores0,
          scores1, match_scores, static_cast<long long>(out.matches.size(0)));
    QVERIFY(normalized < 1e-6);
    QVERIFY(encoding < 1e-6);
    QVERIFY(self_block < 1e-5);
    QVERIFY(layer0 < 1e-5);
    QVERIFY(layer2 < 1e-5);
    QVERIFY(log_assignment < 5e-3);  // README: 5e-3 absolute or 1e-5 relative
    QVERIFY(scores0 < 1e-4);
    QVERIFY(scores1 < 1e-4);
    QVERIFY(match_scores < 1e-4);
    QVERIFY(sameIndices(out.matches0, ref_.at("matches0")[0]));
    QVERIFY(sameIndices(out.matches1, ref_.at("matches1")[0]));
    QVERIFY(sameIndices(out.matches, ref_.at("matches")));
    QCOMPARE(out.layers_run, static_cast<int>(ref_.at("stop").item<int64_t>()));
    QCOMPARE(out.matches.size(0), int64_t{7});
    QVERIFY(sameIndices(out.prune0, at::full({1024}, 3, at::kLong)));

    // The all-float32 assignment head (option float64_assignment = false) on the same
    // descriptors: scores within float32 noise of the reference.
    // Both images stacked as one batch (batch_pairs, the CUDA default) and one after the
    // other (the CPU default), without a trace: the reference matches and scores.
    for (const bool batched : {true, false}) {
      lightglue::LightGlueOptions options = nonAdaptive();
      options.batch_pairs = batched;
      const lightglue::LightGlueOutput body = model.forward(input(inputs_, "0"), input(inputs_, "1"), options);
      const double body_scores = maxAbsDiff(body.scores0, ref_.at("matching_scores0")[0]);
      qInfo("full-depth body, images %s: scores0 %.3g", batched ? "stacked" : "one by one", body_scores);
      QVERIFY(body_scores < 1e-4);
      QVERIFY(sameIndices(body.matches, ref_.at("matches")));
      QVERIFY(sameIndices(body.matches1, ref_.at("matches1")[0]));
      QCOMPARE(body.layers_run, 3);
    }

    const lightglue::FilteredMatches float32_head = lightglue::filterMatches(
        boundHead(2).logAssignment(trace.descriptors[0][2], trace.descriptors[1][2], false), 0.1f);
    const double float32_scores = maxAbsDiff(float32_head.scores0, ref_.at("matching_scores0")[0]);
    qInfo("float32 assignment head: scores0 %.3g", float32_scores);
    QVERIFY(float32_scores < 1e-3);
  }

  // Output projections folded into the feed-forward product (the float16 blocks' form):
  // the same block outputs in float32, for one image, a stacked pair and the cross block.
  void foldedOutputProjections() {
    c10::InferenceMode inference;
    at::manual_seed(5);
    const at::Tensor x = at::randn({2, 300, 256});
    const at::Tensor keypoints = at::rand({2, 300, 2}) * 2 - 1;
    const at::Tensor wr = weights_.at("posenc.Wr.weight").to(at::kFloat);
    const at::Tensor projected = at::matmul(keypoints, wr.t());
    const at::Tensor cos_sin = at::stack({at::cos(projected), at::sin(projected)}, -3);
    const at::Tensor rotary = lightglue::rotaryTables(
        cos_sin.unsqueeze(-1).expand({2, 2, 300, 32, 2}).reshape({2, 2, 300, 64}));
    lightglue::SelfBlock self = boundBlock<lightglue::SelfBlock>("self_attn.1");
    lightglue::CrossBlock cross = boundBlock<lightglue::CrossBlock>("cross_attn.1");
    const at::Tensor self_plain = self(x, rotary), self_one = self(x[0], rotary[0]);
    const at::Tensor cross_plain = cross.pair(x);
    const auto [cross0, cross1] = cross(x[0], x[1]);
    self.foldOutputProjection();
    cross.foldOutputProjection();
    const double self_diff = maxAbsDiff(self(x, rotary), self_plain);
    const double single_diff = maxAbsDiff(self(x[0], rotary[0]), self_one);
    const double pair_diff = maxAbsDiff(cross.pair(x), cross_plain);
    const auto [folded0, folded1] = cross(x[0], x[1]);
    const double cross_diff = std::max(maxAbsDiff(folded0, cross0), maxAbsDiff(folded1, cross1));
    const double stacked_vs_one = maxAbsDiff(cross_plain[0], cross0);
    qInfo("folded: self %.3g (one image %.3g), cross pair %.3g, cross %.3g; pair vs one by one %.3g",
          self_diff, single_diff, pair_diff, cross_diff, stacked_vs_one);
    QVERIFY(self_diff < 1e-4 && single_diff < 1e-4 && pair_diff < 1e-4 && cross_diff < 1e-4);
    QVERIFY(stacked_vs_one < 1e-4);
    QVERIFY(self_plain.abs().max().item<double>() > 1.0);  // not a vanishing output
  }

  // The public path: createMatcher("lightglue") on FeatureSets of the same features.
  void matcherInterface() {
    MatchOptions options;
    options.weights_path = fixture("weights.pt");
    options.features = "superpoint";
    options.depth_confidence = -1;
    options.width_confidence = -1;
    const auto matcher = createMatcher("lightglue", options);
    QCOMPARE(QString::fromStdString(matcher->name()), QStringLiteral("lightglue"));
    const auto features = [&](const std::string& i) {
      const at::Tensor k = inputs_.at("keypoints" + i)[0];
      return makeFeatureSet(k, at::ones({k.size(0)}), inputs_.at("descriptors" + i)[0], 640, 480,
                            DeviceSpec{});
    };
    const Matches matches = matcher->match(features("0"), features("1"));
    const at::Tensor ref = ref_.at("matches");
    QCOMPARE(matches.size(), static_cast<int>(ref.size(0)));
    for (int k = 0; k < matches.size(); ++k) {
      QCOMPARE(static_cast<int64_t>(matches.index_a[k]), ref[k][0].item<int64_t>());
      QCOMPARE(static_cast<int64_t>(matches.index_b[k]), ref[k][1].item<int64_t>());
      QVERIFY(std::abs(matches.scores[k] - ref_.at("match_scores")[k].item<float>()) < 1e-4);
    }
    // 128-D features do not fit the SuperPoint weights: a clear error, not garbage.
    const FeatureSet narrow = makeFeatureSet(at::zeros({4, 2}), at::ones({4}),
                                             at::ones({4, 128}) / std::sqrt(128.0), 640, 480, DeviceSpec{});
    const QString message = test::errorMessageOf<InvalidArgument>([&] { matcher->match(narrow, narrow); });
    QVERIFY2(message.contains("256"), qPrintable(message));
  }

  // Adaptive depth and width, checked against decisions recomputed by hand from the
  // stored weights and the reference descriptors after layer 0. (The fixture's random
  // tokens are never confident, so the depth test sets token_confidence.0's bias.)
  void adaptiveDepthAndWidth() {
    c10::InferenceMode inference;
    const auto w = [&](const std::string& key) { return weights_.at(key).to(at::kFloat); };
    const at::Tensor d0 = ref_.at("desc0_after_layer0")[0], d1 = ref_.at("desc1_after_layer0")[0];
    const auto matchability = [&](const at::Tensor& d) {
      return at::sigmoid(at::matmul(d, w("log_assignment.0.matchability.weight").t()) +
                         w("log_assignment.0.matchability.bias")).squeeze(-1);
    };

    // Early exit: every token confident after layer 0 -> stop there, and match with
    // log_assignment[0] on the layer-0 descriptors.
    StateDict confident = weights_;
    confident.tensors["token_confidence.0.token.0.bias"] = at::full({1}, 20.0f);
    const lightglue::LightGlueModel exits(withLayers(3), confident, at::kCPU);
    lightglue::LightGlueOptions depth_only = nonAdaptive();
    depth_only.depth_confidence = 0.95;
    const lightglue::LightGlueOutput early = exits.forward(input(inputs_, "0"), input(inputs_, "1"), depth_only);
    QCOMPARE(early.layers_run, 1);
    lightglue::MatchAssignment head0 = boundHead(0);
    const lightglue::FilteredMatches expected = lightglue::filterMatches(head0.logAssignment(d0, d1, true), 0.1f);
    qInfo("early exit after layer 0: %lld matches (expected %lld)",
          static_cast<long long>(early.matches.size(0)),
          static_cast<long long>((expected.matches0 > -1).sum().item<int64_t>()));
    QVERIFY(sameIndices(early.matches0, expected.matches0));
    QVERIFY(maxAbsDiff(early.scores0, expected.scores0) < 1e-4);
    // The fixture's own tokens: none confident (ratio 0), all three layers run; with a
    // pruning floor at the point count nothing is pruned: the reference result.
    const lightglue::LightGlueModel model(withLayers(3), weights_, at::kCPU);
    lightglue::LightGlueOptions floor = lightglue::LightGlueOptions{};
    floor.pruning_min_keypoints = 1024;
    const lightglue::LightGlueOutput all = model.forward(input(inputs_, "0"), input(inputs_, "1"), floor);
    QCOMPARE(all.layers_run, 3);
    QVERIFY(sameIndices(all.matches, ref_.at("matches")));
    QVERIFY(sameIndices(all.prune0, at::ones({1024}, at::kLong)));

    // Pruning (CPU: whatever the count, as the original): after layer 0 the points with
    // matchability <= 1 - width_confidence leave (prune count 1). The threshold is put
    // half-way between the 512th and 513th smallest reference matchability of image 0.
    const at::Tensor sorted0 = std::get<0>(matchability(d0).sort());
    const double threshold = 0.5 * (sorted0[511].item<double>() + sorted0[512].item<double>());
    lightglue::LightGlueOptions width_only = nonAdaptive();
    width_only.width_confidence = 1.0 - threshold;
    const lightglue::LightGlueOutput width = model.forward(input(inputs_, "0"), input(inputs_, "1"), width_only);
    const float threshold32 = static_cast<float>(1.0 - width_only.width_confidence);
    const int64_t expected_pruned0 = (matchability(d0) <= threshold32).sum().item<int64_t>();
    const int64_t expected_pruned1 = (matchability(d1) <= threshold32).sum().item<int64_t>();
    const int64_t pruned0 = (width.prune0 == 1).sum().item<int64_t>();
    const int64_t pruned1 = (width.prune1 == 1).sum().item<int64_t>();
    qInfo("pruned after layer 0: %lld / %lld (expected %lld / %lld); %lld matches",
          static_cast<long long>(pruned0), static_cast<long long>(pruned1),
          static_cast<long long>(expected_pruned0), static_cast<long long>(expected_pruned1),
          static_cast<long long>(width.matches.size(0)));
    QCOMPARE(expected_pruned0, int64_t{512});
    QCOMPARE(pruned0, expected_pruned0);
    QCOMPARE(pruned1, expected_pruned1);
    QCOMPARE(width.layers_run, 3);
    checkConsistent(width);
    // Pruned points are never matched.
    QCOMPARE((width.matches0.index({width.prune0 == 1}) > -1).sum().item<int64_t>(), int64_t{0});
  }

  void releaseCheckpointLayout() {
    int64_t parameters = 0;
    const StateDict full = fullSizeStateDict(&parameters);
    QCOMPARE(parameters, int64_t{11851601});  // README: the 9-layer release model
    QCOMPARE(lightglue::layerCountOf(full), 9);
    lightglue::LightGlueConfig config = lightglue::lightGlueConfig("superpoint");
    QCOMPARE(config.n_layers, 9);
    QCOMPARE(QString::fromStdString(config.published_file), QStringLiteral("superpoint_lightglue.pth"));
    // Every key and shape bound, nothing left over (the binder rejects both).
    lightglue::LightGlueModel model(config, full, at::kCPU);
    QCOMPARE(model.config().n_layers, 9);

    StateDict missing = full;
    missing.tensors.erase("cross_attn.8.to_v.bias");
    missing.tensors["confidence_thresholds"] = at::zeros({9});
    const QString message = test::errorMessageOf<ModelError>([&] {
      lightglue::LightGlueModel broken(config, missing, at::kCPU);
    });
    QVERIFY2(message.contains("cross_attn.8.to_v.bias"), qPrintable(message));
    QVERIFY2(message.contains("confidence_thresholds"), qPrintable(message));

    StateDict wrong_shape = full;
    wrong_shape.tensors["posenc.Wr.weight"] = at::zeros({32, 4});
    const QString shape_message = test::errorMessageOf<ModelError>([&] {
      lightglue::LightGlueModel broken(config, wrong_shape, at::kCPU);
    });
    QVERIFY2(shape_message.contains("posenc.Wr.weight"), qPrintable(shape_message));

    // ALIKED (128-D): the same layout plus input_proj 128 -> 256.
    const lightglue::LightGlueConfig aliked = lightglue::lightGlueConfig("aliked");
    QCOMPARE(aliked.input_dim, 128);
    const QString proj_message = test::errorMessageOf<ModelError>([&] {
      lightglue::LightGlueModel broken(aliked, full, at::kCPU);
    });
    QVERIFY2(proj_message.contains("input_proj.weight"), qPrintable(proj_message));
    StateDict with_proj = full;
    with_proj.tensors["input_proj.weight"] = at::zeros({256, 128});
    with_proj.tensors["input_proj.bias"] = at::zeros({256});
    lightglue::LightGlueModel aliked_model(aliked, with_proj, at::kCPU);

    // A state dict saved from the constructed model (transformers.{i}.* names).
    StateDict renamed;
    for (const auto& [key, tensor] : full.tensors) {
      std::string name = key;
      for (const char* block : {"self_attn.", "cross_attn."}) {
        if (key.rfind(block, 0) == 0) {
          const std::string rest = key.substr(std::string(block).size());  // "3.Wqkv.weight"
          const size_t dot = rest.find('.');
          name = "transformers." + rest.substr(0, dot) + "." +
                 std::string(block).substr(0, std::string(block).size() - 1) + rest.substr(dot);
        }
      }
      renamed.tensors[name] = tensor;
    }
    QVERIFY(renamed.contains("transformers.8.cross_attn.to_v.bias"));
    QCOMPARE(lightglue::layerCountOf(renamed), 9);
    lightglue::LightGlueModel from_renamed(config, renamed, at::kCPU);
  }

 private:
  static lightglue::LightGlueConfig withLayers(int layers) {
    lightglue::LightGlueConfig config = lightglue::lightGlueConfig("superpoint");
    config.n_layers = layers;
    return config;
  }

  // log_assignment.<layer> bound from the fixture weights alone.
  // The fixture's weights of one block ("self_attn.0", "cross_attn.1") bound to `block`.
  template <typename Block>
  Block boundBlock(const std::string& prefix) const {
    StateDict part;
    for (const auto& [key, tensor] : weights_.tensors)
      if (key.rfind(prefix + ".", 0) == 0) part.tensors[key] = tensor;
    Block block;
    StateDictBinder binder(part, prefix, at::TensorOptions().dtype(at::kFloat));
    block.bind(binder, prefix, 256, 4);
    binder.finish();
    block.prepare();
    return block;
  }

  lightglue::MatchAssignment boundHead(int layer) const {
    const std::string prefix = "log_assignment." + std::to_string(layer);
    StateDict head;
    for (const auto& [key, tensor] : weights_.tensors)
      if (key.rfind(prefix + ".", 0) == 0) head.tensors[key] = tensor;
    lightglue::MatchAssignment assignment;
    StateDictBinder binder(head, prefix, at::TensorOptions().dtype(at::kFloat));
    assignment.bind(binder, prefix, 256);
    binder.finish();
    assignment.prepare();
    return assignment;
  }

  // matches0/matches1 agree with each other and with the match list; scores above the
  // filter threshold.
  static void checkConsistent(const lightglue::LightGlueOutput& out) {
    const at::Tensor m0 = out.matches0, m1 = out.matches1;
    for (int64_t k = 0; k < out.matches.size(0); ++k) {
      const int64_t i = out.matches[k][0].item<int64_t>(), j = out.matches[k][1].item<int64_t>();
      QCOMPARE(m0[i].item<int64_t>(), j);
      QCOMPARE(m1[j].item<int64_t>(), i);
      QVERIFY(out.match_scores[k].item<float>() > 0.1f);
    }
    QCOMPARE((m0 > -1).sum().item<int64_t>(), out.matches.size(0));
    QCOMPARE((m1 > -1).sum().item<int64_t>(), out.matches.size(0));
  }

  StateDict inputs_, ref_, weights_;
};

QTEST_GUILESS_MAIN(TestLightGlueParity)
#include "test_lightglue_parity.moc"
