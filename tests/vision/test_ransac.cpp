// Batched RANSAC on synthetic correspondences with known models and outliers.
#include <QtTest>

#include <cmath>
#include <random>

#include "core/util/error.h"
#include "core/vision/robust_estimation.h"

using namespace skytrace;
using namespace skytrace::vision;

namespace {

struct Synthetic {
  std::vector<Point2d> a, b;
  std::vector<uint8_t> is_inlier;
};

// n_in exact (or noisy) correspondences b = M a plus n_out uniformly random pairs, shuffled.
Synthetic makeTransfer(const Matrix3d& m, int n_in, int n_out, double noise_px, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> ux(0, 640), uy(0, 480);
  std::normal_distribution<double> noise(0.0, noise_px > 0 ? noise_px : 1.0);
  Synthetic s;
  for (int i = 0; i < n_in + n_out; ++i) {
    const Point2d a{ux(rng), uy(rng)};
    if (i < n_in) {
      Point2d b = transformPoint(m, a);
      if (noise_px > 0) b = {b.x + noise(rng), b.y + noise(rng)};
      s.a.push_back(a), s.b.push_back(b), s.is_inlier.push_back(1);
    } else {
      s.a.push_back(a), s.b.push_back({ux(rng), uy(rng)}), s.is_inlier.push_back(0);
    }
  }
  std::vector<size_t> order(s.a.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  Synthetic shuffled;
  for (size_t i : order) {
    shuffled.a.push_back(s.a[i]), shuffled.b.push_back(s.b[i]);
    shuffled.is_inlier.push_back(s.is_inlier[i]);
  }
  return shuffled;
}

// Frobenius distance after scaling both to unit norm and fixing the sign.
double relativeError(const Matrix3d& estimated, const Matrix3d& truth) {
  double ne = 0, nt = 0, dot = 0;
  for (int i = 0; i < 9; ++i) ne += estimated[i] * estimated[i], nt += truth[i] * truth[i],
                               dot += estimated[i] * truth[i];
  const double sign = dot < 0 ? -1.0 : 1.0;
  double diff = 0;
  for (int i = 0; i < 9; ++i) {
    const double d = sign * estimated[i] / std::sqrt(ne) - truth[i] / std::sqrt(nt);
    diff += d * d;
  }
  return std::sqrt(diff);
}

int countMaskErrors(const std::vector<uint8_t>& mask, const std::vector<uint8_t>& truth,
                    int* missed_inliers) {
  int wrong = 0;
  *missed_inliers = 0;
  for (size_t i = 0; i < mask.size(); ++i) {
    if (truth[i] && !mask[i]) ++*missed_inliers;
    if (mask[i] != truth[i]) ++wrong;
  }
  return wrong;
}

// Two pinhole cameras looking at a random 3D point cloud: correspondences satisfying an
// exact epipolar geometry. Returns E = [t]x R (camera a -> b) and K.
struct TwoView {
  Synthetic data;
  Matrix3d essential, fundamental, k;
};

Matrix3d mul(const Matrix3d& x, const Matrix3d& y) {
  Matrix3d r{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) r[i * 3 + j] += x[i * 3 + k] * y[k * 3 + j];
  return r;
}
Matrix3d transpose(const Matrix3d& x) {
  return {x[0], x[3], x[6], x[1], x[4], x[7], x[2], x[5], x[8]};
}

TwoView makeTwoView(int n_in, int n_out, uint32_t seed) {
  std::mt19937 rng(seed);
  const double f = 500, cx = 320, cy = 240;
  const double yaw = 0.12, pitch = -0.05;  // rotation about y then x
  const Matrix3d ry = {std::cos(yaw), 0, std::sin(yaw), 0, 1, 0, -std::sin(yaw), 0, std::cos(yaw)};
  const Matrix3d rx = {1, 0, 0, 0, std::cos(pitch), -std::sin(pitch), 0, std::sin(pitch),
                       std::cos(pitch)};
  const Matrix3d r = mul(rx, ry);
  const double t[3] = {-1.0, 0.15, 0.2};
  TwoView view;
  view.k = {f, 0, cx, 0, f, cy, 0, 0, 1};
  const Matrix3d tx = {0, -t[2], t[1], t[2], 0, -t[0], -t[1], t[0], 0};
  view.essential = mul(tx, r);
  const Matrix3d k_inv = {1 / f, 0, -cx / f, 0, 1 / f, -cy / f, 0, 0, 1};
  view.fundamental = mul(mul(transpose(k_inv), view.essential), k_inv);
  std::uniform_real_distribution<double> ux(-3, 3), uz(5, 12), px(0, 640), py(0, 480);
  Synthetic& s = view.data;
  while (static_cast<int>(s.a.size()) < n_in) {
    const double X[3] = {ux(rng), ux(rng) * 0.8, uz(rng)};
    double Y[3];
    for (int i = 0; i < 3; ++i) Y[i] = r[i * 3] * X[0] + r[i * 3 + 1] * X[1] + r[i * 3 + 2] * X[2] + t[i];
    if (Y[2] <= 0.5) continue;
    s.a.push_back({f * X[0] / X[2] + cx, f * X[1] / X[2] + cy});
    s.b.push_back({f * Y[0] / Y[2] + cx, f * Y[1] / Y[2] + cy});
    s.is_inlier.push_back(1);
  }
  for (int i = 0; i < n_out; ++i) {
    s.a.push_back({px(rng), py(rng)}), s.b.push_back({px(rng), py(rng)}), s.is_inlier.push_back(0);
  }
  return view;
}

const Matrix3d kTrueHomography = {0.92, 0.12, 20.0, -0.07, 1.08, -12.0, 1.5e-4, -2.0e-4, 1.0};

}  // namespace

class TestRansac : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void homographyWithHalfOutliers() {
    const Synthetic s = makeTransfer(kTrueHomography, 300, 300, 0.0, 11);
    RansacOptions options;
    options.inlier_threshold_px = 2.0;
    options.seed = 5;
    const RansacResult r = estimateGeometricModel(s.a, s.b, options);
    QVERIFY(r.found);
    const double rel = relativeError(r.model, kTrueHomography);
    qInfo("homography: relative error %.3g, %d inliers, %d hypotheses, %d LO steps", rel,
          r.num_inliers, r.hypotheses_evaluated, r.local_optimisation_steps);
    QVERIFY2(rel < 1e-6, qPrintable(QString::number(rel)));
    int missed = 0;
    QVERIFY(countMaskErrors(r.inlier_mask, s.is_inlier, &missed) <= 1);  // a lucky outlier
    QCOMPARE(missed, 0);
    QVERIFY(r.rms_inlier_error_px < 1e-6);
    QVERIFY(meanCornerTransferError(r.model, kTrueHomography, 640, 480) < 1e-6);
  }

