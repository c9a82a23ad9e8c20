// Internal (torch allowed; core/vision sources only): the stages of LiteSAM
// (boyagesmile/LiteSAM 8b49e8d, an EfficientLoFTR derivative), each bound from the
// state dict by its original key prefix:
//   MobileOneS3Backbone      backbone.*            src/loftr/backbone/mobileone.py
//   CoarseTransformer        loftr_coarse.*        src/loftr/loftr_module/transformer.py
//   coarse matching          (no weights)          src/loftr/utils/coarse_matching.py
//   FinePreprocess           fine_preprocess.*     src/loftr/loftr_module/fine_preprocess.py
//   FineMatching             fine_matching.*       src/loftr/utils/fine_matching.py
// All tensors float32 on one device; on CUDA the backbone, the coarse transformer and the
// FPN also in float16 after castTo(kHalf) (LiteSamModel::setHalfPrecision), matching in
// float32. Thread: const methods may run concurrently.
#pragma once

#include <ATen/ATen.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/vision/checkpoint_impl.h"
#include "core/vision/litesam_layers_impl.h"

namespace skytrace::vision::litesam {

// ---------------------------------------------------------------- backbone
struct BackboneFeatures {
  at::Tensor feats_c;   // [B, 256, H/8, W/8]  backbone.conv(stage2)
  at::Tensor feats_x2;  // [B, 128, H/4, W/4]  stage1 output
  at::Tensor feats_x1;  // [B, 64, H/2, W/2]   stage0 output
};

// MobileOne-S3 truncated after stage2 (width multipliers 2.0/2.5), then a grouped 1x1
// conv 320 -> 256 (groups 64, bias). Input [B,1,H,W] grayscale in [0,1], H, W multiples of 8.
struct MobileOneS3Backbone {
  MobileOneBlock stage0;
  std::vector<MobileOneBlock> stage1, stage2;  // (depthwise, pointwise) per block
  Conv2d conv;

  void bind(StateDictBinder& binder, const std::string& prefix);
  // Folds every block into a single conv (MobileOneBlock::reparameterize).
  void reparameterize();
  void castTo(at::ScalarType type);
  // image in the weights' type.
  BackboneFeatures operator()(const at::Tensor& image) const;
};

// ---------------------------------------------------------------- transformer
// RoPE tables of RoPEPositionEncodingSine(d_model 256, npe, ropefp16=True) for an
// h x w grid of aggregated cells: [1, h, w, 256] float32 holding float16-rounded values.
struct RopeTables {
  at::Tensor sin, cos;
};
RopeTables makeRopeTables(int64_t grid_h, int64_t grid_w, int64_t d_model,
                          const std::array<int64_t, 4>& npe, const at::TensorOptions& options);

// AG_RoPE_EncoderLayer: aggregated attention (q from a depthwise 4x4/4 conv of x, k/v
// from a 4x4 max-pool of source, both through norm1), 8 heads x 32, RoPE on q and k in
// self layers, local/global gating, bilinear x4 upsample, ConvFFN on cat[x, m], residual.
struct AggregatedAttentionLayer {
  static constexpr int64_t kHeads = 8;
  static constexpr int64_t kAgg = 4;
  int64_t d_model = 256;
  Conv2d aggregate, local_mixer, mixer;
  Linear q_proj, k_proj, v_proj, merge;
  LayerNorm norm1;
  Conv2d mlp_fc1, mlp_dwconv, mlp_fc2;
  BatchNorm2d mlp_bn;

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t channels);
  void castTo(at::ScalarType type);
  // x: [N,C,H,W], source: [N,C,H',W'] (H, W, H', W' multiples of 4). rope: tables for the
  // (H/4, W/4) query grid and (H'/4, W'/4) key grid, or nullptr (cross layers), in x's
  // type. float16 on CUDA: the attention through the fused (flash) kernel, the same
  // softmax(QK^T / sqrt(d)) V.
  at::Tensor operator()(const at::Tensor& x, const at::Tensor& source, const RopeTables* rope_q,
                        const RopeTables* rope_k) const;
};

// Per-layer outputs for parity tests: [0] image0, [1] image1 after each layer.
struct TransformerTrace {
  std::vector<std::array<at::Tensor, 2>> layer_outputs;
};

