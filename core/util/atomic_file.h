// Atomic file replacement: write to a temporary sibling, then rename over the target.
// A failed or cancelled write never destroys an existing file at the target path.
#pragma once

#include <filesystem>
#include <string>

namespace skytrace {

// Holds a temporary path next to `target`. commit() renames it onto `target`; if the
// object is destroyed without commit() the temporary file is removed.
// Not thread-safe; use one instance per write.
class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path target);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Where the writer should put its bytes (same folder and extension as the target,
  // so format drivers that look at the extension still work).
  const std::filesystem::path& temporaryPath() const { return temporary_; }
  const std::filesystem::path& targetPath() const { return target_; }

  // Flushes the temporary file to disk (fsync), then renames it over the target.
  // Throws IoError on failure (the target is then unchanged).
  void commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path temporary_;
  bool committed_ = false;
};

// Convenience: atomically writes `bytes` to `target`. Throws IoError.
void writeFileAtomically(const std::filesystem::path& target, const std::string& bytes);

// Reads a whole file. Throws IoError naming the file when it cannot be read.
std::string readFileBytes(const std::filesystem::path& path);

}  // namespace skytrace
