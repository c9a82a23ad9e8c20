// Batched RANSAC on ATen tensors (no OpenCV: also built in the GPU-only benchmark
// configuration). Shapes are noted as [B] hypotheses, [N] correspondences, [S] sample size.
#include "core/vision/robust_estimation.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#if defined(SKYTRACE_WITH_CUDA)
// CUDA builds only (cuda preset): CUDA graphs for the hypothesis batches.
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#endif

#include "core/util/check.h"
#include "core/util/error.h"
#include "core/util/log.h"
#include "core/vision/cuda_graph_impl.h"
#include "core/vision/robust_estimation_impl.h"
#include "core/vision/torch_runtime.h"

namespace skytrace::vision {
namespace {

using at::indexing::Slice;

bool isTransfer(GeometricModelType type) {
  return type == GeometricModelType::Homography || type == GeometricModelType::Affine ||
         type == GeometricModelType::Similarity;
}

at::Device deviceOf(const DeviceSpec& spec) {
  return spec.cuda ? at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(spec.index))
                   : at::Device(at::kCPU);
}

at::Tensor matrixTensor(const Matrix3d& m, const at::TensorOptions& options) {
  return at::tensor(std::vector<double>(m.begin(), m.end()), at::kDouble).view({3, 3}).to(options);
}

Matrix3d toMatrix3d(const at::Tensor& m) {
  const at::Tensor host = m.to(at::kCPU, at::kDouble).contiguous();
  Matrix3d out;
  std::copy(host.data_ptr<double>(), host.data_ptr<double>() + 9, out.begin());
  return out;
}

// a @ b for batches of tiny matrices ([...,3,3] @ [...,3,k]) by broadcasting: ATen's CPU
// bmm loops over the batch one small GEMM at a time, which is far slower here.
at::Tensor mul3(const at::Tensor& a, const at::Tensor& b) {
  return (a.unsqueeze(-1) * b.unsqueeze(-3)).sum(-2);
}

at::Tensor homogeneous(const at::Tensor& xy) {  // [...,2] -> [...,3]
  return at::cat({xy, at::ones_like(xy.narrow(-1, 0, 1))}, -1);
}

// adj(M) for [...,3,3] (M^-1 = adj(M) / det(M)); the columns of adj are cross products of
// M's rows. Also returns det(M) [...].
std::pair<at::Tensor, at::Tensor> adjugate3(const at::Tensor& m) {
  const at::Tensor r0 = m.select(-2, 0), r1 = m.select(-2, 1), r2 = m.select(-2, 2);
  const at::Tensor c0 = at::linalg_cross(r1, r2, -1);
  const at::Tensor c1 = at::linalg_cross(r2, r0, -1);
  const at::Tensor c2 = at::linalg_cross(r0, r1, -1);
  const at::Tensor det = (r0 * c0).sum(-1);
  return {at::stack({c0, c1, c2}, -1), det};
}

at::Tensor applyTransform(const at::Tensor& t, const at::Tensor& xy) {  // [N,2]
  const at::Tensor h = at::matmul(homogeneous(xy), t.t());
  return h.narrow(1, 0, 2) / h.narrow(1, 2, 1);
}

// ---------------------------------------------------------------- minimal solvers
// Input: normalised samples a, b [B,S,2]. Output: models [B,3,3] in normalised
// coordinates (b ~ M a, or b^T F a = 0) and validity [B] bool.

std::pair<at::Tensor, at::Tensor> solveHomography4(const at::Tensor& a, const at::Tensor& b) {
  // Projective basis: A maps e1, e2, e3, (1,1,1) to the four points a_i; likewise B.
  auto basis = [](const at::Tensor& p) {
    const at::Tensor ph = homogeneous(p);                      // [B,4,3]
    const at::Tensor cols = ph.narrow(1, 0, 3).transpose(1, 2);  // columns p1 p2 p3
    const auto [adj, det] = adjugate3(cols);
    const at::Tensor lambda = mul3(adj, ph.select(1, 3).unsqueeze(-1)).squeeze(-1);
    return std::make_pair(cols * lambda.unsqueeze(1), (lambda.abs().amin(-1) * det.abs()));
  };
  const auto [basis_a, strength_a] = basis(a);
  const auto [basis_b, strength_b] = basis(b);
  at::Tensor h = mul3(basis_b, adjugate3(basis_a).first);
  h = h / h.flatten(1).norm(2, 1).clamp_min(1e-30).view({-1, 1, 1});
  const at::Tensor det_h = adjugate3(h).second;
  const at::Tensor valid = h.flatten(1).isfinite().all(1) & (det_h.abs() > 1e-8) &
                           (strength_a > 1e-9) & (strength_b > 1e-9);
  return {h, valid};
}

std::pair<at::Tensor, at::Tensor> solveAffine3(const at::Tensor& a, const at::Tensor& b) {
  const at::Tensor cols = homogeneous(a).transpose(1, 2);  // [B,3,3], columns (x,y,1)
  const auto [adj, det] = adjugate3(cols);
  const at::Tensor top = (b.transpose(1, 2).unsqueeze(-1) * adj.unsqueeze(-3)).sum(-2) /
                         det.view({-1, 1, 1});  // [B,2,3]
  const at::Tensor last = at::zeros({a.size(0), 1, 3}, a.options());
  last.select(2, 2).fill_(1.0);
  const at::Tensor m = at::cat({top, last}, 1);
  return {m, m.flatten(1).isfinite().all(1) & (det.abs() > 1e-8)};
}

std::pair<at::Tensor, at::Tensor> solveSimilarity2(const at::Tensor& a, const at::Tensor& b) {
  // Complex form w = alpha z + beta.
  const at::Tensor dz = a.select(1, 1) - a.select(1, 0);  // [B,2]
  const at::Tensor dw = b.select(1, 1) - b.select(1, 0);
  const at::Tensor norm_sq = (dz * dz).sum(-1);
  const at::Tensor zx = dz.select(1, 0), zy = dz.select(1, 1);
  const at::Tensor wx = dw.select(1, 0), wy = dw.select(1, 1);
  const at::Tensor ar = (wx * zx + wy * zy) / norm_sq;
  const at::Tensor ai = (wy * zx - wx * zy) / norm_sq;
  const at::Tensor a0 = a.select(1, 0), b0 = b.select(1, 0);
  const at::Tensor tx = b0.select(1, 0) - (ar * a0.select(1, 0) - ai * a0.select(1, 1));
  const at::Tensor ty = b0.select(1, 1) - (ai * a0.select(1, 0) + ar * a0.select(1, 1));
  const at::Tensor zero = at::zeros_like(ar), one = at::ones_like(ar);
  const at::Tensor m = at::stack({ar, -ai, tx, ai, ar, ty, zero, zero, one}, 1).view({-1, 3, 3});
  return {m, m.flatten(1).isfinite().all(1) & (norm_sq > 1e-12)};
}

// Rows of the epipolar constraint b^T F a = 0 for [...,2] points: [...,9].
at::Tensor epipolarRows(const at::Tensor& a, const at::Tensor& b) {
  const at::Tensor ha = homogeneous(a);
  const at::Tensor hb = homogeneous(b);
  return (hb.unsqueeze(-1) * ha.unsqueeze(-2)).flatten(-2);  // row i*3+j = b_i a_j
}

at::Tensor enforceRank2(const at::Tensor& f, bool essential) {
  const auto [u, s, vh] = at::linalg_svd(f, false);
  at::Tensor sigma = s.clone();
  if (essential) {
    const at::Tensor mean = (s.select(-1, 0) + s.select(-1, 1)) / 2;
    sigma.select(-1, 0).copy_(mean);
    sigma.select(-1, 1).copy_(mean);
  }
  sigma.select(-1, 2).zero_();
  const at::Tensor out = mul3(u * sigma.unsqueeze(-2), vh);
  return out / out.flatten(-2).norm(2, -1).clamp_min(1e-30).unsqueeze(-1).unsqueeze(-1);
}

std::pair<at::Tensor, at::Tensor> solveEightPoint(const at::Tensor& a, const at::Tensor& b) {
  const at::Tensor rows = epipolarRows(a, b);  // [B,8,9]
  const at::Tensor gram = (rows.unsqueeze(-1) * rows.unsqueeze(-2)).sum(1);  // [B,9,9]
  const auto [values, vectors] = at::linalg_eigh(gram);
  const at::Tensor f = vectors.select(2, 0).reshape({-1, 3, 3});
  // A well-posed sample leaves a one-dimensional null space.
  const at::Tensor gap = values.select(1, 1) / values.select(1, 8).clamp_min(1e-30);
  return {f, f.flatten(1).isfinite().all(1) & (gap > 1e-7)};
}

// ---------------------------------------------------------------- errors

// The three rows of M p for models [B,3,3] and points (x, y) [N]: three [B,N] tensors.
std::array<at::Tensor, 3> applyModels(const at::Tensor& m, const at::Tensor& x,
                                      const at::Tensor& y) {
  const at::Tensor xr = x.unsqueeze(0), yr = y.unsqueeze(0);
  std::array<at::Tensor, 3> rows;
  for (int i = 0; i < 3; ++i) {
    const at::Tensor mi = m.select(1, i);  // [B,3]
    rows[i] = at::addcmul(at::addcmul(mi.narrow(1, 2, 1), xr, mi.narrow(1, 0, 1)), yr,
                          mi.narrow(1, 1, 1));
  }
  return rows;
}

// Squared errors [B,N] of models [B,3,3] (pixels) on pixel points a, b [N,2]. Written as
// a handful of elementwise [B,N] operations (no batched GEMM), which is what both the
// CPU and the GPU do fastest for 3x3 models. Points mapped to infinity get +inf.
at::Tensor squaredErrors(GeometricModelType type, const at::Tensor& models, const at::Tensor& a,
                         const at::Tensor& b) {
  const at::Tensor ax = a.select(1, 0), ay = a.select(1, 1);
  const at::Tensor bx = b.select(1, 0), by = b.select(1, 1);
  const double inf = std::numeric_limits<double>::infinity();
  if (isTransfer(type)) {
    auto transfer = [&](const at::Tensor& m, const at::Tensor& fx, const at::Tensor& fy,
                        const at::Tensor& tx, const at::Tensor& ty) {
      const auto p = applyModels(m, fx, fy);
      const at::Tensor u = p[0] / p[2] - tx.unsqueeze(0);
      const at::Tensor v = p[1] / p[2] - ty.unsqueeze(0);
      return at::addcmul(u * u, v, v);
    };
    const at::Tensor e = transfer(models, ax, ay, bx, by)
                             .add_(transfer(adjugate3(models).first, bx, by, ax, ay))
                             .mul_(0.5);
    return at::nan_to_num(e, inf, inf, inf);
  }
  const auto fa = applyModels(models, ax, ay);                   // F a
  const auto ftb = applyModels(models.transpose(1, 2), bx, by);  // F^T b
  const at::Tensor numerator =
      at::addcmul(at::addcmul(fa[2], fa[0], bx.unsqueeze(0)), fa[1], by.unsqueeze(0));
  const at::Tensor denominator =
      at::addcmul(at::addcmul(at::addcmul(fa[0] * fa[0], fa[1], fa[1]), ftb[0], ftb[0]), ftb[1],
                  ftb[1]);
  return at::nan_to_num(numerator * numerator / denominator, inf, inf, inf);
}

// ---------------------------------------------------------------- context

// Host -> device copy that does not wait for the work already queued on the device: a
// pinned staging buffer and an asynchronous copy on the current stream (the caching host
// allocator keeps the buffer until the copy has run). Identity for the CPU.
at::Tensor toDevice(const at::Tensor& host, const at::Device& device) {
  if (device.is_cpu()) return host;
  return host.contiguous().pin_memory().to(device, /*non_blocking=*/true);
}


struct Problem {
  GeometricModelType type;
  at::Tensor a_px, b_px;      // [N,2] float64, pixels
  at::Tensor a_fit, b_fit;    // [N,2] float64, coordinates the models are solved in
  at::Tensor t_a, t_b;        // [3,3] float64 Hartley transforms (of the fit coordinates)
  at::Tensor k_a_inv, k_b_inv;  // essential only: pixels -> normalised camera coordinates
  at::Tensor a_norm, b_norm;  // Hartley-normalised fit coordinates