// LocalFeatureTransformer with layer names [self, cross] x 4. Self: f0 = L(f0, f0),
// f1 = L(f1, f1) with RoPE; cross: f0 = L(f0, f1), then f1 = L(f1, NEW f0).
struct CoarseTransformer {
  std::vector<AggregatedAttentionLayer> layers;
  std::vector<std::uint8_t> is_self;  // 1: self-attention layer, 0: cross (not vector<bool>: g++ 13 warns falsely on its resize)

  void bind(StateDictBinder& binder, const std::string& prefix, int64_t d_model);
  void castTo(at::ScalarType type);
  // feat0/1: [1, 256, h, w] each (h, w multiples of 4); npe = RoPE's [train H, train W,
  // test H, test W]. Returns the updated pair. On CUDA without a trace, a self layer runs
  // both images as one batch of two when their grids agree (the layers treat the batch's
  // images independently: the same result up to float summation order).
  std::array<at::Tensor, 2> operator()(at::Tensor feat0, at::Tensor feat1,
                                       const std::array<int64_t, 4>& npe,
                                       TransformerTrace* trace = nullptr) const;
};

// ---------------------------------------------------------------- coarse matching
struct CoarseMatchOptions {
  double threshold = 0.2;    // conf > threshold (strict)
  int64_t border_cells = 2;  // BORDER_RM
  double temperature = 0.1;  // DSMAX_TEMPERATURE
};

struct CoarseMatches {
  at::Tensor i_ids, j_ids;  // [M] int64 coarse cells (row-major), i ascending
  at::Tensor mconf;         // [M] float32
  at::Tensor mkpts0_c, mkpts1_c;  // [M, 2] float32 (x, y) = (cell % w, cell / w) * 8
  at::Tensor conf_matrix;         // [1, L, S] when requested, else undefined
};

// Dual-softmax coarse matching of flattened features f0 [1, L, C], f1 [1, S, C] (the
// transformer output; divided by sqrt(C) here). Mutual nearest (row and column maxima
// over ALL cells), threshold, border. hw0_c/hw1_c: coarse grid sizes; scale: pixels per
// coarse cell. Host sync: one (the number of matches). = selectCoarseMatches of
// coarseCandidates.
CoarseMatches matchCoarse(const at::Tensor& f0, const at::Tensor& f1,
                          std::array<int64_t, 2> hw0_c, std::array<int64_t, 2> hw1_c,
                          double scale, const CoarseMatchOptions& options, bool keep_conf_matrix);

// matchCoarse's fixed-shape part (no host synchronisation, capturable): every cell of
// image 0 with its best cell of image 1 and whether the pair is a match.
struct CoarseCandidates {
  at::Tensor row_max;      // [L] float32: the cell's largest confidence (mconf)
  at::Tensor row_arg;      // [L] int64: the image-1 cell that has it (j)
  at::Tensor valid;        // [L] bool: mutual nearest, above the threshold, inside the borders
  at::Tensor conf_matrix;  // [1, L, S] when requested, else undefined
};
CoarseCandidates coarseCandidates(const at::Tensor& f0, const at::Tensor& f1, std::array<int64_t, 2> hw0_c,
                                  std::array<int64_t, 2> hw1_c, const CoarseMatchOptions& options,
                                  bool keep_conf_matrix);
// coarseCandidates without the conf matrix, through the fused CUDA kernels
// (fused::dualSoftmaxMaxima: conf is never formed). f0, f1 on CUDA; needs fused::built().
CoarseCandidates coarseCandidatesFused(const at::Tensor& f0, const at::Tensor& f1, std::array<int64_t, 2> hw0_c,
                                       std::array<int64_t, 2> hw1_c, const CoarseMatchOptions& options);
// The matches among the candidates (the one host synchronisation: their number).
CoarseMatches selectCoarseMatches(const CoarseCandidates& candidates, std::array<int64_t, 2> hw0_c,
                                  std::array<int64_t, 2> hw1_c, double scale);
// get_coarse_match's points: (cell % w, cell / w) * scale as float32 [M, 2].
at::Tensor coarseCellCorners(const at::Tensor& cells, int64_t grid_w, double scale);

