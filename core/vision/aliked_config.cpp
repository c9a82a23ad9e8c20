#include "core/vision/aliked_config.h"

#include "core/util/error.h"

namespace skytrace::vision {
namespace {

const std::vector<AlikedConfig>& variants() {
  static const std::vector<AlikedConfig> configs = {
      {"aliked-t16", 8, 16, 32, 64, 64, 3, 16, "aliked-t16.pth"},
      {"aliked-n16", 16, 32, 64, 128, 128, 3, 16, "aliked-n16.pth"},
      {"aliked-n16rot", 16, 32, 64, 128, 128, 3, 16, "aliked-n16rot.pth"},
      {"aliked-n32", 16, 32, 64, 128, 128, 3, 32, "aliked-n32.pth"},
  };
  return configs;
}

}  // namespace

const AlikedConfig& alikedConfig(const std::string& name) {
  for (const auto& config : variants())
    if (config.name == name) return config;
  std::string known;
  for (const auto& config : variants()) known += (known.empty() ? "" : ", ") + config.name;
  throw InvalidArgument("unknown ALIKED variant '" + name + "' (known: " + known + ")");
}

std::vector<std::string> alikedVariantNames() {
  std::vector<std::string> names;
  for (const auto& config : variants()) names.push_back(config.name);
  return names;
}

}  // namespace skytrace::vision
