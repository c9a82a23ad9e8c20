// Internal (torch allowed; core/vision sources only): loading published weights as a
// state dict (name -> tensor) and binding it into our own modules by the ORIGINAL
// parameter names.
//
// Formats: PyTorch zip checkpoints written by torch.save (.pth/.pt; an OrderedDict or
// a plain dict, possibly nested under a key such as 'state_dict') and .safetensors.
// Loading never executes code from the file: the pickle program is interpreted by a
// small reader that only knows the objects a state dict is made of.
// Errors: ModelError naming the file and, where one is involved, the key and the
// expected vs found shape. Thread: free functions are reentrant; a StateDictBinder is
// used by one thread.
#pragma once

#include <ATen/ATen.h>

#include <map>
#include <string>
#include <vector>

namespace skytrace::vision {

// Tensors by parameter name, as stored (dtype, sizes, strides, storage sharing kept;
// always on the CPU). `source` is the file they came from, for messages.
struct StateDict {
  std::string source;
  std::map<std::string, at::Tensor> tensors;

  bool contains(const std::string& key) const { return tensors.count(key) > 0; }
  // The tensor under `key`; throws ModelError naming the file and the key when absent.
  const at::Tensor& at(const std::string& key) const;
};

struct CheckpointOptions {
  // Key of the dict that holds the weights inside the checkpoint ("state_dict",
  // "model", ...). Empty: the top level if it holds tensors, else the first of
  // state_dict, model_state_dict, model, net, network, params, weights that does.
  std::string nested_key;
  // Keep only keys that start with this prefix, with the prefix removed ("module.",
  // "matcher."). Empty: keep all keys.
  std::string strip_prefix;
};

// Loads a PyTorch zip checkpoint (.pth/.pt). Non-tensor entries are skipped.
StateDict loadTorchCheckpoint(const std::string& path, const CheckpointOptions& options = {});

// Same, from bytes already in memory (`source` names them in messages).
StateDict loadTorchCheckpointBytes(const std::string& bytes, const std::string& source,
                                   const CheckpointOptions& options = {});

// Loads a .safetensors file; only strip_prefix of `options` applies.
StateDict loadSafetensors(const std::string& path, const CheckpointOptions& options = {});
StateDict loadSafetensorsBytes(const std::string& bytes, const std::string& source,
                               const CheckpointOptions& options = {});

// Serialises tensors (made contiguous, copied to the CPU) in the .safetensors format.
std::string saveSafetensorsBytes(const std::map<std::string, at::Tensor>& tensors);

// Loads either format, recognised by content (not by extension). Throws ModelError
// when the file is neither, naming what it looks like instead.
StateDict loadStateDict(const std::string& path, const CheckpointOptions& options = {});

// Keeps the keys starting with `prefix`, with the prefix removed. Throws ModelError
// when no key has it.
StateDict stripPrefix(const StateDict& dict, const std::string& prefix);

// "[8, 3, 3, 3]"
std::string shapeToString(at::IntArrayRef shape);

// Assigns a state dict to a module's tensors by name, checking every key and shape, and
// reporting all problems of a file at once (missing keys, shape mismatches, unexpected
// keys) in one ModelError. Floating tensors are converted to `options` (dtype and
// device, e.g. float32 on cuda:0); integer tensors keep their dtype.
class StateDictBinder {
 public:
  StateDictBinder(const StateDict& dict, std::string model_name, at::TensorOptions options);

  // Expects `key` with `shape`; finish() stores the converted tensor in *target.
  void bind(const std::string& key, std::vector<int64_t> shape, at::Tensor* target);
  // Expects `key` with `shape` but does not use it (e.g. num_batches_tracked).
  void expect(const std::string& key, std::vector<int64_t> shape);

  // Checks everything registered against the dict, fills the targets, and throws
  // ModelError if anything did not fit. Call once, after the last bind().
  void finish();

 private:
  struct Binding {
    std::string key;
    std::vector<int64_t> shape;
    at::Tensor* target = nullptr;
  };
  const StateDict& dict_;
  std::string model_name_;
  at::TensorOptions options_;
  std::vector<Binding> bindings_;
};

}  // namespace skytrace::vision
