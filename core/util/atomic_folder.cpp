#include "core/util/atomic_folder.h"

#include <fcntl.h>
#include <stdio.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <sstream>
#include <system_error>

#include "core/util/error.h"
#include "core/util/remove_tree.h"

namespace skytrace {
namespace fs = std::filesystem;

namespace {

fs::path stagingSibling(const fs::path& target) {
  std::random_device rd;
  std::ostringstream name;
  name << "." << target.filename().string() << ".partial-" << std::hex << rd() << rd();
  return target.parent_path() / name.str();
}

bool isEmptyFolder(const fs::path& folder) {
  std::error_code ec;
  return fs::is_directory(folder, ec) && fs::directory_iterator(folder, ec) == fs::directory_iterator();
}

}  // namespace

AtomicFolder::AtomicFolder(fs::path target, std::string marker_file)
    : target_(fs::absolute(std::move(target)).lexically_normal()),
      marker_file_(std::move(marker_file)) {
  if (target_.filename().empty()) target_ = target_.parent_path();  // "out/" -> "out"
  const fs::path parent = target_.parent_path();
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) {
    throw IoError("cannot write the results folder " + target_.string() + ": cannot create " +
                  parent.string() + " (" + ec.message() + ")");
  }
  if (fs::exists(target_, ec)) {
    if (!fs::is_directory(target_, ec)) {
      throw IoError("cannot write the results folder " + target_.string() +
                    ": a file of that name exists; choose another folder");
    }
    if (!isEmptyFolder(target_) && !fs::exists(target_ / marker_file_, ec)) {
      throw IoError("cannot write the results folder " + target_.string() +
                    ": it exists and holds files that are not results (no " + marker_file_ +
                    "); choose a new or empty folder, or a previous results folder");
    }
  }
  staging_ = stagingSibling(target_);
  if (!fs::create_directory(staging_, ec) || ec) {
    throw IoError("cannot write the results folder " + target_.string() + ": cannot create " +
                  staging_.string() + " (" + (ec ? ec.message() : std::string("it exists")) +
                  "; is " + parent.string() + " writable?)");
  }
}

AtomicFolder::~AtomicFolder() {
  if (!committed_) {
    removeTree(staging_);
  }
}

void AtomicFolder::commit() {
  std::error_code ec;
  if (!fs::exists(staging_ / marker_file_, ec)) {
    throw IoError("cannot write the results folder " + target_.string() + ": " + marker_file_ +
                  " was not written");
  }
  if (!fs::exists(target_, ec)) {
    fs::rename(staging_, target_, ec);
    if (ec) throw IoError("cannot create the results folder " + target_.string() + ": " + ec.message());
    committed_ = true;
    return;
  }
  // Swap both names in one step; afterwards staging_ names the previous results.
  if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) != 0) {
    const int error = errno;
    if (error != EINVAL && error != ENOSYS) {
      throw IoError("cannot replace the results folder " + target_.string() + ": " +
                    std::strerror(error));
    }
    // A file system without exchange: move the previous results aside first.
    const fs::path aside = stagingSibling(target_);
    fs::rename(target_, aside, ec);
    if (ec) throw IoError("cannot replace the results folder " + target_.string() + ": " + ec.message());
    fs::rename(staging_, target_, ec);
    if (ec) {
      std::error_code restore;
      fs::rename(aside, target_, restore);
      throw IoError("cannot replace the results folder " + target_.string() + ": " + ec.message());
    }
    staging_ = aside;
  }
  committed_ = true;
  removeTree(staging_);  // the previous results; a leftover is harmless
}

}  // namespace skytrace
