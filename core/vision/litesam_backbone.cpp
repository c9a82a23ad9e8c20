// MobileOne-S3 as LiteSAM uses it (mobileone(variant="s3"), truncated after stage2).
#include "core/vision/litesam_modules_impl.h"

namespace skytrace::vision::litesam {
namespace {

// s3 width multipliers (2.0, 2.5, ...): stage0 64, stage1 128 (2 blocks), stage2 320 (8).
constexpr int64_t kStage0Channels = 64;
constexpr int64_t kStage1Channels = 128;
constexpr int64_t kStage2Channels = 320;
constexpr int64_t kStage1Blocks = 2;
constexpr int64_t kStage2Blocks = 8;
constexpr int64_t kCoarseChannels = 256;
constexpr int64_t kCoarseConvGroups = 64;

// _make_stage: per block a depthwise 3x3 (stride 2 in the first block) then a 1x1.
void bindStage(StateDictBinder& binder, const std::string& prefix, std::vector<MobileOneBlock>& stage,
               int64_t in, int64_t planes, int64_t blocks) {
  stage.resize(static_cast<size_t>(2 * blocks));  // before bind: the binder keeps pointers
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t stride = b == 0 ? 2 : 1;
    stage[2 * b].bind(binder, prefix + "." + std::to_string(2 * b), in, in, 3, stride, in);
    stage[2 * b + 1].bind(binder, prefix + "." + std::to_string(2 * b + 1), in, planes, 1, 1, 1);
    in = planes;
  }
}

}  // namespace

void MobileOneS3Backbone::bind(StateDictBinder& binder, const std::string& prefix) {
  stage0.bind(binder, prefix + ".stage0", 1, kStage0Channels, 3, 2, 1);
  bindStage(binder, prefix + ".stage1", stage1, kStage0Channels, kStage1Channels, kStage1Blocks);
  bindStage(binder, prefix + ".stage2", stage2, kStage1Channels, kStage2Channels, kStage2Blocks);
  conv.bind(binder, prefix + ".conv", kStage2Channels, kCoarseChannels, 1, 1, 0, kCoarseConvGroups,
            /*with_bias=*/true);
}

void MobileOneS3Backbone::reparameterize() {
  stage0.reparameterize();
  for (auto& block : stage1) block.reparameterize();
  for (auto& block : stage2) block.reparameterize();
}

void MobileOneS3Backbone::castTo(at::ScalarType type) {
  stage0.castTo(type);
  for (auto& block : stage1) block.castTo(type);
  for (auto& block : stage2) block.castTo(type);
  conv.castTo(type);
}

BackboneFeatures MobileOneS3Backbone::operator()(const at::Tensor& image) const {
  BackboneFeatures out;
  out.feats_x1 = stage0(image);
  at::Tensor x = out.feats_x1;
  for (const auto& block : stage1) x = block(x);
  out.feats_x2 = x;
  for (const auto& block : stage2) x = block(x);
  out.feats_c = conv(x);
  return out;
}

}  // namespace skytrace::vision::litesam