  // Mostly inliers (consecutive video frames): the host round reaches the confidence
  // after a few hypotheses and no batch runs; with it off, one batch finds the same set.
  void homographyHostRoundStopsEarly() {
    const Synthetic s = makeTransfer(kTrueHomography, 800, 20, 0.3, 13);
    RansacOptions options;
    options.inlier_threshold_px = 2.0;
    options.seed = 7;
    const RansacResult host = estimateGeometricModel(s.a, s.b, options);
    QVERIFY(host.found);
    // w = 800/820: P(all-inlier sample) = 0.906, 4 hypotheses reach 0.9999 once one of
    // them is all-inlier; a batch would have been 1024.
    qInfo("host round: %d hypotheses, %d inliers", host.hypotheses_evaluated, host.num_inliers);
    QVERIFY2(host.hypotheses_evaluated <= 16, qPrintable(QString::number(host.hypotheses_evaluated)));
    options.host_hypotheses = 0;
    const RansacResult batches = estimateGeometricModel(s.a, s.b, options);
    QCOMPARE(batches.hypotheses_evaluated, options.hypotheses_per_batch);
    int missed = 0;
    QVERIFY(countMaskErrors(host.inlier_mask, s.is_inlier, &missed) <= 2);
    QCOMPARE(missed, 0);
    QCOMPARE(host.inlier_mask, batches.inlier_mask);  // LO converges to the same set
    QVERIFY(meanCornerTransferError(host.model, kTrueHomography, 640, 480) < 0.1);
    QVERIFY(meanCornerTransferError(host.model, batches.model, 640, 480) < 1e-6);
  }

  void homographyWithNoise() {
    const Synthetic s = makeTransfer(kTrueHomography, 400, 400, 0.5, 12);
    RansacOptions options;
    options.inlier_threshold_px = 2.0;
    const RansacResult r = estimateGeometricModel(s.a, s.b, options);
    QVERIFY(r.found);
    const double corner = meanCornerTransferError(r.model, kTrueHomography, 640, 480);
    qInfo("noisy homography: corner error %.3f px, rms %.3f px", corner, r.rms_inlier_error_px);
    QVERIFY(corner < 0.5);
    // Noise sigma per coordinate in b: a 2D residual has E|d|^2 = 2 sigma^2 both ways
    // (the backward one scaled by the local zoom of H^-1, about 1 here): rms ~ sqrt(2) sigma.
    QVERIFY(std::abs(r.rms_inlier_error_px - std::sqrt(2.0) * 0.5) < 0.1);
    int missed = 0;
    countMaskErrors(r.inlier_mask, s.is_inlier, &missed);
    QVERIFY(missed < 8);  // 3-sigma tails of 400 inliers
  }

