// Atomic folder replacement, for results folders: everything is written into a staging
// folder beside the target, and commit() puts that folder in the target's place in one
// step, so that a folder never mixes files of two runs and a failed or cancelled write
// never destroys the previous results.
#pragma once

#include <filesystem>
#include <string>

namespace skytrace {

// Thread: one instance per write, used from one thread at a time.
class AtomicFolder {
 public:
  // Creates the target's parent folders and the staging folder (".<name>.partial-XXXX"
  // beside the target). Throws IoError naming the folder when the parent cannot be
  // created or written, and when the target exists but is neither empty nor a folder
  // written by a previous commit (holding `marker_file`): replacing it would delete
  // files that are not results. Checks this before any work, so a bad --out fails first.
  AtomicFolder(std::filesystem::path target, std::string marker_file);
  ~AtomicFolder();  // removes the staging folder unless committed
  AtomicFolder(const AtomicFolder&) = delete;
  AtomicFolder& operator=(const AtomicFolder&) = delete;

  // Where the writer puts its files.
  const std::filesystem::path& stagingPath() const { return staging_; }
  const std::filesystem::path& targetPath() const { return target_; }

  // Puts the staging folder in the target's place: renameat2(RENAME_EXCHANGE) when the
  // target exists (no moment without a target), then removes the previous contents.
  // The staging folder must hold `marker_file`. Throws IoError; the target is unchanged
  // when it throws.
  void commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path staging_;
  std::string marker_file_;
  bool committed_ = false;
};

}  // namespace skytrace
