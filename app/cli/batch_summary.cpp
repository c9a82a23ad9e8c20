#include "app/cli/batch_summary.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>

#include "core/util/atomic_file.h"
#include "core/util/markup_text.h"

namespace skytrace::cli {
namespace {

namespace fs = std::filesystem;

nlohmann::json readJson(const fs::path& path) {
  std::ifstream file(path);
  if (!file) return {};
  try {
    return nlohmann::json::parse(file);
  } catch (const nlohmann::json::exception&) {
    return {};
  }
}

template <typename T>
std::optional<T> numberAt(const nlohmann::json& object, std::initializer_list<const char*> keys) {
  const nlohmann::json* node = &object;
  for (const char* key : keys) {
    if (!node->is_object() || !node->contains(key)) return std::nullopt;
    node = &(*node)[key];
  }
  if (!node->is_number()) return std::nullopt;
  return node->get<T>();
}

std::string fixed(const std::optional<double>& value, int decimals) {
  if (!value) return {};
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, *value);
  return text;
}

std::string integer(const std::optional<int>& value) { return value ? std::to_string(*value) : std::string(); }

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c == '\n' ? ' ' : c);
  return quoted + "\"";
}

// The columns of both files: heading, and the cell of a flight.
struct Column {
  const char* csv_name;
  const char* title;
  std::string (*cell)(const FlightSummary&);
};

const std::vector<Column>& columns() {
  static const std::vector<Column> list = {
      {"id", "Flight", [](const FlightSummary& s) { return s.id; }},
      {"status", "Status", [](const FlightSummary& s) { return toString(s.status); }},
      {"frames", "Frames", [](const FlightSummary& s) { return integer(s.frames); }},
      {"localized_fraction", "Localised", [](const FlightSummary& s) { return fixed(s.localized_fraction, 3); }},
      {"fixes_accepted", "Fixes accepted", [](const FlightSummary& s) { return integer(s.fixes_accepted); }},
      {"fixes_attempted", "Fixes attempted", [](const FlightSummary& s) { return integer(s.fixes_attempted); }},
      {"ate_rmse_m", "ATE RMSE (m)", [](const FlightSummary& s) { return fixed(s.ate_rmse_m, 2); }},
      {"within_5m", "Within 5 m", [](const FlightSummary& s) { return fixed(s.within_5m, 3); }},
      {"gnss_flagged_segments", "GNSS flagged stretches",
       [](const FlightSummary& s) { return integer(s.flagged_segments); }},
      {"gnss_max_discrepancy_m", "Largest GNSS discrepancy (m)",
       [](const FlightSummary& s) { return fixed(s.max_discrepancy_m, 1); }},
      {"navigation_fps", "Navigation (frames/s)", [](const FlightSummary& s) { return fixed(s.navigation_fps, 1); }},
      {"process_wall_s", "Processing (s)", [](const FlightSummary& s) { return fixed(s.processing_wall_s, 1); }},
      {"batch_wall_s", "In this batch (s)", [](const FlightSummary& s) { return fixed(s.wall_s, 1); }},
      {"exit_code", "Exit code",
       [](const FlightSummary& s) { return s.status == FlightStatus::Failed ? std::to_string(s.exit_code) : ""; }},
      {"message", "Message", [](const FlightSummary& s) { return s.message; }},
      {"results", "Results", [](const FlightSummary& s) { return s.results_dir; }},
  };
  return list;
}

}  // namespace

std::string toString(FlightStatus status) {
  switch (status) {
    case FlightStatus::Pending: return "pending";
    case FlightStatus::Done: return "done";
    case FlightStatus::Skipped: return "skipped";
    case FlightStatus::Failed: return "failed";
    case FlightStatus::Cancelled: return "cancelled";
  }
  return "pending";
}

void writeFlightStatus(const fs::path& path, const FlightSummary& summary) {
  const nlohmann::json status = {{"id", summary.id},           {"status", toString(summary.status)},
                                 {"exit_code", summary.exit_code}, {"message", summary.message},
                                 {"results", summary.results_dir}, {"wall_s", summary.wall_s}};
  writeFileAtomically(path, status.dump(2) + "\n");
}

bool readFlightStatus(const fs::path& path, FlightSummary* summary) {
  const nlohmann::json status = readJson(path);
  if (!status.is_object() || !status.contains("status")) return false;
  const std::string text = status.value("status", std::string());
  for (FlightStatus s : {FlightStatus::Done, FlightStatus::Skipped, FlightStatus::Failed, FlightStatus::Cancelled})
    if (text == toString(s)) summary->status = s;
  summary->exit_code = status.value("exit_code", 0);
  summary->message = status.value("message", std::string());
  summary->results_dir = status.value("results", std::string());
  summary->wall_s = status.value("wall_s", 0.0);
  return summary->status != FlightStatus::Pending;
}

