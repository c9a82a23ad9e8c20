#include "core/vision/checkpoint_zip.h"

#include <array>
#include <cstring>

#include "core/util/error.h"

namespace skytrace::vision {
namespace {

constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr uint32_t kCentralHeaderSignature = 0x02014b50;
constexpr uint32_t kEndOfCentralDirSignature = 0x06054b50;
constexpr uint32_t kZip64EndOfCentralDirSignature = 0x06064b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr size_t kEndOfCentralDirSize = 22;
constexpr size_t kMaxCommentSize = 0xFFFF;

uint16_t readU16(std::string_view bytes, uint64_t at) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + at);
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}

uint32_t readU32(std::string_view bytes, uint64_t at) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + at);
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

uint64_t readU64(std::string_view bytes, uint64_t at) {
  return static_cast<uint64_t>(readU32(bytes, at)) |
         (static_cast<uint64_t>(readU32(bytes, at + 4)) << 32);
}

const std::array<uint32_t, 256>& crcTable() {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  return table;
}

}  // namespace

uint32_t crc32(std::string_view data) {
  const auto& table = crcTable();
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char byte : data) c = table[(c ^ byte) & 0xFFu] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

ZipArchive::ZipArchive(std::string_view bytes, std::string source)
    : bytes_(bytes), source_(std::move(source)) {
  parseCentralDirectory();
}

void ZipArchive::parseCentralDirectory() {
  const auto fail = [this](const std::string& why) -> void {
    throw ModelError(source_ + ": not a readable PyTorch checkpoint (zip container): " + why);
  };
  if (bytes_.size() < 4 || readU32(bytes_, 0) != kLocalHeaderSignature)
    fail("the file does not start with a ZIP header");
  if (bytes_.size() < kEndOfCentralDirSize) fail("file truncated (no end-of-central-directory)");

  // The end-of-central-directory record sits in the last 22 + comment bytes.
  uint64_t eocd = 0;
  bool found = false;
  const uint64_t lowest =
      bytes_.size() > kEndOfCentralDirSize + kMaxCommentSize
          ? bytes_.size() - kEndOfCentralDirSize - kMaxCommentSize
          : 0;
  for (uint64_t at = bytes_.size() - kEndOfCentralDirSize + 1; at-- > lowest;) {
    if (readU32(bytes_, at) == kEndOfCentralDirSignature) {
      eocd = at;
      found = true;
      break;
    }
  }
  if (!found) fail("file truncated (end-of-central-directory record not found)");

  uint64_t entry_count = readU16(bytes_, eocd + 10);
  uint64_t directory_size = readU32(bytes_, eocd + 12);
  uint64_t directory_offset = readU32(bytes_, eocd + 16);
  if (entry_count == 0xFFFF || directory_size == 0xFFFFFFFFu || directory_offset == 0xFFFFFFFFu) {
    // ZIP64: a locator just before the classic record points at the 64-bit record.
    if (eocd < 20 || readU32(bytes_, eocd - 20) != kZip64LocatorSignature)
      fail("ZIP64 locator missing");
    const uint64_t record = readU64(bytes_, eocd - 20 + 8);
    if (record + 56 > bytes_.size() || readU32(bytes_, record) != kZip64EndOfCentralDirSignature)
      fail("ZIP64 end-of-central-directory record missing");
    entry_count = readU64(bytes_, record + 32);
    directory_size = readU64(bytes_, record + 40);
    directory_offset = readU64(bytes_, record + 48);
  }
  if (directory_offset + directory_size > bytes_.size())
    fail("file truncated (central directory beyond the end of the file)");

  uint64_t at = directory_offset;
  for (uint64_t i = 0; i < entry_count; ++i) {
    if (at + 46 > bytes_.size() || readU32(bytes_, at) != kCentralHeaderSignature)
      fail("corrupt central directory (entry " + std::to_string(i) + ")");
    Entry entry;
    entry.method = readU16(bytes_, at + 10);
    entry.crc = readU32(bytes_, at + 16);
    entry.compressed_size = readU32(bytes_, at + 20);
    entry.uncompressed_size = readU32(bytes_, at + 24);
    const uint16_t name_length = readU16(bytes_, at + 28);
    const uint16_t extra_length = readU16(bytes_, at + 30);
    const uint16_t comment_length = readU16(bytes_, at + 32);
    entry.local_header_offset = readU32(bytes_, at + 42);
    if (at + 46 + name_length + extra_length + comment_length > bytes_.size())
      fail("corrupt central directory (entry " + std::to_string(i) + " runs past the end)");
    std::string name(bytes_.substr(at + 46, name_length));

    // ZIP64 extended information: 64-bit fields replace those saturated at 0xFFFFFFFF.
    uint64_t extra = at + 46 + name_length;
    const uint64_t extra_end = extra + extra_length;
    while (extra + 4 <= extra_end) {
      const uint16_t id = readU16(bytes_, extra);
      const uint16_t size = readU16(bytes_, extra + 2);
      if (id == 0x0001) {
        uint64_t field = extra + 4;
        const uint64_t field_end = field + size;
        if (entry.uncompressed_size == 0xFFFFFFFFu && field + 8 <= field_end) {
          entry.uncompressed_size = readU64(bytes_, field);
          field += 8;
        }
        if (entry.compressed_size == 0xFFFFFFFFu && field + 8 <= field_end) {
          entry.compressed_size = readU64(bytes_, field);
          field += 8;
        }
        if (entry.local_header_offset == 0xFFFFFFFFu && field + 8 <= field_end)
          entry.local_header_offset = readU64(bytes_, field);
      }
      extra += 4 + size;
    }
    at += 46 + name_length + extra_length + comment_length;
    order_.push_back(name);
    entries_[name] = entry;
  }
}

std::vector<std::string> ZipArchive::entryNames() const { return order_; }

bool ZipArchive::contains(const std::string& name) const { return entries_.count(name) > 0; }

std::string_view ZipArchive::entry(const std::string& name) const {
  const auto it = entries_.find(name);
  if (it == entries_.end())
    throw ModelError(source_ + ": checkpoint entry '" + name + "' is missing from the archive");
  const Entry& e = it->second;
  if (e.method != 0)
    throw ModelError(source_ + ": checkpoint entry '" + name + "' is compressed (ZIP method " +
                     std::to_string(e.method) +
                     "); torch.save writes uncompressed entries: re-save the weights with "
                     "torch.save or convert them to .safetensors");
  const uint64_t header = e.local_header_offset;
  if (header + 30 > bytes_.size() || readU32(bytes_, header) != kLocalHeaderSignature)
    throw ModelError(source_ + ": checkpoint entry '" + name +
                     "' has a corrupt local header (file truncated or damaged)");
  const uint64_t data = header + 30 + readU16(bytes_, header + 26) + readU16(bytes_, header + 28);
  if (data + e.uncompressed_size > bytes_.size())
    throw ModelError(source_ + ": file truncated: entry '" + name + "' needs " +
                     std::to_string(e.uncompressed_size) + " bytes at offset " +
                     std::to_string(data) + " but the file has " +
                     std::to_string(bytes_.size()) + " bytes");
  const std::string_view content = bytes_.substr(data, e.uncompressed_size);
  if (crc32(content) != e.crc)
    throw ModelError(source_ + ": checkpoint entry '" + name +
                     "' fails its CRC-32 check (file damaged)");
  return content;
}

}  // namespace skytrace::vision
