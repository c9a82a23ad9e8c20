// A small processed flight made for the results reader and the GUI tests (no ../shared needed): a procedural
// UTM basemap, a 60-frame video rendered over it (320x180, nadir, 100 m), a results folder in the format of
// docs/process_output.md (visual track, raw odometry, GNSS with a flagged 40 m
// discrepancy between 3.0 and 4.0 s, registration fixes with one rejection (frame 20) and
// one accepted fix 30 m east of the track that the track set aside (frame 50),
// odometry lost at frames 45-47, per-stage latency, report, camera) and a .skytrace project naming all of it. Everything is
// written by the project's own writers (exportTrack, writeLatencyCsv, writeCameraFile,
// writeProjectFile), so the GUI is checked against independently known values.
#pragma once

#include <QDir>
#include <QFile>
#include <QString>
#include <QTextStream>

#include <cmath>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "core/engine/latency_recorder.h"
#include "core/geo/basemap.h"
#include "core/geo/geodesy.h"
#include "core/geo/track_io.h"
#include "core/io/project_file.h"
#include "core/nav/camera_model.h"
#include "core/nav/camera_pose.h"
#include "core/sim/flight_renderer.h"
#include "core/sim/procedural_basemap.h"
#include "core/sim/video_writer.h"

namespace skytrace::test {

struct SyntheticFlight {
  QString folder;
  QString basemap, video, results, project;
  geo::Track visual, odometry, gnss;
  int frames = 60;
  double fps = 10.0;
  int accepted_fixes = 0, rejected_fixes = 0;  // accepted: those the track rests on
  int set_aside_fixes = 0;                       // accepted, but 30 m from the track
};

inline SyntheticFlight writeSyntheticFlight(const QString& folder) {
  SyntheticFlight f;
  f.folder = folder;
  f.basemap = folder + "/basemap.tif";
  f.video = folder + "/flight.mp4";
  f.results = folder + "/flight_results";
  f.project = folder + "/flight.skytrace";
  QDir().mkpath(f.results);

  sim::ProceduralBasemapOptions map_options;
  map_options.size_px = 512;
  map_options.gsd_m = 1.0;
  sim::writeProceduralBasemap(f.basemap.toStdString(), map_options);
  const geo::GeoBBox bbox = geo::Basemap::open(f.basemap.toStdString()).footprint().bbox;
  const geo::GeoPoint centre{0.5 * (bbox.min_lat_deg + bbox.max_lat_deg), 0.5 * (bbox.min_lon_deg + bbox.max_lon_deg), 0.0};
  const geo::LocalEnuFrame enu(centre);

  // The video: the basemap as the nadir camera saw it along the track below.
  const nav::CameraModel camera = nav::CameraModel::fromHorizontalFov(320, 180, 70.0);
  auto track_enu = [&](int i) {
    const double s = static_cast<double>(i) / (f.frames - 1);
    return cv::Vec3d(-150.0 + 300.0 * s, -100.0 + 200.0 * s, 100.0);
  };
  {
    const geo::Basemap basemap = geo::Basemap::open(f.basemap.toStdString());
    const sim::FlightRenderer renderer(basemap, enu, camera, sim::RenderOptions());
    sim::VideoWriterOptions options;
    options.fps = f.fps;
    sim::VideoWriter writer(f.video.toStdString(), {camera.width_px, camera.height_px}, options);
    for (int i = 0; i < f.frames; ++i) {
      nav::CameraPose pose;
      pose.t_s = i / f.fps;
      pose.position_enu = track_enu(i);
      pose.yaw_deg = 56.3;
      pose.pitch_deg = -90.0;
      writer.write(renderer.renderClean(pose).bgr);
    }
    writer.close();
  }

  f.visual.name = "visual";
  f.visual.start_unix_s = 1717236000.0;  // 2024-06-01T10:00:00Z
  f.odometry = f.visual;
  f.gnss = f.visual;
  for (int i = 0; i < f.frames; ++i) {
    const double s = static_cast<double>(i) / (f.frames - 1);
    geo::TrackPose p;
    p.frame = i;
    p.t_s = i / f.fps;
    const geo::GeoPoint g = enu.toGeo({-150.0 + 300.0 * s, -100.0 + 200.0 * s, 100.0});
    p.lat_deg = g.lat_deg;
    p.lon_deg = g.lon_deg;
    p.alt_m = 100.0;
    p.yaw_deg = 56.3;
    p.pitch_deg = -90.0;
    p.roll_deg = 0.0;
    p.sigma_m = 2.0 + 10.0 * s;
    p.source = geo::PoseSource::Visual;
    f.visual.poses.push_back(p);
    geo::TrackPose o = p;
    const geo::GeoPoint go = enu.toGeo({-150.0 + 300.0 * s + 30.0 * s * s, -100.0 + 200.0 * s, 100.0});
    o.lat_deg = go.lat_deg;
    o.lon_deg = go.lon_deg;
    o.source = geo::PoseSource::Odometry;
    f.odometry.poses.push_back(o);
    geo::TrackPose n = p;
    const double offset_m = (i >= 30 && i <= 40) ? 40.0 : 3.0;
    const geo::GeoPoint gn = enu.toGeo({-150.0 + 300.0 * s + offset_m, -100.0 + 200.0 * s, 100.0});
    n.lat_deg = gn.lat_deg;
    n.lon_deg = gn.lon_deg;
    n.source = geo::PoseSource::Gnss;
    f.gnss.poses.push_back(n);
  }
  const std::string dir = f.results.toStdString();
  geo::exportTrack(f.visual, dir + "/track.csv", geo::TrackFormat::Csv);
  geo::exportTrack(f.visual, dir + "/track.geojson", geo::TrackFormat::GeoJson);
  geo::exportTrack(f.odometry, dir + "/odometry.csv", geo::TrackFormat::Csv);
  geo::exportTrack(f.visual, dir + "/online.csv", geo::TrackFormat::Csv);
  geo::exportTrack(f.gnss, dir + "/gnss.csv", geo::TrackFormat::Csv);

  auto write_text = [](const QString& path, const QString& text) {
    QFile file(path);
    file.open(QIODevice::WriteOnly | QIODevice::Text);
    QTextStream(&file) << text;
  };
  QString fixes =
      "frame,t_s,lat_deg,lon_deg,alt_m,yaw_deg,sigma_m,inliers,inlier_ratio,score,accepted,reason,basemap,mode,"
      "method,track_offset_m\n";
  for (int i = 0; i < f.frames; i += 10) {
    const geo::TrackPose& p = f.visual.poses[i];
    const bool accepted = i != 20;
    const bool set_aside = i == 50;
    (set_aside ? f.set_aside_fixes : accepted ? f.accepted_fixes : f.rejected_fixes)++;
    const double east_m = set_aside ? 30.0 : 0.0;
    const double lon_deg = p.lon_deg + east_m / (111320.0 * std::cos(p.lat_deg * M_PI / 180.0));
    fixes += QString("%1,%2,%3,%4,100,56.3,1.5,%5,%6,0.8,%7,%8,0,%9,matches,%10\n")
                 .arg(i)
                 .arg(p.t_s)
                 .arg(p.lat_deg, 0, 'f', 9)
                 .arg(lon_deg, 0, 'f', 9)
                 .arg(accepted ? 140 : 8)
                 .arg(accepted ? 0.6 : 0.05)
                 .arg(accepted ? 1 : 0)
                 .arg(accepted ? "" : "too_few_inliers")
                 .arg(i == 0 ? "global" : "prior")
                 .arg(accepted ? QString::number(set_aside ? 30.0 : 0.2, 'f', 3) : QString());
  }
  write_text(f.results + "/fixes.csv", fixes);
  QString discrepancy = "frame,t_s,distance_m,sigma_m,flagged\n";
  for (int i = 0; i < f.frames; ++i)
    discrepancy += QString("%1,%2,%3,4,%4\n").arg(i).arg(i / f.fps).arg(i >= 30 && i <= 40 ? 40 : 3).arg(i >= 30 && i <= 40 ? 1 : 0);
  write_text(f.results + "/discrepancy.csv", discrepancy);

  std::vector<engine::LatencySample> latency;
  for (int i = 0; i < f.frames; ++i) {
    for (auto [stage, ms] : {std::pair{engine::Stage::Decode, 2.0}, std::pair{engine::Stage::Extract, 20.0 + i % 5},
                             std::pair{engine::Stage::Match, 5.0}, std::pair{engine::Stage::Pose, 3.0}}) {
      engine::LatencySample s;
      s.frame = i;
      s.stage = stage;
      s.start_ms = i * 100.0;
      s.duration_ms = ms;
      latency.push_back(s);
    }
  }
  engine::writeLatencyCsv(dir + "/latency.csv", latency);
  nav::writeCameraFile(dir + "/camera.json", camera);
  write_text(f.results + "/report.json",
             QString(R"({"skytrace_version": "test", "completed": true,
  "inputs": {"video": "%1", "basemaps": ["%2"], "telemetry": null, "camera": "hfov"},
  "device": "cpu", "feature_model": "sift", "fallback_reason": "", "ground_alt_m": 0.0,
  "frames": {"total": 60, "processed": 60, "with_position": 60, "localized_fraction": 1.0},
  "odometry": {"lost_frames": 3, "lost_segments": [{"start_frame": 45, "end_frame": 47, "start_s": 4.5, "end_s": 4.7}]},
  "discrepancy": {"threshold_sigma": 3.0, "min_duration_s": 0.5, "frames_compared": 60,
                  "segments": [{"start_frame": 30, "end_frame": 40, "start_s": 3.0, "end_s": 4.0,
                                "max_m": 40.0, "mean_m": 40.0}]},
  "log_alignment": {"estimated": true, "reason": null, "time_offset_used_s": 0.0, "shift_s": 0.8,
                    "sigma_s": 0.05, "best_time_offset_s": 0.8, "residual_m": 1.2,
                    "gnss_to_visual_east_m": 0.0, "gnss_to_visual_north_m": 0.0, "fixes_compared": 60}})")
                 .arg(f.video, f.basemap));

  io::Project project;
  project.video_path = f.video.toStdString();
  project.basemap_paths = {f.basemap.toStdString()};
  project.camera.source = io::CameraSource::HorizontalFov;
  project.camera.hfov_deg = 70.0;
  project.results_dir = dir;
  io::writeProjectFile(f.project.toStdString(), project);
  return f;
}

}  // namespace skytrace::test
