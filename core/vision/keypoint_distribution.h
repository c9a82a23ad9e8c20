// Spreading keypoints over the image: detectors rank by response, which on aerial
// imagery (roofs, roads, field edges) piles most keypoints into a few textured areas.
// These functions pick a subset that covers the image while preferring strong responses.
// Plain C++ + OpenCV; thread: any (no shared state).
#pragma once

#include <opencv2/core.hpp>

#include <vector>

namespace skytrace::vision {

// Grid bucketing: splits the image into cells of about `cell_size_px` square, sorts each
// cell's candidates by response, then takes keypoints round-robin (the best of every
// cell, then the second best of every cell, ...; each round in order of response) until
// `max_count` are chosen. Returns indices into `candidates`, strongest first per round.
// Cells without candidates are simply skipped, so the budget flows to textured cells.
std::vector<int> selectByGrid(const std::vector<cv::KeyPoint>& candidates, cv::Size image_size,
                              int max_count, int cell_size_px);

// Adaptive non-maximal suppression (Brown et al. 2005, robust variant): each candidate's
// suppression radius is the distance to the nearest candidate with a response above
// its own / robustness (0.9 means "clearly stronger"); the `max_count` candidates with
// the largest radii are kept. O(N^2) over the candidates: use on a few thousand.
std::vector<int> selectByAnms(const std::vector<cv::KeyPoint>& candidates, int max_count,
                              float robustness = 0.9f);

// Fraction of the cells of a `cells_x` x `cells_y` grid over the image that contain at
// least one of `points` (a coverage measure for tests and benchmarks).
double gridCoverage(const std::vector<cv::Point2f>& points, cv::Size image_size, int cells_x,
                    int cells_y);

}  // namespace skytrace::vision
