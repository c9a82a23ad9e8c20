// PX4 ULog reader, written from the public format specification
// (docs.px4.io, "ULog File Format"): 16-byte header ("ULog" 01 12 35, version, start
// timestamp), definitions section (flag bits 'B', formats 'F', info 'I', multi-info 'M',
// parameters 'P', default parameters 'Q') and data section (subscriptions 'A'/'R', data
// 'D', logging 'L', tagged logging 'C', sync 'S', dropouts 'O', and again I/M/P/Q).
// Handles appended data (DATA_APPENDED flag and appended_offsets: a message cut by an
// append is dropped and reading resumes at the offset), multi-instance topics, nested
// formats and arrays, trailing padding left out of data messages, and truncation at any
// byte: everything before the break is returned, the break is a warning with its offset.
// Corrupt regions are skipped by re-synchronising on the next sync message.
// All integers are little-endian. Plain values; reentrant.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/telemetry/telemetry_reader.h"

namespace skytrace::io {

enum class ULogType { Int8, UInt8, Int16, UInt16, Int32, UInt32, Int64, UInt64, Float, Double, Bool, Char, Nested };

struct ULogField {
  std::string type_name;  // "float", "uint64_t", or a nested format's name
  std::string name;
  ULogType type = ULogType::UInt8;
  int array_size = -1;       // -1 for a scalar, N (>= 0) for "type[N]"
  std::size_t offset = 0;    // bytes from the start of the message
  std::size_t size = 0;      // bytes of the whole field (array included)
  std::string nested_format;  // for Nested
  bool isPadding() const { return name.rfind("_padding", 0) == 0; }
};

struct ULogFormat {
  std::string name;
  std::vector<ULogField> fields;
  std::size_t size = 0;  // bytes, nested formats included
  bool resolved = false;
};

// All data of one subscription (topic name + multi instance). Records are stored with
// a fixed stride of the format's size (short messages zero-filled).
struct ULogTopic {
  std::string name;
  std::uint8_t multi_id = 0;
  std::string format_name;
  std::size_t record_size = 0;  // the format's size
  std::size_t logged_size = 0;  // bytes per data message as logged (a trailing padding may be left out)
  std::vector<std::uint8_t> data;  // record_size * count bytes
  std::size_t count() const { return record_size ? data.size() / record_size : 0; }
  const std::uint8_t* record(std::size_t i) const { return data.data() + i * record_size; }
};

struct ULogLogged {
  int level = 0;  // syslog levels: '0'..'7' as numbers 0..7
  int tag = -1;   // tagged logging ('C') tag, -1 for plain logging ('L')
  std::uint64_t timestamp_us = 0;
  std::string message;
};

struct ULogFile {
  std::string source_path;
  int version = 0;
  std::uint64_t start_timestamp_us = 0;
  std::uint8_t compat_flags[8] = {};
  std::uint8_t incompat_flags[8] = {};
  std::uint64_t appended_offsets[3] = {};
  std::map<std::string, ULogFormat> formats;
  std::map<std::string, std::string> info;                      // key name -> value text
  std::map<std::string, std::vector<std::string>> multi_info;   // continued values appended
  std::map<std::string, double> parameters;                     // last value of each
  std::map<std::string, double> default_parameters;
  std::vector<ULogLogged> logged;
  struct Dropout { std::uint64_t byte_offset; std::uint16_t duration_ms; };
  std::vector<Dropout> dropouts;
  std::size_t sync_count = 0;
  std::size_t message_count = 0;
  std::vector<ULogTopic> topics;
  std::vector<ParseWarning> warnings;

  const ULogTopic* topic(const std::string& name, int multi_id = 0) const;
  std::uint64_t lastTimestampUs() const;  // largest record timestamp over all topics
};

// Reads one field of a topic's records: "lat", "q[2]", "nested.x". Resolved once.
class ULogFieldReader {
 public:
  // Throws FormatError naming the topic when the path does not exist.
  ULogFieldReader(const ULogFile& file, const ULogTopic& topic, const std::string& path);
  double at(std::size_t record) const;  // value as double (integers converted)
  std::uint64_t atU64(std::size_t record) const;  // exact for 64-bit integers
  ULogType type() const { return type_; }

 private:
  const ULogTopic* topic_;
  std::size_t offset_ = 0;
  ULogType type_ = ULogType::UInt8;
};
// Whether the topic's format has that field path.
bool ulogHasField(const ULogFile& file, const ULogTopic& topic, const std::string& path);

// True when `bytes` starts with the ULog magic.
bool isULog(std::string_view bytes);

// Parses a ULog already in memory. FormatError when it is not a ULog (magic), too short
// for the header, over the size limit, or sets incompatible flags this reader does not
// know; anything after the header that is broken becomes a warning.
ULogFile parseULog(std::string_view bytes, const std::string& source_name,
                   const TelemetryReadOptions& options = {});
ULogFile readULog(const std::string& path, const TelemetryReadOptions& options = {});

}  // namespace skytrace::io
