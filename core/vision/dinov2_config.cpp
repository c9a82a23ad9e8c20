#include "core/vision/dinov2_config.h"

#include "core/util/error.h"

namespace skytrace::vision {
namespace {

Dinov2Config make(const std::string& name, int dim, int heads, int registers,
                  const std::string& file) {
  Dinov2Config config;
  config.name = name;
  config.embed_dim = dim;
  config.depth = 12;
  config.num_heads = heads;
  config.mlp_hidden_dim = 4 * dim;
  config.num_register_tokens = registers;
  // backbones.py: dinov2_vit*14_reg passes interpolate_antialias=True, interpolate_offset=0.0.
  config.interpolate_antialias = registers > 0;
  config.interpolate_offset = registers > 0 ? 0.0 : 0.1;
  config.published_file = file;
  return config;
}

const std::vector<Dinov2Config>& models() {
  static const std::vector<Dinov2Config> configs = {
      make("dinov2-vits14", 384, 6, 0, "dinov2_vits14_pretrain.pth"),
      make("dinov2-vitb14", 768, 12, 0, "dinov2_vitb14_pretrain.pth"),
      make("dinov2-vits14-reg", 384, 6, 4, "dinov2_vits14_reg4_pretrain.pth"),
      make("dinov2-vitb14-reg", 768, 12, 4, "dinov2_vitb14_reg4_pretrain.pth"),
  };
  return configs;
}

}  // namespace

const Dinov2Config& dinov2Config(const std::string& name) {
  for (const auto& config : models())
    if (config.name == name) return config;
  std::string known;
  for (const auto& config : models()) known += (known.empty() ? "" : ", ") + config.name;
  throw InvalidArgument("unknown DINOv2 model '" + name + "' (known: " + known + ")");
}

std::vector<std::string> dinov2ModelNames() {
  std::vector<std::string> names;
  for (const auto& config : models()) names.push_back(config.name);
  return names;
}

}  // namespace skytrace::vision
