#include "core/io/telemetry/ulog_reader.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>

#include "core/io/telemetry/parse_support.h"
#include "core/util/error.h"

namespace skytrace::io {

namespace {

constexpr unsigned char kMagic[7] = {'U', 'L', 'o', 'g', 0x01, 0x12, 0x35};
constexpr unsigned char kSyncMagic[8] = {0x2F, 0x73, 0x13, 0x20, 0x25, 0x0C, 0xBB, 0x12};
constexpr std::size_t kHeaderSize = 16;
constexpr std::size_t kMessageHeaderSize = 3;
constexpr int kMaxNesting = 16;
constexpr std::size_t kMaxOmittedPadding = 8;  // alignment padding PX4 may leave out of data

struct PrimitiveInfo {
  const char* name;
  ULogType type;
  std::size_t size;
};
constexpr PrimitiveInfo kPrimitives[] = {
    {"int8_t", ULogType::Int8, 1},     {"uint8_t", ULogType::UInt8, 1},
    {"int16_t", ULogType::Int16, 2},   {"uint16_t", ULogType::UInt16, 2},
    {"int32_t", ULogType::Int32, 4},   {"uint32_t", ULogType::UInt32, 4},
    {"int64_t", ULogType::Int64, 8},   {"uint64_t", ULogType::UInt64, 8},
    {"float", ULogType::Float, 4},     {"double", ULogType::Double, 8},
    {"bool", ULogType::Bool, 1},       {"char", ULogType::Char, 1},
};

const PrimitiveInfo* primitive(std::string_view name) {
  for (const PrimitiveInfo& p : kPrimitives)
    if (name == p.name) return &p;
  return nullptr;
}

double decodeScalar(ULogType type, const unsigned char* p) {
  switch (type) {
    case ULogType::Int8: return detail::loadLittleEndian<std::int8_t>(p);
    case ULogType::UInt8: return detail::loadLittleEndian<std::uint8_t>(p);
    case ULogType::Int16: return detail::loadLittleEndian<std::int16_t>(p);
    case ULogType::UInt16: return detail::loadLittleEndian<std::uint16_t>(p);
    case ULogType::Int32: return detail::loadLittleEndian<std::int32_t>(p);
    case ULogType::UInt32: return detail::loadLittleEndian<std::uint32_t>(p);
    case ULogType::Int64: return static_cast<double>(detail::loadLittleEndian<std::int64_t>(p));
    case ULogType::UInt64: return static_cast<double>(detail::loadLittleEndian<std::uint64_t>(p));
    case ULogType::Float: return detail::loadLittleEndian<float>(p);
    case ULogType::Double: return detail::loadLittleEndian<double>(p);
    case ULogType::Bool: return *p != 0 ? 1.0 : 0.0;
    case ULogType::Char: return static_cast<double>(static_cast<signed char>(*p));
    case ULogType::Nested: return kNoValue;
  }
  return kNoValue;
}

// "int32_t[3] name" -> type name, array size, field name. False when malformed.
bool splitTypedName(std::string_view text, std::string& type_name, int& array_size,
                    std::string& name) {
  text = detail::trim(text);
  const std::size_t space = text.find(' ');
  if (space == std::string_view::npos || space == 0) return false;
  std::string_view type = text.substr(0, space);
  name = std::string(detail::trim(text.substr(space + 1)));
  if (name.empty()) return false;
  array_size = -1;
  const std::size_t bracket = type.find('[');
  if (bracket != std::string_view::npos) {
    if (type.back() != ']' || bracket == 0) return false;
    std::string_view digits = type.substr(bracket + 1, type.size() - bracket - 2);
    if (digits.empty() || digits.size() > 6) return false;
    int n = 0;
    for (char c : digits) {
      if (!detail::isDigit(c)) return false;
      n = n * 10 + (c - '0');
    }
    array_size = n;  // char[0] occurs in real logs (empty multi-info values)
    type = type.substr(0, bracket);
  }
  type_name = std::string(type);
  return true;
}

// Text for an info/parameter value of the given type.
std::string valueText(const std::string& type_name, int array_size, std::string_view value) {
  const PrimitiveInfo* p = primitive(type_name);
  if (p && p->type == ULogType::Char) {
    const std::size_t nul = value.find('\0');
    return std::string(value.substr(0, nul));
  }
  if (p && array_size < 0 && value.size() >= p->size) {
    const double v = decodeScalar(p->type, reinterpret_cast<const unsigned char*>(value.data()));
    if (p->type == ULogType::UInt64)
      return std::to_string(detail::loadLittleEndian<std::uint64_t>(reinterpret_cast<const unsigned char*>(value.data())));
    if (p->type == ULogType::Int64)
      return std::to_string(detail::loadLittleEndian<std::int64_t>(reinterpret_cast<const unsigned char*>(value.data())));
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.9g", v);
    return buffer;
  }
  return "<" + std::to_string(value.size()) + " bytes>";
}

class Parser {
 public:
  Parser(std::string_view bytes, const std::string& name, const TelemetryReadOptions& options)
      : bytes_(reinterpret_cast<const unsigned char*>(bytes.data())),
        size_(bytes.size()),
        options_(options),
        warnings_(file_.warnings) {
    file_.source_path = name;
  }

