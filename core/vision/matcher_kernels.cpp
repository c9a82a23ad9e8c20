// Tensor-level mutual nearest neighbour matching (no OpenCV: also built in the
// GPU-only benchmark configuration).
#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include <ATen/Context.h>
#include <c10/core/InferenceMode.h>

#include "core/util/check.h"
#include "core/util/error.h"
#include "core/vision/cuda_graph_impl.h"
#include "core/vision/matcher_impl.h"

namespace skytrace::vision {
namespace {

// a [Na,D] @ b^T [D,Nb]. On the CPU the product goes through oneDNN's inner-product
// kernel: Debian's LibTorch sends at::matmul to the reference (netlib) BLAS, and
// at::conv2d with this shape to a slow im2col path. Measured on this 2-core machine
// (1024 x 1024 x 256): matmul ~1 s, conv2d ~0.6 s, mkldnn_linear ~0.06 s. Same values up
// to float summation order (~1e-5).
at::Tensor similarityMatrix(const at::Tensor& a, const at::Tensor& b) {
  if (!a.is_cpu() || !at::hasMKLDNN()) return at::matmul(a, b.t());
  return at::mkldnn_linear(a.contiguous().to_mkldnn(), b.contiguous().to_mkldnn(), {})
      .to_dense();
}

// The match candidates of A against B: keep [Na] bool (nearest neighbour passing the
// options' tests), nearest_in_b [Na] int64, best [Na] similarity. Device work only.
std::vector<at::Tensor> mutualCandidates(const at::Tensor& descriptors_a,
                                         const at::Tensor& descriptors_b,
                                         const MatchOptions& options, int64_t na, int64_t nb);

}  // namespace

void MatchOptions::check() const {
  checkArgument(max_ratio > 0.0f && max_ratio <= 1.0f,
                "match max_ratio must be in (0, 1], got " + std::to_string(max_ratio));
  checkArgument(min_similarity >= -1.0f && min_similarity <= 1.0f,
                "match min_similarity must be in [-1, 1], got " + std::to_string(min_similarity));
}

MatchTensors matchMutualNearestNeighbours(const at::Tensor& descriptors_a,
                                          const at::Tensor& descriptors_b,
                                          const MatchOptions& options) {
  options.check();
  c10::InferenceMode inference;
  checkArgument(descriptors_a.dim() == 2 && descriptors_b.dim() == 2,
                "matching: descriptors must be [N,D] matrices");
  checkArgument(descriptors_a.device() == descriptors_b.device(),
                "matching: descriptors are on different devices (" +
                    descriptors_a.device().str() + " vs " + descriptors_b.device().str() + ")");
  const auto long_options = at::TensorOptions().dtype(at::kLong).device(descriptors_a.device());
  const int64_t na = descriptors_a.size(0);
  const int64_t nb = descriptors_b.size(0);
  if (na == 0 || nb == 0) {
    return {at::empty({0}, long_options), at::empty({0}, long_options),
            at::empty({0}, long_options.dtype(at::kFloat))};
  }
  checkArgument(descriptors_a.size(1) == descriptors_b.size(1),
                "matching: descriptor dimensions differ (" + std::to_string(descriptors_a.size(1)) +
                    " vs " + std::to_string(descriptors_b.size(1)) + ")");

  // keep [Na] bool, nearest_in_b [Na] int64, best [Na] float: device work only.
  const auto candidates = [&options, na, nb](const at::Tensor& a, const at::Tensor& b) {
    return mutualCandidates(a, b, options, na, nb);
  };
  std::vector<at::Tensor> selected;
  if (descriptors_a.is_cuda()) {
    // On CUDA a graph per descriptor-count pair and options, captured on a pair's second
    // sighting (so that counts that change every call never pay for a capture).
    thread_local CapturedGraphs graphs("MNN matching", /*capture_after=*/2);
    std::ostringstream key;
    key << options.min_similarity << "/" << options.mutual << "/" << options.max_ratio;
    auto replayed = graphs.run(key.str(), {descriptors_a, descriptors_b},
                               [&](const std::vector<at::Tensor>& in) { return candidates(in[0], in[1]); });
    if (replayed) selected = std::move(*replayed);
  }
  if (selected.empty()) selected = candidates(descriptors_a, descriptors_b);
  const at::Tensor index_a = selected[0].nonzero().squeeze(1);
  return {index_a, selected[1].index_select(0, index_a), selected[2].index_select(0, index_a)};
}

namespace {

std::vector<at::Tensor> mutualCandidates(const at::Tensor& descriptors_a,
                                         const at::Tensor& descriptors_b,
                                         const MatchOptions& options, int64_t na, int64_t nb) {
  const auto long_options = at::TensorOptions().dtype(at::kLong).device(descriptors_a.device());
  const at::Tensor similarity = similarityMatrix(descriptors_a, descriptors_b);  // [Na,Nb]
  const int64_t k = std::min<int64_t>(2, nb);
  const auto [top_values, top_indices] = similarity.topk(k, 1, true, true);  // [Na,k]
  const at::Tensor best = top_values.select(1, 0);
  const at::Tensor nearest_in_b = top_indices.select(1, 0);

  at::Tensor keep = best >= options.min_similarity;
  if (options.mutual) {
    const at::Tensor nearest_in_a = std::get<1>(similarity.max(0));  // [Nb]
    keep = keep & (nearest_in_a.index_select(0, nearest_in_b) ==
                   at::arange(na, long_options));
  }
  if (options.max_ratio < 1.0f && k == 2) {
    // d = sqrt(2 - 2 s); clamp guards tiny negative values from rounding.
    const at::Tensor d_best = (2.0f - 2.0f * best).clamp_min(0.0f).sqrt();
    const at::Tensor d_second = (2.0f - 2.0f * top_values.select(1, 1)).clamp_min(0.0f).sqrt();
    keep = keep & (d_best < options.max_ratio * d_second);
  }
  return {keep, nearest_in_b, best};
}

}  // namespace

Matches toHostMatches(const MatchTensors& matches) {
  const at::Tensor a = matches.index_a.to(at::kCPU, at::kInt).contiguous();
  const at::Tensor b = matches.index_b.to(at::kCPU, at::kInt).contiguous();
  const at::Tensor s = matches.scores.to(at::kCPU, at::kFloat).contiguous();
  Matches host;
  host.index_a.assign(a.data_ptr<int>(), a.data_ptr<int>() + a.numel());
  host.index_b.assign(b.data_ptr<int>(), b.data_ptr<int>() + b.numel());
  host.scores.assign(s.data_ptr<float>(), s.data_ptr<float>() + s.numel());
  return host;
}

}  // namespace skytrace::vision
