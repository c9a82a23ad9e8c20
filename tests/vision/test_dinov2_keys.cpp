// DINOv2 checkpoint compatibility: the full depth-12 ViT-S/14 binds exactly the keys and
// shapes of the official dinov2_vits14_pretrain.pth (the fixture's keys_full.json, listed
// from the original model), no more and no fewer; the register and ViT-B/14 variants
// accept the published layouts; mismatches are reported by name with both shapes.
#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <QtTest>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/util/error.h"
#include "core/vision/checkpoint_impl.h"
#include "core/vision/dinov2_config.h"
#include "core/vision/dinov2_model_impl.h"
#include "tests/test_support.h"

using namespace skytrace::vision;

namespace {

// keys_full.json: {"cls_token": [1, 1, 384], ...} in the original's state_dict order.
std::vector<std::pair<std::string, std::vector<int64_t>>> officialVitS14Keys() {
  const std::string path =
      skytrace::test::sharedPath("fixtures/parity/dinov2_vits14/keys_full.json").toStdString();
  std::ifstream in(path);
  const nlohmann::ordered_json json = nlohmann::ordered_json::parse(in);
  std::vector<std::pair<std::string, std::vector<int64_t>>> keys;
  for (const auto& [key, shape] : json.items())
    keys.emplace_back(key, shape.get<std::vector<int64_t>>());
  return keys;
}

// A state dict with those keys and shapes (small random values, deterministic).
StateDict makeStateDict(const std::vector<std::pair<std::string, std::vector<int64_t>>>& keys) {
  at::manual_seed(7);
  StateDict dict;
  dict.source = "synthetic.pth";
  for (const auto& [key, shape] : keys) dict.tensors[key] = at::randn(shape) * 0.02;
  return dict;
}

int64_t parameterCount(const StateDict& dict) {
  int64_t count = 0;
  for (const auto& [key, tensor] : dict.tensors) count += tensor.numel();
  return count;
}

// The ViT-S layout widened to ViT-B (embed 384 -> 768, qkv 1152 -> 2304, MLP 1536 -> 3072).
std::vector<std::pair<std::string, std::vector<int64_t>>> widenedToVitB(
    std::vector<std::pair<std::string, std::vector<int64_t>>> keys) {
  for (auto& [key, shape] : keys)
    for (int64_t& size : shape) {
      if (size == 384) size = 768;
      else if (size == 1152) size = 2304;
      else if (size == 1536) size = 3072;
    }
  return keys;
}

QString modelErrorOf(const Dinov2Config& config, const StateDict& dict) {
  return skytrace::test::errorMessageOf<skytrace::ModelError>(
      [&] { dinov2::Dinov2Model model(config, dict, at::kCPU); });
}

}  // namespace

class TestDinov2Keys : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    SKYTRACE_REQUIRE_SHARED();
    keys_ = officialVitS14Keys();
  }

  void vitS14BindsExactlyTheOfficialKeys() {
    QCOMPARE(keys_.size(), size_t{175});
    const StateDict dict = makeStateDict(keys_);
    QCOMPARE(parameterCount(dict), int64_t{22056576});  // the README's count
    c10::InferenceMode inference;
    const dinov2::Dinov2Model model(dinov2Config("dinov2-vits14"), dict, at::kCPU);
    QCOMPARE(model.config().depth, 12);
    // The full model runs on a 224 crop: CLS [1,384], 16x16 patch tokens.
    const dinov2::Dinov2Output out = model.forward(at::randn({1, 3, 224, 224}));
    QCOMPARE(out.cls_token.sizes().vec(), (std::vector<int64_t>{1, 384}));
    QCOMPARE(out.patch_tokens.sizes().vec(), (std::vector<int64_t>{1, 256, 384}));
    QVERIFY(at::isfinite(out.patch_tokens).all().item<bool>());
  }

  // The benchmark's random weights use the published layout too.
  void randomWeightsHaveThePublishedLayout() {
    const StateDict random = dinov2::randomDinov2Weights(dinov2Config("dinov2-vits14"), 1);
    QCOMPARE(random.tensors.size(), keys_.size());
    for (const auto& [key, shape] : keys_) {
      QVERIFY2(random.contains(key), key.c_str());
      QCOMPARE(random.at(key).sizes().vec(), shape);
    }
  }

  void missingUnexpectedAndMisshapenKeysAreNamed() {
    auto keys = keys_;
    keys.erase(std::find_if(keys.begin(), keys.end(),
                            [](const auto& k) { return k.first == "blocks.11.ls2.gamma"; }));
    keys.emplace_back("blocks.12.norm1.weight", std::vector<int64_t>{384});
    for (auto& [key, shape] : keys)
      if (key == "pos_embed") shape = {1, 257, 384};
    const QString message = modelErrorOf(dinov2Config("dinov2-vits14"), makeStateDict(keys));
    QVERIFY2(message.contains("blocks.11.ls2.gamma"), qPrintable(message));
    QVERIFY2(message.contains("blocks.12.norm1.weight"), qPrintable(message));
    QVERIFY2(message.contains("pos_embed") && message.contains("[1, 1370, 384]") &&
                 message.contains("[1, 257, 384]"),
             qPrintable(message));
  }

  // dinov2_vits14_reg4_pretrain.pth = the same keys plus register_tokens [1, 4, 384].
  void registerVariant() {
    auto keys = keys_;
    keys.emplace_back("register_tokens", std::vector<int64_t>{1, 4, 384});
    c10::InferenceMode inference;
    const dinov2::Dinov2Model model(dinov2Config("dinov2-vits14-reg"), makeStateDict(keys),
                                    at::kCPU);
    const dinov2::Dinov2Output out = model.forward(at::randn({1, 3, 126, 168}));
    QCOMPARE(out.register_tokens.sizes().vec(), (std::vector<int64_t>{1, 4, 384}));
    QCOMPARE(out.patch_tokens.sizes().vec(), (std::vector<int64_t>{1, 9 * 12, 384}));
    QCOMPARE(out.prenorm.size(1), int64_t{1 + 4 + 9 * 12});
    // The plain ViT-S refuses it, naming the extra key.
    const QString message = modelErrorOf(dinov2Config("dinov2-vits14"), makeStateDict(keys));
    QVERIFY2(message.contains("register_tokens"), qPrintable(message));
  }

  // ViT-B/14: 86,580,480 parameters as published (timm vit_base_patch14_dinov2: 86.6 M).
  void vitB14Layout() {
    const StateDict dict = makeStateDict(widenedToVitB(keys_));
    QCOMPARE(parameterCount(dict), int64_t{86580480});
    const dinov2::Dinov2Model model(dinov2Config("dinov2-vitb14"), dict, at::kCPU);
    QCOMPARE(model.config().num_heads, 12);
    const QString message = modelErrorOf(dinov2Config("dinov2-vits14"), dict);
    QVERIFY2(message.contains("[384, 3, 14, 14]") && message.contains("[768, 3, 14, 14]"),
             qPrintable(message));
  }

 private:
  std::vector<std::pair<std::string, std::vector<int64_t>>> keys_;
};

QTEST_GUILESS_MAIN(TestDinov2Keys)
#include "test_dinov2_keys.moc"
