// Internal (torch allowed; core/vision and core/engine sources only): robust estimation
// on device tensors, for pipelines whose matched points are already on the device.
#pragma once

#include <ATen/ATen.h>

#include "core/vision/robust_estimation.h"

namespace skytrace::vision {

// points_a, points_b: [N,2] floating tensors on the same device (pixels). The work runs
// on that device (options.device is ignored); the result is copied to the host (the
// adaptive stop needs one small device->host copy per batch anyway).
RansacResult estimateGeometricModel(const at::Tensor& points_a, const at::Tensor& points_b,
                                    const RansacOptions& options);

}  // namespace skytrace::vision