// ---------------------------------------------------------------- fine stage
// FinePreprocess.inter_fpn: coarse features (already / sqrt(C)) [B,256,h,w] + feats_x2
// + feats_x1 -> full-resolution 64-channel maps [B, 64, 8h, 8w].
struct FinePreprocess {
  Conv2d layer3_outconv, layer2_outconv, layer1_outconv;
  Conv2d layer2_conv_a, layer2_conv_b, layer1_conv_a, layer1_conv_b;  // outconv2.{0,3}
  BatchNorm2d layer2_bn, layer1_bn;                                    // outconv2.1

  void bind(StateDictBinder& binder, const std::string& prefix);
  void castTo(at::ScalarType type);
  at::Tensor interFpn(const at::Tensor& feat_c, const at::Tensor& x2, const at::Tensor& x1) const;
};

// Windows of the fine maps at the matched cells, as F.unfold + select would give them:
// image0 8x8 (stride 8, no padding) -> [M, 64, C]; image1 10x10 (stride 8, zero padding 1)
// -> [M, 100, C]; window pixels row-major. fine: [1, C, H, W]; cell ids [M].
at::Tensor gatherWindows(const at::Tensor& fine, const at::Tensor& cell_ids, int64_t window,
                         int64_t padding);

struct FineTrace {
  at::Tensor softmax_matrix_f;  // [M, 64, 64]
  at::Tensor heatmap_3x3;       // [M, 9]
  at::Tensor offset_xy;         // [M, 2]
  at::Tensor idx_l, idx_r;      // [M, 1] int64
};

struct FineResult {
  at::Tensor mkpts0_c, mkpts1_c;  // [M, 2] coarse points moved to the window argmax
  at::Tensor mkpts0_f, mkpts1_f;  // [M, 2] final keypoints (pixels)
};

// HeatmapMinGRUOffset(dim 9, hidden 16, 4 iterations): 3x3 heatmap [M, 9] -> offset [M, 2]
// in (-1, 1) (tanh), x then y.
struct MinGruOffsetHead {
  static constexpr int64_t kIterations = 4;
  std::array<Linear, kIterations> feature_extractors, to_hidden_and_gate, fc1s;
  Linear fc2;

  void bind(StateDictBinder& binder, const std::string& prefix);
  at::Tensor operator()(const at::Tensor& heatmap) const;
};

// FineMatching: first 56 channels -> dual-softmax over the 8x8 x 10x10 windows, cropped to
// 8x8 x 8x8, argmax -> pixel-level points; last 8 channels -> 3x3 heatmap around the image1
// argmax -> minGRU offset (x1 pixel, for resolution (8, 1)).
struct FineMatching {
  static constexpr int64_t kWindow = 8;
  static constexpr int64_t kRegressDim = 8;
  MinGruOffsetHead update_block;

  void bind(StateDictBinder& binder, const std::string& prefix);
  // f0 [M, 64, C], f1 [M, 100, C]; mkpts*_c [M, 2] from coarse matching. = refine() of
  // choose().
  FineResult operator()(const at::Tensor& f0, const at::Tensor& f1, const at::Tensor& mkpts0_c,
                        const at::Tensor& mkpts1_c, FineTrace* trace = nullptr) const;

  // The pixel-level choice in the windows (the ATen chain; fused::fineWindowChoice computes
  // the same from the fine maps on CUDA).
  struct Choice {
    at::Tensor idx;        // [M, 1] int64: l * 64 + k, the dual softmax's argmax over image 0's
                           // window pixel l and image 1's inner 8x8 pixel k
    at::Tensor heatmap;    // [M, 9] float32: conf_ff's 3x3 around (l, k)
    at::Tensor softmax_f;  // [M, 64 * 64] the cropped dual softmax
  };
  Choice choose(const at::Tensor& f0, const at::Tensor& f1) const;
  // The keypoints of a choice (idx [M, 1], heatmap [M, 9]): the window grids and the
  // minGRU offset.
  FineResult refine(const at::Tensor& idx, const at::Tensor& heatmap, const at::Tensor& mkpts0_c,
                    const at::Tensor& mkpts1_c, FineTrace* trace = nullptr) const;
};

}  // namespace skytrace::vision::litesam
