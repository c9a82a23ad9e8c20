#include "core/app/batch_manifest.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/util/error.h"

namespace skytrace::app {
namespace {

namespace fs = std::filesystem;

const std::set<std::string>& knownKeys() {
  static const std::set<std::string> keys = {"id",    "video",    "basemaps",  "telemetry", "camera",
                                             "time_offset_s", "model", "vo_model", "sat_model", "truth"};
  return keys;
}

std::string trimmed(const std::string& text) {
  std::size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

bool skipped(const std::string& line) {
  const std::string t = trimmed(line);
  return t.empty() || t[0] == '#';
}

// One CSV record's fields; quotes as RFC 4180 (within one line).
std::vector<std::string> csvFields(const std::string& line, const std::string& where) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(trimmed(field));
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  if (quoted) throw FormatError(where + ": a quoted field is not closed");
  fields.push_back(trimmed(field));
  return fields;
}

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ';'))
    if (!trimmed(item).empty()) items.push_back(trimmed(item));
  return items;
}

// A flight from its key/value pairs (all text; basemaps ';'-separated).
BatchFlight makeFlight(const std::map<std::string, std::string>& values,
                       const std::vector<std::string>& basemaps, const fs::path& folder,
                       const std::string& where) {
  auto value = [&](const std::string& key) {
    const auto it = values.find(key);
    return it == values.end() ? std::string() : it->second;
  };
  auto resolved = [&](const std::string& path) {
    if (path.empty()) return path;
    const fs::path p(path);
    return (p.is_absolute() ? p : folder / p).lexically_normal().string();
  };
  BatchFlight flight;
  flight.id = value("id");
  if (flight.id.empty()) throw FormatError(where + ": no id");
  const bool id_ok = std::all_of(flight.id.begin(), flight.id.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
  if (!id_ok || flight.id[0] == '.')
    throw FormatError(where + ": id '" + flight.id +
                      "' must be letters, digits, '.', '_' or '-' and not start with '.' "
                      "(it names the flight's results folder)");
  flight.video_path = resolved(value("video"));
  if (flight.video_path.empty()) throw FormatError(where + ": flight '" + flight.id + "' has no video");
  for (const std::string& b : basemaps) flight.basemap_paths.push_back(resolved(b));
  if (flight.basemap_paths.empty())
    throw FormatError(where + ": flight '" + flight.id + "' has no basemaps");
  flight.telemetry_path = resolved(value("telemetry"));
  flight.camera_path = resolved(value("camera"));
  flight.truth_path = resolved(value("truth"));
  flight.feature_model = value("model");
  flight.vo_model = value("vo_model");
  flight.satellite_model = value("sat_model");
  const std::string offset = value("time_offset_s");
  if (!offset.empty()) {
    char* end = nullptr;
    const double seconds = std::strtod(offset.c_str(), &end);
    if (end == offset.c_str() || *end != '\0' || !std::isfinite(seconds))
      throw FormatError(where + ": time_offset_s '" + offset + "' is not a number of seconds");
    flight.time_offset_s = seconds;
  }
  return flight;
}

void checkKey(const std::string& key, const std::string& where) {
  if (!knownKeys().count(key))
    throw FormatError(where + ": unknown key '" + key +
                      "' (known: id, video, basemaps, telemetry, camera, time_offset_s, model, "
                      "vo_model, sat_model, truth)");
}

std::string jsonText(const nlohmann::json& value, const std::string& key, const std::string& where) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number() && key == "time_offset_s") return value.dump();
  if (value.is_null()) return {};
  throw FormatError(where + ": '" + key + "' must be " +
                    (key == "time_offset_s" ? "a number" : "a string"));
}

}  // namespace

std::vector<BatchFlight> readBatchManifest(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw IoError("cannot read the batch manifest " + path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(file, line);) lines.push_back(line);
  const fs::path folder = fs::absolute(fs::path(path)).parent_path();

  std::string extension = fs::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  bool jsonl = extension == ".jsonl" || extension == ".ndjson";
  if (extension != ".csv" && !jsonl) {
    for (const std::string& line : lines) {
      if (skipped(line)) continue;
      jsonl = trimmed(line)[0] == '{';
      break;
    }
  }

  std::vector<BatchFlight> flights;
  std::set<std::string> ids;
  auto add = [&](BatchFlight flight, const std::string& where) {
    if (!ids.insert(flight.id).second)
      throw FormatError(where + ": id '" + flight.id + "' is used by an earlier flight");
    flights.push_back(std::move(flight));
  };

  if (jsonl) {
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (skipped(lines[i])) continue;
      const std::string where = path + ":" + std::to_string(i + 1);
      nlohmann::json object;
      try {
        object = nlohmann::json::parse(lines[i]);
      } catch (const nlohmann::json::exception&) {
        throw FormatError(where + ": not a JSON object on one line");
      }
      if (!object.is_object()) throw FormatError(where + ": not a JSON object on one line");
      std::map<std::string, std::string> values;
      std::vector<std::string> basemaps;
      for (const auto& [key, value] : object.items()) {
        checkKey(key, where);
        if (key == "basemaps" && value.is_array()) {
          for (const auto& item : value) {
            if (!item.is_string()) throw FormatError(where + ": 'basemaps' must hold strings");
            basemaps.push_back(item.get<std::string>());
          }
        } else {
          values[key] = jsonText(value, key, where);
          if (key == "basemaps") basemaps = splitList(values[key]);
        }
      }
      BatchFlight flight = makeFlight(values, basemaps, folder, where);
      flight.line = int(i + 1);
      add(std::move(flight), where);
    }
    return flights;
  }

  std::vector<std::string> header;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (skipped(lines[i])) continue;
    const std::string where = path + ":" + std::to_string(i + 1);
    std::vector<std::string> fields = csvFields(lines[i], where);
    if (header.empty()) {
      for (const std::string& key : fields) checkKey(key, where);
      header = std::move(fields);
      continue;
    }
    if (fields.size() != header.size())
      throw FormatError(where + ": " + std::to_string(fields.size()) + " fields, the header names " +
                        std::to_string(header.size()));
    std::map<std::string, std::string> values;
    for (std::size_t k = 0; k < header.size(); ++k) values[header[k]] = fields[k];
    BatchFlight flight = makeFlight(values, splitList(values["basemaps"]), folder, where);
    flight.line = int(i + 1);
    add(std::move(flight), where);
  }
  if (header.empty()) throw FormatError(path + ": the manifest is empty (no header row)");
  return flights;
}

}  // namespace skytrace::app