  ULogFile run() {
    const std::string& name = file_.source_path;
    if (size_ > options_.max_bytes)
      throw FormatError(name + ": " + std::to_string(size_) + " bytes is over the flight-log size limit of " +
                        std::to_string(options_.max_bytes) + " bytes");
    if (size_ < kHeaderSize || std::memcmp(bytes_, kMagic, sizeof kMagic) != 0)
      throw FormatError(name + ": not a PX4 ULog file (no \"ULog\" header" +
                        std::string(size_ < kHeaderSize ? ", file shorter than 16 bytes)" : ")"));
    file_.version = bytes_[7];
    file_.start_timestamp_us = detail::loadLittleEndian<std::uint64_t>(bytes_ + 8);
    std::size_t pos = kHeaderSize;
    bool first_message = true;
    std::size_t next_progress = 0;
    while (pos < size_) {
      if (pos >= next_progress) {
        if (!reportProgress(options_.progress, double(pos) / double(size_), "ulog")) throw Cancelled();
        next_progress = pos + (1u << 20);
      }
      if (pos + kMessageHeaderSize > size_) {
        warnings_.atOffset(pos, "file ends inside a message header (" + std::to_string(size_ - pos) +
                                    " bytes left): truncated");
        break;
      }
      const std::size_t body_size = detail::loadLittleEndian<std::uint16_t>(bytes_ + pos);
      const char type = static_cast<char>(bytes_[pos + 2]);
      const std::size_t body = pos + kMessageHeaderSize;
      const std::size_t end = body + body_size;
      // A message cut by appended data: continue at the append offset.
      const std::uint64_t append_at = nextAppendOffset(pos);
      if (append_at != 0 && end > append_at) {
        warnings_.atOffset(pos, "message cut by appended data at offset " + std::to_string(append_at) +
                                    "; continuing there");
        pos = static_cast<std::size_t>(append_at);
        continue;
      }
      if (end > size_) {
        warnings_.atOffset(pos, std::string("message '") + printable(type) + "' of " +
                                    std::to_string(body_size) + " bytes runs past the end of the file (" +
                                    std::to_string(size_ - body) + " bytes left): truncated");
        break;
      }
      if (!isKnownType(type)) {
        if (type >= 'A' && type <= 'Z') {  // a newer message type: skip it
          warnings_.atOffset(pos, std::string("unknown message type '") + type + "' skipped");
          pos = end;
          continue;
        }
        const std::size_t resync = findSync(pos + 1);
        warnings_.atOffset(pos, "corrupt message header (type byte " + std::to_string(int(bytes_[pos + 2])) +
                                    ")" + (resync ? "; skipped to the next sync message at offset " +
                                                        std::to_string(resync)
                                                  : "; no sync message follows, reading stopped"));
        if (resync == 0) break;
        pos = resync;
        continue;
      }
      ++file_.message_count;
      handle(type, pos, body, body_size, first_message);
      first_message = false;
      pos = end;  // always advances: end >= pos + 3
    }
    resolveFormats(true);
    finishTopics();
    warnings_.finish();
    reportProgress(options_.progress, 1.0, "ulog");
    return std::move(file_);
  }

