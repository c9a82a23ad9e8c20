// What processing a project asks for, in the navigation's own terms: the models of the
// two stages (core/nav/model_choice.h specs), their devices, the mode and the keyframe
// policy, turned into nav::NavigationOptions + engine::DevicePlacement +
// engine::KeyframePolicy by the same rules as
// `skytrace-cli process --model M --vo-model V --sat-model S --vo-device D1 --sat-device D2
//  [--register-every-keyframe]`
// (project.feature_model plays --model; empty per-stage fields mean "as --model"), and
// the weights files such a choice needs but cannot find.
// Thread: any (pure functions; the weights check reads the file system).
#pragma once

#include <string>
#include <vector>

#include "core/engine/device_placement.h"
#include "core/engine/pipeline.h"
#include "core/io/project_file.h"
#include "core/nav/navigation_session.h"

namespace skytrace::ui {

struct ProcessingChoice {
  nav::NavigationOptions options;    // models and devices set; weights from the model directory
  engine::DevicePlacement placement;
  bool overlapped = true;            // the engine; false: the sequential driver
  // What the engine's VO worker does when the satellite stage is busy (overlapped only;
  // the sequential driver registers every keyframe by construction).
  engine::KeyframePolicy keyframe_policy = engine::KeyframePolicy::LatestWins;
};

// Throws InvalidArgument naming the bad part (an unknown model spec or device name).
// `cuda_device_count`: vision::cudaDeviceCount() in production ("auto" placement).
ProcessingChoice processingChoiceFor(const io::Project& project, int cuda_device_count);

// A device field as resolveDevicePlacement takes it: "auto" and "" mean automatic ("").
std::string placementDeviceName(const std::string& device);

// One weights file the choice needs and did not find.
struct MissingWeights {
  std::string stage;    // "visual odometry" or "satellite"
  std::string message;  // ModelError text: the file expected, the folders searched, where published
  bool falls_back = false;  // true: processing runs ORB instead (a warning); false: the run fails
};

// Checks every learned component of `options` (VO features and matcher; satellite
// features, retrieval descriptor, dense matcher) without loading anything.
std::vector<MissingWeights> missingWeights(const nav::NavigationOptions& options);

}  // namespace skytrace::ui