  // Normalised-coordinate models [B,3,3] -> pixel-space models used for scoring.
  at::Tensor toPixelModels(const at::Tensor& normalised) const {
    const at::Tensor ta = t_a.to(normalised.scalar_type());
    const at::Tensor tb = t_b.to(normalised.scalar_type());
    if (isTransfer(type)) return mul3(mul3(adjugate3(tb).first, normalised), ta);
    at::Tensor f = mul3(mul3(tb.t(), normalised), ta);  // in fit coordinates
    if (type == GeometricModelType::Essential) {
      f = mul3(mul3(k_b_inv.to(f.scalar_type()).t(), f), k_a_inv.to(f.scalar_type()));
    }
    return f;
  }

  // A copy with the transforms on `device` and without the points: what the batch
  // scoring there needs for toPixelModels. Host -> device without a sync.
  Problem withTransformsOn(const at::Device& device) const;

  // The reported model from a normalised one: pixel model for transfer types and F, the
  // essential matrix (camera coordinates) for E.
  at::Tensor toReportedModel(const at::Tensor& normalised) const {
    if (type == GeometricModelType::Essential) {
      const at::Tensor e = at::matmul(at::matmul(t_b.t(), normalised), t_a);
      return enforceRank2(e, true);
    }
    at::Tensor m = toPixelModels(normalised.unsqueeze(0)).squeeze(0);
    if (isTransfer(type)) return m / m[2][2];
    return m / m.norm();
  }
};

// Hartley normalisation of [N,2] float64 host points in plain loops (RANSAC runs per
// frame; a dozen tensor operators here cost more than the arithmetic): T (3x3, float64)
// maps them to centroid 0 and mean distance sqrt(2); returns T and the mapped points.
std::pair<at::Tensor, at::Tensor> hartleyNormalise(const at::Tensor& points) {
  const at::Tensor xy = points.to(at::kCPU, at::kDouble).contiguous();
  const int64_t n = xy.size(0);
  const double* p = xy.data_ptr<double>();
  double cx = 0.0, cy = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    cx += p[2 * i];
    cy += p[2 * i + 1];
  }
  cx /= static_cast<double>(std::max<int64_t>(n, 1));
  cy /= static_cast<double>(std::max<int64_t>(n, 1));
  double spread = 0.0;
  for (int64_t i = 0; i < n; ++i) spread += std::hypot(p[2 * i] - cx, p[2 * i + 1] - cy);
  spread /= static_cast<double>(std::max<int64_t>(n, 1));
  const double s = std::sqrt(2.0) / std::max(spread, 1e-12);
  at::Tensor t = at::zeros({3, 3}, at::kDouble);
  double* m = t.data_ptr<double>();
  m[0] = s;
  m[2] = -s * cx;
  m[4] = s;
  m[5] = -s * cy;
  m[8] = 1.0;
  at::Tensor normalised = at::empty({n, 2}, at::kDouble);
  double* q = normalised.data_ptr<double>();
  for (int64_t i = 0; i < n; ++i) {
    q[2 * i] = s * p[2 * i] + m[2];
    q[2 * i + 1] = s * p[2 * i + 1] + m[5];
  }
  return {t, normalised};
}

