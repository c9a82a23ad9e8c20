// deformConv2d against a direct scalar evaluation of torchvision.ops.deform_conv2d's
// definition (written here independently, in double precision): offsets that cross the
// border (zero padding, partial corners, taps beyond one pixel outside), stride,
// dilation, a modulation mask, bias, and chunked evaluation giving the same result.
#include <ATen/ATen.h>

#include <QtTest>

#include <cmath>
#include <limits>

#include "core/vision/deform_conv_impl.h"

using namespace skytrace::vision;

namespace {

// torchvision's bilinear_interpolate: 0 when the point is at/after one pixel outside,
// each out-of-image corner contributes 0.
double bilinear(const at::TensorAccessor<double, 2>& img, int64_t h, int64_t w, double y, double x) {
  if (y <= -1 || y >= h || x <= -1 || x >= w) return 0.0;
  const int64_t y0 = static_cast<int64_t>(std::floor(y)), x0 = static_cast<int64_t>(std::floor(x));
  const double ly = y - y0, lx = x - x0;
  const auto at = [&](int64_t yy, int64_t xx) {
    return (yy >= 0 && yy < h && xx >= 0 && xx < w) ? img[yy][xx] : 0.0;
  };
  return (1 - ly) * (1 - lx) * at(y0, x0) + (1 - ly) * lx * at(y0, x0 + 1) +
         ly * (1 - lx) * at(y0 + 1, x0) + ly * lx * at(y0 + 1, x0 + 1);
}

at::Tensor reference(const at::Tensor& input, const at::Tensor& offset, const at::Tensor& weight,
                     const at::Tensor& bias, const DeformConvGeometry& g, const at::Tensor& mask) {
  const at::Tensor in = input.to(at::kDouble), off = offset.to(at::kDouble), wt = weight.to(at::kDouble);
  const int64_t B = in.size(0), C = in.size(1), H = in.size(2), W = in.size(3);
  const int64_t O = wt.size(0), kh = wt.size(2), kw = wt.size(3);
  const int64_t Ho = off.size(2), Wo = off.size(3);
  at::Tensor out = at::zeros({B, O, Ho, Wo}, at::kDouble);
  auto o = out.accessor<double, 4>();
  auto of = off.accessor<double, 4>();
  auto w = wt.accessor<double, 4>();
  const at::Tensor m = mask.defined() ? mask.to(at::kDouble) : at::Tensor();
  for (int64_t b = 0; b < B; ++b)
    for (int64_t c = 0; c < C; ++c) {
      const at::Tensor plane = in[b][c].contiguous();
      auto img = plane.accessor<double, 2>();
      for (int64_t oy = 0; oy < Ho; ++oy)
        for (int64_t ox = 0; ox < Wo; ++ox)
          for (int64_t i = 0; i < kh; ++i)
            for (int64_t j = 0; j < kw; ++j) {
              const int64_t k = i * kw + j;
              const double y = oy * g.stride_h - g.pad_h + i * g.dilation_h + of[b][2 * k][oy][ox];
              const double x = ox * g.stride_w - g.pad_w + j * g.dilation_w + of[b][2 * k + 1][oy][ox];
              double v = bilinear(img, H, W, y, x);
              if (m.defined()) v *= m[b][k][oy][ox].item<double>();
              for (int64_t oc = 0; oc < O; ++oc) o[b][oc][oy][ox] += w[oc][c][i][j] * v;
            }
    }
  if (bias.defined()) out += bias.to(at::kDouble).view({1, O, 1, 1});
  return out;
}

double maxAbsDiff(const at::Tensor& a, const at::Tensor& b) {
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>();
}

}  // namespace

