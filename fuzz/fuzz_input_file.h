// For readers that take a path: the fuzz input as a file. In GDAL's memory file system
// (/vsimem/) for readers that open files through GDAL, else in a per-process temporary
// file rewritten for each input.
#pragma once

#include <cpl_error.h>
#include <cpl_vsi.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace skytrace::fuzz {

// Holds `data` at a /vsimem/ path with the given extension until destroyed.
class MemoryFile {
 public:
  MemoryFile(const std::uint8_t* data, std::size_t size, const std::string& extension)
      : path_("/vsimem/fuzz." + extension) {
    VSILFILE* file = VSIFileFromMemBuffer(path_.c_str(), const_cast<GByte*>(data), size, /*take=*/FALSE);
    if (file) VSIFCloseL(file);
  }
  ~MemoryFile() { VSIUnlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Writes `data` to /tmp/skytrace-fuzz-<pid>.<extension> and returns the path.
inline std::string writeTemporaryFile(const std::uint8_t* data, std::size_t size, const std::string& extension) {
  const std::string path = "/tmp/skytrace-fuzz-" + std::to_string(getpid()) + "." + extension;
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    if (size > 0) std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  return path;
}

}  // namespace skytrace::fuzz

// GDAL prints every parse error of every input: keep the fuzzer's output readable (the
// errors still reach our readers through CPLGetLastErrorMsg).
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  CPLSetErrorHandler(CPLQuietErrorHandler);
  return 0;
}
