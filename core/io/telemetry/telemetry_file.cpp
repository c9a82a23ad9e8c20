// Options validation and bounded file reading shared by the telemetry parsers (kept apart
// from readTelemetry's dispatch so the fuzz targets need no GDAL).
#include <fstream>

#include "core/io/telemetry/telemetry_reader.h"
#include "core/util/error.h"

namespace skytrace::io {

void TelemetryReadOptions::check() const {
  if (max_bytes == 0) throw InvalidArgument("telemetry max_bytes must be > 0");
}

void TelemetryReadOptions::checkInput(std::uint64_t size_bytes, const std::string& source_name) const {
  check();
  if (size_bytes > max_bytes)
    throw FormatError(source_name + ": " + std::to_string(size_bytes) + " bytes is over the flight-log size limit of " +
                      std::to_string(max_bytes) + " bytes");
}

std::string readTelemetryFileBytes(const std::string& path, std::uint64_t max_bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw IoError(path + ": cannot open the flight log (missing or unreadable)");
  const std::streamoff size = in.tellg();
  if (size < 0) throw IoError(path + ": cannot determine the file size");
  if (static_cast<std::uint64_t>(size) > max_bytes)
    throw FormatError(path + ": " + std::to_string(size) + " bytes is over the flight-log size limit of " +
                      std::to_string(max_bytes) + " bytes; is this really a flight log?");
  std::string bytes(static_cast<std::size_t>(size), '\0');
  in.seekg(0);
  if (size > 0 && !in.read(bytes.data(), size))
    throw IoError(path + ": read error after " + std::to_string(in.gcount()) + " bytes");
  return bytes;
}

}  // namespace skytrace::io
