#include "core/app/flight_results.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/geo/track_io.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace skytrace::app {
namespace {

namespace fs = std::filesystem;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A small reader for the results folder's own CSV files (header + comma-separated
// fields, no quoting: docs/process_output.md writes none).
class CsvTable {
 public:
  CsvTable(const fs::path& path, const std::vector<std::string>& required) : path_(path.string()) {
    std::ifstream in(path);
    if (!in) throw IoError(path_ + ": cannot be read");
    std::string line;
    if (!std::getline(in, line)) throw FormatError(path_ + ": empty file (no header)");
    const std::vector<std::string> header = split(line);
    for (std::size_t i = 0; i < header.size(); ++i) column_[header[i]] = static_cast<int>(i);
    for (const std::string& name : required)
      if (!column_.count(name)) throw FormatError(path_ + ": column '" + name + "' is missing");
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!line.empty()) rows_.push_back(split(line));
    }
  }

  std::size_t rowCount() const { return rows_.size(); }
  std::string text(std::size_t row, const std::string& name) const {
    const auto it = column_.find(name);
    if (it == column_.end() || it->second >= static_cast<int>(rows_[row].size())) return {};
    return rows_[row][it->second];
  }
  double number(std::size_t row, const std::string& name) const {
    const std::string field = text(row, name);
    if (field.empty()) return kNaN;
    try {
      std::size_t used = 0;
      const double value = std::stod(field, &used);
      if (used == field.size()) return value;
    } catch (const std::exception&) {
    }
    throw FormatError(path_ + ": line " + std::to_string(row + 2) + ": '" + field +
                      "' in column " + name + " is not a number");
  }

 private:
  static std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> fields;
    std::stringstream stream(line);
    std::string field;
    while (std::getline(stream, field, ',')) fields.push_back(field);
    if (!line.empty() && line.back() == ',') fields.emplace_back();
    return fields;
  }

  std::string path_;
  std::map<std::string, int> column_;
  std::vector<std::vector<std::string>> rows_;
};

std::int64_t frameOf(double value) { return std::isfinite(value) ? static_cast<std::int64_t>(value) : -1; }

std::vector<RegistrationFixRecord> readFixes(const fs::path& path) {
  const CsvTable table(path, {"frame", "t_s", "lat_deg", "lon_deg", "accepted"});
  std::vector<RegistrationFixRecord> fixes;
  for (std::size_t r = 0; r < table.rowCount(); ++r) {
    RegistrationFixRecord fix;
    fix.frame = frameOf(table.number(r, "frame"));
    fix.t_s = table.number(r, "t_s");
    const double lat = table.number(r, "lat_deg"), lon = table.number(r, "lon_deg");
    fix.lat_deg = std::isfinite(lat) ? lat : 0.0;
    fix.lon_deg = std::isfinite(lon) ? lon : 0.0;
    fix.alt_m = table.number(r, "alt_m");
    fix.yaw_deg = table.number(r, "yaw_deg");
    fix.sigma_m = table.number(r, "sigma_m");
    const double inliers = table.number(r, "inliers");
    fix.inliers = std::isfinite(inliers) ? static_cast<int>(inliers) : 0;
    const double ratio = table.number(r, "inlier_ratio");
    fix.inlier_ratio = std::isfinite(ratio) ? ratio : 0.0;
    fix.accepted = table.number(r, "accepted") == 1.0;
    fix.reason = table.text(r, "reason");
    fix.mode = table.text(r, "mode");
    fix.track_offset_m = table.number(r, "track_offset_m");  // absent before 2026-12: NaN
    fixes.push_back(std::move(fix));
  }
  return fixes;
}

std::vector<DiscrepancyRecord> readDiscrepancy(const fs::path& path) {
  const CsvTable table(path, {"frame", "t_s", "distance_m", "flagged"});
  std::vector<DiscrepancyRecord> records;
  for (std::size_t r = 0; r < table.rowCount(); ++r) {
    DiscrepancyRecord d;
    d.frame = frameOf(table.number(r, "frame"));
    d.t_s = table.number(r, "t_s");
    d.distance_m = table.number(r, "distance_m");
    d.sigma_m = table.number(r, "sigma_m");
    d.flagged = table.number(r, "flagged") == 1.0;
    records.push_back(d);
  }
  return records;
}

