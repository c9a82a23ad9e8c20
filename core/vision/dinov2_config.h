// The published DINOv2 backbones (facebookresearch/dinov2, dinov2/hub/backbones.py) that
// Skytrace runs, with the hub's construction arguments and the weight file names the
// authors publish. Plain C++ (no torch). Thread: any (immutable data).
#pragma once

#include <string>
#include <vector>

namespace skytrace::vision {

struct Dinov2Config {
  std::string name;            // "dinov2-vits14", "dinov2-vitb14-reg", ...
  int embed_dim = 0;           // 384 (ViT-S), 768 (ViT-B)
  int depth = 0;               // transformer blocks (12 for both published sizes)
  int num_heads = 0;           // 6 (ViT-S), 12 (ViT-B); head dim 64
  int mlp_hidden_dim = 0;      // embed_dim * mlp_ratio 4
  int patch_size_px = 14;
  int pos_grid = 37;           // positional embedding learnt for img_size 518 = 37 x 14
  int num_register_tokens = 0; // 4 for the *_reg variants
  // Positional-embedding interpolation to other grids, as the hub builds each model:
  // plain variants: bicubic with scale factor (g + 0.1) / 37, no antialias;
  // register variants: bicubic to the output size (offset 0) with antialias.
  bool interpolate_antialias = false;
  double interpolate_offset = 0.1;
  double layer_norm_eps = 1e-6;
  std::string published_file;  // "dinov2_vits14_pretrain.pth"
};

// Configuration of a published model; throws InvalidArgument naming the known ones.
const Dinov2Config& dinov2Config(const std::string& name);

std::vector<std::string> dinov2ModelNames();

// Where the authors publish the weights (for "not found" messages); the file of a model
// is <url>/<dinov2_vits14>/<published_file>.
inline constexpr const char* kDinov2WeightsUrl =
    "https://dl.fbaipublicfiles.com/dinov2 (listed at https://github.com/facebookresearch/dinov2)";

}  // namespace skytrace::vision