 private:
  static char printable(char c) { return (c >= 32 && c < 127) ? c : '?'; }
  static bool isKnownType(char t) { return std::strchr("BFIMPQARDLCSO", t) != nullptr && t != 0; }

  std::uint64_t nextAppendOffset(std::size_t pos) const {
    if (!(file_.incompat_flags[0] & 1)) return 0;
    std::uint64_t best = 0;
    for (std::uint64_t off : file_.appended_offsets)
      if (off > pos && off <= size_ && (best == 0 || off < best)) best = off;
    return best;
  }

  // Offset of the next 'S' message whose magic starts after `from`, or 0.
  std::size_t findSync(std::size_t from) const {
    for (std::size_t p = std::max<std::size_t>(from, kMessageHeaderSize); p + sizeof kSyncMagic <= size_; ++p) {
      if (std::memcmp(bytes_ + p, kSyncMagic, sizeof kSyncMagic) == 0 && bytes_[p - 1] == 'S' &&
          p - kMessageHeaderSize > from - 1)
        return p - kMessageHeaderSize;
    }
    return 0;
  }

  void handle(char type, std::size_t pos, std::size_t body, std::size_t n, bool first_message) {
    const unsigned char* b = bytes_ + body;
    auto tooShort = [&](std::size_t need) {
      if (n >= need) return false;
      warnings_.atOffset(pos, std::string("message '") + type + "' too short (" + std::to_string(n) +
                                  " bytes, needs " + std::to_string(need) + "); skipped");
      return true;
    };
    switch (type) {
      case 'B': {
        if (tooShort(40)) return;
        if (!first_message) {
          warnings_.atOffset(pos, "flag bits message not first; ignored");
          return;
        }
        std::memcpy(file_.compat_flags, b, 8);
        std::memcpy(file_.incompat_flags, b + 8, 8);
        for (int i = 0; i < 3; ++i) file_.appended_offsets[i] = detail::loadLittleEndian<std::uint64_t>(b + 16 + 8 * i);
        if ((file_.incompat_flags[0] & ~1u) != 0 ||
            std::any_of(file_.incompat_flags + 1, file_.incompat_flags + 8, [](std::uint8_t f) { return f != 0; }))
          throw FormatError(file_.source_path +
                            ": ULog sets incompatible flags this reader does not know (newer format); "
                            "it cannot be read safely");
        return;
      }
      case 'F': {
        const std::string_view text(reinterpret_cast<const char*>(b), n);
        const std::size_t colon = text.find(':');
        if (colon == std::string_view::npos || colon == 0) {
          warnings_.atOffset(pos, "format definition without a name; skipped");
          return;
        }
        ULogFormat format;
        format.name = std::string(text.substr(0, colon));
        std::string_view rest = text.substr(colon + 1);
        while (!rest.empty()) {
          const std::size_t semi = rest.find(';');
          const std::string_view item = rest.substr(0, semi);
          rest = semi == std::string_view::npos ? std::string_view() : rest.substr(semi + 1);
          if (detail::trim(item).empty()) continue;
          ULogField field;
          if (!splitTypedName(item, field.type_name, field.array_size, field.name)) {
            warnings_.atOffset(pos, "format '" + format.name + "' has a malformed field \"" +
                                        std::string(item.substr(0, 60)) + "\"; format dropped");
            return;
          }
          format.fields.push_back(std::move(field));
        }
        file_.formats[format.name] = std::move(format);
        formats_resolved_ = false;
        return;
      }
      case 'I':
      case 'M':
      case 'P':
      case 'Q': {
        std::size_t skip = (type == 'M' || type == 'Q') ? 1 : 0;
        if (tooShort(skip + 1)) return;
        const bool continued = type == 'M' && b[0] != 0;
        const std::size_t key_len = b[skip];
        if (tooShort(skip + 1 + key_len)) return;
        const std::string_view key(reinterpret_cast<const char*>(b + skip + 1), key_len);
        const std::string_view value(reinterpret_cast<const char*>(b + skip + 1 + key_len),
                                     n - skip - 1 - key_len);
        std::string type_name, name;
        int array_size = 0;
        if (!splitTypedName(key, type_name, array_size, name)) {
          warnings_.atOffset(pos, std::string("message '") + type + "' with malformed key; skipped");
          return;
        }
        const std::string text = valueText(type_name, array_size, value);
        if (type == 'I') {
          file_.info[name] = text;
        } else if (type == 'M') {
          auto& values = file_.multi_info[name];
          if (continued && !values.empty()) values.back() += text;
          else values.push_back(text);
        } else {
          double v = kNoValue;
          detail::parseNumber(text, v);
          (type == 'P' ? file_.parameters : file_.default_parameters)[name] = v;
        }
        return;
      }
      case 'A': {
        if (tooShort(4)) return;
        const std::uint8_t multi_id = b[0];
        const std::uint16_t msg_id = detail::loadLittleEndian<std::uint16_t>(b + 1);
        std::string name(reinterpret_cast<const char*>(b + 3), n - 3);
        name = name.substr(0, name.find('\0'));
        if (!formats_resolved_) {  // data section: formats are complete (spec), size them now
          resolveFormats(false);
          formats_resolved_ = true;
        }
        std::size_t index = topicIndex(name, multi_id);
        subscriptions_[msg_id] = index;
        return;
      }
      case 'R': {
        if (tooShort(2)) return;
        subscriptions_.erase(detail::loadLittleEndian<std::uint16_t>(b));
        return;
      }
      case 'D': {
        if (tooShort(2)) return;
        const std::uint16_t msg_id = detail::loadLittleEndian<std::uint16_t>(b);
        auto it = subscriptions_.find(msg_id);
        if (it == subscriptions_.end()) {
          warnings_.atOffset(pos, "data for unknown subscription id " + std::to_string(msg_id) + "; skipped");
          return;
        }
        if (!prepareTopic(it->second)) pending_[it->second].emplace_back(body + 2, n - 2);
        else appendRecord(it->second, body + 2, n - 2);
        return;
      }
      case 'L':
      case 'C': {
        const std::size_t header = type == 'L' ? 9 : 11;
        if (tooShort(header)) return;
        ULogLogged entry;
        entry.level = b[0] >= '0' && b[0] <= '7' ? b[0] - '0' : b[0];
        entry.tag = type == 'C' ? detail::loadLittleEndian<std::uint16_t>(b + 1) : -1;
        entry.timestamp_us = detail::loadLittleEndian<std::uint64_t>(b + header - 8);
        entry.message.assign(reinterpret_cast<const char*>(b + header), n - header);
        file_.logged.push_back(std::move(entry));
        return;
      }
      case 'S': {
        if (n >= 8 && std::memcmp(b, kSyncMagic, 8) == 0) ++file_.sync_count;
        else warnings_.atOffset(pos, "sync message with wrong magic");
        return;
      }
      case 'O': {
        if (tooShort(2)) return;
        file_.dropouts.push_back({pos, detail::loadLittleEndian<std::uint16_t>(b)});
        return;
      }
      default: return;
    }
  }

