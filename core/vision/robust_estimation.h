// Robust fitting of 2D geometric models to point correspondences with many RANSAC
// hypotheses at once on a LibTorch device (CPU or CUDA).
//
// Pipeline: Hartley-normalise both point sets; draw batches of minimal samples from a
// seeded generator; solve all samples of a batch at once (closed-form projective-basis
// homography, 3-point affine, 2-point similarity, 8-point fundamental/essential via a
// batched 9x9 eigen-decomposition); score every hypothesis on every point with a
// truncated quadratic (MSAC) cost (preemptively: all on a point subset, the best on all
// points); stop when the best inlier ratio makes further
// batches unnecessary for `confidence`; then local optimisation (iterated least-squares
// refit on the inliers while the cost drops, LO-RANSAC style) and a final
// least-squares refit in float64.
//
// Errors (all in pixels): homography, affine and similarity use the symmetric transfer
// error sqrt((|H a - b|^2 + |H^-1 b - a|^2) / 2); fundamental and essential use the
// Sampson distance of x_b^T F x_a = 0 (for E, F = K_b^-T E K_a^-1).
// Honest limits: the fundamental/essential minimal solver is the linear 8-point method
// (not 7-point / 5-point), and their refit minimises algebraic error.
// Homographies open with a short round of single hypotheses on the host (see
// host_hypotheses). On a GPU the hypothesis batches run there (one host synchronisation
// per batch; a cached CUDA graph per batch shape for the transfer models in CUDA builds)
// and the single-model steps (local optimisation, refits) on the host; see docs/gpu.md.
// No torch or OpenCV types here. Thread: any; each call creates its tensors on
// options.device, its CPU operators run on one intra-op thread of the calling thread only
// (ScopedSingleThreadedCpuOps), and CUDA builds keep their captured graphs per thread.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/vision/torch_runtime.h"

namespace skytrace::vision {

enum class GeometricModelType { Homography, Affine, Similarity, Fundamental, Essential };

std::string toString(GeometricModelType type);
// "homography", "affine", "similarity", "fundamental", "essential"; throws InvalidArgument.
GeometricModelType parseGeometricModelType(const std::string& text);
// Points per minimal sample: 4, 3, 2, 8, 8.
int minimalSampleSize(GeometricModelType type);

using Matrix3d = std::array<double, 9>;  // row-major 3x3
constexpr Matrix3d kIdentity3d = {1, 0, 0, 0, 1, 0, 0, 0, 1};

struct Point2d {
  double x = 0.0;
  double y = 0.0;
};

struct RansacOptions {
  GeometricModelType model = GeometricModelType::Homography;
  double inlier_threshold_px = 3.0;  // on the error defined above
  int hypotheses_per_batch = 1024;   // solved and scored together
  int max_hypotheses = 8192;         // upper bound over all batches
  double confidence = 0.9999;        // adaptive stop: P(an all-inlier sample was drawn)
  // Preemptive scoring (Nister 2003): when there are more correspondences than this,
  // every hypothesis is first scored on this many randomly chosen ones and only the
  // `preemptive_survivors` best of each batch on all. 0 disables it.
  int preemptive_subset_points = 256;
  int preemptive_survivors = 64;
  int local_optimisation_iterations = 10;
  // Homographies: up to this many hypotheses are first drawn, solved and scored on the
  // host, one at a time, with the adaptive stop after each; the device batches follow
  // only if the confidence is not reached. With mostly inliers (consecutive video frames)
  // a few hypotheses suffice and the call costs no device work beyond reading the points.
  // Not counted against max_hypotheses. 0: batches only.
  int host_hypotheses = 64;
  uint64_t seed = 0;                  // same seed, same data, same device -> same result
  // CUDA builds, homography/affine/similarity: each hypothesis batch replays a CUDA graph
  // cached per thread and shape (points padded to a multiple of 256). Results are those
  // of the plain path up to float32 summation order. No effect on the CPU.
  bool use_cuda_graphs = true;
  Matrix3d camera_a = kIdentity3d;    // essential only: intrinsics K of image a / b
  Matrix3d camera_b = kIdentity3d;
  DeviceSpec device;

  void check() const;  // throws InvalidArgument
};

struct RansacResult {
  bool found = false;  // false: too few points, or every sample degenerate
  // b_from_a for homography/affine/similarity (b ~ M a); for fundamental the F with
  // b^T F a = 0 (pixels); for essential the E with (K_b^-1 b)^T E (K_a^-1 a) = 0.
  // Scaled to unit Frobenius norm for F/E; M(2,2) = 1 for the others.
  Matrix3d model = kIdentity3d;
  std::vector<uint8_t> inlier_mask;  // one per correspondence
  int num_inliers = 0;
  double rms_inlier_error_px = 0.0;
  int hypotheses_evaluated = 0;
  int local_optimisation_steps = 0;  // accepted refits
};

// Robustly fits `options.model` to points_a[i] <-> points_b[i]. Throws InvalidArgument
// for mismatched sizes or bad options.
RansacResult estimateGeometricModel(const std::vector<Point2d>& points_a,
                                    const std::vector<Point2d>& points_b,
                                    const RansacOptions& options);

// Prepares options.device for hypothesis batches of up to `max_points` correspondences:
// runs one batch per graph size (multiples of 256) on synthetic points, which loads the
// batches' device code and, in CUDA builds, captures their graphs for the calling thread.
// Without it the first batch of a run pays for both (~100 ms on an H100, measured), and
// the lazy loading of device code stalls kernel launches of other threads on the device
// (a VO frame beside a satellite stage: docs/benchmarks.md). Call on the thread that
// will run the estimates (graphs are per thread), before latency matters. No effect on
// the CPU.
void warmUpRobustEstimation(const RansacOptions& options, int max_points);

// Non-robust least-squares fit to all correspondences (normalised DLT / linear least
// squares in float64). Throws InvalidArgument when there are fewer points than a minimal
// sample.
Matrix3d fitGeometricModel(const std::vector<Point2d>& points_a,
                           const std::vector<Point2d>& points_b, GeometricModelType type,
                           const Matrix3d& camera_a = kIdentity3d,
                           const Matrix3d& camera_b = kIdentity3d);

// Per-correspondence error (pixels, as defined above) of `model`.
std::vector<double> geometricErrors(const std::vector<Point2d>& points_a,
                                    const std::vector<Point2d>& points_b, GeometricModelType type,
                                    const Matrix3d& model, const Matrix3d& camera_a = kIdentity3d,
                                    const Matrix3d& camera_b = kIdentity3d);

// Maps a point through a homography-like model (b ~ M a).
Point2d transformPoint(const Matrix3d& b_from_a, const Point2d& a);

// Mean distance in pixels between the four image corners (0,0), (w,0), (w,h), (0,h)
// mapped by `estimated` and by `truth`: the usual homography accuracy measure.
double meanCornerTransferError(const Matrix3d& estimated, const Matrix3d& truth, int width,
                               int height);

}  // namespace skytrace::vision
