// Internal (torch allowed; core/vision and core/engine sources only): the tensor level of
// matching, for pipelines that keep everything on the device.
#pragma once

#include <ATen/ATen.h>

#include "core/vision/matcher.h"

namespace skytrace::vision {

// Matches as device tensors: index_a, index_b [M] int64 (index_a ascending), scores [M]
// float32 cosine similarities; on the device of the descriptors.
struct MatchTensors {
  at::Tensor index_a;
  at::Tensor index_b;
  at::Tensor scores;
};

// Mutual nearest neighbours between descriptors_a [Na,D] and descriptors_b [Nb,D]
// (float32, L2-normalised rows, same device), with ratio test and similarity floor as in
// MatchOptions. One matmul, a top-2 and a max; no host synchronisation except what the
// final masked selection needs. Throws InvalidArgument on shape/device mismatch.
MatchTensors matchMutualNearestNeighbours(const at::Tensor& descriptors_a,
                                          const at::Tensor& descriptors_b,
                                          const MatchOptions& options);

// Copies MatchTensors to the host.
Matches toHostMatches(const MatchTensors& matches);

}  // namespace skytrace::vision
