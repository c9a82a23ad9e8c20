// The Skytrace project file (`.skytrace`, JSON): what an analyst opened for one flight
// (video, basemaps, telemetry log, camera, model choice) and where its results go.
//
//   {"format": "skytrace-project", "version": 1,
//    "video": "flight.mp4",
//    "basemaps": ["ortho.tif", "/data/sat.vrt"],
//    "telemetry": "flight.srt"            (or null),
//    "telemetry_time_offset_s": -20.0     (optional: video time = log time + offset),
//    "camera": {"source": "file", "path": "camera.json"}
//            | {"source": "hfov", "hfov_deg": 82.1}
//            | {"source": "telemetry"} | {"source": "default"},
//    "processing": {"feature_model": "aliked-n16rot", "device": "auto",
//                   "vo_model": "superpoint+lightglue", "satellite_model": "dinov2+litesam",
//                   "vo_device": "auto", "satellite_device": "cuda:1",
//                   "mode": "overlapped" | "auto", "register_every_keyframe": false,
//                   "half_precision": true, "lightglue_depth": "full"},
//    "results": "flight_results"}
//
// Every processing field is optional. One left out (or empty) means "the default of
// `skytrace-cli process`" (core/app/flight_processing.h owns those defaults: ALIKED-n16rot,
// automatic device placement and layout), so the GUI and the CLI run the same choice;
// "mode": "auto" is the automatic layout. The fields after "device" came later (still
// version 1): a project with feature_model but without them means feature_model (matched
// with mnn) for both stages, on `device`, in mode "overlapped", with the latest-wins
// keyframe policy (register_every_keyframe false, as before the key existed; new
// projects register every keyframe). half_precision (process --half-precision) and
// lightglue_depth ("adaptive" or "full": process --lightglue-depth) came later still:
// absent means false and adaptive. Older Skytrace versions ignore the later fields.
//
// Paths inside the project's folder are stored relative to it (the project moves with
// its data); others stay absolute. Reading resolves every path to an absolute one.
// Plain value type and pure functions: thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace skytrace::io {

// Where the camera intrinsics come from.
enum class CameraSource {
  Default,    // the processing default (a nominal FOV for the video size)
  File,       // a camera JSON (docs/conventions.md)
  HorizontalFov,  // horizontal field of view in degrees, square pixels, centred
  Telemetry,  // the flight log's camera model, where the log names one
};

// "default", "file", "hfov", "telemetry".
const char* cameraSourceName(CameraSource source);

struct ProjectCamera {
  CameraSource source = CameraSource::Default;
  std::string file_path;  // CameraSource::File
  double hfov_deg = 0.0;  // CameraSource::HorizontalFov, in (1, 179)
};

struct Project {
  std::string video_path;                  // video file or image folder (required)
  std::vector<std::string> basemap_paths;  // one or more rasters, drawn in this order
  std::string telemetry_path;              // empty: none
  // Seconds that put the log on the video's clock (video time = log time + offset);
  // unset: the log's own relation (process --time-offset).
  std::optional<double> telemetry_time_offset_s;
  ProjectCamera camera;
  // Both stages' local features (a name createFeatureExtractor accepts); "": the default.
  std::string feature_model;
  std::string device;                      // "cpu", "cuda", "cuda:N", "auto"; "": auto
  // The model choice per stage; "" = feature_model (nav/model_choice.h names).
  std::string vo_model;                    // e.g. "orb", "superpoint+lightglue"
  std::string satellite_model;             // e.g. "sift", "dinov2+litesam"
  // Devices per stage; "" = device; "auto" = the engine's automatic placement.
  std::string vo_device;
  std::string satellite_device;
  // "overlapped" (the engine), "sequential" or "frame-parallel" (the engine over every
  // GPU); "": the automatic choice for the devices present (process --mode's default).
  std::string processing_mode;
  // Overlapped mode's keyframe policy (engine::KeyframePolicy): false = latest wins (VO
  // never waits, requests made while the satellite stage is busy are dropped); true =
  // every keyframe is registered, VO waits for the satellite stage (offline review:
  // completeness over latency). Sequential mode registers every keyframe anyway.
  bool register_every_keyframe = true;  // new projects; a file without the key: false
  // On a GPU: float16 where it is faster (process --half-precision).
  bool half_precision = false;
  // VO's LightGlue: "" or "adaptive" (the original's early exit and pruning) or "full"
  // (process --lightglue-depth).
  std::string lightglue_depth;
  std::string results_dir;                 // where `process` writes / the GUI reads results

  // Throws InvalidArgument naming the missing or bad field (no video, no basemap, an
  // hfov outside (1, 179), a camera file source without a path, a processing mode other
  // than "", overlapped, sequential or frame-parallel, a LightGlue depth other than "",
  // adaptive or full).
  void check() const;

  // The choice in effect, with the fallbacks above applied ("": the processing default).
  std::string effectiveVoModel() const { return vo_model.empty() ? feature_model : vo_model; }
  std::string effectiveSatelliteModel() const {
    return satellite_model.empty() ? feature_model : satellite_model;
  }
  std::string effectiveVoDevice() const { return vo_device.empty() ? device : vo_device; }
  std::string effectiveSatelliteDevice() const {
    return satellite_device.empty() ? device : satellite_device;
  }
};

// Field-by-field equality (what a file written from either would hold).
bool operator==(const ProjectCamera& a, const ProjectCamera& b);
bool operator==(const Project& a, const Project& b);
inline bool operator!=(const Project& a, const Project& b) { return !(a == b); }

// The results folder used when a project names none: "<project stem>_results" beside it.
std::string defaultResultsDir(const std::string& project_path);

// Reads a project. Throws IoError (missing/unreadable) or FormatError naming the file and
// the field (not JSON, wrong "format", unsupported version, wrong types).
Project readProjectFile(const std::string& path);

// Writes `project` atomically (after check()). Throws InvalidArgument or IoError.
void writeProjectFile(const std::string& path, const Project& project);

}  // namespace skytrace::io
