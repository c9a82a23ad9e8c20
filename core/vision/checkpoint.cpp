#include "core/vision/checkpoint_impl.h"

#include <cstring>
#include <sstream>

#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/vision/checkpoint_pickle_impl.h"
#include "core/vision/checkpoint_zip.h"

namespace skytrace::vision {
namespace {

using Kind = PickleValue::Kind;

std::string joined(const std::vector<std::string>& names, size_t limit = 12) {
  std::string text;
  for (size_t i = 0; i < names.size() && i < limit; ++i) text += (i ? ", " : "") + names[i];
  if (names.size() > limit) text += ", ... (" + std::to_string(names.size()) + " in all)";
  return text;
}

size_t tensorCount(const PickleValue& dict) {
  size_t n = 0;
  for (const auto& [key, value] : dict.entries)
    if (key->kind == Kind::String && value->kind == Kind::Tensor) ++n;
  return n;
}

std::vector<std::string> keyNames(const PickleValue& dict) {
  std::vector<std::string> names;
  for (const auto& entry : dict.entries)
    names.push_back(entry.first->kind == Kind::String ? "'" + entry.first->text + "'"
                                                      : entry.first->describe());
  return names;
}

// Picks the dict that holds the weights (see CheckpointOptions::nested_key).
const PickleValue& selectWeights(const PickleValue& root, const std::string& source,
                                 const std::string& nested_key) {
  if (root.kind != Kind::Dict)
    throw ModelError(source + ": the checkpoint holds a " + root.describe() +
                     ", not a dict of weights (a whole pickled model is not supported: save "
                     "model.state_dict() instead)");
  const auto find = [&root](const std::string& key) -> const PickleValue* {
    for (const auto& [k, v] : root.entries)
      if (k->kind == Kind::String && k->text == key && v->kind == Kind::Dict) return v.get();
    return nullptr;
  };
  if (!nested_key.empty()) {
    const PickleValue* nested = find(nested_key);
    if (!nested)
      throw ModelError(source + ": no dict under key '" + nested_key +
                       "' in the checkpoint; its top-level keys are " + joined(keyNames(root)));
    return *nested;
  }
  if (tensorCount(root) > 0) return root;
  for (const char* key :
       {"state_dict", "model_state_dict", "model", "net", "network", "params", "weights"}) {
    const PickleValue* nested = find(key);
    if (nested && tensorCount(*nested) > 0) return *nested;
  }
  throw ModelError(source + ": no tensors found in the checkpoint; its top-level keys are " +
                   joined(keyNames(root)) + " (name the key that holds the weights)");
}

StateDict finishSelection(StateDict dict, const CheckpointOptions& options) {
  if (options.strip_prefix.empty()) return dict;
  return stripPrefix(dict, options.strip_prefix);
}

}  // namespace

const at::Tensor& StateDict::at(const std::string& key) const {
  const auto it = tensors.find(key);
  if (it == tensors.end()) throw ModelError(source + ": no tensor named '" + key + "'");
  return it->second;
}

std::string shapeToString(at::IntArrayRef shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

StateDict loadTorchCheckpointBytes(const std::string& bytes, const std::string& source,
                                   const CheckpointOptions& options) {
  const ZipArchive archive(bytes, source);

  // All entries live under one folder named after the file at save time ("archive/").
  std::string prefix;
  bool found = false;
  for (const auto& name : archive.entryNames()) {
    const std::string suffix = "data.pkl";
    if (name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 &&
        (name.size() == suffix.size() || name[name.size() - suffix.size() - 1] == '/')) {
      prefix = name.substr(0, name.size() - suffix.size());
      found = true;
      break;
    }
  }
  if (!found)
    throw ModelError(source + ": a ZIP file but not a PyTorch checkpoint (no data.pkl entry)");
  if (archive.contains(prefix + "byteorder") && archive.entry(prefix + "byteorder") != "little")
    throw ModelError(source + ": big-endian checkpoints are not supported");

  const StorageLoader load_storage = [&](const std::string& key, at::ScalarType dtype,
                                         int64_t numel) {
    const std::string name = prefix + "data/" + key;
    if (!archive.contains(name))
      throw ModelError(source + ": tensor storage '" + name +
                       "' is missing from the archive (file truncated or damaged)");
    const std::string_view data = archive.entry(name);
    const size_t expected = static_cast<size_t>(numel) * c10::elementSize(dtype);
    if (data.size() < expected)
      throw ModelError(source + ": tensor storage '" + name + "' has " +
                       std::to_string(data.size()) + " bytes, expected " +
                       std::to_string(expected));
    at::Tensor storage = at::empty({numel}, at::TensorOptions().dtype(dtype));
    if (expected > 0) std::memcpy(storage.data_ptr(), data.data(), expected);
    return storage;
  };
  const PickleValuePtr root = unpickle(archive.entry(prefix + "data.pkl"), load_storage, source);
  const PickleValue& weights = selectWeights(*root, source, options.nested_key);

  StateDict dict;
  dict.source = source;
  for (const auto& [key, value] : weights.entries)
    if (key->kind == Kind::String && value->kind == Kind::Tensor)
      dict.tensors[key->text] = value->tensor;
  return finishSelection(std::move(dict), options);
}

StateDict loadTorchCheckpoint(const std::string& path, const CheckpointOptions& options) {
  std::string bytes;
  try {
    bytes = readFileBytes(path);
  } catch (const IoError& e) {
    throw ModelError(std::string("cannot read weights: ") + e.what());
  }
  return loadTorchCheckpointBytes(bytes, path, options);
}

StateDict loadStateDict(const std::string& path, const CheckpointOptions& options) {
  std::string bytes;
  try {
    bytes = readFileBytes(path);
  } catch (const IoError& e) {
    throw ModelError(std::string("cannot read weights: ") + e.what());
  }
  if (bytes.size() >= 4 && std::memcmp(bytes.data(), "PK\x03\x04", 4) == 0)
    return loadTorchCheckpointBytes(bytes, path, options);
  if (bytes.size() >= 9 && bytes[8] == '{') return loadSafetensorsBytes(bytes, path, options);
  if (bytes.size() >= 2 && static_cast<uint8_t>(bytes[0]) == 0x80 &&
      bytes.find("\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19") != std::string::npos)
    throw ModelError(path +
                     ": a legacy (pre-1.6, non-zip) torch.save file; re-save it with a "
                     "current PyTorch (torch.save(torch.load(f), f2)) or as .safetensors");
  std::string what = "an empty file";
  if (!bytes.empty()) {
    if (bytes.rfind("\x89PNG", 0) == 0) what = "a PNG image";
    else if (bytes.rfind("\xFF\xD8\xFF", 0) == 0) what = "a JPEG image";
    else if (bytes.rfind("\x08\x01\x12", 0) == 0 || bytes.find("onnx") != std::string::npos)
      what = "possibly an ONNX model";
    else what = "unrecognised content";
  }
  throw ModelError(path + ": not a PyTorch checkpoint (zip) nor a .safetensors file (" + what +
                   ")");
}

StateDict stripPrefix(const StateDict& dict, const std::string& prefix) {
  StateDict out;
  out.source = dict.source;
  for (const auto& [key, tensor] : dict.tensors)
    if (key.rfind(prefix, 0) == 0) out.tensors[key.substr(prefix.size())] = tensor;
  if (out.tensors.empty()) {
    std::vector<std::string> names;
    for (const auto& entry : dict.tensors) names.push_back(entry.first);
    throw ModelError(dict.source + ": no weight name starts with '" + prefix +
                     "'; names look like " + joined(names, 5));
  }
  return out;
}

// --- StateDictBinder --------------------------------------------------------------

StateDictBinder::StateDictBinder(const StateDict& dict, std::string model_name,
                                 at::TensorOptions options)
    : dict_(dict), model_name_(std::move(model_name)), options_(options) {}

void StateDictBinder::bind(const std::string& key, std::vector<int64_t> shape,
                           at::Tensor* target) {
  bindings_.push_back({key, std::move(shape), target});
}

void StateDictBinder::expect(const std::string& key, std::vector<int64_t> shape) {
  bindings_.push_back({key, std::move(shape), nullptr});
}

void StateDictBinder::finish() {
  std::vector<std::string> missing, mismatched, unexpected;
  std::map<std::string, bool> used;
  for (const auto& binding : bindings_) {
    used[binding.key] = true;
    const auto it = dict_.tensors.find(binding.key);
    if (it == dict_.tensors.end()) {
      missing.push_back(binding.key + " " + shapeToString(binding.shape));
      continue;
    }
    if (it->second.sizes() != at::IntArrayRef(binding.shape))
      mismatched.push_back(binding.key + ": expected " + shapeToString(binding.shape) +
                           ", found " + shapeToString(it->second.sizes()));
  }
  for (const auto& entry : dict_.tensors)
    if (!used.count(entry.first)) unexpected.push_back(entry.first);

  if (!missing.empty() || !mismatched.empty() || !unexpected.empty()) {
    std::ostringstream text;
    text << dict_.source << ": weights do not fit model " << model_name_ << ":";
    if (!mismatched.empty()) text << " shape mismatch: " << joined(mismatched) << ";";
    if (!missing.empty()) text << " missing keys: " << joined(missing) << ";";
    if (!unexpected.empty()) text << " unexpected keys: " << joined(unexpected) << ";";
    text << " (is this the right file for " << model_name_ << "?)";
    throw ModelError(text.str());
  }
  for (const auto& binding : bindings_) {
    if (!binding.target) continue;
    const at::Tensor& stored = dict_.tensors.at(binding.key);
    at::TensorOptions options = options_;
    if (!at::isFloatingType(stored.scalar_type())) options = options.dtype(stored.scalar_type());
    // Own, contiguous copy: never alias the file's storages (they may be shared).
    *binding.target = stored.to(options, /*non_blocking=*/false, /*copy=*/true).contiguous();
  }
}

}  // namespace skytrace::vision
