#include "core/vision/dinov2_model_impl.h"

#include <ATen/CPUGeneratorImpl.h>

#include <string>

#include "core/util/error.h"

namespace skytrace::vision::dinov2 {
namespace {

bool isFloating(at::ScalarType t) {
  return t == at::kFloat || t == at::kHalf || t == at::kBFloat16;
}

}  // namespace

Dinov2Model::Dinov2Model(const Dinov2Config& config, const StateDict& weights, at::Device device,
                         at::ScalarType dtype)
    : config_(config), device_(device), dtype_(dtype) {
  if (!isFloating(dtype))
    throw InvalidArgument(config.name + ": compute dtype must be float32, float16 or bfloat16");
  if (dtype != at::kFloat && !device.is_cuda())
    throw InvalidArgument(config.name + ": half precision needs a CUDA device (got " +
                          device.str() + ")");
  const int64_t dim = config.embed_dim;
  const int64_t patch = config.patch_size_px;
  const int64_t table = static_cast<int64_t>(config.pos_grid) * config.pos_grid;

  StateDictBinder binder(weights, config.name,
                         at::TensorOptions().dtype(at::kFloat).device(device));
  binder.bind("cls_token", {1, 1, dim}, &cls_token_);
  binder.bind("pos_embed", {1, 1 + table, dim}, &pos_embed_);
  if (config.num_register_tokens > 0)
    binder.bind("register_tokens", {1, config.num_register_tokens, dim}, &register_tokens_);
  binder.expect("mask_token", {1, dim});  // masked training only
  binder.bind("patch_embed.proj.weight", {dim, 3, patch, patch}, &patch_weight_);
  binder.bind("patch_embed.proj.bias", {dim}, &patch_bias_);
  blocks_.resize(static_cast<size_t>(config.depth));
  for (int i = 0; i < config.depth; ++i) {
    blocks_[static_cast<size_t>(i)].bind(binder, "blocks." + std::to_string(i), dim,
                                         config.num_heads, config.mlp_hidden_dim,
                                         config.layer_norm_eps);
  }
  norm_.bind(binder, "norm", dim, config.layer_norm_eps);
  binder.finish();

  cls_token_ = cls_token_.to(dtype);
  if (register_tokens_.defined()) register_tokens_ = register_tokens_.to(dtype);
  patch_weight_ = patch_weight_.to(dtype);
  patch_bias_ = patch_bias_.to(dtype);
  for (Block& block : blocks_) block.prepare(dtype);
  norm_.prepare(dtype);
}

at::Tensor Dinov2Model::interpolatePositionalEmbedding(int64_t height_px,
                                                       int64_t width_px) const {
  const int64_t grid = config_.pos_grid;
  const int64_t dim = config_.embed_dim;
  const int64_t grid_h = height_px / config_.patch_size_px;
  const int64_t grid_w = width_px / config_.patch_size_px;
  // The original returns the table unchanged only for as many patches as it has AND a
  // square input (npatch == N and w == h).
  if (grid_h * grid_w == grid * grid && height_px == width_px) return pos_embed_;

  const at::Tensor class_pos = pos_embed_.narrow(1, 0, 1);  // [1, 1, C]
  const at::Tensor patch_pos =
      pos_embed_.narrow(1, 1, grid * grid).reshape({1, grid, grid, dim}).permute({0, 3, 1, 2});
  // The .vec form F.interpolate calls is spelled through the overload with explicit
  // output size and per-axis scales (what .vec computes and forwards), which has the same
  // C++ signature in LibTorch 1.13 and 2.x.
  at::Tensor resized;
  if (config_.interpolate_offset != 0.0) {
    // F.interpolate(scale_factor=((h0 + offset) / M, (w0 + offset) / M)): the output size
    // is floor(M * scale) and the kernel maps coordinates with 1 / scale (not M / out).
    const double scale_h =
        (static_cast<double>(grid_h) + config_.interpolate_offset) / static_cast<double>(grid);
    const double scale_w =
        (static_cast<double>(grid_w) + config_.interpolate_offset) / static_cast<double>(grid);
    const std::vector<int64_t> size = {
        static_cast<int64_t>(static_cast<double>(grid) * scale_h),
        static_cast<int64_t>(static_cast<double>(grid) * scale_w)};
    resized = config_.interpolate_antialias
                  ? at::_upsample_bicubic2d_aa(patch_pos, size, false, scale_h, scale_w)
                  : at::upsample_bicubic2d(patch_pos, size, false, scale_h, scale_w);
  } else {
    const std::vector<int64_t> size = {grid_h, grid_w};
    resized = config_.interpolate_antialias ? at::_upsample_bicubic2d_aa(patch_pos, size, false)
                                            : at::upsample_bicubic2d(patch_pos, size, false);
  }
  if (resized.size(2) != grid_h || resized.size(3) != grid_w) {
    throw ModelError(config_.name + ": positional embedding interpolated to " +
                     std::to_string(resized.size(2)) + "x" + std::to_string(resized.size(3)) +
                     " instead of " + std::to_string(grid_h) + "x" + std::to_string(grid_w));
  }
  const at::Tensor rows = resized.permute({0, 2, 3, 1}).reshape({1, grid_h * grid_w, dim});
  return at::cat({class_pos, rows}, 1);
}

at::Tensor Dinov2Model::positionalEmbedding(int64_t height_px, int64_t width_px) const {
  const std::lock_guard<std::mutex> lock(pos_cache_mutex_);
  const auto key = std::make_pair(height_px, width_px);
  auto found = pos_cache_.find(key);
  if (found != pos_cache_.end()) return found->second;
  if (pos_cache_.size() >= 16) pos_cache_.clear();  // bounded: few input sizes in practice
  at::Tensor table = interpolatePositionalEmbedding(height_px, width_px);
  pos_cache_.emplace(key, table);
  return table;
}

Dinov2Output Dinov2Model::forward(const at::Tensor& image, Dinov2Trace* trace) const {
  checkImage(image);
  if (!trace && image.is_cuda()) {
    // The fast path on CUDA: the whole transformer as one graph replay per input shape
    // and attention kernel (no host synchronisation inside).
    const std::string key = std::string("attention=") +
                            (attention_kernel_ == AttentionKernel::kFused ? "fused" : "reference");
    const auto outputs =
        graphs_->run(key, {image}, [this](const std::vector<at::Tensor>& inputs) {
          const Dinov2Output o = forwardEager(inputs[0], nullptr);
          return std::vector<at::Tensor>{o.cls_token, o.register_tokens, o.patch_tokens,
                                         o.prenorm};
        });
    if (outputs) {
      Dinov2Output out;
      out.cls_token = (*outputs)[0];
      out.register_tokens = (*outputs)[1];
      out.patch_tokens = (*outputs)[2];
      out.prenorm = (*outputs)[3];
      out.grid_h = image.size(2) / config_.patch_size_px;
      out.grid_w = image.size(3) / config_.patch_size_px;
      return out;
    }
  }
  return forwardEager(image, trace);
}

void Dinov2Model::setCudaGraphsEnabled(bool enabled) { graphs_->setEnabled(enabled); }

bool Dinov2Model::cudaGraphsEnabled() const { return graphs_->enabled(); }

void Dinov2Model::checkImage(const at::Tensor& image) const {
  const int64_t patch = config_.patch_size_px;
  if (image.dim() != 4 || image.size(1) != 3 || !image.is_floating_point())
    throw InvalidArgument(config_.name + ": expected a floating [B,3,H,W] image, got " +
                          shapeToString(image.sizes()));
  const int64_t height = image.size(2), width = image.size(3);
  if (height % patch != 0 || width % patch != 0 || height == 0 || width == 0)
    throw InvalidArgument(config_.name + ": image of " + std::to_string(width) + "x" +
                          std::to_string(height) + " px: sides must be positive multiples of " +
                          std::to_string(patch));
  const bool same_device =
      image.device().type() == device_.type() &&
      (!device_.has_index() || image.device().index() == device_.index());
  if (!same_device)
    throw InvalidArgument(config_.name + ": image on " + image.device().str() +
                          ", model on " + device_.str());
}

Dinov2Output Dinov2Model::forwardEager(const at::Tensor& image, Dinov2Trace* trace) const {
  const int64_t patch = config_.patch_size_px;
  const int64_t height = image.size(2), width = image.size(3);
  const int64_t batch = image.size(0);

  // PatchEmbed: 14x14 stride-14 convolution, flatten, transpose -> [B, h*w, C].
  const at::Tensor patches =
      at::conv2d(image.to(dtype_), patch_weight_, patch_bias_, {patch, patch})
          .flatten(2)
          .transpose(1, 2);
  const at::Tensor pos = positionalEmbedding(height, width);
  at::Tensor x = at::cat({cls_token_.expand({batch, -1, -1}), patches}, 1).add_(pos.to(dtype_));
  if (register_tokens_.defined()) {
    x = at::cat({x.narrow(1, 0, 1), register_tokens_.expand({batch, -1, -1}),
                 x.narrow(1, 1, x.size(1) - 1)},
                1);
  }
  if (trace) {
    trace->patch_embed_out = patches;
    trace->pos_embed_interp = pos;
    trace->block_outputs.clear();
  }
  for (const Block& block : blocks_) {
    x = block(x, attention_kernel_);
    if (trace) trace->block_outputs.push_back(x);
  }
  const at::Tensor normed = norm_(x);
  const int64_t registers = config_.num_register_tokens;
  Dinov2Output out;
  out.cls_token = normed.select(1, 0);
  out.register_tokens = normed.narrow(1, 1, registers);
  out.patch_tokens = normed.narrow(1, 1 + registers, normed.size(1) - 1 - registers);
  out.prenorm = x;
  out.grid_h = height / patch;
  out.grid_w = width / patch;
  return out;
}

StateDict randomDinov2Weights(const Dinov2Config& config, uint64_t seed) {
  at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(seed);
  const int64_t dim = config.embed_dim, hidden = config.mlp_hidden_dim;
  const int64_t patch = config.patch_size_px;
  StateDict dict;
  dict.source = "random " + config.name + " weights (seed " + std::to_string(seed) + ")";
  const auto normal = [&](std::vector<int64_t> shape, double sigma) {
    return at::normal(0.0, sigma, shape, generator);
  };
  dict.tensors["cls_token"] = normal({1, 1, dim}, 1e-6);
  dict.tensors["pos_embed"] = normal({1, 1 + int64_t{config.pos_grid} * config.pos_grid, dim}, 0.02);
  if (config.num_register_tokens > 0)
    dict.tensors["register_tokens"] = normal({1, config.num_register_tokens, dim}, 1e-6);
  dict.tensors["mask_token"] = at::zeros({1, dim});
  dict.tensors["patch_embed.proj.weight"] = normal({dim, 3, patch, patch}, 0.02);
  dict.tensors["patch_embed.proj.bias"] = at::zeros({dim});
  const auto linear = [&](const std::string& prefix, int64_t in, int64_t out) {
    dict.tensors[prefix + ".weight"] = normal({out, in}, 0.02);
    dict.tensors[prefix + ".bias"] = at::zeros({out});
  };
  const auto ones = [&](const std::string& key) { dict.tensors[key] = at::ones({dim}); };
  for (int i = 0; i < config.depth; ++i) {
    const std::string block = "blocks." + std::to_string(i);
    ones(block + ".norm1.weight");
    dict.tensors[block + ".norm1.bias"] = at::zeros({dim});
    linear(block + ".attn.qkv", dim, 3 * dim);
    linear(block + ".attn.proj", dim, dim);
    ones(block + ".ls1.gamma");
    ones(block + ".norm2.weight");
    dict.tensors[block + ".norm2.bias"] = at::zeros({dim});
    linear(block + ".mlp.fc1", dim, hidden);
    linear(block + ".mlp.fc2", hidden, dim);
    ones(block + ".ls2.gamma");
  }
  ones("norm.weight");
  dict.tensors["norm.bias"] = at::zeros({dim});
  return dict;
}

std::unique_ptr<Dinov2Model> loadDinov2Model(const Dinov2Config& config,
                                             const std::string& weights_path, at::Device device,
                                             at::ScalarType dtype) {
  const StateDict weights = loadStateDict(weights_path);
  return std::make_unique<Dinov2Model>(config, weights, device, dtype);
}

}  // namespace skytrace::vision::dinov2
