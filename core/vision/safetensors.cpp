// .safetensors: 8-byte little-endian header length N, N bytes of JSON
// {"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, "__metadata__": {..}},
// then the raw little-endian tensor bytes (offsets relative to the end of the header).
#include <nlohmann/json.hpp>

#include <cstring>

#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/json_integer.h"
#include "core/vision/checkpoint_impl.h"

namespace skytrace::vision {
namespace {

const std::map<std::string, at::ScalarType>& safetensorsTypes() {
  static const std::map<std::string, at::ScalarType> types = {
      {"F64", at::kDouble}, {"F32", at::kFloat}, {"F16", at::kHalf},  {"BF16", at::kBFloat16},
      {"I64", at::kLong},   {"I32", at::kInt},   {"I16", at::kShort}, {"I8", at::kChar},
      {"U8", at::kByte},    {"BOOL", at::kBool},
  };
  return types;
}

std::string typeName(at::ScalarType type) {
  for (const auto& [name, t] : safetensorsTypes())
    if (t == type) return name;
  throw InvalidArgument(std::string("safetensors cannot store tensors of type ") +
                        c10::toString(type));
}

}  // namespace

StateDict loadSafetensorsBytes(const std::string& bytes, const std::string& source,
                               const CheckpointOptions& options) {
  const auto fail = [&source](const std::string& why) -> ModelError {
    return ModelError(source + ": not a readable .safetensors file: " + why);
  };
  if (bytes.size() < 8) throw fail("file truncated (no header length)");
  uint64_t header_size = 0;
  for (int i = 7; i >= 0; --i) header_size = (header_size << 8) | static_cast<uint8_t>(bytes[i]);
  if (header_size > bytes.size() - 8)
    throw fail("file truncated (header of " + std::to_string(header_size) + " bytes, file of " +
               std::to_string(bytes.size()) + ")");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(bytes.begin() + 8,
                                   bytes.begin() + 8 + static_cast<std::ptrdiff_t>(header_size));
  } catch (const nlohmann::json::exception& e) {
    throw fail(std::string("header is not valid JSON (") + e.what() + ")");
  }
  if (!header.is_object()) throw fail("header is not a JSON object");
  const size_t data_begin = 8 + header_size;
  const size_t data_size = bytes.size() - data_begin;

  StateDict dict;
  dict.source = source;
  for (const auto& [name, info] : header.items()) {
    if (name == "__metadata__") continue;
    try {
      const std::string dtype_name = info.at("dtype").get<std::string>();
      const auto type = safetensorsTypes().find(dtype_name);
      if (type == safetensorsTypes().end())
        throw fail("tensor '" + name + "' has unsupported dtype " + dtype_name);
      std::vector<int64_t> shape;
      std::vector<uint64_t> offsets;
      try {
        shape = jsonIntegers<int64_t>(info.at("shape"), "the shape of '" + name + "'");
        offsets = jsonIntegers<uint64_t>(info.at("data_offsets"), "the data_offsets of '" + name + "'");
      } catch (const FormatError& e) {
        throw fail(e.what());
      }
      if (offsets.size() != 2 || offsets[0] > offsets[1])
        throw fail("tensor '" + name + "' has malformed data_offsets");
      // The byte count of the shape, refused before it can overflow: no tensor here is
      // larger than the file that holds it.
      uint64_t expected = c10::elementSize(type->second);
      bool empty = false;
      for (int64_t s : shape) {
        if (s < 0) throw fail("tensor '" + name + "' has a negative size");
        empty = empty || s == 0;
      }
      for (int64_t s : shape) {
        if (empty) {
          expected = 0;
          break;
        }
        if (static_cast<uint64_t>(s) > data_size / expected)
          throw fail("tensor '" + name + "' of shape " + shapeToString(shape) +
                     " is larger than the file's " + std::to_string(data_size) + " data bytes");
        expected *= static_cast<uint64_t>(s);
      }
      if (offsets[1] - offsets[0] != expected)
        throw fail("tensor '" + name + "' of shape " + shapeToString(shape) + " needs " +
                   std::to_string(expected) + " bytes, its data_offsets give " +
                   std::to_string(offsets[1] - offsets[0]));
      if (offsets[1] > data_size)
        throw fail("file truncated: tensor '" + name + "' ends at byte " +
                   std::to_string(data_begin + offsets[1]) + " of " +
                   std::to_string(bytes.size()));
      at::Tensor tensor = at::empty(shape, at::TensorOptions().dtype(type->second));
      if (expected > 0) std::memcpy(tensor.data_ptr(), bytes.data() + data_begin + offsets[0], expected);
      dict.tensors[name] = tensor;
    } catch (const nlohmann::json::exception& e) {
      throw fail("tensor '" + name + "' has a malformed header entry (" + e.what() + ")");
    }
  }
  if (!options.strip_prefix.empty()) return stripPrefix(dict, options.strip_prefix);
  return dict;
}

StateDict loadSafetensors(const std::string& path, const CheckpointOptions& options) {
  std::string bytes;
  try {
    bytes = readFileBytes(path);
  } catch (const IoError& e) {
    throw ModelError(std::string("cannot read weights: ") + e.what());
  }
  return loadSafetensorsBytes(bytes, path, options);
}

std::string saveSafetensorsBytes(const std::map<std::string, at::Tensor>& tensors) {
  nlohmann::json header = nlohmann::json::object();
  std::vector<at::Tensor> contiguous;
  uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    at::Tensor host = tensor.to(at::kCPU).contiguous();
    const uint64_t size = static_cast<uint64_t>(host.numel()) * host.element_size();
    header[name] = {{"dtype", typeName(host.scalar_type())},
                    {"shape", host.sizes().vec()},
                    {"data_offsets", {offset, offset + size}}};
    offset += size;
    contiguous.push_back(host);
  }
  std::string json = header.dump();
  while ((8 + json.size()) % 8 != 0) json.push_back(' ');  // aligned data, as the spec advises
  std::string out(8, '\0');
  uint64_t n = json.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
  out += json;
  for (const auto& host : contiguous)
    out.append(static_cast<const char*>(host.data_ptr()), host.numel() * host.element_size());
  return out;
}

}  // namespace skytrace::vision
