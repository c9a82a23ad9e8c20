#include "core/util/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <system_error>

#include "core/util/error.h"

namespace skytrace {
namespace fs = std::filesystem;

namespace {
fs::path makeTemporarySibling(const fs::path& target) {
  std::random_device rd;
  std::ostringstream name;
  name << "." << target.stem().string() << ".tmp" << std::hex << rd() << rd()
       << target.extension().string();
  return target.parent_path() / name.str();
}
}  // namespace

AtomicFile::AtomicFile(fs::path target)
    : target_(std::move(target)), temporary_(makeTemporarySibling(target_)) {
  const fs::path folder = target_.parent_path().empty() ? fs::path(".") : target_.parent_path();
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    throw IoError("cannot write " + target_.string() + ": folder " + folder.string() +
                  " does not exist");
  }
}

AtomicFile::~AtomicFile() {
  if (!committed_) {
    std::error_code ec;
    fs::remove(temporary_, ec);
  }
}

void AtomicFile::commit() {
  std::error_code ec;
  if (!fs::exists(temporary_, ec)) {
    throw IoError("cannot write " + target_.string() + ": nothing was written");
  }
  // The bytes reach the disk before the name moves: a full disk or an I/O error that
  // the writer's buffered writes did not report shows here, with the old file intact.
  const int fd = ::open(temporary_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    const int error = errno;
    if (fd >= 0) ::close(fd);
    throw IoError("cannot write " + target_.string() + ": " + std::strerror(error));
  }
  ::close(fd);
  fs::rename(temporary_, target_, ec);
  if (ec) {
    throw IoError("cannot replace " + target_.string() + ": " + ec.message());
  }
  committed_ = true;
}

void writeFileAtomically(const fs::path& target, const std::string& bytes) {
  AtomicFile file(target);
  {
    std::ofstream out(file.temporaryPath(), std::ios::binary | std::ios::trunc);
    if (!out) throw IoError("cannot write " + target.string() + ": cannot create temporary file");
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) throw IoError("cannot write " + target.string() + ": write failed (disk full?)");
  }
  file.commit();
}

std::string readFileBytes(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw IoError(path.string() + ": file not found");
  if (fs::is_directory(path, ec)) throw IoError(path.string() + ": is a folder, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError(path.string() + ": cannot open for reading (permissions?)");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace skytrace