  void similarityAndAffine() {
    const double angle = 0.4, scale = 1.3;
    const Matrix3d similarity = {scale * std::cos(angle), -scale * std::sin(angle), 35,
                                 scale * std::sin(angle), scale * std::cos(angle), -20, 0, 0, 1};
    const Matrix3d affine = {1.1, 0.25, -30, -0.15, 0.85, 40, 0, 0, 1};
    for (const auto& [type, truth] :
         {std::pair{GeometricModelType::Similarity, similarity},
          std::pair{GeometricModelType::Affine, affine}}) {
      const Synthetic s = makeTransfer(truth, 150, 250, 0.0, 21);
      RansacOptions options;
      options.model = type;
      const RansacResult r = estimateGeometricModel(s.a, s.b, options);
      QVERIFY(r.found);
      const double rel = relativeError(r.model, truth);
      qInfo("%s: relative error %.3g, %d inliers", toString(type).c_str(), rel, r.num_inliers);
      QVERIFY(rel < 1e-8);
      int missed = 0;
      QVERIFY(countMaskErrors(r.inlier_mask, s.is_inlier, &missed) <= 1);
      QCOMPARE(missed, 0);
      QCOMPARE(r.model[6], 0.0);
      QCOMPARE(r.model[7], 0.0);
    }
  }

  void fundamentalAndEssential() {
    TwoView view = makeTwoView(200, 80, 31);
    RansacOptions options;
    options.inlier_threshold_px = 1.0;
    options.model = GeometricModelType::Fundamental;
    const RansacResult f = estimateGeometricModel(view.data.a, view.data.b, options);
    QVERIFY(f.found);
    const double rel_f = relativeError(f.model, view.fundamental);
    int missed = 0;
    const int wrong = countMaskErrors(f.inlier_mask, view.data.is_inlier, &missed);
    qInfo("fundamental: relative error %.3g, %d inliers, %d wrong labels", rel_f, f.num_inliers,
          wrong);
    QVERIFY(rel_f < 1e-6);
    QCOMPARE(missed, 0);
    QVERIFY(wrong <= 4);  // outliers near their epipolar line are consistent with F

    options.model = GeometricModelType::Essential;
    options.camera_a = options.camera_b = view.k;
    const RansacResult e = estimateGeometricModel(view.data.a, view.data.b, options);
    QVERIFY(e.found);
    const double rel_e = relativeError(e.model, view.essential);
    qInfo("essential: relative error %.3g, %d inliers", rel_e, e.num_inliers);
    QVERIFY(rel_e < 1e-6);
    const std::vector<double> errors =
        geometricErrors(view.data.a, view.data.b, GeometricModelType::Essential, e.model, view.k, view.k);
    for (size_t i = 0; i < errors.size(); ++i)
      if (view.data.is_inlier[i]) QVERIFY(errors[i] < 1e-6);
  }

  void deterministicUnderSeed() {
    const Synthetic s = makeTransfer(kTrueHomography, 200, 300, 1.0, 41);
    RansacOptions options;
    options.seed = 1234;
    options.hypotheses_per_batch = 256;
    const RansacResult first = estimateGeometricModel(s.a, s.b, options);
    const RansacResult second = estimateGeometricModel(s.a, s.b, options);
    QVERIFY(first.found);
    QVERIFY(first.model == second.model);  // bit-identical
    QVERIFY(first.inlier_mask == second.inlier_mask);
    QCOMPARE(first.hypotheses_evaluated, second.hypotheses_evaluated);
  }

  void leastSquaresFitAndErrors() {
    const Synthetic s = makeTransfer(kTrueHomography, 50, 0, 0.0, 51);
    const Matrix3d h = fitGeometricModel(s.a, s.b, GeometricModelType::Homography);
    QVERIFY(relativeError(h, kTrueHomography) < 1e-9);
    for (double e : geometricErrors(s.a, s.b, GeometricModelType::Homography, h)) QVERIFY(e < 1e-7);
    QVERIFY_THROWS_EXCEPTION(InvalidArgument,
                             fitGeometricModel({s.a.begin(), s.a.begin() + 3},
                                               {s.b.begin(), s.b.begin() + 3},
                                               GeometricModelType::Homography));
  }

  void tooFewPointsAndBadOptions() {
    const Synthetic s = makeTransfer(kTrueHomography, 3, 0, 0.0, 61);
    QVERIFY(!estimateGeometricModel(s.a, s.b, RansacOptions{}).found);
    RansacOptions bad;
    bad.inlier_threshold_px = -1;
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, bad.check());
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, parseGeometricModelType("projective"));
    QVERIFY_THROWS_EXCEPTION(InvalidArgument,
                             estimateGeometricModel(s.a, {s.b.begin(), s.b.begin() + 2}, RansacOptions{}));
  }
};

QTEST_GUILESS_MAIN(TestRansac)
#include "test_ransac.moc"