  std::size_t topicIndex(const std::string& name, std::uint8_t multi_id) {
    const auto key = std::make_pair(name, multi_id);
    if (auto it = topic_index_.find(key); it != topic_index_.end()) return it->second;
    topic_index_[key] = file_.topics.size();
    ULogTopic topic;
    topic.name = name;
    topic.multi_id = multi_id;
    topic.format_name = name;
    file_.topics.push_back(std::move(topic));
    pending_.emplace_back();
    trailing_padding_.push_back(0);
    short_messages_.push_back(0);
    return file_.topics.size() - 1;
  }

  // Computes offsets and sizes; formats referencing unknown or cyclic formats are
  // dropped with a warning.
  void resolveFormats(bool warn) {
    std::map<std::string, int> state;  // 0 unvisited, 1 in progress, 2 done
    std::function<bool(ULogFormat&, int)> resolve = [&](ULogFormat& format, int depth) -> bool {
      int& s = state[format.name];
      if (s == 2) return format.resolved;
      if (s == 1 || depth > kMaxNesting) return false;
      s = 1;
      std::size_t offset = 0;
      bool ok = true;
      for (ULogField& field : format.fields) {
        std::size_t element = 0;
        if (const PrimitiveInfo* p = primitive(field.type_name)) {
          field.type = p->type;
          element = p->size;
        } else {
          auto it = file_.formats.find(field.type_name);
          if (it == file_.formats.end() || !resolve(it->second, depth + 1)) {
            ok = false;
            break;
          }
          field.type = ULogType::Nested;
          field.nested_format = field.type_name;
          element = it->second.size;
        }
        field.offset = offset;
        field.size = element * static_cast<std::size_t>(field.array_size < 0 ? 1 : field.array_size);
        offset += field.size;
        if (offset > (1u << 20)) {
          ok = false;
          break;
        }
      }
      format.size = offset;
      format.resolved = ok;
      state[format.name] = 2;
      return ok;
    };
    for (auto& [name, format] : file_.formats) {
      if (!resolve(format, 0) && warn)
        warnings_.atOffset(0, "format '" + name + "' refers to an unknown or cyclic type; its data is ignored");
    }
  }

