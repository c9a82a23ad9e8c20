#include "core/vision/lightglue_model_impl.h"

#include <torch/version.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <tuple>
#include <utility>

#include "core/util/check.h"
#include "core/util/error.h"
#include "core/vision/fused_ops.h"

namespace skytrace::vision::lightglue {
namespace {

// Checkpoints saved from a constructed LightGlue (model.state_dict()) name the layers
// transformers.{i}.self_attn / .cross_attn; the release files use self_attn.{i} /
// cross_attn.{i}. Bring the former to the release names (the inverse of the
// constructor's rename), leaving release files untouched.
StateDict toReleaseNames(const StateDict& weights) {
  const std::string prefix = "transformers.";
  if (std::none_of(weights.tensors.begin(), weights.tensors.end(),
                   [&](const auto& kv) { return kv.first.rfind(prefix, 0) == 0; }))
    return weights;
  StateDict renamed;
  renamed.source = weights.source;
  for (const auto& [key, tensor] : weights.tensors) {
    std::string name = key;
    if (key.rfind(prefix, 0) == 0) {
      const size_t index_end = key.find('.', prefix.size());
      const size_t block_end = index_end == std::string::npos ? index_end : key.find('.', index_end + 1);
      if (block_end != std::string::npos) {
        const std::string index = key.substr(prefix.size(), index_end - prefix.size());
        const std::string block = key.substr(index_end + 1, block_end - index_end - 1);
        name = block + "." + index + key.substr(block_end);
      }
    }
    renamed.tensors[name] = tensor;
  }
  return renamed;
}

void checkInput(const LightGlueInput& input, int64_t input_dim, at::Device device,
                const char* which) {
  const std::string name = std::string("LightGlue ") + which;
  const at::Tensor& k = input.keypoints_px;
  const at::Tensor& d = input.descriptors;
  checkArgument(k.defined() && k.dim() == 2 && k.size(1) == 2 && k.scalar_type() == at::kFloat,
                name + ": keypoints must be [N,2] float32");
  checkArgument(d.defined() && d.dim() == 2 && d.size(0) == k.size(0) && d.scalar_type() == at::kFloat,
                name + ": descriptors must be [N,D] float32 with N = the keypoint count");
  checkArgument(k.size(0) == 0 || d.size(1) == input_dim,
                name + ": descriptors have " + std::to_string(d.size(1)) +
                    " dimensions, this LightGlue expects " + std::to_string(input_dim));
  checkArgument(k.device() == device && d.device() == device,
                name + ": features on " + d.device().str() + ", model on " + device.str());
  checkArgument(input.image_width > 0 && input.image_height > 0,
                name + ": image size must be positive");
}

// Confidence heads and the assignment read float32 descriptors (no copy when they are).
at::Tensor asFloat(const at::Tensor& t) { return t.to(at::kFloat); }

}  // namespace

LightGlueConfig lightGlueConfig(const std::string& features) {
  LightGlueConfig config;
  config.features = features;
  if (features == "superpoint") {
    config.input_dim = 256;
  } else if (features == "aliked") {
    config.input_dim = 128;
  } else {
    throw InvalidArgument("LightGlue: unsupported features '" + features +
                          "' (available: superpoint, aliked)");
  }
  config.published_file = features + "_lightglue.pth";
  return config;
}

std::vector<std::string> lightGlueFeatureNames() { return {"superpoint", "aliked"}; }

void LightGlueOptions::check() const {
  checkArgument(depth_confidence <= 1.0, "LightGlue depth_confidence must be <= 1 (or <= 0 to "
                                         "disable early exit), got " + std::to_string(depth_confidence));
  checkArgument(width_confidence <= 1.0, "LightGlue width_confidence must be <= 1 (or <= 0 to "
                                         "disable pruning), got " + std::to_string(width_confidence));
  checkArgument(filter_threshold >= 0.0 && filter_threshold <= 1.0,
                "LightGlue filter_threshold must be in [0, 1], got " +
                    std::to_string(filter_threshold));
  checkArgument(!pruning_min_keypoints || *pruning_min_keypoints >= -1,
                "LightGlue pruning_min_keypoints must be >= -1");
}

LightGlueModel::LightGlueModel(const LightGlueConfig& config, const StateDict& weights,
                               at::Device device)
    : config_(config),
      device_(device),
      graphs_("LightGlue " + config.features) {
  checkArgument(config.n_layers >= 1, "LightGlue: n_layers must be >= 1");
  checkArgument(config.num_heads >= 1 && config.descriptor_dim % config.num_heads == 0 &&
                    (config.descriptor_dim / config.num_heads) % 2 == 0,
                "LightGlue: descriptor_dim must split into heads of even size");
  const StateDict release = toReleaseNames(weights);
  StateDictBinder binder(release, "LightGlue (" + config.features + ")",
                         at::TensorOptions().dtype(at::kFloat).device(device));
  const int64_t d = config.descriptor_dim, heads = config.num_heads, head_dim = d / heads;
  if (config.input_dim != config.descriptor_dim) {
    input_proj_.emplace();
    input_proj_->bind(binder, "input_proj", config.input_dim, d);
  }
  posenc_.bind(binder, "posenc.Wr", 2, head_dim / 2, /*with_bias=*/false);
  const int layers = config.n_layers;
  self_blocks_.resize(layers);
  cross_blocks_.resize(layers);
  log_assignment_.resize(layers);
  token_confidence_.resize(layers - 1);
  for (int i = 0; i < layers; ++i) {
    const std::string index = std::to_string(i);
    self_blocks_[i].bind(binder, "self_attn." + index, d, heads);
    cross_blocks_[i].bind(binder, "cross_attn." + index, d, heads);
    log_assignment_[i].bind(binder, "log_assignment." + index, d);
    if (i + 1 < layers) token_confidence_[i].bind(binder, "token_confidence." + index, d);
  }
  binder.finish();
  for (auto& block : self_blocks_) block.prepare();
  for (auto& block : cross_blocks_) block.prepare();
  for (auto& head : log_assignment_) head.prepare();
  fused_kernels_ = device_.is_cuda() && fused::built();
}

at::Tensor LightGlueModel::normalizeKeypoints(const at::Tensor& keypoints_px, double width,
                                              double height) {
  // shift = size / 2, scale = max(size) / 2 (float32 as the original).
  const float shift_x = static_cast<float>(width) / 2, shift_y = static_cast<float>(height) / 2;
  const float scale = std::max(static_cast<float>(width), static_cast<float>(height)) / 2;
  return at::stack({(keypoints_px.select(1, 0) - shift_x) / scale,
                    (keypoints_px.select(1, 1) - shift_y) / scale},
                   1);
}

at::Tensor LightGlueModel::positionalEncoding(const at::Tensor& keypoints_normalized) const {
  const at::Tensor projected = posenc_(keypoints_normalized);  // [(B,)N, hd/2]
  const at::Tensor cos_sin = at::stack({at::cos(projected), at::sin(projected)}, -3);  // [(B,)2,N,hd/2]
  // repeat_interleave(2, dim=-1): every frequency twice, for the rotary pairs.
  std::vector<int64_t> pairs(cos_sin.sizes().begin(), cos_sin.sizes().end());
  pairs.push_back(2);
  std::vector<int64_t> out(cos_sin.sizes().begin(), cos_sin.sizes().end());
  out.back() *= 2;
  return cos_sin.unsqueeze(-1).expand(pairs).reshape(out);
}

float LightGlueModel::confidenceThreshold(int layer) const {
  const double threshold = 0.8 + 0.1 * std::exp(-4.0 * layer / config_.n_layers);
  return static_cast<float>(std::clamp(threshold, 0.0, 1.0));  // a float32 buffer
}

int LightGlueModel::pruningMinKeypoints(const LightGlueOptions& options) const {
  if (options.pruning_min_keypoints) return *options.pruning_min_keypoints;
  if (!device_.is_cuda()) return -1;
#if TORCH_VERSION_MAJOR >= 2
  return 1536;  // fused attention available ("flash" in the original's table)
#else
  return 1024;
#endif
}

LightGlueOutput LightGlueModel::forward(const LightGlueInput& image0, const LightGlueInput& image1,
                                        const LightGlueOptions& options,
                                        LightGlueTrace* trace) const {
  options.check();
  checkInput(image0, config_.input_dim, device_, "image0");
  checkInput(image1, config_.input_dim, device_, "image1");
  const int64_t m = image0.keypoints_px.size(0), n = image1.keypoints_px.size(0);
  const auto long_options = at::TensorOptions().dtype(at::kLong).device(device_);
  const auto float_options = at::TensorOptions().dtype(at::kFloat).device(device_);

  const bool full_depth = options.depth_confidence <= 0 && options.width_confidence <= 0;
  if (!trace && full_depth && m > 0 && n > 0) {
    if (!device_.is_cuda()) return fullDepthOutput(fullDepthMatches(image0, image1, options), m, n);
    // The fast path on CUDA: every layer, the assignment and the match filter as one graph
    // replay per point counts and image sizes; the match list after it (one sync).
    std::ostringstream key;
    key << "size0=" << image0.image_width << "x" << image0.image_height
        << " size1=" << image1.image_width << "x" << image1.image_height
        << " half=" << options.half_precision_attention << " f64=" << options.float64_assignment
        << " threshold=" << options.filter_threshold << " pairs=" << options.batch_pairs.value_or(true)
        << " float16=" << half_precision_;
    const double w0 = image0.image_width, h0 = image0.image_height;
    const double w1 = image1.image_width, h1 = image1.image_height;
    const auto outputs = graphs_->run(
        key.str(), {image0.keypoints_px, image0.descriptors, image1.keypoints_px, image1.descriptors},
        [&, w0, h0, w1, h1](const std::vector<at::Tensor>& in) {
          const FilteredMatches f =
              fullDepthMatches({in[0], in[1], w0, h0}, {in[2], in[3], w1, h1}, options);
          return std::vector<at::Tensor>{f.matches0, f.matches1, f.scores0, f.scores1};
        });
    if (outputs) {
      const auto& t = *outputs;
      return fullDepthOutput(FilteredMatches{t[0], t[1], t[2], t[3]}, m, n);
    }
  }

  LayerInputs inputs = layerInputs(image0, image1);
  at::Tensor desc0 = std::move(inputs.image0.desc), desc1 = std::move(inputs.image1.desc);
  at::Tensor rotary0 = std::move(inputs.image0.rotary), rotary1 = std::move(inputs.image1.rotary);
  if (trace) {
    trace->keypoints_normalized[0] = inputs.keypoints0;
    trace->keypoints_normalized[1] = inputs.keypoints1;
    trace->encoding[0] = inputs.image0.encoding;
    trace->encoding[1] = inputs.image1.encoding;
  }

  const bool early_stop = options.depth_confidence > 0;
  const bool prune = options.width_confidence > 0;
  const int pruning_threshold = pruningMinKeypoints(options);
  at::Tensor ind0 = at::arange(m, long_options), ind1 = at::arange(n, long_options);
  at::Tensor prune0 = at::ones({m}, long_options), prune1 = at::ones({n}, long_options);
  // Pruning: keep matchable points and (with early exit on) unconfident ones.
  const auto pruneSet = [&](int layer, const at::Tensor& token, at::Tensor& desc,
                            at::Tensor& rotary, at::Tensor& indices, at::Tensor& counts) {
    at::Tensor keep =
        log_assignment_[layer].matchabilityOf(asFloat(desc)) > (1.0 - options.width_confidence);
    if (token.defined()) keep = keep | (token <= confidenceThreshold(layer));
    const at::Tensor kept = at::nonzero(keep).squeeze(1);
    indices = indices.index_select(0, kept);
    desc = desc.index_select(0, kept);
    rotary = rotary.index_select(1, kept);
    counts.index_add_(0, indices, at::ones_like(indices));
  };

  const int layers = config_.n_layers;
  int last = 0;  // index of the last layer run (the original's loop variable i)
  bool no_points = false;
  for (int i = 0; i < layers; ++i) {
    last = i;
    if (desc0.size(0) == 0 || desc1.size(0) == 0) {
      no_points = true;
      break;
    }
    const bool half = options.half_precision_attention;
    desc0 = selfBlocks()[i](desc0, rotary0, half);
    desc1 = selfBlocks()[i](desc1, rotary1, half);
    if (trace && i == 0) {
      trace->self_block0[0] = asFloat(desc0);
      trace->self_block0[1] = asFloat(desc1);
    }
    std::tie(desc0, desc1) = crossBlocks()[i](desc0, desc1, half);
    if (trace) {
      trace->descriptors[0].push_back(asFloat(desc0));
      trace->descriptors[1].push_back(asFloat(desc1));
    }
    if (i == layers - 1) continue;  // no early exit or pruning after the last layer

    at::Tensor token0, token1;
    if (early_stop) {
      token0 = token_confidence_[i](asFloat(desc0));
      token1 = token_confidence_[i](asFloat(desc1));
      // Fraction of confident points among ALL input points (m + n), as the original.
      const at::Tensor unconfident =
          (at::cat({token0, token1}) < confidenceThreshold(i)).to(at::kFloat).sum();
      const at::Tensor ratio_confident = 1.0 - unconfident / static_cast<double>(m + n);
      if ((ratio_confident > options.depth_confidence).item<bool>()) break;
    }
    if (prune && desc0.size(0) > pruning_threshold) pruneSet(i, token0, desc0, rotary0, ind0, prune0);
    if (prune && desc1.size(0) > pruning_threshold) pruneSet(i, token1, desc1, rotary1, ind1, prune1);
  }

  LightGlueOutput out;
  out.layers_run = last + 1;
  if (no_points) {
    out.matches0 = at::full({m}, -1, long_options);
    out.matches1 = at::full({n}, -1, long_options);
    out.scores0 = at::zeros({m}, float_options);
    out.scores1 = at::zeros({n}, float_options);
    out.matches = at::empty({0, 2}, long_options);
    out.match_scores = at::empty({0}, float_options);
    out.prune0 = prune ? prune0 : at::full({m}, layers, long_options);
    out.prune1 = prune ? prune1 : at::full({n}, layers, long_options);
    return out;
  }

  const at::Tensor scores =
      log_assignment_[last].logAssignment(asFloat(desc0), asFloat(desc1), float64Assignment(options));
  if (trace) trace->log_assignment = scores;
  const FilteredMatches filtered = filterMatches(scores, static_cast<float>(options.filter_threshold));
  at::Tensor index0 = at::nonzero(filtered.matches0 > -1).squeeze(1);
  at::Tensor index1 = filtered.matches0.index_select(0, index0);
  out.match_scores = filtered.scores0.index_select(0, index0);
  if (prune) {
    index0 = ind0.index_select(0, index0);
    index1 = ind1.index_select(0, index1);
    // Scatter the per-kept-point results back to the input indexing.
    const at::Tensor none = at::full({}, -1, long_options);
    out.matches0 = at::full({m}, -1, long_options);
    out.matches1 = at::full({n}, -1, long_options);
    out.matches0.index_copy_(0, ind0, at::where(filtered.matches0 == -1, none,
                                                ind1.index_select(0, filtered.matches0.clamp_min(0))));
    out.matches1.index_copy_(0, ind1, at::where(filtered.matches1 == -1, none,
                                                ind0.index_select(0, filtered.matches1.clamp_min(0))));
    out.scores0 = at::zeros({m}, float_options).index_copy_(0, ind0, filtered.scores0);
    out.scores1 = at::zeros({n}, float_options).index_copy_(0, ind1, filtered.scores1);
    out.prune0 = prune0;
    out.prune1 = prune1;
  } else {
    out.matches0 = filtered.matches0;
    out.matches1 = filtered.matches1;
    out.scores0 = filtered.scores0;
    out.scores1 = filtered.scores1;
    out.prune0 = at::full({m}, layers, long_options);
    out.prune1 = at::full({n}, layers, long_options);
  }
  out.matches = at::stack({index0, index1}, 1);
  return out;
}

LightGlueModel::EncodedInputs LightGlueModel::encodeInputs(const at::Tensor& keypoints_normalized,
                                                            const at::Tensor& descriptors) const {
  EncodedInputs inputs;
  inputs.desc = input_proj_ ? (*input_proj_)(descriptors) : descriptors.contiguous();
  inputs.encoding = positionalEncoding(keypoints_normalized);
  inputs.rotary = rotaryTables(inputs.encoding);
  if (half_precision_) {
    inputs.desc = inputs.desc.to(at::kHalf);
    inputs.rotary = inputs.rotary.to(at::kHalf);
  }
  return inputs;
}

LightGlueModel::LayerInputs LightGlueModel::layerInputs(const LightGlueInput& image0,
                                                        const LightGlueInput& image1) const {
  LayerInputs inputs;
  inputs.keypoints0 = normalizeKeypoints(image0.keypoints_px, image0.image_width, image0.image_height);
  inputs.keypoints1 = normalizeKeypoints(image1.keypoints_px, image1.image_width, image1.image_height);
  inputs.image0 = encodeInputs(inputs.keypoints0, image0.descriptors);
  inputs.image1 = encodeInputs(inputs.keypoints1, image1.descriptors);
  return inputs;
}

FilteredMatches LightGlueModel::fullDepthMatches(const LightGlueInput& image0,
                                                 const LightGlueInput& image1,
                                                 const LightGlueOptions& options) const {
  const bool half = options.half_precision_attention;
  const int64_t n = image0.keypoints_px.size(0);
  at::Tensor desc0, desc1;
  if (options.batch_pairs.value_or(device_.is_cuda()) && image1.keypoints_px.size(0) == n) {
    // Both images as one batch from the start: keypoints [2,N,2], descriptors [2,N,D]
    // through every block (the inputs prepared once for both, too).
    const bool same_size =
        image0.image_width == image1.image_width && image0.image_height == image1.image_height;
    const at::Tensor keypoints =
        same_size ? normalizeKeypoints(at::cat({image0.keypoints_px, image1.keypoints_px}),
                                       image0.image_width, image0.image_height)
                        .view({2, n, 2})
                  : at::stack({normalizeKeypoints(image0.keypoints_px, image0.image_width, image0.image_height),
                               normalizeKeypoints(image1.keypoints_px, image1.image_width, image1.image_height)});
    const EncodedInputs inputs = encodeInputs(keypoints, at::stack({image0.descriptors, image1.descriptors}));
    at::Tensor pair = inputs.desc;
    const at::Tensor& rotary = inputs.rotary;  // [2,2,N,hd]
    for (int i = 0; i < config_.n_layers; ++i)
      pair = crossBlocks()[i].pair(selfBlocks()[i](pair, rotary, half), half);
    desc0 = pair[0];
    desc1 = pair[1];
  } else {
    const LayerInputs inputs = layerInputs(image0, image1);
    desc0 = inputs.image0.desc;
    desc1 = inputs.image1.desc;
    for (int i = 0; i < config_.n_layers; ++i) {
      desc0 = selfBlocks()[i](desc0, inputs.image0.rotary, half);
      desc1 = selfBlocks()[i](desc1, inputs.image1.rotary, half);
      std::tie(desc0, desc1) = crossBlocks()[i](desc0, desc1, half);
    }
  }
  const at::Tensor scores = log_assignment_[config_.n_layers - 1].logAssignment(
      asFloat(desc0), asFloat(desc1), float64Assignment(options));
  return filterMatches(scores, static_cast<float>(options.filter_threshold));
}

LightGlueOutput LightGlueModel::fullDepthOutput(const FilteredMatches& filtered, int64_t m,
                                                int64_t n) const {
  const auto long_options = at::TensorOptions().dtype(at::kLong).device(device_);
  LightGlueOutput out;
  out.layers_run = config_.n_layers;
  out.matches0 = filtered.matches0;
  out.matches1 = filtered.matches1;
  out.scores0 = filtered.scores0;
  out.scores1 = filtered.scores1;
  const at::Tensor index0 = at::nonzero(out.matches0 > -1).squeeze(1);
  out.matches = at::stack({index0, out.matches0.index_select(0, index0)}, 1);
  out.match_scores = out.scores0.index_select(0, index0);
  out.prune0 = at::full({m}, config_.n_layers, long_options);
  out.prune1 = at::full({n}, config_.n_layers, long_options);
  return out;
}

void LightGlueModel::setHalfPrecision(bool enabled) {
  if (enabled == half_precision_) return;
  if (enabled && !device_.is_cuda())
    throw InvalidArgument("LightGlue half precision needs a CUDA device (model on " + device_.str() + ")");
  half_self_blocks_.clear();
  half_cross_blocks_.clear();
  if (enabled) {
    // Copies (the float32 blocks stay for setHalfPrecision(false)); the output
    // projections folded into the feed-forward products while still in float32.
    half_self_blocks_ = self_blocks_;
    half_cross_blocks_ = cross_blocks_;
    for (SelfBlock& block : half_self_blocks_) {
      block.foldOutputProjection();
      block.castTo(at::kHalf);
      block.useFusedKernels(fused_kernels_);
    }
    for (CrossBlock& block : half_cross_blocks_) {
      block.foldOutputProjection();
      block.castTo(at::kHalf);
      block.useFusedKernels(fused_kernels_);
    }
  }
  half_precision_ = enabled;
  graphs_.reset();  // captured with the other weights
}

void LightGlueModel::setFusedKernelsEnabled(bool enabled) {
  if (enabled && !(device_.is_cuda() && fused::built()))
    throw InvalidArgument("LightGlue fused kernels need a CUDA device and a build with them");
  if (enabled == fused_kernels_) return;
  fused_kernels_ = enabled;
  for (SelfBlock& block : half_self_blocks_) block.useFusedKernels(enabled);
  for (CrossBlock& block : half_cross_blocks_) block.useFusedKernels(enabled);
  graphs_.reset();
}

void LightGlueModel::setCudaGraphsEnabled(bool enabled) { graphs_->setEnabled(enabled); }

bool LightGlueModel::cudaGraphsEnabled() const { return graphs_->enabled(); }

int LightGlueModel::failedCudaGraphCaptures() const { return graphs_->failedCaptures(); }

int layerCountOf(const StateDict& weights) {
  const StateDict release = toReleaseNames(weights);
  int layers = 0;
  while (release.contains("self_attn." + std::to_string(layers) + ".Wqkv.weight")) ++layers;
  return layers;
}

LightGlueModel loadLightGlueModel(const LightGlueConfig& config, const std::string& weights_path,
                                  at::Device device) {
  return LightGlueModel(config, loadStateDict(weights_path), device);
}

LightGlueModel loadLightGlueModel(const std::string& features, const std::string& weights_path,
                                  at::Device device) {
  const StateDict weights = loadStateDict(weights_path);
  LightGlueConfig config = lightGlueConfig(features);
  config.n_layers = layerCountOf(weights);
  if (config.n_layers == 0)
    throw ModelError(weights_path + ": not a LightGlue checkpoint (no self_attn.0.Wqkv.weight; "
                     "expected the release file " + config.published_file + ")");
  return LightGlueModel(config, weights, device);
}

}  // namespace skytrace::vision::lightglue
