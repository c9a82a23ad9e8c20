// Local features: keypoints, scores and descriptors of one image, kept on the device
// where they were computed so that matching does not copy them back.
// Conventions: pixel coordinates x right, y down, origin at the CENTRE of the top-left
// pixel (OpenCV's convention); descriptors are L2-normalised float32 rows.
// No torch types here: tensors live behind FeatureSet::Impl (core/vision sources only).
#pragma once

#include <opencv2/core.hpp>

#include <memory>
#include <string>
#include <vector>

#include "core/vision/image.h"
#include "core/vision/torch_runtime.h"

namespace skytrace::vision {

// Features of one image. Cheap to copy (shared, immutable after creation).
// Thread: may be read from any thread; created by the extractor's thread.
class FeatureSet {
 public:
  struct Impl;  // defined in core/vision/feature_set_impl.h (torch inside)

  FeatureSet();
  explicit FeatureSet(std::shared_ptr<const Impl> impl);

  int size() const;            // number of keypoints N
  int descriptorDim() const;   // D (0 when there are no keypoints)
  int imageWidth() const;      // size of the image they came from, pixels
  int imageHeight() const;
  DeviceSpec device() const;

  // Host copies (a device->host copy for GPU features).
  std::vector<cv::Point2f> keypoints() const;  // N points
  std::vector<float> scores() const;           // N detection scores
  cv::Mat descriptors() const;                 // N x D, CV_32F

  const Impl& impl() const { return *impl_; }
  bool empty() const { return size() == 0; }

 private:
  std::shared_ptr<const Impl> impl_;
};

// `features` on `device`: the same set when it is there already, else a copy (a
// device-to-device copy between GPUs; ordered after the producer's work by the current
// streams of both devices). An empty set stays as it is (nothing to move).
FeatureSet featuresOnDevice(const FeatureSet& features, const DeviceSpec& device);

// The keypoints of `features` at `indices` (in that order, each in [0, size)), with
// their scores and descriptors, on the same device and for the same image size.
FeatureSet selectFeatures(const FeatureSet& features, const std::vector<int>& indices);

// Features gathered from several sets into one, for an image of `image_size`: the rows
// rows[k] of parts[k] (each index in [0, parts[k].size())), part after part, with their
// scores and descriptors and the new positions keypoints_px (one per row gathered, in
// the same order). Every part with rows on one device with one descriptor size; the
// result is there too. How a map's features, kept per tile, become one set in the
// pixels of a search window.
FeatureSet gatherFeatures(const std::vector<FeatureSet>& parts, const std::vector<std::vector<int>>& rows,
                          const std::vector<cv::Point2f>& keypoints_px, cv::Size image_size);

// Which extractor, and how many keypoints.
struct ExtractorOptions {
  std::string model = "orb";  // "orb", "sift", "aliked-t16", "aliked-n16", "aliked-n16rot", "aliked-n32", ...
  std::string weights_path;   // empty: look up the published file name in the model directory
  int max_keypoints = 1024;
  float detection_threshold = 0.2f;  // learned detectors: minimum score
  int nms_radius_px = 2;             // learned detectors: non-maximum suppression radius
  DeviceSpec device;
  // Learned extractors on CUDA in a GPU build: replay the extraction as a CUDA graph per
  // frame size (faster; results equal to the eager path up to float rounding). false runs
  // eagerly (for comparisons). No effect elsewhere.
  bool use_cuda_graphs = true;
  // ALIKED and SuperPoint on CUDA in a build with Skytrace's fused kernels
  // (aliked_fused_ops.h, fused_ops.h): run them (faster; results equal up to float
  // rounding). false runs the LibTorch operator chains (for comparisons). No effect
  // elsewhere.
  bool fused_kernels = true;
  // ALIKED and SuperPoint on CUDA: the dense part (ALIKED: encoder, projections, score
  // head; SuperPoint: every convolution) in float16 on tensor cores (faster where not
  // fused; keypoints deviate slightly from float32, docs/gpu.md). Creating the extractor
  // on another device throws InvalidArgument; other models refuse it.
  bool half_precision = false;

  void check() const;  // throws InvalidArgument
};

// Extracts features from images. Thread: create and use on one thread (GPU state is
// per thread); different instances may run on different threads.
class FeatureExtractor {
 public:
  virtual ~FeatureExtractor() = default;
  virtual std::string name() const = 0;
  // image: BGR or gray, 8-bit, any size, on the host or on a device. An image on the
  // extractor's device feeds the model without a copy; any other is copied once (learned
  // models: uploaded; classical ones run on the host: device images are downloaded),
  // and the copy is counted in transfers(). Throws skytrace::Error on failure.
  virtual FeatureSet extract(const Image& image) = 0;
  // Host pixels (CV_8UC3 BGR or CV_8UC1).
  FeatureSet extract(const cv::Mat& image) { return extract(Image::fromHost(image)); }
  // True when a keypoint's descriptor in an image turned by any angle matches its
  // descriptor in the unturned image (ORB, SIFT: oriented keypoints). The learned models
  // are not (ALIKED-n16rot matches under small turns only): a caller that does not know
  // how the images are turned to each other presents one of them in several orientations.
  virtual bool rotationInvariant() const { return false; }
  // True for the classical detectors (ORB, SIFT): local operators, whose responses in
  // a region do not depend on how much image surrounds it. False for the learned
  // models, whose do: ALIKED-n16rot found 1370, 1620 and 1765 keypoints inside one
  // 640x480 frame set on black borders of 32, 100 and 200 px (a caller that crops
  // around a region decides the keypoints with the crop: the same crop rule on every
  // device gives the same keypoints).
  virtual bool classical() const { return false; }
  // The image copies extract() made so far (this extractor's thread).
  const ImageTransfers& transfers() const { return transfers_; }

 protected:
  ImageTransfers transfers_;
};

// Creates the extractor named by options.model. Learned models load their weights
// (throwing ModelError naming the expected file when absent).
std::unique_ptr<FeatureExtractor> createFeatureExtractor(const ExtractorOptions& options);

// The classical fallback: like createFeatureExtractor, but when a learned model's weights
// file cannot be found (not when it exists and fails to load) creates `fallback_model`
// ("orb" or "sift", no weights needed) with the same keypoint budget and device, and
// puts the reason into *fallback_reason (left empty when the requested model was used).
std::unique_ptr<FeatureExtractor> createFeatureExtractorOrFallback(
    const ExtractorOptions& options, const std::string& fallback_model = "sift",
    std::string* fallback_reason = nullptr);

// Names accepted by createFeatureExtractor, for --help texts.
std::vector<std::string> availableFeatureModels();

}  // namespace skytrace::vision