  // Sets the topic's record size from its (resolved) format; false while unknown.
  bool prepareTopic(std::size_t i) {
    ULogTopic& topic = file_.topics[i];
    if (topic.record_size > 0) return true;
    auto it = file_.formats.find(topic.format_name);
    if (it == file_.formats.end() || !it->second.resolved || it->second.size == 0) return false;
    const ULogFormat& format = it->second;
    topic.record_size = format.size;
    // Data may leave out the format's trailing padding field.
    // Only alignment-sized padding counts: a huge "_padding" must not let 5-byte messages
    // expand into megabyte records.
    if (!format.fields.empty() && format.fields.back().isPadding() && format.fields.back().size <= kMaxOmittedPadding)
      trailing_padding_[i] = format.fields.back().size;
    return true;
  }

  // Copies one data message into the topic's fixed-stride records (zero-filled).
  void appendRecord(std::size_t i, std::size_t offset, std::size_t length) {
    ULogTopic& topic = file_.topics[i];
    if (length + trailing_padding_[i] < topic.record_size) {
      ++short_messages_[i];
      return;
    }
    if (topic.logged_size == 0) topic.logged_size = length;
    const std::size_t copy = std::min(length, topic.record_size);  // longer: keep the known prefix
    topic.data.insert(topic.data.end(), bytes_ + offset, bytes_ + offset + copy);
    topic.data.insert(topic.data.end(), topic.record_size - copy, 0);
  }

  void finishTopics() {
    for (std::size_t i = 0; i < file_.topics.size(); ++i) {
      ULogTopic& topic = file_.topics[i];
      if (!pending_[i].empty()) {
        if (!prepareTopic(i)) {
          warnings_.atOffset(0, "topic '" + topic.name + "' has no usable format; " +
                                    std::to_string(pending_[i].size()) + " messages ignored");
        } else {
          for (const auto& [offset, length] : pending_[i]) appendRecord(i, offset, length);
        }
        pending_[i].clear();
        pending_[i].shrink_to_fit();
      }
      if (short_messages_[i])
        warnings_.atOffset(0, "topic '" + topic.name + "': " + std::to_string(short_messages_[i]) +
                                  " data messages shorter than the format; skipped");
    }
  }

