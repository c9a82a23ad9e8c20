#include "core/vision/vlad.h"

#include <cmath>
#include <numeric>
#include <vector>

#include "core/util/check.h"

namespace skytrace::vision {

VladVocabulary VladVocabulary::train(const cv::Mat& descriptors, int clusters,
                                     std::uint64_t seed) {
  checkArgument(clusters >= 1, "VLAD needs at least one cluster");
  checkArgument(descriptors.type() == CV_32F && descriptors.rows >= clusters,
                "VLAD training needs at least as many float descriptors as clusters (" +
                    std::to_string(descriptors.rows) + " < " + std::to_string(clusters) + ")");
  cv::theRNG().state = seed == 0 ? 0x5eed : seed;
  cv::Mat rows = descriptors;
  if (descriptors.rows > kMaxTrainingRows) {
    std::vector<int> order(std::size_t(descriptors.rows));
    std::iota(order.begin(), order.end(), 0);
    cv::randShuffle(order, 1.0, &cv::theRNG());
    rows.create(kMaxTrainingRows, descriptors.cols, CV_32F);
    for (int i = 0; i < kMaxTrainingRows; ++i) descriptors.row(order[std::size_t(i)]).copyTo(rows.row(i));
  }
  cv::Mat labels;
  VladVocabulary vocabulary;
  cv::kmeans(rows, clusters, labels,
             cv::TermCriteria(cv::TermCriteria::COUNT | cv::TermCriteria::EPS, 30, 1e-4), 2,
             cv::KMEANS_PP_CENTERS, vocabulary.centres_);
  return vocabulary;
}

GlobalDescriptor VladVocabulary::describe(const cv::Mat& descriptors) const {
  checkArgument(!empty(), "VLAD vocabulary is not trained");
  GlobalDescriptor out;
  out.values.assign(std::size_t(dimension()), 0.0f);
  if (descriptors.empty()) return out;
  checkArgument(descriptors.type() == CV_32F && descriptors.cols == descriptorDim(),
                "VLAD descriptors must be CV_32F with the vocabulary's dimension");
  const int d = descriptorDim();
  for (int i = 0; i < descriptors.rows; ++i) {
    const float* x = descriptors.ptr<float>(i);
    int best = 0;
    double best_distance = std::numeric_limits<double>::max();
    for (int c = 0; c < clusters(); ++c) {
      const double distance = cv::normL2Sqr(x, centres_.ptr<float>(c), d);
      if (distance < best_distance) {
        best_distance = distance;
        best = c;
      }
    }
    const float* centre = centres_.ptr<float>(best);
    float* block = out.values.data() + std::size_t(best) * d;
    for (int j = 0; j < d; ++j) block[j] += x[j] - centre[j];
  }
  for (int c = 0; c < clusters(); ++c) {
    float* block = out.values.data() + std::size_t(c) * d;
    double norm = 0.0;
    for (int j = 0; j < d; ++j) norm += double(block[j]) * block[j];
    norm = std::sqrt(norm);
    if (norm > 0) {
      for (int j = 0; j < d; ++j) block[j] = float(block[j] / norm);
    }
  }
  double norm = 0.0;
  for (float& v : out.values) {
    v = std::copysign(std::sqrt(std::abs(v)), v);
    norm += double(v) * v;
  }
  norm = std::sqrt(norm);
  if (norm > 0) {
    for (float& v : out.values) v = float(v / norm);
  }
  return out;
}

}  // namespace skytrace::vision
