// FlightResults: one processed (or processing) flight as its results folder holds it
// (docs/process_output.md), and the reader of that folder: the inverse of what
// processFlight writes, in the same layer, for every front end (the GUI's views today).
// Plain values (copyable, no Qt objects): read on any thread, handed to another.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/latency_recorder.h"
#include "core/geo/track.h"
#include "core/nav/trajectory_fusion.h"

namespace skytrace::app {

// One basemap registration attempt (a row of fixes.csv).
struct RegistrationFixRecord {
  std::int64_t frame = -1;
  double t_s = 0.0;
  double lat_deg = 0.0, lon_deg = 0.0;
  double alt_m = std::numeric_limits<double>::quiet_NaN();
  double yaw_deg = std::numeric_limits<double>::quiet_NaN();
  double sigma_m = std::numeric_limits<double>::quiet_NaN();
  int inliers = 0;
  double inlier_ratio = 0.0;
  bool accepted = false;
  std::string reason;  // why it was rejected; empty when accepted
  std::string mode;    // "prior" or "global"
  // Accepted fixes of a finished run: how far the final track passes from the fix,
  // horizontal metres (fixes.csv track_offset_m); NaN otherwise and while a run goes on.
  double track_offset_m = std::numeric_limits<double>::quiet_NaN();
  // Accepted, but the final track does not rest on it (nav::fixFarFromTrack).
  bool setAsideByTrack() const { return accepted && nav::fixFarFromTrack(track_offset_m, sigma_m); }
  bool hasPosition() const { return lat_deg != 0.0 || lon_deg != 0.0; }
};

// Visual-vs-GNSS horizontal distance at one frame (a row of discrepancy.csv).
struct DiscrepancyRecord {
  std::int64_t frame = -1;
  double t_s = 0.0;
  double distance_m = 0.0;
  double sigma_m = std::numeric_limits<double>::quiet_NaN();
  bool flagged = false;
};

// A flagged stretch of GNSS discrepancy (report.json discrepancy.segments).
struct FlaggedSegment {
  double start_s = 0.0, end_s = 0.0;
  std::int64_t start_frame = -1, end_frame = -1;
  double max_m = 0.0;
};

// How far the flight log's clock was off the video's, measured from the images after the
// run (report.json "log_alignment"; docs/process_output.md). Offsets: video time = log
// time + offset, seconds.
struct LogAlignmentSummary {
  bool estimated = false;  // false: not measurable (reason), or no log / older report
  double time_offset_used_s = std::numeric_limits<double>::quiet_NaN();
  double best_time_offset_s = std::numeric_limits<double>::quiet_NaN();
  double sigma_s = std::numeric_limits<double>::quiet_NaN();
  std::string reason;
};

// The inputs the run read, as report.json's "inputs" names them (paths as the run was
// given them); what a results folder needs to be reviewed with its video, maps and log.
struct ResultsInputs {
  std::string video;                   // "": not named (an older report)
  std::vector<std::string> basemaps;
  std::string telemetry;               // "": no flight log
  // The offset the run was given for the log (source "given"); unset when the log's own
  // relation to the video placed it, which reading it again reproduces.
  std::optional<double> telemetry_time_offset_s;
  // The camera file's path, or how the camera was chosen ("hfov", "default", ...; the
  // folder's camera.json holds the model itself).
  std::string camera;
};

// How the track scored against a reference track: accuracy.json in the results folder,
// an evaluation report as `skytrace-cli eval --out RESULTS/accuracy.json` writes it (the
// demo writes one against its truth), else the eval.json a batch writes beside a flight's
// results (docs/process_output.md). Distances are horizontal, in metres; fractions are
// over every reference frame (frames without a position count as misses).
struct AccuracySummary {
  std::string reference;  // the reference track's file, as the evaluation named it
  std::string alignment;  // "none", "rigid" or "similarity" (fitted before scoring)
  int reference_frames = 0;
  double fraction_with_position = 0.0;
  double rmse_m = 0.0, median_m = 0.0, p90_m = 0.0, max_m = 0.0;
  double within_5m = 0.0, within_10m = 0.0, within_20m = 0.0;
  double vertical_rmse_m = std::numeric_limits<double>::quiet_NaN();   // NaN: not compared
  double heading_rmse_deg = std::numeric_limits<double>::quiet_NaN();  // NaN: not compared
};

struct FlightResults {
  std::string folder;     // where it was read from; empty for live results
  geo::Track track;       // fused visual track (smoothed, or the online one while live)
  geo::Track odometry;    // raw visual odometry
  geo::Track online;      // causal estimate
  geo::Track gnss;        // logged GNSS (empty without telemetry)
  std::vector<RegistrationFixRecord> fixes;
  std::vector<DiscrepancyRecord> discrepancy;
  std::vector<FlaggedSegment> flagged_segments;
  // Runs of frames visual odometry lost (report.json odometry.lost_segments).
  std::vector<geo::FrameSpan> odometry_lost;
  std::vector<engine::LatencySample> latency;
  std::string report_json;  // report.json as written (empty when absent)
  bool completed = false;
  std::string device;
  std::string feature_model;       // VO model as run ("sift+mnn", "superpoint+lightglue")
  std::string registration_model;  // satellite stage as run ("vlad+sift", "dinov2-vits14+litesam")
  std::string mode;                // "overlapped", "sequential", "" when not recorded
  std::string fallback_reason;
  // Ground height (ellipsoidal metres) under the flight, for camera footprints; NaN when
  // unknown (report.json "ground_alt_m", else flight.json's ENU origin beside the video).
  double ground_alt_m = std::numeric_limits<double>::quiet_NaN();
  LogAlignmentSummary log_alignment;
  ResultsInputs inputs;
  std::optional<AccuracySummary> accuracy;  // unset: no accuracy.json
  std::vector<std::string> warnings;  // optional files missing or unreadable

  bool empty() const { return track.poses.empty() && odometry.poses.empty() && online.poses.empty(); }
  // The track the views follow: the fused one, else the online one, else odometry.
  const geo::Track& primaryTrack() const;
};

// True when `folder` looks like a results folder (holds track.csv or report.json).
bool isResultsFolder(const std::string& folder);

// Reads a results folder. Throws IoError when the folder has neither track.csv nor
// report.json, FormatError naming the file when one of them is malformed; a missing or
// malformed optional file (odometry, online, gnss, fixes, discrepancy, latency,
// accuracy) only adds a warning.
FlightResults readResultsFolder(const std::string& folder);

// Index of the pose nearest in time to t_s (binary search on t_s; poses in time order);
// -1 for an empty track.
int poseIndexAt(const geo::Track& track, double t_s);

// An evaluation report's summary (the JSON `skytrace-cli eval` writes). Throws
// FormatError naming `path` when it is not one.
AccuracySummary readAccuracyReport(const std::string& path);

// The engine's stage for a name written by engine::stageName; false when unknown.
bool stageFromName(const std::string& name, engine::Stage* stage);

}  // namespace skytrace::app
