// Internal: a restricted pickle reader for the data.pkl of torch.save archives.
// It understands the opcodes of protocols 2-4 that state dicts use and rebuilds
// tensors from their storages; any other callable becomes an opaque Object (never
// executed). Errors (unknown opcode, malformed program, bad storage reference) are
// ModelError naming the source file and the byte offset.
#pragma once

#include <ATen/ATen.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace skytrace::vision {

struct PickleValue;
using PickleValuePtr = std::shared_ptr<PickleValue>;

struct PickleValue {
  enum class Kind { None, Bool, Int, Float, String, Bytes, Tuple, List, Dict, Global, Tensor, Object };

  Kind kind = Kind::None;
  bool boolean = false;
  int64_t integer = 0;
  double real = 0.0;
  std::string text;                   // String, Bytes; Global and Object: "module.name"
  std::vector<PickleValuePtr> items;  // Tuple, List; Object: its arguments
  std::vector<std::pair<PickleValuePtr, PickleValuePtr>> entries;  // Dict, in order
  at::Tensor tensor;                  // Tensor (also a storage: 1-D, its dtype)

  std::string describe() const;  // short human-readable kind ("dict", "tensor", ...)
};

// Returns the storage tensor (1-D, `numel` elements of `dtype`) named `key` in the
// archive; called once per key, results are shared between tensors.
using StorageLoader =
    std::function<at::Tensor(const std::string& key, at::ScalarType dtype, int64_t numel)>;

PickleValuePtr unpickle(std::string_view program, const StorageLoader& load_storage,
                        const std::string& source);

}  // namespace skytrace::vision
