#include "core/vision/model_paths.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <vector>

#include "core/util/error.h"

namespace skytrace::vision {
namespace {

namespace fs = std::filesystem;

std::mutex& directoryMutex() {
  static std::mutex mutex;
  return mutex;
}

std::string& defaultDirectory() {
  static std::string directory;
  return directory;
}

bool isFile(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

}  // namespace

void setDefaultModelDirectory(const std::string& directory) {
  std::lock_guard<std::mutex> lock(directoryMutex());
  defaultDirectory() = directory;
}

std::string defaultModelDirectory() {
  std::lock_guard<std::mutex> lock(directoryMutex());
  return defaultDirectory();
}

std::string modelDirectory() {
  const char* env = std::getenv("SKYTRACE_MODEL_DIR");
  if (env && *env) return env;
  std::lock_guard<std::mutex> lock(directoryMutex());
  return defaultDirectory();
}

std::string resolveWeightsPath(const std::string& model_name, const std::string& explicit_path,
                               const std::string& published_file,
                               const std::string& where_published) {
  if (!explicit_path.empty()) {
    if (isFile(explicit_path)) return explicit_path;
    throw ModelError("weights for " + model_name + " not found: '" + explicit_path +
                     "' is not a file (check --weights)");
  }
  const std::string directory = modelDirectory();
  std::vector<fs::path> searched;
  if (!directory.empty()) {
    // The file itself, then one level of sub-folders (models/aliked/aliked-t16.pth),
    // in name order so the choice does not depend on the file system.
    searched.push_back(fs::path(directory));
    std::error_code ec;
    std::vector<fs::path> subfolders;
    for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_directory(ec)) subfolders.push_back(it->path());
    std::sort(subfolders.begin(), subfolders.end());
    searched.insert(searched.end(), subfolders.begin(), subfolders.end());
    for (const auto& folder : searched)
      if (isFile(folder / published_file)) return (folder / published_file).string();
  }
  std::string message = "weights for " + model_name + " not found: expected the file '" +
                        published_file + "'";
  if (directory.empty()) {
    message += "; no model folder is configured (set SKYTRACE_MODEL_DIR, or skytrace's Model folder "
               "in Processing Options, or pass --weights PATH to skytrace-cli)";
  } else {
    message += " in " + directory + " or its sub-folders (searched " +
               std::to_string(searched.size()) + " folders; set SKYTRACE_MODEL_DIR or pass "
               "--weights PATH)";
  }
  if (!where_published.empty()) message += ". The authors publish it at " + where_published;
  throw ModelError(message);
}

}  // namespace skytrace::vision
