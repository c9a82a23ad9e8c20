// VLAD (vector of locally aggregated descriptors): a compact global image descriptor
// built from local feature descriptors and a small vocabulary (k-means centres) trained
// on the images to be searched, e.g. tiles of a basemap. Per centre, the residuals of
// the descriptors assigned to it are summed, each block is L2-normalised (intra
// normalisation), the whole vector is signed-square-rooted and L2-normalised.
// Plain OpenCV, no torch. Thread: a VladVocabulary is immutable after training and may
// be shared between threads.
#pragma once

#include <cstdint>

#include <opencv2/core.hpp>

#include "core/vision/global_descriptor.h"

namespace skytrace::vision {

class VladVocabulary {
 public:
  VladVocabulary() = default;
  // k-means (k-means++, seeded) on the rows of `descriptors` (N x D CV_32F, N >= clusters);
  // of more than kMaxTrainingRows rows, on that many chosen at random (seeded; 256 per
  // centre for the registrar's 32): k-means over all of a 23-tile map's ~50,000
  // descriptors took about half of its global search's preparation.
  // Throws InvalidArgument for too few rows.
  static constexpr int kMaxTrainingRows = 8192;
  static VladVocabulary train(const cv::Mat& descriptors, int clusters, std::uint64_t seed);

  int clusters() const { return centres_.rows; }
  int descriptorDim() const { return centres_.cols; }
  int dimension() const { return centres_.rows * centres_.cols; }
  bool empty() const { return centres_.empty(); }

  // VLAD of one image's descriptors (N x D CV_32F; N may be 0: all-zero descriptor).
  GlobalDescriptor describe(const cv::Mat& descriptors) const;

 private:
  cv::Mat centres_;  // clusters x D, CV_32F
};

}  // namespace skytrace::vision
