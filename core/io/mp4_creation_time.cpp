#include "core/io/mp4_creation_time.h"

#include <algorithm>
#include <cstdint>
#include <fstream>

namespace skytrace::io {
namespace {

// Seconds from 1904-01-01 to 1970-01-01 (66 years, 17 of them leap years).
constexpr double kMp4EpochToUnixS = 2082844800.0;
constexpr double kEarliestUnixS = 631152000.0;   // 1990-01-01
constexpr double kLatestUnixS = 4102444800.0;    // 2100-01-01
constexpr std::uint64_t kMaxMoovBytes = 64ull << 20;

std::uint64_t bigEndian(std::string_view bytes, std::size_t at, int count) {
  std::uint64_t value = 0;
  for (int i = 0; i < count; ++i) value = (value << 8) | static_cast<unsigned char>(bytes[at + std::size_t(i)]);
  return value;
}

// One box header at `at` of `bytes`, in a file or box that ends at `end` (`bytes` may
// hold only the header): its type, total size (a size of 0 runs to `end`) and header
// length. False when the header is cut short or the size does not fit.
bool boxHeader(std::string_view bytes, std::size_t at, std::uint64_t end, std::string* type,
               std::uint64_t* size, std::size_t* header) {
  if (at + 8 > end) return false;
  *size = bigEndian(bytes, at, 4);
  *type = std::string(bytes.substr(at + 4, 4));
  *header = 8;
  if (*size == 1) {
    if (at + 16 > end) return false;
    *size = bigEndian(bytes, at + 8, 8);
    *header = 16;
  } else if (*size == 0) {
    *size = end - at;
  }
  return *size >= *header && *size <= end - at;
}

// The creation time of the 'mvhd' box starting at `at` (its header `header` bytes).
std::optional<double> mvhdCreation(std::string_view bytes, std::size_t at, std::size_t header, std::uint64_t size) {
  const std::size_t body = at + header;
  if (size < header + 8) return std::nullopt;
  const int version = static_cast<unsigned char>(bytes[body]);
  std::uint64_t seconds = 0;
  if (version == 1) {
    if (size < header + 4 + 8) return std::nullopt;
    seconds = bigEndian(bytes, body + 4, 8);
  } else {
    seconds = bigEndian(bytes, body + 4, 4);
  }
  const double unix_s = double(seconds) - kMp4EpochToUnixS;
  if (seconds == 0 || unix_s < kEarliestUnixS || unix_s > kLatestUnixS) return std::nullopt;
  return unix_s;
}

// The first box of `type` among the boxes in [begin, end) of `bytes`: its start, header
// length and size; nullopt when none comes before the boxes end or break off.
struct BoxPlace {
  std::size_t at = 0, header = 0;
  std::uint64_t size = 0;
};
std::optional<BoxPlace> findBox(std::string_view bytes, std::size_t begin, std::uint64_t end, const char* type) {
  BoxPlace box;
  box.at = begin;
  std::string found;
  while (boxHeader(bytes, box.at, end, &found, &box.size, &box.header)) {
    if (found == type) return box;
    box.at += std::size_t(box.size);
  }
  return std::nullopt;
}

// The 'mvhd' inside a 'moov' box's body [begin, end).
std::optional<double> creationInMoov(std::string_view bytes, std::size_t begin, std::uint64_t end) {
  const std::optional<BoxPlace> mvhd = findBox(bytes, begin, end, "mvhd");
  return mvhd ? mvhdCreation(bytes, mvhd->at, mvhd->header, mvhd->size) : std::nullopt;
}

}  // namespace

std::optional<double> mp4CreationUnixSeconds(std::string_view bytes) {
  const std::optional<BoxPlace> moov = findBox(bytes, 0, bytes.size(), "moov");
  return moov ? creationInMoov(bytes, moov->at + moov->header, moov->at + moov->size) : std::nullopt;
}

std::optional<double> readMp4CreationUnixSeconds(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  in.seekg(0, std::ios::end);
  const std::uint64_t file_size = std::uint64_t(in.tellg());
  std::uint64_t at = 0;
  // Top-level boxes: read each header, skip the body (the media data is most of the
  // file), until 'moov'; then read that box whole and parse it in memory.
  while (at + 8 <= file_size) {
    char head[16];
    in.seekg(std::streamoff(at));
    const std::size_t head_size = std::size_t(std::min<std::uint64_t>(16, file_size - at));
    if (!in.read(head, std::streamsize(head_size))) return std::nullopt;
    std::string type;
    std::uint64_t size = 0;
    std::size_t header = 0;
    if (!boxHeader(std::string_view(head, head_size), 0, file_size - at, &type, &size, &header)) return std::nullopt;
    if (type == "moov") {
      if (size > kMaxMoovBytes) return std::nullopt;
      std::string moov(std::size_t(size), '\0');
      in.seekg(std::streamoff(at));
      if (!in.read(moov.data(), std::streamsize(size))) return std::nullopt;
      return creationInMoov(moov, header, size);
    }
    at += size;
  }
  return std::nullopt;
}

}  // namespace skytrace::io
