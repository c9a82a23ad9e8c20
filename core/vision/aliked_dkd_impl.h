// Internal (torch allowed): ALIKED's differentiable keypoint detection (nets/soft_detect.py
// DKD), inference only. From a score map [1,1,H,W]: simple NMS by max-pooling, borders
// zeroed, then top-k (or threshold) peaks refined by a soft-argmax over a
// (2r+1)x(2r+1) window (temperature 0.1), their score re-sampled bilinearly at the
// refined position, and the score dispersity of the window.
// Order: descending NMS peak value (torch.topk order), NOT descending refined score.
// Thread: pure function.
#pragma once

#include <ATen/ATen.h>

namespace skytrace::vision::aliked {

struct DkdOptions {
  int radius = 2;             // soft-detection window radius (trained with 2)
  int nms_radius = 2;         // simple_nms radius (original: 2)
  int top_k = 1024;           // > 0: keep the top_k peaks; <= 0: threshold mode
  float scores_threshold = 0.2f;  // threshold mode: keep peaks above it (mean if none)
  int n_limit = 5000;         // threshold mode: at most this many (best scores first)
  double temperature = 0.1;
};

struct DkdResult {
  at::Tensor keypoints;   // [N,2] float32, (x, y) in [-1,1], align_corners=True
  at::Tensor scores;      // [N] bilinear score at the refined position
  at::Tensor dispersity;  // [N]
  at::Tensor keypoints_px;  // [N,2] (k+1)/2 * (W-1, H-1): detectTopKPeaksFused only
};

// score_map: [1,1,H,W] float32 (after sigmoid), H,W >= 2*radius+1.
DkdResult detectKeypoints(const at::Tensor& score_map, const DkdOptions& options);

// The fixed-count paths serve top-k mode (top_k > 0) and threshold mode with a limit
// (scores_threshold > 0, n_limit > 0); fixedPeakCount is their row count.
bool hasFixedPeakCount(const DkdOptions& options);
int fixedPeakCount(const DkdOptions& options);

// The detection without host synchronisation, for CUDA graphs: always
// min(fixedPeakCount, H*W) rows, in topk order (best first); *peak_count (an int64
// scalar tensor on the score map's device) counts the leading rows that detectKeypoints
// keeps (top-k mode: the NMS peaks; threshold mode: the peaks above the threshold), i.e.
// detectKeypoints' result is the first *peak_count rows as a set (threshold mode with
// at most n_limit peaks lists them best first here, in raster order there), up to float
// rounding that depends on the row count in batched kernels. Threshold mode with a count
// of 0 falls back to the mean in detectKeypoints: run that instead.
DkdResult detectTopKPeaksFixed(const at::Tensor& score_map, const DkdOptions& options,
                               at::Tensor* peak_count);

// detectTopKPeaksFixed through the fused CUDA operators (aliked_fused_ops.h: NMS in five
// kernels, the refinement in one; float32 CUDA score map, radius 1..4); also fills
// keypoints_px. Equal to detectTopKPeaksFixed up to float rounding of the refinement.
DkdResult detectTopKPeaksFused(const at::Tensor& score_map, const DkdOptions& options,
                               at::Tensor* peak_count);

// simple_nms: keeps the local maxima of a (2r+1)^2 window, with two rounds of
// suppression recovery; other pixels set to 0. scores: [B,1,H,W].
at::Tensor simpleNms(const at::Tensor& scores, int nms_radius);

}  // namespace skytrace::vision::aliked