std::vector<engine::LatencySample> readLatency(const fs::path& path) {
  const CsvTable table(path, {"frame", "stage", "start_ms", "duration_ms"});
  std::vector<engine::LatencySample> samples;
  samples.reserve(table.rowCount());
  for (std::size_t r = 0; r < table.rowCount(); ++r) {
    engine::LatencySample s;
    if (!stageFromName(table.text(r, "stage"), &s.stage))
      throw FormatError(path.string() + ": line " + std::to_string(r + 2) + ": unknown stage '" +
                        table.text(r, "stage") + "'");
    s.frame = frameOf(table.number(r, "frame"));
    s.start_ms = table.number(r, "start_ms");
    s.duration_ms = table.number(r, "duration_ms");
    // "cpu" or "cuda:N" (engine::writeLatencyCsv); a bare ordinal is accepted too.
    const std::string device = table.text(r, "device");
    const std::size_t colon = device.find(':');
    const std::string ordinal = colon == std::string::npos ? device : device.substr(colon + 1);
    s.device = -1;
    if (device != "cpu" && !ordinal.empty() && std::isdigit(static_cast<unsigned char>(ordinal[0])))
      s.device = static_cast<std::int8_t>(std::stoi(ordinal));
    const double bytes = table.number(r, "device_bytes_in_use");
    s.device_bytes_in_use = std::isfinite(bytes) ? static_cast<std::int64_t>(bytes) : -1;
    samples.push_back(s);
  }
  return samples;
}

// report.json: completion, device/model, inputs, flagged segments, lost odometry, ground
// height, log alignment.
void readReport(const fs::path& path, FlightResults* results) {
  results->report_json = readFileBytes(path);
  nlohmann::json report;
  try {
    report = nlohmann::json::parse(results->report_json);
  } catch (const nlohmann::json::exception& e) {
    throw FormatError(path.string() + ": not JSON (" + e.what() + ")");
  }
  if (!report.is_object()) throw FormatError(path.string() + ": not a JSON object");
  results->completed = report.value("completed", false);
  results->device = report.value("device", std::string());
  results->feature_model = report.value("feature_model", std::string());
  results->registration_model = report.value("registration_model", std::string());
  results->mode = report.value("mode", std::string());
  results->fallback_reason = report.value("fallback_reason", std::string());
  if (report.contains("ground_alt_m") && report["ground_alt_m"].is_number())
    results->ground_alt_m = report["ground_alt_m"].get<double>();
  const auto alignment = report.find("log_alignment");
  if (alignment != report.end() && alignment->is_object()) {
    auto number = [&](const char* key) {
      const auto it = alignment->find(key);
      return it != alignment->end() && it->is_number() ? it->get<double>() : std::nan("");
    };
    LogAlignmentSummary& a = results->log_alignment;
    a.time_offset_used_s = number("time_offset_used_s");
    a.best_time_offset_s = number("best_time_offset_s");
    a.sigma_s = number("sigma_s");
    a.estimated = alignment->value("estimated", false) && std::isfinite(a.best_time_offset_s);
    const auto reason = alignment->find("reason");
    if (reason != alignment->end() && reason->is_string()) a.reason = reason->get<std::string>();
  }
  const auto inputs = report.find("inputs");
  if (inputs != report.end() && inputs->is_object()) {
    auto text = [&](const char* key) {
      const auto it = inputs->find(key);
      return it != inputs->end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    ResultsInputs& in = results->inputs;
    in.video = text("video");
    in.telemetry = text("telemetry");
    in.camera = text("camera");
    const auto basemaps = inputs->find("basemaps");
    if (basemaps != inputs->end() && basemaps->is_array())
      for (const nlohmann::json& b : *basemaps)
        if (b.is_string()) in.basemaps.push_back(b.get<std::string>());
    const auto offset = inputs->find("telemetry_time_offset_s");
    if (offset != inputs->end() && offset->is_number() && text("telemetry_time_offset_source") == "given")
      in.telemetry_time_offset_s = offset->get<double>();
  }
  // The segment lists are optional: one of a wrong type drops its list with a warning.
  try {
    const auto odometry = report.find("odometry");
    if (odometry != report.end() && odometry->is_object() && odometry->contains("lost_segments") &&
        (*odometry)["lost_segments"].is_array()) {
      for (const nlohmann::json& s : (*odometry)["lost_segments"]) {
        if (!s.is_object()) continue;
        geo::FrameSpan span;
        span.start_frame = s.value("start_frame", std::int64_t{-1});
        span.end_frame = s.value("end_frame", std::int64_t{-1});
        span.start_s = s.value("start_s", 0.0);
        span.end_s = s.value("end_s", 0.0);
        results->odometry_lost.push_back(span);
      }
    }
    const auto discrepancy = report.find("discrepancy");
    if (discrepancy != report.end() && discrepancy->is_object() && discrepancy->contains("segments") &&
        (*discrepancy)["segments"].is_array()) {
      for (const nlohmann::json& s : (*discrepancy)["segments"]) {
        if (!s.is_object()) continue;
        FlaggedSegment segment;
        segment.start_s = s.value("start_s", 0.0);
        segment.end_s = s.value("end_s", 0.0);
        segment.start_frame = s.value("start_frame", std::int64_t{-1});
        segment.end_frame = s.value("end_frame", std::int64_t{-1});
        segment.max_m = s.value("max_m", 0.0);
        results->flagged_segments.push_back(segment);
      }
    }
  } catch (const nlohmann::json::exception&) {
    results->odometry_lost.clear();
    results->flagged_segments.clear();
    results->warnings.push_back(path.string() +
                                ": a lost-odometry or flagged segment has a value of the wrong type; "
                                "the segment lists are ignored");
  }
}

}  // namespace

