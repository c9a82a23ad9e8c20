// Mutual-nearest-neighbour matching against a brute-force double-precision reference.
#include <ATen/ATen.h>
#include <QtTest>

#include <cmath>
#include <set>
#include <tuple>

#include "core/util/error.h"
#include "core/vision/feature_set_impl.h"
#include "core/vision/matcher.h"
#include "core/vision/matcher_impl.h"

using namespace skytrace;
using namespace skytrace::vision;

namespace {

at::Tensor unitRows(at::Tensor t) { return t / t.norm(2, 1, true); }

// Descriptors of B: a noisy copy of a subset of A (true matches) plus distractors.
std::pair<at::Tensor, at::Tensor> makeDescriptors(int64_t na, int64_t nb, int64_t dim,
                                                  uint64_t seed) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  const at::Tensor a = unitRows(at::randn({na, dim}, gen, at::kFloat));
  at::Tensor b = at::randn({nb, dim}, gen, at::kFloat);
  const int64_t shared = std::min(na, nb) / 2;
  const at::Tensor perm = at::randperm(na, gen, at::kLong).narrow(0, 0, shared);
  const at::Tensor noise = at::randn({shared, dim}, gen, at::kFloat);
  b.narrow(0, 0, shared).copy_(a.index_select(0, perm) + 0.06 * noise);
  return {a, unitRows(b)};
}

using Pair = std::tuple<int, int>;

// O(Na*Nb) loops in double; the definition of MatchOptions spelled out literally.
std::set<Pair> bruteForce(const at::Tensor& a32, const at::Tensor& b32, const MatchOptions& o) {
  const at::Tensor a = a32.to(at::kDouble).contiguous(), b = b32.to(at::kDouble).contiguous();
  const int64_t na = a.size(0), nb = b.size(0), dim = a.size(1);
  const double* pa = a.data_ptr<double>();
  const double* pb = b.data_ptr<double>();
  std::vector<double> sim(static_cast<size_t>(na * nb));
  for (int64_t i = 0; i < na; ++i)
    for (int64_t j = 0; j < nb; ++j) {
      double dot = 0;
      for (int64_t d = 0; d < dim; ++d) dot += pa[i * dim + d] * pb[j * dim + d];
      sim[i * nb + j] = dot;
    }
  std::set<Pair> pairs;
  for (int64_t i = 0; i < na; ++i) {
    int64_t best = 0;
    for (int64_t j = 1; j < nb; ++j)
      if (sim[i * nb + j] > sim[i * nb + best]) best = j;
    double second = -2.0;
    for (int64_t j = 0; j < nb; ++j)
      if (j != best) second = std::max(second, sim[i * nb + j]);
    const double s = sim[i * nb + best];
    if (s < o.min_similarity) continue;
    if (o.mutual) {
      bool is_best_for_b = true;
      for (int64_t k = 0; k < na; ++k)
        if (sim[k * nb + best] > s) is_best_for_b = false;
      if (!is_best_for_b) continue;
    }
    if (o.max_ratio < 1.0f && nb > 1 &&
        !(std::sqrt(2 - 2 * s) < o.max_ratio * std::sqrt(std::max(0.0, 2 - 2 * second))))
      continue;
    pairs.insert({static_cast<int>(i), static_cast<int>(best)});
  }
  return pairs;
}

std::set<Pair> asSet(const Matches& m) {
  std::set<Pair> pairs;
  for (int k = 0; k < m.size(); ++k) pairs.insert({m.index_a[k], m.index_b[k]});
  return pairs;
}

}  // namespace

class TestMatcher : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void equalsBruteForce_data() {
    QTest::addColumn<bool>("mutual");
    QTest::addColumn<float>("ratio");
    QTest::addColumn<float>("min_similarity");
    QTest::newRow("mnn only") << true << 1.0f << -1.0f;
    QTest::newRow("mnn+ratio") << true << 0.9f << -1.0f;
    QTest::newRow("mnn+ratio+floor") << true << 0.8f << 0.5f;
    QTest::newRow("ratio only") << false << 0.85f << 0.0f;
  }

  void equalsBruteForce() {
    QFETCH(bool, mutual);
    QFETCH(float, ratio);
    QFETCH(float, min_similarity);
    MatchOptions options;
    options.mutual = mutual;
    options.max_ratio = ratio;
    options.min_similarity = min_similarity;
    for (uint64_t seed : {1u, 2u, 3u}) {
      const auto [a, b] = makeDescriptors(300, 420, 64, seed);
      const std::set<Pair> expected = bruteForce(a, b, options);
      const Matches got = toHostMatches(matchMutualNearestNeighbours(a, b, options));
      QVERIFY(got.size() > 20);  // the planted pairs exist
      QCOMPARE(static_cast<size_t>(got.size()), expected.size());
      QVERIFY(asSet(got) == expected);
      for (int k = 1; k < got.size(); ++k) QVERIFY(got.index_a[k - 1] < got.index_a[k]);
      // Scores are the cosine similarities of the pairs.
      for (int k = 0; k < got.size(); ++k) {
        const float dot = (a[got.index_a[k]] * b[got.index_b[k]]).sum().item<float>();
        QVERIFY(std::abs(dot - got.scores[k]) < 1e-5f);
      }
    }
  }

  void matcherOnFeatureSets() {
    const auto [a, b] = makeDescriptors(200, 250, 32, 7);
    const FeatureSet fa = makeFeatureSet(at::rand({200, 2}) * 100, at::ones({200}), a, 100, 100, {});
    const FeatureSet fb = makeFeatureSet(at::rand({250, 2}) * 100, at::ones({250}), b, 100, 100, {});
    MatchOptions options;
    const auto matcher = createMatcher("mnn", options);
    QCOMPARE(matcher->name(), std::string("mnn"));
    QVERIFY(asSet(matcher->match(fa, fb)) == bruteForce(a, b, options));
    QVERIFY(matcher->match(fa, FeatureSet()).empty());
  }

  void rejectsBadInput() {
    const at::Tensor a = unitRows(at::randn({5, 8})), b = unitRows(at::randn({5, 16}));
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, matchMutualNearestNeighbours(a, b, {}));
    MatchOptions bad;
    bad.max_ratio = 0.0f;
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, bad.check());
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, createMatcher("superglue"));
  }
};

QTEST_GUILESS_MAIN(TestMatcher)
#include "test_matcher.moc"
