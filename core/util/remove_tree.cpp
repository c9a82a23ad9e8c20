#include "core/util/remove_tree.h"

#include <ftw.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>

namespace skytrace {
namespace {

// Children before their folder (FTW_DEPTH); a failure does not stop the walk, so that
// whatever can be removed is.
int removeEntry(const char* path, const struct stat*, int, struct FTW*) {
  std::remove(path);
  return 0;
}

}  // namespace

bool removeTree(const std::filesystem::path& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) return errno == ENOENT;
  ::nftw(path.c_str(), removeEntry, 16, FTW_DEPTH | FTW_PHYS);
  return ::lstat(path.c_str(), &info) != 0 && errno == ENOENT;
}

}  // namespace skytrace
