// The per-flight record of `skytrace-cli batch` and its summary files: DIR/summary.csv
// (one row per flight, for scripts and spreadsheets) and DIR/summary.html (the same table,
// a self-contained page to send to someone). Thread: any (the caller owns the records).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace skytrace::cli {

enum class FlightStatus { Pending, Done, Skipped, Failed, Cancelled };

// "pending", "done", "skipped", "failed", "cancelled"
std::string toString(FlightStatus status);

struct FlightSummary {
  std::string id;
  FlightStatus status = FlightStatus::Pending;
  int exit_code = 0;        // of the child that failed (process, then eval); -2: crashed
  std::string message;      // why a flight failed
  std::string results_dir;  // DIR/<id>
  double wall_s = 0.0;      // this batch's time on the flight (hashing, process, eval)
  // From the results' report.json (absent: not known).
  std::optional<int> frames, fixes_accepted, fixes_attempted, flagged_segments;
  std::optional<double> localized_fraction, max_discrepancy_m, navigation_fps, processing_wall_s;
  // From eval.json (a truth track in the manifest).
  std::optional<double> ate_rmse_m, within_5m;
};

// A flight's outcome as its batch (or Slurm task) ended it: DIR/logs/<id>.status.json
// with id, status, exit_code, message, results and wall_s. writeFlightStatus throws
// IoError; readFlightStatus returns false when there is no readable status file.
void writeFlightStatus(const std::filesystem::path& path, const FlightSummary& summary);
bool readFlightStatus(const std::filesystem::path& path, FlightSummary* summary);

// Fills the figures of `summary` from `results`/report.json and eval.json where present.
void readFlightFigures(const std::filesystem::path& results, FlightSummary* summary);

// One line for the terminal: "done in 12.3 s: 300 frames, 100 % localised, 35/35 fixes,
// ATE 1.52 m" or "failed: <message>".
std::string describeFlight(const FlightSummary& summary);

// Writes `out`/summary.csv and `out`/summary.html (atomically). Throws IoError.
void writeBatchSummary(const std::filesystem::path& out, const std::string& manifest,
                       const std::vector<FlightSummary>& flights);

}  // namespace skytrace::cli