  const unsigned char* bytes_;
  std::size_t size_;
  const TelemetryReadOptions& options_;
  ULogFile file_;
  detail::WarningSink warnings_;
  std::map<std::uint16_t, std::size_t> subscriptions_;            // msg_id -> topic index
  // Per topic: data that arrived before its format was known, as (offset, length).
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> pending_;
  std::vector<std::size_t> trailing_padding_;  // per topic
  std::vector<std::size_t> short_messages_;    // per topic
  std::map<std::pair<std::string, std::uint8_t>, std::size_t> topic_index_;
  bool formats_resolved_ = false;
};

// Resolves "a.b[2].c" within `format_name`; returns false if not found.
bool resolvePath(const ULogFile& file, const std::string& format_name, std::string_view path,
                 std::size_t& offset, ULogType& type) {
  auto fit = file.formats.find(format_name);
  if (fit == file.formats.end() || !fit->second.resolved) return false;
  const ULogFormat& format = fit->second;
  const std::size_t dot = path.find('.');
  std::string_view head = path.substr(0, dot);
  int index = -1;
  const std::size_t bracket = head.find('[');
  if (bracket != std::string_view::npos) {
    if (head.back() != ']') return false;
    double v = 0;
    if (!detail::parseNumber(head.substr(bracket + 1, head.size() - bracket - 2), v) || v < 0) return false;
    index = static_cast<int>(v);
    head = head.substr(0, bracket);
  }
  for (const ULogField& field : format.fields) {
    if (field.name != head) continue;
    if (index >= 0 && (field.array_size < 0 || index >= field.array_size)) return false;
    if (index < 0 && field.array_size >= 0) return false;  // an array needs an index
    const std::size_t element = field.array_size < 0 ? field.size : field.size / std::max<std::size_t>(field.array_size, 1);
    const std::size_t base = offset + field.offset + static_cast<std::size_t>(std::max(index, 0)) * element;
    if (dot == std::string_view::npos) {
      if (field.type == ULogType::Nested) return false;
      offset = base;
      type = field.type;
      return true;
    }
    if (field.type != ULogType::Nested) return false;
    offset = base;
    return resolvePath(file, field.nested_format, path.substr(dot + 1), offset, type);
  }
  return false;
}

}  // namespace

const ULogTopic* ULogFile::topic(const std::string& name, int multi_id) const {
  for (const ULogTopic& t : topics)
    if (t.name == name && t.multi_id == multi_id) return &t;
  return nullptr;
}

std::uint64_t ULogFile::lastTimestampUs() const {
  std::uint64_t last = 0;
  for (const ULogTopic& t : topics) {
    if (t.count() == 0 || !ulogHasField(*this, t, "timestamp")) continue;
    ULogFieldReader ts(*this, t, "timestamp");
    last = std::max(last, ts.atU64(t.count() - 1));
  }
  return last;
}

bool ulogHasField(const ULogFile& file, const ULogTopic& topic, const std::string& path) {
  std::size_t offset = 0;
  ULogType type{};
  return resolvePath(file, topic.format_name, path, offset, type);
}

ULogFieldReader::ULogFieldReader(const ULogFile& file, const ULogTopic& topic, const std::string& path)
    : topic_(&topic) {
  if (!resolvePath(file, topic.format_name, path, offset_, type_))
    throw FormatError(file.source_path + ": topic '" + topic.name + "' has no field '" + path + "'");
}

double ULogFieldReader::at(std::size_t record) const {
  return decodeScalar(type_, topic_->record(record) + offset_);
}

std::uint64_t ULogFieldReader::atU64(std::size_t record) const {
  const unsigned char* p = topic_->record(record) + offset_;
  if (type_ == ULogType::UInt64 || type_ == ULogType::Int64) return detail::loadLittleEndian<std::uint64_t>(p);
  const double v = decodeScalar(type_, p);
  // A float/double field read as an integer: clamp, since converting an out-of-range
  // floating value to an integer is undefined behaviour (NaN -> 0).
  if (!(v > 0)) return 0;
  if (v >= 18446744073709549568.0) return std::numeric_limits<std::uint64_t>::max();
  return static_cast<std::uint64_t>(v);
}

bool isULog(std::string_view bytes) {
  return bytes.size() >= sizeof kMagic && std::memcmp(bytes.data(), kMagic, sizeof kMagic) == 0;
}

ULogFile parseULog(std::string_view bytes, const std::string& source_name,
                   const TelemetryReadOptions& options) {
  options.check();
  return Parser(bytes, source_name, options).run();
}

ULogFile readULog(const std::string& path, const TelemetryReadOptions& options) {
  options.check();
  const std::string bytes = readTelemetryFileBytes(path, options.max_bytes);
  return parseULog(bytes, path, options);
}

}  // namespace skytrace::io
