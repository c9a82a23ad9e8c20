// Writes a navigation run's results folder (docs/process_output.md): the fused track in
// every export format, odometry/online/GNSS tracks, fixes.csv, discrepancy.csv,
// camera.json and report.json. Every file is written atomically.
// Thread: any (pure function of its arguments).
#pragma once

#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/geo/geodesy.h"
#include "core/nav/camera_model.h"
#include "core/nav/navigation_session.h"

namespace skytrace::nav {

// Per-stage latency summary for report.json (the engine computes it from its recorder).
struct StageSummary {
  std::string stage;  // "decode", "upload", "extract", "match", "pose", "retrieval", "fine_match", "fusion"
  std::size_t count = 0;
  double mean_ms = 0.0, p50_ms = 0.0, p99_ms = 0.0, max_ms = 0.0;
};

// Parts of a navigation run's time besides its frames, seconds: until VO had done its
// first frame (models loaded, first passes planned; -1: unknown), VO blocked waiting for
// the registration (every-keyframe policy), and VO's finish (last fixes, smoothing).
struct NavigationTimeParts {
  double first_frame_s = -1.0;
  double registration_wait_s = 0.0;
  double finish_s = 0.0;
};

struct RunDescription {
  std::string skytrace_version;
  std::string video_path;
  std::vector<std::string> basemap_paths;
  std::string telemetry_path;  // empty: none
  double telemetry_time_offset_s = 0.0;  // video time = log time + this (with a log)
  // Where that offset came from: "given" (--time-offset, a project's), "video clock" (a DJI
  // SRT), "recording time" (the video's creation time against the log's UTC), "assumed".
  std::string telemetry_time_offset_source;
  // The video's frame 0 in UTC (NaN: unknown) and what said so: "flight log" (its UTC on
  // the video's clock), "mp4 movie header", "exif gps time", "exif local time with
  // offset" (VideoInfo::creation_source); empty when unknown.
  double video_start_unix_s = std::numeric_limits<double>::quiet_NaN();
  std::string video_start_source;
  // How the frames were timed (VideoInfo::frame_timing): "container timestamps", "exif
  // capture times" or "nominal frame rate".
  std::string video_frame_timing;
  std::string camera_source;   // file path, "hfov", "telemetry", "default"
  std::string device = "cpu";
  std::string feature_model;
  std::string registration_model;
  int vo_keypoint_budget = 0;  // keypoints per frame VO extracts at most (0: not reported)
  std::string fallback_reason;
  double wall_s = 0.0;        // the whole command: inputs read, navigation, results written
  double navigation_s = 0.0;  // the navigation run alone (0: not measured, not reported)
  NavigationTimeParts navigation_parts;  // reported with navigation_s
  std::vector<StageSummary> stages;
  nlohmann::json* extra = nullptr;  // merged into report.json when set (e.g. engine mode)
};

// The report as JSON (what report.json holds).
nlohmann::json navigationReportJson(const NavigationResult& result, const RunDescription& run);

// Writes every file into `directory` (created if needed); track files only when the
// track has poses. Throws IoError.
void writeNavigationResults(const std::string& directory, const NavigationResult& result,
                            const CameraModel& camera, const geo::LocalEnuFrame& enu,
                            const RunDescription& run);

}  // namespace skytrace::nav
