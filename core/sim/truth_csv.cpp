#include "core/sim/truth_csv.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace skytrace::sim {
namespace {

std::string formatValue(double value, int decimals) {
  if (!std::isfinite(value)) return {};
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::vector<std::string> splitCsvLine(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream stream(line);
  while (std::getline(stream, field, ',')) {
    while (!field.empty() && (field.back() == '\r' || field.back() == ' ')) field.pop_back();
    while (!field.empty() && field.front() == ' ') field.erase(field.begin());
    fields.push_back(field);
  }
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

double parseNumber(const std::string& text, const std::string& where) {
  if (text.empty()) return geo::TrackPose::kUnknown;
  try {
    size_t used = 0;
    const double value = std::stod(text, &used);
    if (used != text.size()) throw std::invalid_argument(text);
    return value;
  } catch (const std::exception&) {
    throw FormatError(where + ": '" + text + "' is not a number");
  }
}

}  // namespace

void writeTruthCsv(const std::filesystem::path& path, const geo::Track& track) {
  std::string out = "frame,t_s,lat_deg,lon_deg,alt_m,yaw_deg,pitch_deg,roll_deg\n";
  for (const auto& p : track.poses) {
    out += std::to_string(p.frame) + "," + formatValue(p.t_s, 6) + "," +
           formatValue(p.lat_deg, 9) + "," + formatValue(p.lon_deg, 9) + "," +
           formatValue(p.alt_m, 4) + "," + formatValue(p.yaw_deg, 4) + "," +
           formatValue(p.pitch_deg, 4) + "," + formatValue(p.roll_deg, 4) + "\n";
  }
  writeFileAtomically(path, out);
}

geo::Track readCsvTrack(const std::filesystem::path& path) {
  const std::string text = readFileBytes(path);
  std::istringstream lines(text);
  std::string line;
  if (!std::getline(lines, line)) throw FormatError(path.string() + ": empty file, not a track CSV");
  if (line.size() >= 3 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
  std::map<std::string, size_t> column;
  const auto header = splitCsvLine(line);
  for (size_t i = 0; i < header.size(); ++i) column[header[i]] = i;
  if (!column.count("lat_deg") || !column.count("lon_deg")) {
    throw FormatError(path.string() +
                      ": not a track CSV (the header needs lat_deg and lon_deg columns)");
  }
  geo::Track track;
  track.name = path.stem().string();
  int line_number = 1;
  while (std::getline(lines, line)) {
    ++line_number;
    if (line.empty() || line == "\r") continue;
    const auto fields = splitCsvLine(line);
    const std::string where = path.string() + ":" + std::to_string(line_number);
    auto get = [&](const char* name) -> std::string {
      const auto it = column.find(name);
      if (it == column.end()) return {};
      if (it->second >= fields.size()) throw FormatError(where + ": missing column " + name);
      return fields[it->second];
    };
    geo::TrackPose pose;
    const std::string frame = get("frame");
    pose.frame = frame.empty() ? std::int64_t(track.poses.size())
                               : std::int64_t(std::llround(parseNumber(frame, where)));
    const double t = parseNumber(get("t_s"), where);
    pose.t_s = std::isnan(t) ? 0.0 : t;
    pose.lat_deg = parseNumber(get("lat_deg"), where);
    pose.lon_deg = parseNumber(get("lon_deg"), where);
    pose.alt_m = parseNumber(get("alt_m"), where);
    pose.yaw_deg = parseNumber(get("yaw_deg"), where);
    pose.pitch_deg = parseNumber(get("pitch_deg"), where);
    pose.roll_deg = parseNumber(get("roll_deg"), where);
    pose.sigma_m = parseNumber(get("sigma_m"), where);
    const std::string source = get("source");
    pose.source = source.empty() ? geo::PoseSource::Unknown : geo::parsePoseSource(source);
    track.poses.push_back(pose);
  }
  return track;
}

}  // namespace skytrace::sim