class TestAlikedDeformConv : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void zeroOffsetsIsConvolution() {
    at::manual_seed(1);
    const at::Tensor x = at::randn({2, 5, 9, 11}), w = at::randn({4, 5, 3, 3}), b = at::randn({4});
    const at::Tensor offset = at::zeros({2, 18, 9, 11});
    QVERIFY(maxAbsDiff(deformConv2d(x, offset, w, b), at::conv2d(x, w, b, 1, 1)) < 1e-5);
  }

  void matchesDefinition_data() {
    QTest::addColumn<int>("stride");
    QTest::addColumn<int>("dilation");
    QTest::addColumn<int>("pad");
    QTest::addColumn<bool>("masked");
    QTest::addColumn<double>("offsetScale");
    QTest::newRow("small offsets") << 1 << 1 << 1 << false << 0.7;
    QTest::newRow("offsets past the border") << 1 << 1 << 1 << false << 4.0;
    QTest::newRow("stride 2, dilation 2, pad 2, mask") << 2 << 2 << 2 << true << 2.5;
    QTest::newRow("no padding, mask") << 1 << 1 << 0 << true << 1.5;
  }

  void matchesDefinition() {
    QFETCH(int, stride);
    QFETCH(int, dilation);
    QFETCH(int, pad);
    QFETCH(bool, masked);
    QFETCH(double, offsetScale);
    at::manual_seed(7);
    DeformConvGeometry g;
    g.stride_h = g.stride_w = stride;
    g.dilation_h = g.dilation_w = dilation;
    g.pad_h = g.pad_w = pad;
    const int64_t H = 8, W = 10;
    const int64_t Ho = (H + 2 * pad - (dilation * 2 + 1)) / stride + 1;
    const int64_t Wo = (W + 2 * pad - (dilation * 2 + 1)) / stride + 1;
    const at::Tensor x = at::randn({1, 3, H, W}), w = at::randn({5, 3, 3, 3}), b = at::randn({5});
    const at::Tensor offset = at::randn({1, 18, Ho, Wo}) * offsetScale;
    const at::Tensor mask = masked ? at::rand({1, 9, Ho, Wo}) : at::Tensor();
    const at::Tensor expected = reference(x, offset, w, b, g, mask);
    const at::Tensor got = deformConv2d(x, offset, w, b, g, mask);
    QCOMPARE(got.sizes(), expected.sizes());
    QVERIFY2(maxAbsDiff(got, expected) < 2e-5, qPrintable(QString::number(maxAbsDiff(got, expected))));
    // Bounded-memory evaluation (one output row per chunk) gives the same numbers up to
    // float32 summation order: the convolution backend may pick other kernels (and so
    // another order) for the chunk's shape, e.g. oneDNN on AVX-512/AMX CPUs. Each output
    // is a sum of n = C*kh*kw + 1 terms, so two orders differ by at most
    // 2 * n * eps * sum|terms|; sum|terms| is bounded by the same definition evaluated on
    // absolute values (bilinear weights are non-negative).
    const at::Tensor chunked = deformConv2d(x, offset, w, b, g, mask, /*max_column_elements=*/1);
    const at::Tensor abs_terms = reference(x.abs(), offset, w.abs(), b.abs(), g,
                                           masked ? mask.abs() : at::Tensor());
    const double terms = double(x.size(1) * w.size(2) * w.size(3) + 1);
    const double order_bound =
        2.0 * terms * std::numeric_limits<float>::epsilon() * abs_terms.max().item<double>();
    QVERIFY2(maxAbsDiff(chunked, got) <= order_bound,
             qPrintable(QString("chunked vs whole %1 > %2").arg(maxAbsDiff(chunked, got)).arg(order_bound)));
    QVERIFY2(maxAbsDiff(chunked, expected) < 2e-5, qPrintable(QString::number(maxAbsDiff(chunked, expected))));
  }

  void integerOffsetsShiftExactly() {
    // Offset (dy, dx) = (1, -2) on every tap is a convolution of the shifted image with
    // zero fill: a check that does not depend on the reference above.
    at::manual_seed(3);
    const at::Tensor x = at::randn({1, 2, 7, 9}), w = at::randn({3, 2, 3, 3});
    at::Tensor offset = at::zeros({1, 18, 7, 9});
    offset.narrow(1, 0, 18).view({1, 9, 2, 7, 9}).select(2, 0).fill_(1.0);
    offset.narrow(1, 0, 18).view({1, 9, 2, 7, 9}).select(2, 1).fill_(-2.0);
    // DCN samples x(oy + i, ox + j - 3) (pad 1 included), zero outside: a plain valid
    // convolution of x zero-padded by 3, read at rows 3.., cols 0...
    const at::Tensor padded = at::constant_pad_nd(x, {3, 3, 3, 3}, 0);
    const at::Tensor expected = at::conv2d(padded, w).narrow(2, 3, 7).narrow(3, 0, 9);
    QVERIFY(maxAbsDiff(deformConv2d(x, offset, w, at::Tensor()), expected) < 1e-5);
  }
};

QTEST_GUILESS_MAIN(TestAlikedDeformConv)
#include "test_aliked_deform_conv.moc"
