// Global (whole-image) descriptors for place retrieval: one L2-normalised float vector
// per image, compared by cosine similarity (dot product). The satellite stage ranks
// basemap tiles by similarity to a frame's descriptor before fine registration.
// Implementations: learned (DINOv2: CLS token + GeM over patch tokens) and built-in
// (VLAD over local features with a vocabulary trained on the basemap itself).
// No torch types here.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "core/vision/torch_runtime.h"

namespace skytrace::vision {

// One descriptor per image; `values.size() == dimension`, unit L2 norm (all zeros only
// when the image had nothing to describe, e.g. fully masked).
struct GlobalDescriptor {
  std::vector<float> values;

  bool empty() const { return values.empty(); }
};

// Cosine similarity of two unit descriptors of the same dimension, in [-1, 1].
// Throws InvalidArgument when the dimensions differ.
float descriptorSimilarity(const GlobalDescriptor& a, const GlobalDescriptor& b);

struct GlobalDescriptorOptions {
  // "dinov2-vits14", "dinov2-vitb14", "dinov2-vits14-reg", "dinov2-vitb14-reg", ...
  std::string model;
  std::string weights_path;  // empty: published file name in the model directory
  int input_size_px = 224;   // images are resized so that the shorter side is this
  DeviceSpec device;
  // How a DINOv2 image becomes one vector: "cls" (final-norm CLS token), "gem"
  // (generalised mean, exponent gem_p, over the final-norm patch tokens clamped at 1e-6),
  // or "cls+gem" (each L2-normalised, concatenated, normalised again: 2 x embed dim).
  std::string pooling = "cls+gem";
  float gem_p = 3.0f;
  // "float32" (exact, the default) or "float16" (CUDA only; faster, deviates ~1e-3).
  std::string precision = "float32";
  // Fused attention (scaled_dot_product_attention) where LibTorch has it (>= 2.0); the
  // explicit softmax(q k^T) v otherwise or when false.
  bool fused_attention = true;
  // On CUDA in a GPU build: replay the model as a CUDA graph per input size (faster;
  // equal up to float rounding). false runs eagerly (for comparisons).
  bool use_cuda_graphs = true;

  void check() const;  // throws InvalidArgument
};

// Thread: create and use on one thread (GPU state is per thread).
class GlobalDescriptorExtractor {
 public:
  virtual ~GlobalDescriptorExtractor() = default;
  virtual std::string name() const = 0;
  virtual int dimension() const = 0;
  // image: CV_8UC3 (BGR) or CV_8UC1, any size. Throws skytrace::Error on failure.
  virtual GlobalDescriptor describe(const cv::Mat& image) = 0;
  // Several images at once (batched on the device where their preprocessed sizes agree);
  // the same descriptors as describe() one by one, up to float summation order.
  virtual std::vector<GlobalDescriptor> describeBatch(const std::vector<cv::Mat>& images) {
    std::vector<GlobalDescriptor> out;
    out.reserve(images.size());
    for (const cv::Mat& image : images) out.push_back(describe(image));
    return out;
  }
};

// Creates the learned global descriptor named by options.model (loading its weights;
// ModelError naming the expected file when absent).
std::unique_ptr<GlobalDescriptorExtractor> createGlobalDescriptorExtractor(
    const GlobalDescriptorOptions& options);

}  // namespace skytrace::vision