Problem makeProblem(GeometricModelType type, const at::Tensor& a, const at::Tensor& b,
                    const RansacOptions& options) {
  Problem p;
  p.type = type;
  p.a_px = a.to(at::kDouble).contiguous();
  p.b_px = b.to(at::kDouble).contiguous();
  p.a_fit = p.a_px;
  p.b_fit = p.b_px;
  if (type == GeometricModelType::Essential) {
    p.k_a_inv = at::linalg_inv(matrixTensor(options.camera_a, p.a_px.options()));
    p.k_b_inv = at::linalg_inv(matrixTensor(options.camera_b, p.a_px.options()));
    p.a_fit = applyTransform(p.k_a_inv, p.a_px);
    p.b_fit = applyTransform(p.k_b_inv, p.b_px);
  }
  std::tie(p.t_a, p.a_norm) = hartleyNormalise(p.a_fit);
  std::tie(p.t_b, p.b_norm) = hartleyNormalise(p.b_fit);
  return p;
}

Problem Problem::withTransformsOn(const at::Device& device) const {
  Problem moved = *this;
  moved.a_px = moved.b_px = moved.a_fit = moved.b_fit = moved.a_norm = moved.b_norm = at::Tensor();
  for (at::Tensor* t : {&moved.t_a, &moved.t_b, &moved.k_a_inv, &moved.k_b_inv}) {
    if (t->defined()) *t = toDevice(*t, device);
  }
  return moved;
}

std::pair<at::Tensor, at::Tensor> solveMinimal(GeometricModelType type, const at::Tensor& a,
                                               const at::Tensor& b) {
  switch (type) {
    case GeometricModelType::Homography: return solveHomography4(a, b);
    case GeometricModelType::Affine: return solveAffine3(a, b);
    case GeometricModelType::Similarity: return solveSimilarity2(a, b);
    case GeometricModelType::Fundamental:
    case GeometricModelType::Essential: {
      // Rank 2 only: the (1,1,0) singular values of E hold in camera coordinates, not in
      // these Hartley-normalised ones; toReportedModel projects E at the end.
      auto [f, valid] = solveEightPoint(a, b);
      return {enforceRank2(f, false), valid};
    }
  }
  throw InvalidArgument("unknown geometric model");
}

// Least-squares solution of design x = target ([M,K], [M,R] -> [K,R], float64) through the
// thin SVD. Not at::linalg_lstsq: its LAPACK path is not bit-reproducible from call to
// call (measured: 1e-17..1e-16 differences between repeated calls on the same input),
// and RANSAC promises the same result for the same seed.
at::Tensor leastSquares(const at::Tensor& design, const at::Tensor& target) {
  const auto [u, s, vh] = at::linalg_svd(design, false);
  return at::matmul(vh.t(), at::matmul(u.t(), target) / s.unsqueeze(1));
}

// Least-squares model [3,3] float64 in normalised coordinates from the selected points.
at::Tensor fitNormalised(GeometricModelType type, const at::Tensor& a, const at::Tensor& b) {
  const at::Tensor x = a.select(1, 0), y = a.select(1, 1);
  const at::Tensor u = b.select(1, 0), v = b.select(1, 1);
  const at::Tensor one = at::ones_like(x), zero = at::zeros_like(x);
  auto nullVector = [](const at::Tensor& rows) {
    const at::Tensor vh = std::get<2>(at::linalg_svd(rows, false));
    return vh.select(0, vh.size(0) - 1);
  };
  switch (type) {
    case GeometricModelType::Homography: {
      const at::Tensor rows_u = at::stack({-x, -y, -one, zero, zero, zero, u * x, u * y, u}, 1);
      const at::Tensor rows_v = at::stack({zero, zero, zero, -x, -y, -one, v * x, v * y, v}, 1);
      return nullVector(at::cat({rows_u, rows_v}, 0)).view({3, 3});
    }
    case GeometricModelType::Affine: {
      const at::Tensor design = at::stack({x, y, one}, 1);  // [N,3]
      const at::Tensor solution = leastSquares(design, b);  // [3,2]
      const at::Tensor last = at::tensor(std::vector<double>{0.0, 0.0, 1.0}, a.options());
      return at::cat({solution.t(), last.view({1, 3})}, 0);
    }
    case GeometricModelType::Similarity: {
      // u = c x - s y + tx ; v = s x + c y + ty
      const at::Tensor design = at::cat(
          {at::stack({x, -y, one, zero}, 1), at::stack({y, x, zero, one}, 1)}, 0);  // [2N,4]
      const at::Tensor target = at::cat({u, v}, 0).unsqueeze(1);
      const at::Tensor p = leastSquares(design, target).squeeze(1);
      const at::Tensor z = at::zeros({1}, a.options()), o = at::ones({1}, a.options());
      return at::cat({p.narrow(0, 0, 1), -p.narrow(0, 1, 1), p.narrow(0, 2, 1),
                      p.narrow(0, 1, 1), p.narrow(0, 0, 1), p.narrow(0, 3, 1), z, z, o})
          .view({3, 3});
    }
    case GeometricModelType::Fundamental:
    case GeometricModelType::Essential:
      return enforceRank2(nullVector(epipolarRows(a, b)).view({3, 3}), false);
  }
  throw InvalidArgument("unknown geometric model");
}

// Draws [B,S] distinct indices in [0,N) per row from the CPU generator, on the host (so
// that the samples do not depend on the device): for pick k, a uniform rank r in
// [0, N-k) becomes the r-th index not chosen yet. One at::rand per pick, the rest plain
// loops (a few microseconds, instead of dozens of small tensor operations).
at::Tensor drawSamples(at::Generator& generator, int64_t batch, int64_t sample_size, int64_t n) {
  at::Tensor chosen = at::empty({batch, sample_size}, at::kLong);
  auto picks = chosen.accessor<int64_t, 2>();
  std::vector<int64_t> sorted(static_cast<size_t>(sample_size));
  for (int64_t k = 0; k < sample_size; ++k) {
    const at::Tensor u = at::rand({batch}, generator, at::kDouble).contiguous();
    const double* uniform = u.data_ptr<double>();
    for (int64_t b = 0; b < batch; ++b) {
      int64_t r = std::min(static_cast<int64_t>(std::floor(uniform[b] * static_cast<double>(n - k))),
                           n - k - 1);
      // Step over the earlier picks in ascending order.
      for (int64_t j = 0; j < k; ++j) sorted[j] = picks[b][j];
      std::sort(sorted.begin(), sorted.begin() + k);
      for (int64_t j = 0; j < k; ++j) r += r >= sorted[j] ? 1 : 0;
      picks[b][k] = r;
    }
  }
  return chosen;
}