AccuracySummary readAccuracyReport(const std::string& path) {
  nlohmann::json report;
  try {
    report = nlohmann::json::parse(readFileBytes(path));
  } catch (const nlohmann::json::exception& e) {
    throw FormatError(path + ": not JSON (" + e.what() + ")");
  }
  try {
    const nlohmann::json& overall = report.at("overall");
    const nlohmann::json& horizontal = overall.at("horizontal_error");
    AccuracySummary a;
    a.reference = report.value("truth", std::string());
    a.alignment = report.contains("alignment") ? report["alignment"].value("type", std::string("none")) : "none";
    a.reference_frames = overall.at("truth_frames").get<int>();
    a.fraction_with_position = overall.at("fraction_with_position").get<double>();
    a.rmse_m = horizontal.at("rmse_m").get<double>();
    a.median_m = horizontal.at("median_m").get<double>();
    a.p90_m = horizontal.at("p90_m").get<double>();
    a.max_m = horizontal.at("max_m").get<double>();
    a.within_5m = overall.at("within_5m").get<double>();
    a.within_10m = overall.at("within_10m").get<double>();
    a.within_20m = overall.at("within_20m").get<double>();
    const auto vertical = overall.find("vertical_abs_error");
    if (vertical != overall.end() && vertical->value("count", 0) > 0) a.vertical_rmse_m = vertical->at("rmse_m").get<double>();
    const auto heading = overall.find("heading_rmse_deg");
    if (heading != overall.end() && heading->is_number()) a.heading_rmse_deg = heading->get<double>();
    return a;
  } catch (const nlohmann::json::exception& e) {
    throw FormatError(path + ": not an evaluation report of skytrace-cli eval (" + e.what() + ")");
  }
}

namespace {

// A rendered flight (skytrace-cli render) keeps its ground height in flight.json beside
// the video: the ENU origin is at ground level.
double groundAltFromFlightJson(const fs::path& video_path) {
  const fs::path flight_json = video_path.parent_path() / "flight.json";
  std::error_code ec;
  if (!fs::is_regular_file(flight_json, ec)) return kNaN;
  try {
    const nlohmann::json flight = nlohmann::json::parse(readFileBytes(flight_json));
    return flight.at("enu_origin").at("alt_m").get<double>();
  } catch (const std::exception&) {
    return kNaN;
  }
}

// Rebuilds flagged segments from discrepancy.csv when report.json has none listed.
std::vector<FlaggedSegment> segmentsFromFlags(const std::vector<DiscrepancyRecord>& records) {
  std::vector<FlaggedSegment> segments;
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (!records[i].flagged) continue;
    FlaggedSegment s;
    s.start_s = records[i].t_s;
    s.start_frame = records[i].frame;
    while (i < records.size() && records[i].flagged) {
      s.end_s = records[i].t_s;
      s.end_frame = records[i].frame;
      s.max_m = std::max(s.max_m, records[i].distance_m);
      ++i;
    }
    segments.push_back(s);
  }
  return segments;
}

}  // namespace

