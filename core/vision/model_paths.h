// Where model weights are found: an explicit --weights path, else the model directory
// (SKYTRACE_MODEL_DIR, else the `modelDir` setting given by the app) + the file name the
// authors publish (e.g. aliked-n16rot.pth, superpoint_v1.pth).
#pragma once

#include <string>

namespace skytrace::vision {

// Sets the model directory used when SKYTRACE_MODEL_DIR is unset (app setting: the GUI's
// Model folder).
void setDefaultModelDirectory(const std::string& directory);
// The directory set above ("" when none), whatever SKYTRACE_MODEL_DIR says.
std::string defaultModelDirectory();

// The model directory in effect ("" when none is configured).
std::string modelDirectory();

// Resolves the weights of `model_name`, whose published file is `published_file`.
// explicit_path wins when non-empty. Throws ModelError naming the file expected, the
// folders searched and `where_published` when nothing is found.
std::string resolveWeightsPath(const std::string& model_name, const std::string& explicit_path,
                               const std::string& published_file,
                               const std::string& where_published);

}  // namespace skytrace::vision
