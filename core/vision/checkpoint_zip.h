// Read-only ZIP container reader for torch.save files (PyTorch's zip serialization).
// torch.save writes every entry STORED (uncompressed, 64-byte aligned); entries that are
// compressed are refused with a clear message instead of being inflated.
// Plain C++ (no torch). Thread: an instance may be read from several threads at once.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace skytrace::vision {

// CRC-32 (IEEE 802.3, the ZIP checksum) of `data`.
uint32_t crc32(std::string_view data);

class ZipArchive {
 public:
  // Parses the central directory of `bytes`, which must outlive this object.
  // `source` names the file in error messages. Throws ModelError when `bytes` is not
  // a ZIP archive or is truncated.
  ZipArchive(std::string_view bytes, std::string source);

  // Entry names in central-directory order.
  std::vector<std::string> entryNames() const;
  bool contains(const std::string& name) const;

  // Contents of a STORED entry, CRC-checked. Throws ModelError when the entry is
  // missing, compressed, truncated or its checksum does not match.
  std::string_view entry(const std::string& name) const;

  const std::string& source() const { return source_; }

 private:
  struct Entry {
    uint64_t local_header_offset = 0;
    uint64_t compressed_size = 0;
    uint64_t uncompressed_size = 0;
    uint16_t method = 0;
    uint32_t crc = 0;
  };

  void parseCentralDirectory();

  std::string_view bytes_;
  std::string source_;
  std::vector<std::string> order_;
  std::map<std::string, Entry> entries_;
};

}  // namespace skytrace::vision