const geo::Track& FlightResults::primaryTrack() const {
  if (!track.poses.empty()) return track;
  if (!online.poses.empty()) return online;
  return odometry;
}

bool stageFromName(const std::string& name, engine::Stage* stage) {
  for (int i = 0; i < engine::kStageCount; ++i) {
    const auto candidate = static_cast<engine::Stage>(i);
    if (name == engine::stageName(candidate)) {
      *stage = candidate;
      return true;
    }
  }
  return false;
}

bool isResultsFolder(const std::string& folder) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(folder) / "track.csv", ec) ||
         fs::is_regular_file(fs::path(folder) / "report.json", ec);
}

int poseIndexAt(const geo::Track& track, double t_s) {
  if (track.poses.empty()) return -1;
  const auto it = std::lower_bound(track.poses.begin(), track.poses.end(), t_s,
                                   [](const geo::TrackPose& p, double t) { return p.t_s < t; });
  if (it == track.poses.begin()) return 0;
  if (it == track.poses.end()) return static_cast<int>(track.poses.size()) - 1;
  const auto before = it - 1;
  return static_cast<int>((t_s - before->t_s <= it->t_s - t_s ? before : it) - track.poses.begin());
}

FlightResults readResultsFolder(const std::string& folder) {
  const fs::path dir(folder);
  if (!isResultsFolder(folder))
    throw IoError(folder + ": not a results folder (neither track.csv nor report.json is there)");
  FlightResults results;
  results.folder = folder;
  std::error_code ec;
  if (fs::is_regular_file(dir / "report.json", ec)) readReport(dir / "report.json", &results);
  if (fs::is_regular_file(dir / "track.csv", ec)) results.track = geo::readTrack((dir / "track.csv").string());
  // CSV holds video times only; the GeoJSON export of the same track has the absolute
  // ones (the flight log's clock), which the timeline shows.
  if (!std::isfinite(results.track.start_unix_s) && fs::is_regular_file(dir / "track.geojson", ec)) {
    try {
      results.track.start_unix_s = geo::readTrack((dir / "track.geojson").string()).start_unix_s;
    } catch (const Error& e) {
      results.warnings.push_back(e.what());
    }
  }

  auto optional = [&](const char* name, auto&& read) {
    const fs::path path = dir / name;
    if (!fs::is_regular_file(path, ec)) return;
    try {
      read(path);
    } catch (const Error& e) {
      results.warnings.push_back(e.what());
    }
  };
  optional("odometry.csv", [&](const fs::path& p) { results.odometry = geo::readTrack(p.string()); });
  optional("online.csv", [&](const fs::path& p) { results.online = geo::readTrack(p.string()); });
  optional("gnss.csv", [&](const fs::path& p) { results.gnss = geo::readTrack(p.string()); });
  optional("fixes.csv", [&](const fs::path& p) { results.fixes = readFixes(p); });
  optional("discrepancy.csv", [&](const fs::path& p) { results.discrepancy = readDiscrepancy(p); });
  optional("latency.csv", [&](const fs::path& p) { results.latency = readLatency(p); });
  optional("accuracy.json", [&](const fs::path& p) { results.accuracy = readAccuracyReport(p.string()); });
  if (!results.accuracy && !fs::exists(dir / "accuracy.json", ec))  // a batch's flight names it eval.json
    optional("eval.json", [&](const fs::path& p) { results.accuracy = readAccuracyReport(p.string()); });

  if (results.flagged_segments.empty()) results.flagged_segments = segmentsFromFlags(results.discrepancy);
  if (!std::isfinite(results.ground_alt_m) && !results.report_json.empty()) {
    try {
      const nlohmann::json report = nlohmann::json::parse(results.report_json);
      const std::string video = report.at("inputs").at("video").get<std::string>();
      results.ground_alt_m = groundAltFromFlightJson(fs::path(video));
    } catch (const std::exception&) {
    }
  }
  return results;
}

}  // namespace skytrace::app