void readFlightFigures(const fs::path& results, FlightSummary* summary) {
  const nlohmann::json report = readJson(results / "report.json");
  summary->frames = numberAt<int>(report, {"frames", "processed"});
  summary->localized_fraction = numberAt<double>(report, {"frames", "localized_fraction"});
  summary->fixes_accepted = numberAt<int>(report, {"fixes", "accepted"});
  summary->fixes_attempted = numberAt<int>(report, {"fixes", "attempted"});
  summary->navigation_fps = numberAt<double>(report, {"timings", "navigation_fps"});
  summary->processing_wall_s = numberAt<double>(report, {"timings", "wall_s"});
  const nlohmann::json segments = report.is_object() ? report.value("discrepancy", nlohmann::json::object())
                                                            .value("segments", nlohmann::json()) : nlohmann::json();
  if (segments.is_array()) {
    summary->flagged_segments = int(segments.size());
    for (const auto& segment : segments) {
      const auto max_m = numberAt<double>(segment, {"max_m"});
      if (max_m && (!summary->max_discrepancy_m || *max_m > *summary->max_discrepancy_m))
        summary->max_discrepancy_m = max_m;
    }
  }
  const nlohmann::json eval = readJson(results / "eval.json");
  summary->ate_rmse_m = numberAt<double>(eval, {"overall", "ate_rmse_m"});
  summary->within_5m = numberAt<double>(eval, {"overall", "within_5m"});
}

std::string describeFlight(const FlightSummary& s) {
  std::ostringstream line;
  line << toString(s.status);
  if (s.status == FlightStatus::Failed || s.status == FlightStatus::Cancelled) {
    if (!s.message.empty()) line << ": " << s.message;
    return line.str();
  }
  if (s.status == FlightStatus::Done) line << " in " << fixed(s.wall_s, 1) << " s";
  if (s.frames) line << ": " << *s.frames << " frames";
  if (s.localized_fraction) line << ", " << fixed(100.0 * *s.localized_fraction, 0) << " % localised";
  if (s.fixes_accepted && s.fixes_attempted) line << ", " << *s.fixes_accepted << "/" << *s.fixes_attempted << " fixes";
  if (s.ate_rmse_m) line << ", ATE " << fixed(s.ate_rmse_m, 2) << " m";
  if (s.flagged_segments && *s.flagged_segments > 0) line << ", GNSS flagged " << *s.flagged_segments << "x";
  return line.str();
}

void writeBatchSummary(const fs::path& out, const std::string& manifest,
                       const std::vector<FlightSummary>& flights) {
  std::ostringstream csv;
  for (std::size_t c = 0; c < columns().size(); ++c) csv << (c ? "," : "") << columns()[c].csv_name;
  csv << "\n";
  for (const FlightSummary& flight : flights) {
    for (std::size_t c = 0; c < columns().size(); ++c) csv << (c ? "," : "") << csvField(columns()[c].cell(flight));
    csv << "\n";
  }
  writeFileAtomically(out / "summary.csv", csv.str());

  int counts[5] = {0, 0, 0, 0, 0};
  for (const FlightSummary& flight : flights) ++counts[int(flight.status)];
  const std::time_t now = std::time(nullptr);
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::ostringstream html;
  html << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
       << "<title>Skytrace batch: " << markupEscaped(manifest) << "</title>\n"
       << "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
          "th,td{border:1px solid #bbb;padding:4px 8px;text-align:right}"
          "td:first-child,td:nth-child(2),td:nth-last-child(-n+2){text-align:left}"
          "tr.failed td{background:#fde2e2}tr.cancelled td{background:#fff3cd}</style>\n"
       << "</head><body>\n<h1>Skytrace batch</h1>\n<p>Manifest " << markupEscaped(manifest) << ", written "
       << when << ": " << flights.size() << " flights, " << counts[int(FlightStatus::Done)] << " done, "
       << counts[int(FlightStatus::Skipped)] << " skipped (up to date), " << counts[int(FlightStatus::Failed)]
       << " failed, " << counts[int(FlightStatus::Cancelled)] << " cancelled.</p>\n<table>\n<tr>";
  for (const Column& column : columns()) html << "<th>" << markupEscaped(column.title) << "</th>";
  html << "</tr>\n";
  for (const FlightSummary& flight : flights) {
    html << "<tr class=\"" << toString(flight.status) << "\">";
    for (const Column& column : columns()) html << "<td>" << markupEscaped(column.cell(flight)) << "</td>";
    html << "</tr>\n";
  }
  html << "</table>\n</body></html>\n";
  writeFileAtomically(out / "summary.html", html.str());
}

}  // namespace skytrace::cli