// ---------------------------------------------------------------- one model on the host
// The local optimisation scores one model at a time: plain float64 loops over the points
// (the same errors as squaredErrors) instead of dozens of tensor operator calls.

Matrix3d multiply(const Matrix3d& x, const Matrix3d& y) {
  Matrix3d r{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) r[i * 3 + j] += x[i * 3 + k] * y[k * 3 + j];
  return r;
}

Matrix3d transpose(const Matrix3d& m) {
  return {m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]};
}

Matrix3d adjugate(const Matrix3d& m) {  // M^-1 = adj(M) / det(M)
  return {m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
          m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
          m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3]};
}

// The host side of a Problem for single-model scoring: pixel points and transforms.
struct HostProblem {
  GeometricModelType type;
  std::vector<double> a_px, b_px;      // interleaved x, y
  std::vector<double> a_norm, b_norm;  // Hartley-normalised fit coordinates, interleaved
  Matrix3d t_a{}, t_b{}, k_a_inv = kIdentity3d, k_b_inv = kIdentity3d;

  explicit HostProblem(const Problem& p) : type(p.type) {
    const auto copy = [](const at::Tensor& t, std::vector<double>* out) {
      const at::Tensor c = t.contiguous();
      out->assign(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
    };
    copy(p.a_px, &a_px);
    copy(p.b_px, &b_px);
    copy(p.a_norm, &a_norm);
    copy(p.b_norm, &b_norm);
    t_a = toMatrix3d(p.t_a);
    t_b = toMatrix3d(p.t_b);
    if (p.k_a_inv.defined()) k_a_inv = toMatrix3d(p.k_a_inv);
    if (p.k_b_inv.defined()) k_b_inv = toMatrix3d(p.k_b_inv);
  }

  // As Problem::toPixelModels for one model.
  Matrix3d toPixelModel(const Matrix3d& normalised) const {
    if (isTransfer(type)) return multiply(multiply(adjugate(t_b), normalised), t_a);
    Matrix3d f = multiply(multiply(transpose(t_b), normalised), t_a);
    if (type == GeometricModelType::Essential) {
      f = multiply(multiply(transpose(k_b_inv), f), k_a_inv);
    }
    return f;
  }
};

// Squared error (pixels^2) of pixel-space model m for a <-> b, as squaredErrors.
double squaredError(GeometricModelType type, const Matrix3d& m, const Matrix3d& m_adjugate,
                    double ax, double ay, double bx, double by) {
  double e = 0.0;
  if (isTransfer(type)) {
    const auto transfer = [](const Matrix3d& h, double fx, double fy, double tx, double ty) {
      const double w = h[6] * fx + h[7] * fy + h[8];
      const double u = (h[0] * fx + h[1] * fy + h[2]) / w - tx;
      const double v = (h[3] * fx + h[4] * fy + h[5]) / w - ty;
      return u * u + v * v;
    };
    e = (transfer(m, ax, ay, bx, by) + transfer(m_adjugate, bx, by, ax, ay)) * 0.5;
  } else {
    const double fa0 = m[0] * ax + m[1] * ay + m[2];  // F a
    const double fa1 = m[3] * ax + m[4] * ay + m[5];
    const double fa2 = m[6] * ax + m[7] * ay + m[8];
    const double ftb0 = m[0] * bx + m[3] * by + m[6];  // F^T b
    const double ftb1 = m[1] * bx + m[4] * by + m[7];
    const double numerator = fa2 + fa0 * bx + fa1 * by;
    e = numerator * numerator / (fa0 * fa0 + fa1 * fa1 + ftb0 * ftb0 + ftb1 * ftb1);
  }
  return std::isfinite(e) ? e : std::numeric_limits<double>::infinity();
}

// The eigenvector of the smallest eigenvalue of a symmetric 9x9 matrix (row-major), by
// cyclic Jacobi rotations (accurate for small eigenvalues; a few microseconds).
std::array<double, 9> smallestEigenvector9(std::array<double, 81> a) {
  constexpr int n = 9;
  std::array<double, 81> v{};
  for (int i = 0; i < n; ++i) v[i * n + i] = 1.0;
  double scale = 0.0;
  for (double x : a) scale += x * x;
  for (int sweep = 0; sweep < 60; ++sweep) {
    double off = 0.0;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) off += a[p * n + q] * a[p * n + q];
    if (off <= 1e-34 * scale || off == 0.0) break;
    for (int p = 0; p < n - 1; ++p) {
      for (int q = p + 1; q < n; ++q) {
        const double apq = a[p * n + q];
        if (apq == 0.0) continue;
        const double theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
        const double t = (theta >= 0.0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
        for (int k = 0; k < n; ++k) {  // A J
          const double akp = a[k * n + p], akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (int k = 0; k < n; ++k) {  // J^T (A J)
          const double apk = a[p * n + k], aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (int k = 0; k < n; ++k) {  // V J
          const double vkp = v[k * n + p], vkq = v[k * n + q];
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  int smallest = 0;
  for (int i = 1; i < n; ++i)
    if (a[i * n + i] < a[smallest * n + smallest]) smallest = i;
  std::array<double, 9> h{};
  for (int k = 0; k < n; ++k) h[k] = v[k * n + smallest];
  return h;
}

// The homography DLT of fitNormalised on the host, for the local optimisation: the same
// least-squares problem (unit h minimising |A h| over the selected correspondences),
// solved through the 9x9 normal matrix A^T A accumulated in one pass instead of an SVD of
// the [2N,9] matrix (as OpenCV's homography refinement does): no tensor operators, a
// few microseconds. Returns [3,3] float64 (unit Frobenius norm, sign arbitrary).
at::Tensor fitHomographyHost(const HostProblem& p, const std::vector<uint8_t>& selected) {
  std::array<double, 81> ata{};
  const size_t n = p.a_norm.size() / 2;
  for (size_t i = 0; i < n; ++i) {
    if (!selected[i]) continue;
    const double x = p.a_norm[2 * i], y = p.a_norm[2 * i + 1];
    const double u = p.b_norm[2 * i], v = p.b_norm[2 * i + 1];
    const double ru[9] = {-x, -y, -1.0, 0.0, 0.0, 0.0, u * x, u * y, u};
    const double rv[9] = {0.0, 0.0, 0.0, -x, -y, -1.0, v * x, v * y, v};
    for (int r = 0; r < 9; ++r)
      for (int c = r; c < 9; ++c) ata[r * 9 + c] += ru[r] * ru[c] + rv[r] * rv[c];
  }
  for (int r = 0; r < 9; ++r)
    for (int c = 0; c < r; ++c) ata[r * 9 + c] = ata[c * 9 + r];
  const std::array<double, 9> h = smallestEigenvector9(ata);
  at::Tensor model = at::empty({3, 3}, at::kDouble);
  std::copy(h.begin(), h.end(), model.data_ptr<double>());
  return model;
}

struct Scored {
  at::Tensor model_normalised;  // [3,3] float64, host
  double cost = std::numeric_limits<double>::infinity();  // MSAC: sum of min(e, threshold)
  std::vector<uint8_t> inliers;  // one per correspondence
  int64_t num_inliers = 0;
  double inlier_error_sum = 0.0;  // sum of the inliers' squared errors

  at::Tensor inlierIndices() const {
    std::vector<int64_t> indices;
    indices.reserve(static_cast<size_t>(num_inliers));
    for (size_t i = 0; i < inliers.size(); ++i)
      if (inliers[i]) indices.push_back(static_cast<int64_t>(i));
    return at::tensor(indices, at::kLong);
  }
};

// Scores the normalised model on every point. With a finite `bound`, gives up as soon as
// the running cost reaches it and returns cost +infinity (a hypothesis that cannot beat
// the best so far: most random ones are dropped after a fraction of the points).
// model_normalised of the result is left undefined.
Scored scoreModel(const HostProblem& p, const Matrix3d& normalised, double threshold_sq,
                  double bound = std::numeric_limits<double>::infinity()) {
  const Matrix3d m = p.toPixelModel(normalised);
  const Matrix3d m_adjugate = adjugate(m);
  Scored s;
  s.cost = 0.0;
  const size_t n = p.a_px.size() / 2;
  s.inliers.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const double e = squaredError(p.type, m, m_adjugate, p.a_px[2 * i], p.a_px[2 * i + 1],
                                  p.b_px[2 * i], p.b_px[2 * i + 1]);
    s.cost += std::min(e, threshold_sq);
    if (s.cost >= bound) {
      s.cost = std::numeric_limits<double>::infinity();
      return s;
    }
    if (e < threshold_sq) {
      s.inliers[i] = 1;
      ++s.num_inliers;
      s.inlier_error_sum += e;
    }
  }
  return s;
}

Scored scoreSingle(const HostProblem& p, const at::Tensor& model_normalised, double threshold_sq) {
  Scored s = scoreModel(p, toMatrix3d(model_normalised), threshold_sq);
  s.model_normalised = model_normalised;
  return s;
}

// ---------------------------------------------------------------- the host opening round
// Homography from four normalised correspondences on the host, float64: the projective-
// basis construction of solveHomography4 for one sample (same validity tests). Returns
// false for a degenerate sample (three collinear points, coincident points).
bool solveHomography4Host(const HostProblem& p, const int64_t* sample, Matrix3d* h) {
  const auto basis = [&](const std::vector<double>& xy, Matrix3d* out, double* strength) {
    Matrix3d cols{};  // columns: the first three points, homogeneous
    for (int c = 0; c < 3; ++c) {
      cols[0 * 3 + c] = xy[2 * sample[c]];
      cols[1 * 3 + c] = xy[2 * sample[c] + 1];
      cols[2 * 3 + c] = 1.0;
    }
    const Matrix3d adj = adjugate(cols);
    const double det = cols[0] * adj[0] + cols[1] * adj[3] + cols[2] * adj[6];
    const double p4[3] = {xy[2 * sample[3]], xy[2 * sample[3] + 1], 1.0};
    double lambda[3];
    for (int r = 0; r < 3; ++r) lambda[r] = adj[r * 3] * p4[0] + adj[r * 3 + 1] * p4[1] + adj[r * 3 + 2] * p4[2];
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) (*out)[r * 3 + c] = cols[r * 3 + c] * lambda[c];
    *strength = std::min({std::abs(lambda[0]), std::abs(lambda[1]), std::abs(lambda[2])}) * std::abs(det);
  };
  Matrix3d basis_a, basis_b;
  double strength_a = 0.0, strength_b = 0.0;
  basis(p.a_norm, &basis_a, &strength_a);
  basis(p.b_norm, &basis_b, &strength_b);
  *h = multiply(basis_b, adjugate(basis_a));
  double norm = 0.0;
  for (double v : *h) norm += v * v;
  norm = std::max(std::sqrt(norm), 1e-30);
  for (double& v : *h) v /= norm;
  const Matrix3d adj_h = adjugate(*h);
  const double det_h = (*h)[0] * adj_h[0] + (*h)[1] * adj_h[3] + (*h)[2] * adj_h[6];
  return std::all_of(h->begin(), h->end(), [](double v) { return std::isfinite(v); }) &&
         std::abs(det_h) > 1e-8 && strength_a > 1e-9 && strength_b > 1e-9;
}

// The device tensors the hypothesis batches of one call read.
struct BatchInputs {
  Problem transforms;  // t_a, t_b (and k_a_inv, k_b_inv for E) on the device
  at::Tensor points;   // [4,M,2] float32: normalised a, b; pixel a, b. M >= N: rows >= N are
                       // NaN padding (cost threshold_sq each for every model, never inliers)
  at::Tensor subset;   // [S] int64 indices of the preemptive subset, or undefined
};

// Solves and scores one batch of minimal samples (`flat`: [batch*s] int64 indices into the
// N real points, on the device). Returns [11] float64 on the device: the best hypothesis'
// MSAC cost over the M rows, its inlier count and its normalised model (row-major). Device
// work only, no synchronisation: a CUDA graph can capture it for the transfer models.
at::Tensor scoreBatch(const BatchInputs& in, const at::Tensor& flat, int64_t batch,
                      const RansacOptions& options, double threshold_sq) {
  const int sample_size = minimalSampleSize(options.model);
  const at::Tensor a32 = in.points[0], b32 = in.points[1];
  const at::Tensor a_px32 = in.points[2], b_px32 = in.points[3];
  const at::Tensor sa = a32.index_select(0, flat).view({batch, sample_size, 2});
  const at::Tensor sb = b32.index_select(0, flat).view({batch, sample_size, 2});
  const auto [models, valid] = solveMinimal(options.model, sa, sb);
  at::Tensor kept_models = models, kept_valid = valid;
  if (in.subset.defined() && batch > options.preemptive_survivors) {
    // Preemptive scoring: rank all hypotheses on a fixed random subset of the points,
    // score only the best on all of them.
    const at::Tensor subset_errors =
        squaredErrors(options.model, in.transforms.toPixelModels(models),
                      a_px32.index_select(0, in.subset), b_px32.index_select(0, in.subset));
    at::Tensor subset_cost = subset_errors.clamp_max(threshold_sq).sum(1);
    subset_cost = at::where(valid, subset_cost, at::full_like(subset_cost, 1e30));
    const at::Tensor candidates =
        std::get<1>(subset_cost.topk(options.preemptive_survivors, 0, false, true));
    kept_models = models.index_select(0, candidates);
    kept_valid = valid.index_select(0, candidates);
  }
  const at::Tensor errors =
      squaredErrors(options.model, in.transforms.toPixelModels(kept_models), a_px32, b_px32);
  at::Tensor cost = errors.clamp_max(threshold_sq).sum(1).to(at::kDouble);
  cost = at::where(kept_valid & cost.isfinite(), cost, at::full_like(cost, 1e300));
  const at::Tensor index = cost.argmin().view({1});
  return at::cat({cost.index_select(0, index),
                  (errors.index_select(0, index) < threshold_sq).sum().to(at::kDouble).view({1}),
                  kept_models.index_select(0, index).flatten().to(at::kDouble)});
}

// Rows the points are padded to when batches run as graphs, so that calls with similar
// match counts share one captured graph.
int64_t paddedRows(int64_t n) { return (n + 255) / 256 * 256; }

#if defined(SKYTRACE_WITH_CUDA)
// One hypothesis batch as a CUDA graph: the ~150 small kernels of scoreBatch cost one
// launch instead of ~150 (RANSAC on the GPU is launch-bound). The graph reads static
// buffers (points padded to M rows, subset, transforms, samples) that run() refills,
// asynchronously on the current stream, before each replay. Captured in thread-local
// mode on the thread's capture stream; used by the thread that made it only (see
// graphFor).
class BatchGraph {
 public:
  BatchGraph(const BatchInputs& like, const at::Tensor& flat_like, int64_t batch,
             const RansacOptions& options, double threshold_sq) {
    static_ = like;
    static_.points = like.points.clone();
    if (like.subset.defined()) static_.subset = like.subset.clone();
    for (at::Tensor* t : {&static_.transforms.t_a, &static_.transforms.t_b,
                          &static_.transforms.k_a_inv, &static_.transforms.k_b_inv}) {
      if (t->defined()) *t = t->clone();
    }
    static_flat_ = flat_like.clone();
    const c10::DeviceIndex index = like.points.device().index();
    at::cuda::getCurrentCUDAStream(index).synchronize();
    const c10::cuda::CUDAStream side = threadCaptureStream(index);
    {
      const c10::cuda::CUDAStreamGuard on_side(side);
      scoreBatch(static_, static_flat_, batch, options, threshold_sq);  // warm-up (handles, caches)
      side.synchronize();
      graph_.capture([&] { output_ = scoreBatch(static_, static_flat_, batch, options, threshold_sq); });
    }
    side.synchronize();
  }

  // Same shapes as at construction. Returns the [11] summary on the device (valid until
  // the next run()).
  at::Tensor run(const BatchInputs& in, const at::Tensor& flat) {
    static_.points.copy_(in.points, /*non_blocking=*/true);
    if (in.subset.defined()) static_.subset.copy_(in.subset, /*non_blocking=*/true);
    static_.transforms.t_a.copy_(in.transforms.t_a, true);
    static_.transforms.t_b.copy_(in.transforms.t_b, true);
    static_flat_.copy_(flat, /*non_blocking=*/true);
    graph_.replay();
    return output_;
  }

 private:
  BatchInputs static_;
  at::Tensor static_flat_, output_;
  LockedCudaGraph graph_;
};

// This thread's graph for the batch shape of `in` and these options (captured on first
// use; at most 16 kept per thread, then all are dropped and recaptured as needed).
BatchGraph& graphFor(const BatchInputs& in, const at::Tensor& flat, int64_t batch,
                     const RansacOptions& options, double threshold_sq) {
  thread_local std::map<std::string, std::unique_ptr<BatchGraph>> graphs;
  uint64_t threshold_bits = 0;
  std::memcpy(&threshold_bits, &threshold_sq, sizeof threshold_bits);
  const std::string key = std::to_string(in.points.device().index()) + "/" +
                          toString(options.model) + "/" + std::to_string(in.points.size(1)) +
                          "/" + std::to_string(batch) + "/" +
                          std::to_string(in.subset.defined() ? in.subset.size(0) : 0) + "/" +
                          std::to_string(options.preemptive_survivors) + "/" +
                          std::to_string(threshold_bits);
  auto found = graphs.find(key);
  if (found == graphs.end()) {
    if (graphs.size() >= 16) graphs.clear();
    const auto capture_start = std::chrono::steady_clock::now();
    found = graphs
                .emplace(key, std::make_unique<BatchGraph>(in, flat, batch, options, threshold_sq))
                .first;
    SKYTRACE_LOG(Info, "vision.ransac")
        << "captured a CUDA graph for hypothesis batches " << key << " in "
        << std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - capture_start).count()
        << " ms";
  }
  return *found->second;
}
#endif

}  // namespace

// ---------------------------------------------------------------- public API

std::string toString(GeometricModelType type) {
  switch (type) {
    case GeometricModelType::Homography: return "homography";
    case GeometricModelType::Affine: return "affine";
    case GeometricModelType::Similarity: return "similarity";
    case GeometricModelType::Fundamental: return "fundamental";
    case GeometricModelType::Essential: return "essential";
  }
  return "unknown";
}

GeometricModelType parseGeometricModelType(const std::string& text) {
  for (auto type : {GeometricModelType::Homography, GeometricModelType::Affine,
                    GeometricModelType::Similarity, GeometricModelType::Fundamental,
                    GeometricModelType::Essential}) {
    if (toString(type) == text) return type;
  }
  throw InvalidArgument("unknown geometric model '" + text +
                        "' (use homography, affine, similarity, fundamental or essential)");
}

int minimalSampleSize(GeometricModelType type) {
  switch (type) {
    case GeometricModelType::Homography: return 4;
    case GeometricModelType::Affine: return 3;
    case GeometricModelType::Similarity: return 2;
    case GeometricModelType::Fundamental:
    case GeometricModelType::Essential: return 8;
  }
  return 0;
}

void RansacOptions::check() const {
  checkArgument(inlier_threshold_px > 0.0 && std::isfinite(inlier_threshold_px),
                "RANSAC inlier_threshold_px must be > 0, got " + std::to_string(inlier_threshold_px));
  checkArgument(hypotheses_per_batch >= 1 && hypotheses_per_batch <= 65536,
                "RANSAC hypotheses_per_batch must be in 1..65536, got " +
                    std::to_string(hypotheses_per_batch));
  checkArgument(max_hypotheses >= hypotheses_per_batch,
                "RANSAC max_hypotheses (" + std::to_string(max_hypotheses) +
                    ") must be >= hypotheses_per_batch (" + std::to_string(hypotheses_per_batch) + ")");
  checkArgument(confidence > 0.0 && confidence < 1.0,
                "RANSAC confidence must be in (0, 1), got " + std::to_string(confidence));
  checkArgument(preemptive_subset_points >= 0, "RANSAC preemptive_subset_points must be >= 0");
  checkArgument(preemptive_survivors >= 1, "RANSAC preemptive_survivors must be >= 1");
  checkArgument(local_optimisation_iterations >= 0 && local_optimisation_iterations <= 100,
                "RANSAC local_optimisation_iterations must be in 0..100");
  checkArgument(host_hypotheses >= 0 && host_hypotheses <= 65536,
                "RANSAC host_hypotheses must be in 0..65536, got " + std::to_string(host_hypotheses));
}

// Work split. Homographies first try a short host round (host_hypotheses): between
// consecutive video frames nearly every match is an inlier and a few hypotheses reach the
// confidence, cheaper on the host than one device round trip. Then the device solves and
// scores hypothesis batches (thousands of models x all points: the parallel part) and
// hands back one small summary per batch, the only device->host synchronisation in the
// loop; their inputs go to the device only when a batch is needed. Everything that handles one model at a time
// (normalisation, local optimisation, final refit, reported model) runs on the host in
// float64: on a GPU those are dozens of tiny launches and synchronisations each, and a
// [2N,9] SVD is ~0.2 ms on a CPU but several ms through a GPU solver. As a consequence
// the local optimisation is bit-identical on every device.
// Host threading: the whole call runs its CPU operators on one intra-op thread
// (ScopedSingleThreadedCpuOps, this thread only): measured in docs/benchmarks.md.
RansacResult estimateGeometricModel(const at::Tensor& points_a, const at::Tensor& points_b,
                                    const RansacOptions& options) {
  options.check();
  checkArgument(points_a.dim() == 2 && points_a.size(1) == 2 && points_b.dim() == 2 &&
                    points_b.size(1) == 2 && points_a.size(0) == points_b.size(0),
                "RANSAC: points must be two [N,2] tensors of equal N");
  checkArgument(points_a.device() == points_b.device(), "RANSAC: points on different devices");
  c10::InferenceMode inference;
  const ScopedSingleThreadedCpuOps single_threaded;
  const at::Device device = points_a.device();
  const int64_t n = points_a.size(0);
  const int sample_size = minimalSampleSize(options.model);
  RansacResult result;
  result.inlier_mask.assign(static_cast<size_t>(n), 0);
  if (n < sample_size) return result;

  // One device->host copy of both point sets; the problem lives on the host.
  const at::Tensor host_points =
      at::stack({points_a.to(at::kDouble), points_b.to(at::kDouble)}).to(at::kCPU);
  const Problem problem = makeProblem(options.model, host_points[0], host_points[1], options);
  const double threshold_sq = options.inlier_threshold_px * options.inlier_threshold_px;
#if defined(SKYTRACE_WITH_CUDA)
  const bool use_graphs = options.use_cuda_graphs && device.is_cuda() && isTransfer(options.model) &&
                          !cudaGraphsSuppressedOnThisThread();
#else
  const bool use_graphs = false;
#endif
  at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(options.seed);
  const HostProblem host(problem);
  Scored best;
  int64_t needed = std::numeric_limits<int64_t>::max();
  // Keeps `best` if `cost` beats it and updates the adaptive stop from its inlier ratio.
  const auto consider = [&](double cost, double inlier_count, const at::Tensor& model_normalised) {
    if (!(cost < best.cost && cost < 1e299)) return;
    best.cost = cost;
    best.model_normalised = model_normalised;
    const double all_inlier = std::pow(inlier_count / static_cast<double>(n), sample_size);
    if (all_inlier >= 1.0 - 1e-12) {
      needed = 0;
    } else if (all_inlier > 0.0) {
      needed = static_cast<int64_t>(
          std::ceil(std::log(1.0 - options.confidence) / std::log(1.0 - all_inlier)));
    }
  };

  // Opening round on the host (homographies): one hypothesis at a time with the adaptive
  // stop after each. When most correspondences are inliers, as between consecutive video
  // frames, a handful of hypotheses reach the confidence and the device is never used.
  int64_t host_evaluated = 0;
  if (options.model == GeometricModelType::Homography && options.host_hypotheses > 0) {
    const at::Tensor samples = drawSamples(generator, options.host_hypotheses, sample_size, n);
    const int64_t* sample = samples.data_ptr<int64_t>();
    while (host_evaluated < std::min<int64_t>(needed, options.host_hypotheses)) {
      const int64_t* picks = sample + host_evaluated * sample_size;
      ++host_evaluated;
      Matrix3d normalised;
      if (!solveHomography4Host(host, picks, &normalised)) continue;
      const Scored scored = scoreModel(host, normalised, threshold_sq, best.cost);
      if (!(scored.cost < best.cost)) continue;
      consider(scored.cost, static_cast<double>(scored.num_inliers),
               matrixTensor(normalised, at::TensorOptions().dtype(at::kDouble)));
    }
  }

  // Hypothesis batches on options' device while the adaptive stop asks for more.
  const int64_t rows = use_graphs ? paddedRows(n) : n;
  BatchInputs inputs;
  bool inputs_ready = false;
  const auto prepareBatchInputs = [&] {
    inputs.transforms = problem.withTransformsOn(device);
    // [4,rows,2] float32 on the device: normalised a, b (solvers), pixel a, b (scoring),
    // filled on the host in one pass (pinned when it goes to a GPU).
    at::Tensor points = at::empty(
        {4, rows, 2}, at::TensorOptions().dtype(at::kFloat).pinned_memory(device.is_cuda()));
    float* out = points.data_ptr<float>();
    std::fill(out, out + points.numel(), std::numeric_limits<float>::quiet_NaN());
    const at::Tensor* planes[4] = {&problem.a_norm, &problem.b_norm, &problem.a_px, &problem.b_px};
    for (int k = 0; k < 4; ++k) {
      const double* in = planes[k]->data_ptr<double>();  // contiguous [n,2] float64
      float* plane = out + static_cast<int64_t>(k) * rows * 2;
      for (int64_t i = 0; i < 2 * n; ++i) plane[i] = static_cast<float>(in[i]);
    }
    inputs.points = device.is_cuda() ? points.to(device, /*non_blocking=*/true) : points;
    if (options.preemptive_subset_points > 0 && n > options.preemptive_subset_points) {
      inputs.subset = toDevice(
          at::randperm(n, generator, at::kLong).narrow(0, 0, options.preemptive_subset_points),
          device);
    }
    inputs_ready = true;
  };
  // Padding rows add threshold_sq each to every valid hypothesis' cost.
  const double padding_cost = static_cast<double>(rows - n) * threshold_sq;
  int64_t evaluated = 0;
  while (evaluated < options.max_hypotheses && host_evaluated + evaluated < needed) {
    if (!inputs_ready) prepareBatchInputs();
    const int64_t batch = std::min<int64_t>(options.hypotheses_per_batch,
                                            options.max_hypotheses - evaluated);
    const at::Tensor flat =
        toDevice(drawSamples(generator, batch, sample_size, n).flatten(), device);
    at::Tensor device_summary;
#if defined(SKYTRACE_WITH_CUDA)
    if (use_graphs && batch == options.hypotheses_per_batch) {
      device_summary =
          graphFor(inputs, flat, batch, options, threshold_sq).run(inputs, flat);
    }
#endif
    if (!device_summary.defined()) {
      device_summary = scoreBatch(inputs, flat, batch, options, threshold_sq);
    }
    evaluated += batch;
    // The batch's best as one host copy: [cost, inlier count, model (9, normalised)].
    const at::Tensor summary = device_summary.to(at::kCPU);
    const double* values = summary.data_ptr<double>();
    const double batch_cost = values[0] < 1e299 ? values[0] - padding_cost : values[0];
    consider(batch_cost, values[1], summary.narrow(0, 2, 9).view({3, 3}).clone());
  }
  evaluated += host_evaluated;
  result.hypotheses_evaluated = static_cast<int>(evaluated);
  if (!best.model_normalised.defined()) return result;

  // Local optimisation: refit on the inliers while the MSAC cost drops.
  // Least-squares refit on a model's inliers: homographies on the host without tensor
  // operators (fitHomographyHost), the other models through fitNormalised.
  const auto refitOnInliers = [&](const Scored& scored) {
    if (options.model == GeometricModelType::Homography) return fitHomographyHost(host, scored.inliers);
    const at::Tensor idx = scored.inlierIndices();
    return fitNormalised(options.model, problem.a_norm.index_select(0, idx),
                         problem.b_norm.index_select(0, idx));
  };
  Scored current = scoreSingle(host, best.model_normalised, threshold_sq);
  for (int it = 0; it < options.local_optimisation_iterations; ++it) {
    if (current.num_inliers < sample_size) break;
    const at::Tensor refit = refitOnInliers(current);
    Scored candidate = scoreSingle(host, refit, threshold_sq);
    if (!(candidate.cost < current.cost * (1.0 - 1e-12))) break;
    current = std::move(candidate);
    ++result.local_optimisation_steps;
  }
  // Final least-squares refit on the final inlier set (kept unless it is worse).
  if (current.num_inliers >= sample_size) {
    Scored final_fit = scoreSingle(host, refitOnInliers(current), threshold_sq);
    if (final_fit.cost <= current.cost * (1.0 + 1e-9)) current = std::move(final_fit);
  }

  if (isTransfer(options.model)) {
    // As Problem::toReportedModel, on the host: pixel model scaled to m[2][2] = 1.
    result.model = host.toPixelModel(toMatrix3d(current.model_normalised));
    const double w = result.model[8];
    for (double& v : result.model) v /= w;
  } else {
    result.model = toMatrix3d(problem.toReportedModel(current.model_normalised));
  }
  result.found = std::all_of(result.model.begin(), result.model.end(),
                             [](double v) { return std::isfinite(v); });
  result.inlier_mask = current.inliers;
  result.num_inliers = static_cast<int>(current.num_inliers);
  if (current.num_inliers > 0) {
    result.rms_inlier_error_px =
        std::sqrt(current.inlier_error_sum / static_cast<double>(current.num_inliers));
  }
  return result;
}

namespace {

at::Tensor pointsTensor(const std::vector<Point2d>& points, const at::Device& device) {
  at::Tensor t = at::empty({static_cast<int64_t>(points.size()), 2}, at::kDouble);
  double* data = t.data_ptr<double>();
  for (size_t i = 0; i < points.size(); ++i) {
    data[2 * i] = points[i].x;
    data[2 * i + 1] = points[i].y;
  }
  return t.to(device);
}

}  // namespace

RansacResult estimateGeometricModel(const std::vector<Point2d>& points_a,
                                    const std::vector<Point2d>& points_b,
                                    const RansacOptions& options) {
  checkArgument(points_a.size() == points_b.size(),
                "RANSAC: " + std::to_string(points_a.size()) + " points in a but " +
                    std::to_string(points_b.size()) + " in b");
  requireDeviceAvailable(options.device);
  c10::InferenceMode inference;
  const at::Device device = deviceOf(options.device);
  return estimateGeometricModel(pointsTensor(points_a, device), pointsTensor(points_b, device),
                                options);
}

void warmUpRobustEstimation(const RansacOptions& options, int max_points) {
  options.check();
  if (!options.device.cuda) return;
  requireDeviceAvailable(options.device);
  c10::InferenceMode inference;
  const at::Device device = deviceOf(options.device);
  RansacOptions batches = options;
  batches.host_hypotheses = 0;  // the point is the device path
  batches.max_hypotheses = batches.hypotheses_per_batch;
  // Points on a plane seen from two views (a homography-like motion) with a fifth of
  // them replaced by random ones: a well-posed problem for every model type.
  at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(1);
  for (int64_t n = 256; n <= paddedRows(std::max(max_points, 1)); n += 256) {
    const at::Tensor a = at::rand({n, 2}, generator, at::kDouble) * 500.0;
    at::Tensor b = a * 1.02 + 3.0;
    const at::Tensor outliers = at::rand({n / 5, 2}, generator, at::kDouble) * 500.0;
    b.narrow(0, 0, n / 5).copy_(outliers);
    estimateGeometricModel(a.to(device), b.to(device), batches);
  }
}

Matrix3d fitGeometricModel(const std::vector<Point2d>& points_a,
                           const std::vector<Point2d>& points_b, GeometricModelType type,
                           const Matrix3d& camera_a, const Matrix3d& camera_b) {
  checkArgument(points_a.size() == points_b.size(), "fit: point counts differ");
  checkArgument(static_cast<int>(points_a.size()) >= minimalSampleSize(type),
                "fit: " + toString(type) + " needs at least " +
                    std::to_string(minimalSampleSize(type)) + " correspondences");
  c10::InferenceMode inference;
  RansacOptions options;
  options.model = type;
  options.camera_a = camera_a;
  options.camera_b = camera_b;
  const Problem problem = makeProblem(type, pointsTensor(points_a, at::kCPU),
                                      pointsTensor(points_b, at::kCPU), options);
  return toMatrix3d(problem.toReportedModel(fitNormalised(type, problem.a_norm, problem.b_norm)));
}

std::vector<double> geometricErrors(const std::vector<Point2d>& points_a,
                                    const std::vector<Point2d>& points_b, GeometricModelType type,
                                    const Matrix3d& model, const Matrix3d& camera_a,
                                    const Matrix3d& camera_b) {
  checkArgument(points_a.size() == points_b.size(), "errors: point counts differ");
  c10::InferenceMode inference;
  const auto options = at::TensorOptions().dtype(at::kDouble);
  at::Tensor m = matrixTensor(model, options);
  if (type == GeometricModelType::Essential) {
    m = at::matmul(at::matmul(at::linalg_inv(matrixTensor(camera_b, options)).t(), m),
                   at::linalg_inv(matrixTensor(camera_a, options)));
  }
  const at::Tensor errors = squaredErrors(type, m.unsqueeze(0), pointsTensor(points_a, at::kCPU),
                                          pointsTensor(points_b, at::kCPU))
                                .squeeze(0)
                                .sqrt()
                                .contiguous();
  return std::vector<double>(errors.data_ptr<double>(), errors.data_ptr<double>() + errors.numel());
}

Point2d transformPoint(const Matrix3d& m, const Point2d& a) {
  const double w = m[6] * a.x + m[7] * a.y + m[8];
  return {(m[0] * a.x + m[1] * a.y + m[2]) / w, (m[3] * a.x + m[4] * a.y + m[5]) / w};
}

double meanCornerTransferError(const Matrix3d& estimated, const Matrix3d& truth, int width,
                               int height) {
  const Point2d corners[4] = {{0, 0}, {double(width), 0}, {double(width), double(height)},
                              {0, double(height)}};
  double sum = 0.0;
  for (const auto& c : corners) {
    const Point2d e = transformPoint(estimated, c);
    const Point2d t = transformPoint(truth, c);
    sum += std::hypot(e.x - t.x, e.y - t.y);
  }
  return sum / 4.0;
}

}  // namespace skytrace::vision
