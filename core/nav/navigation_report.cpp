#include "core/nav/navigation_report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/geo/track_io.h"
#include "core/nav/ground_projection.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/number_text.h"

namespace skytrace::nav {
namespace {

nlohmann::json nullable(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

std::string fixesCsv(const NavigationResult& result, const geo::LocalEnuFrame* enu) {
  std::ostringstream out;
  out << "frame,t_s,lat_deg,lon_deg,alt_m,yaw_deg,sigma_m,inliers,inlier_ratio,score,accepted,"
         "reason,basemap,mode,method,track_offset_m\n";
  for (const auto& f : result.fixes) {
    std::string lat, lon, alt, yaw;
    if (f.has_pose && enu) {
      CameraPose reported = f.pose;
      foldRollIntoYawNearNadir(&reported);
      const geo::TrackPose p = trackPoseFromCameraPose(reported, *enu, f.frame);
      lat = fixedDecimals(p.lat_deg, 9);
      lon = fixedDecimals(p.lon_deg, 9);
      alt = fixedDecimals(p.alt_m, 3);
      yaw = fixedDecimals(p.yaw_deg, 3);
    }
    out << f.frame << ',' << fixedDecimals(f.t_s, 4) << ',' << lat << ',' << lon << ',' << alt << ','
        << yaw << ',' << (f.has_pose ? fixedDecimals(f.sigma_m, 3) : "") << ',' << f.inliers << ','
        << fixedDecimals(f.inlier_ratio, 4) << ',' << fixedDecimals(f.score, 4) << ',' << (f.accepted ? 1 : 0)
        << ',' << f.reason << ',' << f.basemap_index << ',' << (f.global_mode ? "global" : "prior")
        << ',' << (f.area_correlation ? "area" : "matches") << ',' << fixedDecimals(f.track_offset_m, 3) << '\n';
  }
  return out.str();
}

std::string discrepancyCsv(const DiscrepancyAnalysis& analysis) {
  std::ostringstream out;
  out << "frame,t_s,distance_m,sigma_m,flagged\n";
  for (const auto& s : analysis.samples) {
    out << s.frame << ',' << fixedDecimals(s.t_s, 4) << ',' << fixedDecimals(s.distance_m, 3) << ','
        << fixedDecimals(s.sigma_m, 3) << ',' << (s.flagged ? 1 : 0) << '\n';
  }
  return out.str();
}

}  // namespace

nlohmann::json navigationReportJson(const NavigationResult& result, const RunDescription& run) {
  using nlohmann::json;
  json report;
  report["skytrace_version"] = run.skytrace_version;
  report["completed"] = result.completed;
  report["inputs"] = {{"video", run.video_path},
                      {"basemaps", run.basemap_paths},
                      {"telemetry", run.telemetry_path.empty() ? json(nullptr) : json(run.telemetry_path)},
                      {"telemetry_time_offset_s",
                       run.telemetry_path.empty() ? json(nullptr) : json(run.telemetry_time_offset_s)},
                      {"telemetry_time_offset_source", run.telemetry_path.empty()
                                                            ? json(nullptr)
                                                            : json(run.telemetry_time_offset_source)},
                      {"video_start_unix_s",
                       std::isfinite(run.video_start_unix_s) ? json(run.video_start_unix_s) : json(nullptr)},
                      {"video_start_source",
                       run.video_start_source.empty() ? json(nullptr) : json(run.video_start_source)},
                      {"video_frame_timing",
                       run.video_frame_timing.empty() ? json(nullptr) : json(run.video_frame_timing)},
                      {"camera", run.camera_source}};
  report["device"] = run.device;
  report["feature_model"] = run.feature_model;
  report["registration_model"] = run.registration_model;
  report["fallback_reason"] = run.fallback_reason;
  std::int64_t with_position = 0;
  for (const auto& p : result.track.poses) with_position += std::isfinite(p.lat_deg) ? 1 : 0;
  const double processed = double(std::max<std::int64_t>(1, result.frames_processed));
  report["frames"] = {{"total", result.frames_total},
                      {"processed", result.frames_processed},
                      {"with_position", with_position},
                      {"backfilled", result.backfilled_frames},
                      {"localized_fraction", result.frames_processed > 0 ? with_position / processed : 0.0}};
  int accepted = 0;
  std::map<std::string, int> by_reason;
  int global_attempts = 0;
  int area_accepted = 0;
  for (const auto& f : result.fixes) {
    if (f.accepted) {
      ++accepted;
      area_accepted += f.area_correlation ? 1 : 0;
    } else {
      ++by_reason[f.reason];
    }
    global_attempts += f.global_mode ? 1 : 0;
  }
  report["fixes"] = {{"attempted", result.fixes.size()},
                     {"accepted", accepted},
                     {"rejected", int(result.fixes.size()) - accepted},
                     {"global_attempts", global_attempts},
                     {"accepted_by_area_correlation", area_accepted},
                     {"far_from_track", result.fixes_far_from_track},
                     {"rejected_by_reason", by_reason}};
  json lost_segments = json::array();
  for (const geo::FrameSpan& span : result.lost_spans) {
    lost_segments.push_back({{"start_frame", span.start_frame},
                             {"end_frame", span.end_frame},
                             {"start_s", span.start_s},
                             {"end_s", span.end_s}});
  }
  report["odometry"] = {{"lost_frames", result.lost_frames},
                        {"lost_segments", lost_segments},
                        {"rejected_steps", result.rejected_odometry_steps},
                        {"keyframes", result.keyframes},
                        {"tilt_model_steps", result.tilt_model_steps},
                        {"drift_estimate_percent", nullable(result.drift_estimate_percent)}};
  if (run.vo_keypoint_budget > 0) report["odometry"]["keypoint_budget"] = run.vo_keypoint_budget;
  report["frame_transfers"] = {{"vo_uploads", result.vo_frame_transfers.uploads},
                               {"vo_downloads", result.vo_frame_transfers.downloads},
                               {"keyframe_downloads", result.keyframe_transfers.downloads}};
  json segments = json::array();
  for (const auto& s : result.discrepancy.segments) {
    segments.push_back({{"start_frame", s.start_frame},
                        {"end_frame", s.end_frame},
                        {"start_s", s.start_s},
                        {"end_s", s.end_s},
                        {"max_m", s.max_m},
                        {"mean_m", s.mean_m}});
  }
  report["discrepancy"] = {{"gnss_available", result.gnss_track.has_value()},
                           {"frames_compared", result.discrepancy.samples.size()},
                           {"segments", segments}};
  if (result.log_alignment) {
    const LogAlignment& a = *result.log_alignment;
    report["log_alignment"] = {
        {"estimated", a.estimated},
        {"reason", a.reason.empty() ? json(nullptr) : json(a.reason)},
        {"time_offset_used_s", result.log_time_offset_s},
        {"shift_s", a.estimated ? json(a.shift_s) : json(nullptr)},
        {"sigma_s", a.estimated ? json(a.sigma_s) : json(nullptr)},
        {"best_time_offset_s", a.estimated ? json(result.log_time_offset_s + a.shift_s) : json(nullptr)},
        {"residual_m", a.estimated ? json(a.residual_m) : json(nullptr)},
        {"gnss_to_visual_east_m", a.estimated ? json(a.bias_east_m) : json(nullptr)},
        {"gnss_to_visual_north_m", a.estimated ? json(a.bias_north_m) : json(nullptr)},
        {"fixes_compared", a.fixes_compared}};
  }
  json stages = json::object();
  for (const auto& s : run.stages) {
    stages[s.stage] = {{"count", s.count},
                       {"mean_ms", s.mean_ms},
                       {"p50_ms", s.p50_ms},
                       {"p99_ms", s.p99_ms},
                       {"max_ms", s.max_ms}};
  }
  report["timings"] = {{"wall_s", run.wall_s},
                       {"fps", run.wall_s > 0 ? result.frames_processed / run.wall_s : 0.0},
                       {"stages", stages}};
  if (run.navigation_s > 0) {
    report["timings"]["navigation_s"] = run.navigation_s;
    report["timings"]["navigation_fps"] = result.frames_processed / run.navigation_s;
    const NavigationTimeParts& parts = run.navigation_parts;
    if (parts.first_frame_s >= 0) report["timings"]["first_frame_s"] = parts.first_frame_s;
    report["timings"]["registration_wait_s"] = parts.registration_wait_s;
    report["timings"]["finish_s"] = parts.finish_s;
  }
  report["warnings"] = result.warnings;
  if (run.extra) report.update(*run.extra);
  return report;
}

void writeNavigationResults(const std::string& directory, const NavigationResult& result,
                            const CameraModel& camera, const geo::LocalEnuFrame& enu,
                            const RunDescription& run) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(directory, ec);
  if (ec) throw IoError(directory + ": cannot create the results folder (" + ec.message() + ")");
  const fs::path dir(directory);
  // Tracks without any pose (nothing localised) are not written: the formats need one.
  if (!result.track.poses.empty()) {
    for (const char* ext : {"csv", "geojson", "gpx", "kml", "gpkg"}) {
      geo::exportTrack(result.track, (dir / (std::string("track.") + ext)).string(),
                       geo::parseTrackFormat(ext));
    }
  }
  if (!result.odometry_track.poses.empty()) {
    geo::exportTrack(result.odometry_track, (dir / "odometry.csv").string(), geo::TrackFormat::Csv);
  }
  if (!result.online_track.poses.empty()) {
    geo::exportTrack(result.online_track, (dir / "online.csv").string(), geo::TrackFormat::Csv);
  }
  if (result.gnss_track && !result.gnss_track->poses.empty()) {
    geo::exportTrack(*result.gnss_track, (dir / "gnss.csv").string(), geo::TrackFormat::Csv);
  }
  writeFileAtomically(dir / "fixes.csv", fixesCsv(result, &enu));
  writeFileAtomically(dir / "discrepancy.csv", discrepancyCsv(result.discrepancy));
  writeCameraFile(dir / "camera.json", camera);
  writeFileAtomically(dir / "report.json", navigationReportJson(result, run).dump(2) + "\n");
}

}  // namespace skytrace::nav
