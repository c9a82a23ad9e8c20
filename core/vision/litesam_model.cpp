#include "core/vision/litesam_model_impl.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "core/util/error.h"
#include "core/vision/fused_ops.h"

namespace skytrace::vision::litesam {
namespace {

constexpr int64_t kCoarseStride = 8;   // RESOLUTION (8, 1)
constexpr int64_t kSizeMultiple = 32;  // 1/8 grid aggregated 4x4 by the transformer
constexpr int64_t kDModel = 256;
// The CUDA graph runs the fine stage on every coarse cell of image 0 (about 170 KB of
// device memory each through the ATen chain, well under 1 KB through the fused kernel):
// up to this many cells (a 512x512 pair), larger inputs run eagerly.
constexpr int64_t kMaxGraphedCells = 4096;

void checkImage(const at::Tensor& image, const char* name) {
  if (image.dim() != 4 || image.size(0) != 1 || image.size(1) != 1)
    throw InvalidArgument(std::string("LiteSAM expects ") + name +
                          " as a [1,1,H,W] grayscale tensor, got " + shapeToString(image.sizes()));
  if (image.size(2) % kSizeMultiple != 0 || image.size(3) % kSizeMultiple != 0 ||
      image.size(2) == 0 || image.size(3) == 0)
    throw InvalidArgument(std::string("LiteSAM: ") + name + " is " +
                          std::to_string(image.size(3)) + "x" + std::to_string(image.size(2)) +
                          "; width and height must be positive multiples of 32");
}

// 'n c h w -> n (h w) c'
at::Tensor flattenCells(const at::Tensor& feat) { return feat.flatten(2).transpose(1, 2); }

}  // namespace

LiteSamModel::LiteSamModel(const StateDict& weights, at::Device device, LiteSamConfig config)
    : config_(config), device_(device), fused_kernels_(device.is_cuda() && fused::built()) {
  StateDictBinder binder(weights, "LiteSAM", at::TensorOptions().dtype(at::kFloat).device(device));
  backbone_.bind(binder, "backbone");
  transformer_.bind(binder, "loftr_coarse", kDModel);
  fine_preprocess_.bind(binder, "fine_preprocess");
  fine_matching_.bind(binder, "fine_matching");
  binder.finish();
}

void LiteSamModel::reparameterizeBackbone() {
  backbone_.reparameterize();
  if (half_precision_) makeHalfModules();
  // Graphs read the weights they were captured with: start afresh.
  graphs_.reset();
}

void LiteSamModel::makeHalfModules() {
  half_backbone_ = backbone_;
  half_backbone_.castTo(at::kHalf);
  half_transformer_ = transformer_;
  half_transformer_.castTo(at::kHalf);
  half_fine_preprocess_ = fine_preprocess_;
  half_fine_preprocess_.castTo(at::kHalf);
}

void LiteSamModel::setHalfPrecision(bool enabled) {
  if (enabled == half_precision_) return;
  if (enabled && !device_.is_cuda())
    throw InvalidArgument("LiteSAM half precision needs a CUDA device (model on " + device_.str() + ")");
  if (enabled) {
    makeHalfModules();
  } else {
    half_backbone_ = {};
    half_transformer_ = {};
    half_fine_preprocess_ = {};
  }
  half_precision_ = enabled;
  graphs_.reset();
}

void LiteSamModel::setFusedKernelsEnabled(bool enabled) {
  enabled = enabled && device_.is_cuda() && fused::built();
  if (enabled == fused_kernels_) return;
  fused_kernels_ = enabled;
  graphs_.reset();
}

void LiteSamModel::setCudaGraphsEnabled(bool enabled) { graphs_->setEnabled(enabled); }

bool LiteSamModel::cudaGraphsEnabled() const { return graphs_->enabled(); }

int LiteSamModel::failedCudaGraphCaptures() const { return graphs_->failedCaptures(); }

std::array<int64_t, 4> LiteSamModel::ropeExtent(const at::Tensor& image0, const at::Tensor& image1) const {
  const int64_t long_side = std::max({image0.size(2), image0.size(3), image1.size(2), image1.size(3)});
  const int64_t test = config_.rope_test_size_px > 0 ? config_.rope_test_size_px : long_side;
  return {config_.rope_train_size_px, config_.rope_train_size_px, test, test};
}

std::optional<LiteSamOutput> LiteSamModel::forwardGraphed(const at::Tensor& image0, const at::Tensor& image1) const {
  const int64_t h_c = image0.size(2) / kCoarseStride, w_c = image0.size(3) / kCoarseStride;
  if (h_c * w_c > kMaxGraphedCells) return std::nullopt;
  const std::array<int64_t, 4> npe = ropeExtent(image0, image1);
  const std::array<int64_t, 2> hw_c{h_c, w_c};
  const double norm = std::sqrt(static_cast<double>(kDModel));
  const at::ScalarType dense_type = half_precision_ ? at::kHalf : at::kFloat;
  const std::string key = std::string(backboneReparameterized() ? "fused" : "multi-branch") +
                          (half_precision_ ? " float16" : "") + (fused_kernels_ ? " fused kernels" : "");
  const auto outputs = graphs_->run(key, {image0, image1}, [&](const std::vector<at::Tensor>& in) {
    const BackboneFeatures both = backbone()(at::cat({in[0], in[1]}, 0).to(dense_type));
    const auto image = [](const at::Tensor& t, int64_t i) { return t.narrow(0, i, 1); };
    const auto [c0, c1] = transformer()(image(both.feats_c, 0), image(both.feats_c, 1), npe, nullptr);
    const at::Tensor cells_c0 = flattenCells(c0.to(at::kFloat)), cells_c1 = flattenCells(c1.to(at::kFloat));
    const CoarseCandidates coarse =
        fused_kernels_ ? coarseCandidatesFused(cells_c0, cells_c1, hw_c, hw_c, config_.coarse)
                       : coarseCandidates(cells_c0, cells_c1, hw_c, hw_c, config_.coarse, false);
    const at::Tensor fine = finePreprocess().interFpn(at::cat({c0, c1}, 0) / norm, both.feats_x2, both.feats_x1);
    // Every cell of image 0 with its best cell of image 1 through the fine stage (its
    // rows are independent), so that the number of matches is needed only afterwards.
    const at::Tensor cells0 = at::arange(h_c * w_c, coarse.row_arg.options());
    const double scale = static_cast<double>(kCoarseStride);
    const FineResult refined = matchFine(image(fine, 0), image(fine, 1), cells0, coarse.row_arg,
                                         coarseCellCorners(cells0, w_c, scale),
                                         coarseCellCorners(coarse.row_arg, w_c, scale));
    return std::vector<at::Tensor>{coarse.valid, coarse.row_max, coarse.row_arg, refined.mkpts0_c,
                                   refined.mkpts1_c, refined.mkpts0_f, refined.mkpts1_f};
  });
  if (!outputs) return std::nullopt;
  const std::vector<at::Tensor>& t = *outputs;
  LiteSamOutput out;
  out.i_ids = at::nonzero(t[0]).squeeze(1);  // ascending; the one host synchronisation
  out.j_ids = t[2].index_select(0, out.i_ids);
  out.mconf = t[1].index_select(0, out.i_ids);
  out.mkpts0_c = t[3].index_select(0, out.i_ids);
  out.mkpts1_c = t[4].index_select(0, out.i_ids);
  out.mkpts0_f = t[5].index_select(0, out.i_ids);
  out.mkpts1_f = t[6].index_select(0, out.i_ids);
  return out;
}

LiteSamOutput LiteSamModel::forward(const at::Tensor& image0, const at::Tensor& image1,
                                    LiteSamTrace* trace,
                                    const LiteSamStageCallback& on_stage) const {
  const auto stage_done = [&](const char* stage, const at::Tensor& output) {
    if (on_stage) on_stage(stage, output);
  };
  checkImage(image0, "image0");
  checkImage(image1, "image1");
  const bool same_size = image0.sizes() == image1.sizes();
  if (!trace && !on_stage && same_size && image0.is_cuda()) {
    if (std::optional<LiteSamOutput> out = forwardGraphed(image0, image1)) return std::move(*out);
  }
  const std::array<int64_t, 4> npe = ropeExtent(image0, image1);
  const double norm = std::sqrt(static_cast<double>(kDModel));
  // The dense modules' number format (float16 in half precision); matching is float32.
  const at::ScalarType dense_type = half_precision_ ? at::kHalf : at::kFloat;
  // 1. Backbone: one batch of two when the sizes agree (eval BN: batching is irrelevant).
  BackboneFeatures b0, b1;
  if (same_size) {
    const BackboneFeatures both = backbone()(at::cat({image0, image1}, 0).to(dense_type));
    const auto image = [](const at::Tensor& t, int64_t i) { return t.narrow(0, i, 1); };
    b0 = {image(both.feats_c, 0), image(both.feats_x2, 0), image(both.feats_x1, 0)};
    b1 = {image(both.feats_c, 1), image(both.feats_x2, 1), image(both.feats_x1, 1)};
  } else {
    b0 = backbone()(image0.to(dense_type));
    b1 = backbone()(image1.to(dense_type));
  }
  stage_done("backbone", b1.feats_c);
  if (trace) {
    trace->backbone0 = b0;
    trace->backbone1 = b1;
  }
  // 2. Coarse transformer, RoPE NPE = [train, train, test, test].
  const auto [dense_t0, dense_t1] =
      transformer()(b0.feats_c, b1.feats_c, npe, trace ? &trace->transformer : nullptr);
  stage_done("transformer", dense_t1);
  if (trace) trace->transformer_out = {dense_t0, dense_t1};
  const at::Tensor t0 = dense_t0.to(at::kFloat), t1 = dense_t1.to(at::kFloat);
  const std::array<int64_t, 2> hw0_c{t0.size(2), t0.size(3)};
  const std::array<int64_t, 2> hw1_c{t1.size(2), t1.size(3)};
  // 3. Coarse matching on the flattened cells.
  const double scale = static_cast<double>(image0.size(2)) / static_cast<double>(hw0_c[0]);
  // The ATen chains where a trace wants their intermediates.
  const bool fused = fused_kernels_ && !trace && t0.is_cuda();
  CoarseMatches coarse =
      fused ? selectCoarseMatches(coarseCandidatesFused(flattenCells(t0), flattenCells(t1), hw0_c, hw1_c,
                                                        config_.coarse),
                                  hw0_c, hw1_c, scale)
            : matchCoarse(flattenCells(t0), flattenCells(t1), hw0_c, hw1_c, scale, config_.coarse, trace != nullptr);
  stage_done("coarse_matching", coarse.mconf);
  LiteSamOutput out;
  out.i_ids = coarse.i_ids;
  out.j_ids = coarse.j_ids;
  out.mconf = coarse.mconf;
  if (trace) {
    trace->conf_matrix = coarse.conf_matrix;
    trace->mkpts0_c_pre_fine = coarse.mkpts0_c;
    trace->mkpts1_c_pre_fine = coarse.mkpts1_c;
  }
  if (coarse.i_ids.size(0) == 0) {  // the original returns the coarse points unchanged
    out.mkpts0_c = out.mkpts0_f = coarse.mkpts0_c;
    out.mkpts1_c = out.mkpts1_f = coarse.mkpts1_c;
    return out;
  }

  // 4. Fine preprocessing: the transformer output / sqrt(C), FPN to full resolution;
  // 5. fine matching at the matched cells (pixel-level argmax, then the minGRU sub-pixel
  // offset; matchFine).
  at::Tensor fine0, fine1;
  if (same_size) {
    const at::Tensor both = finePreprocess().interFpn(
        at::cat({dense_t0, dense_t1}, 0) / norm, at::cat({b0.feats_x2, b1.feats_x2}, 0),
        at::cat({b0.feats_x1, b1.feats_x1}, 0));
    fine0 = both.narrow(0, 0, 1);
    fine1 = both.narrow(0, 1, 1);
  } else {
    fine0 = finePreprocess().interFpn(dense_t0 / norm, b0.feats_x2, b0.feats_x1);
    fine1 = finePreprocess().interFpn(dense_t1 / norm, b1.feats_x2, b1.feats_x1);
  }
  FineResult fine;
  if (!trace) {  // a trace records the gathered windows and the ATen chain's intermediates
    stage_done("fine_preprocess", fine1);
    fine = matchFine(fine0, fine1, coarse.i_ids, coarse.j_ids, coarse.mkpts0_c, coarse.mkpts1_c);
  } else {
    const at::Tensor f0 = gatherWindows(fine0, coarse.i_ids, FineMatching::kWindow, 0).to(at::kFloat);
    const at::Tensor f1 = gatherWindows(fine1, coarse.j_ids, FineMatching::kWindow + 2, 1).to(at::kFloat);
    stage_done("fine_preprocess", f1);
    if (trace) {
      trace->fpn = {fine0, fine1};
      trace->feat_f0_unfold = f0;
      trace->feat_f1_unfold = f1;
    }
    fine = fine_matching_(f0, f1, coarse.mkpts0_c, coarse.mkpts1_c, trace ? &trace->fine : nullptr);
  }
  out.mkpts0_c = fine.mkpts0_c;
  out.mkpts1_c = fine.mkpts1_c;
  out.mkpts0_f = fine.mkpts0_f;
  out.mkpts1_f = fine.mkpts1_f;
  stage_done("fine_matching", out.mkpts1_f);
  return out;
}

FineResult LiteSamModel::matchFine(const at::Tensor& fine0, const at::Tensor& fine1, const at::Tensor& cells0,
                                   const at::Tensor& cells1, const at::Tensor& mkpts0_c,
                                   const at::Tensor& mkpts1_c) const {
  if (fused_kernels_ && fine0.is_cuda()) {
    const fused::FineWindowChoice choice = fused::fineWindowChoice(fine0, fine1, cells0, cells1);
    return fine_matching_.refine(choice.index.unsqueeze(1), choice.heatmap, mkpts0_c, mkpts1_c);
  }
  const at::Tensor f0 = gatherWindows(fine0, cells0, FineMatching::kWindow, 0).to(at::kFloat);
  const at::Tensor f1 = gatherWindows(fine1, cells1, FineMatching::kWindow + 2, 1).to(at::kFloat);
  return fine_matching_(f0, f1, mkpts0_c, mkpts1_c);
}

LiteSamModel loadLiteSamModel(const std::string& weights_path, at::Device device,
                              LiteSamConfig config) {
  StateDict weights = loadStateDict(weights_path);
  const bool lightning = std::any_of(weights.tensors.begin(), weights.tensors.end(),
                                     [](const auto& kv) { return kv.first.rfind("matcher.", 0) == 0; });
  if (lightning) weights = stripPrefix(weights, "matcher.");
  return LiteSamModel(weights, device, config);
}

}  // namespace skytrace::vision::litesam
