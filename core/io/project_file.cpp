#include "core/io/project_file.h"

#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/json_integer.h"

namespace skytrace::io {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kFormat = "skytrace-project";
constexpr int kVersion = 1;

// Relative to `base` when `path` lies inside it, else absolute (generic separators).
std::string storedPath(const std::string& path, const fs::path& base) {
  if (path.empty()) return path;
  const fs::path absolute = fs::absolute(fs::path(path)).lexically_normal();
  const fs::path relative = absolute.lexically_relative(base);
  if (!relative.empty() && *relative.begin() != "..") return relative.generic_string();
  return absolute.generic_string();
}

std::string resolvedPath(const std::string& stored, const fs::path& base) {
  if (stored.empty()) return stored;
  const fs::path p(stored);
  return (p.is_absolute() ? p : base / p).lexically_normal().string();
}

fs::path folderOf(const std::string& project_path) {
  return fs::absolute(fs::path(project_path)).lexically_normal().parent_path();
}

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw FormatError(path + ": not a valid Skytrace project: " + what);
}

std::string stringField(const json& object, const char* key, const std::string& path,
                        bool required) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    if (required) fail(path, std::string("\"") + key + "\" is missing");
    return {};
  }
  if (!it->is_string()) fail(path, std::string("\"") + key + "\" must be a string");
  return it->get<std::string>();
}

CameraSource parseCameraSource(const std::string& name, const std::string& path) {
  if (name == "default") return CameraSource::Default;
  if (name == "file") return CameraSource::File;
  if (name == "hfov") return CameraSource::HorizontalFov;
  if (name == "telemetry") return CameraSource::Telemetry;
  fail(path, "camera source \"" + name + "\" is not one of default, file, hfov, telemetry");
}

}  // namespace

const char* cameraSourceName(CameraSource source) {
  switch (source) {
    case CameraSource::Default: return "default";
    case CameraSource::File: return "file";
    case CameraSource::HorizontalFov: return "hfov";
    case CameraSource::Telemetry: return "telemetry";
  }
  return "default";
}

void Project::check() const {
  if (video_path.empty()) throw InvalidArgument("project: no video chosen");
  if (basemap_paths.empty()) throw InvalidArgument("project: no basemap chosen (at least one is needed)");
  for (const std::string& basemap : basemap_paths)
    if (basemap.empty()) throw InvalidArgument("project: an empty basemap path");
  if (camera.source == CameraSource::File && camera.file_path.empty())
    throw InvalidArgument("project: camera from a file, but no camera file chosen");
  if (camera.source == CameraSource::HorizontalFov && !(camera.hfov_deg > 1.0 && camera.hfov_deg < 179.0))
    throw InvalidArgument("project: horizontal field of view " + std::to_string(camera.hfov_deg) +
                          " deg is outside (1, 179)");
  if (camera.source == CameraSource::Telemetry && telemetry_path.empty())
    throw InvalidArgument("project: camera from the flight log, but no flight log chosen");
  if (telemetry_time_offset_s && !std::isfinite(*telemetry_time_offset_s))
    throw InvalidArgument("project: the flight log's time offset is not a number of seconds");
  if (!processing_mode.empty() && processing_mode != "overlapped" && processing_mode != "sequential" &&
      processing_mode != "frame-parallel")
    throw InvalidArgument("project: processing mode '" + processing_mode +
                          "' is not one of overlapped, sequential, frame-parallel (or empty: automatic)");
  if (!lightglue_depth.empty() && lightglue_depth != "adaptive" && lightglue_depth != "full")
    throw InvalidArgument("project: LightGlue depth '" + lightglue_depth + "' is not adaptive or full");
}

bool operator==(const ProjectCamera& a, const ProjectCamera& b) {
  return a.source == b.source && a.file_path == b.file_path && a.hfov_deg == b.hfov_deg;
}

bool operator==(const Project& a, const Project& b) {
  return a.video_path == b.video_path && a.basemap_paths == b.basemap_paths &&
         a.telemetry_path == b.telemetry_path && a.telemetry_time_offset_s == b.telemetry_time_offset_s &&
         a.camera == b.camera && a.feature_model == b.feature_model && a.device == b.device &&
         a.vo_model == b.vo_model && a.satellite_model == b.satellite_model && a.vo_device == b.vo_device &&
         a.satellite_device == b.satellite_device && a.processing_mode == b.processing_mode &&
         a.register_every_keyframe == b.register_every_keyframe && a.half_precision == b.half_precision &&
         a.lightglue_depth == b.lightglue_depth && a.results_dir == b.results_dir;
}

std::string defaultResultsDir(const std::string& project_path) {
  const fs::path p = fs::absolute(fs::path(project_path)).lexically_normal();
  return (p.parent_path() / (p.stem().string() + "_results")).string();
}

Project readProjectFile(const std::string& path) {
  const std::string text = readFileBytes(path);
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number too large
    fail(path, std::string("not JSON (") + e.what() + ")");
  }
  if (!root.is_object()) fail(path, "the top level is not a JSON object");
  if (stringField(root, "format", path, true) != kFormat)
    fail(path, std::string("\"format\" is not \"") + kFormat + "\"");
  const auto version = root.find("version");
  if (version == root.end() || !version->is_number_integer())
    fail(path, "\"version\" is missing or not an integer");
  const int version_number = jsonInteger<int>(*version, path + ": \"version\"");
  if (version_number > kVersion)
    fail(path, "version " + std::to_string(version_number) +
                   " is newer than this Skytrace reads (" + std::to_string(kVersion) + ")");

  const fs::path base = folderOf(path);
  Project project;
  project.register_every_keyframe = false;  // a file from before the key: latest wins
  project.video_path = resolvedPath(stringField(root, "video", path, true), base);
  const auto basemaps = root.find("basemaps");
  if (basemaps == root.end() || !basemaps->is_array())
    fail(path, "\"basemaps\" is missing or not an array");
  for (const json& entry : *basemaps) {
    if (!entry.is_string()) fail(path, "\"basemaps\" holds a value that is not a path");
    project.basemap_paths.push_back(resolvedPath(entry.get<std::string>(), base));
  }
  project.telemetry_path = resolvedPath(stringField(root, "telemetry", path, false), base);
  const auto time_offset = root.find("telemetry_time_offset_s");
  if (time_offset != root.end() && !time_offset->is_null()) {
    if (!time_offset->is_number() || !std::isfinite(time_offset->get<double>()))
      fail(path, "\"telemetry_time_offset_s\" is not a number of seconds");
    project.telemetry_time_offset_s = time_offset->get<double>();
  }

  const auto camera = root.find("camera");
  if (camera != root.end() && !camera->is_null()) {
    if (!camera->is_object()) fail(path, "\"camera\" is not an object");
    project.camera.source = parseCameraSource(stringField(*camera, "source", path, true), path);
    if (project.camera.source == CameraSource::File)
      project.camera.file_path = resolvedPath(stringField(*camera, "path", path, true), base);
    if (project.camera.source == CameraSource::HorizontalFov) {
      const auto hfov = camera->find("hfov_deg");
      if (hfov == camera->end() || !hfov->is_number()) fail(path, "\"camera.hfov_deg\" is missing");
      project.camera.hfov_deg = hfov->get<double>();
    }
  }
  const auto processing = root.find("processing");
  if (processing != root.end() && !processing->is_null()) {
    if (!processing->is_object()) fail(path, "\"processing\" is not an object");
    project.feature_model = stringField(*processing, "feature_model", path, false);
    project.device = stringField(*processing, "device", path, false);
    project.vo_model = stringField(*processing, "vo_model", path, false);
    project.satellite_model = stringField(*processing, "satellite_model", path, false);
    project.vo_device = stringField(*processing, "vo_device", path, false);
    project.satellite_device = stringField(*processing, "satellite_device", path, false);
    const std::string mode = stringField(*processing, "mode", path, false);
    if (processing->find("mode") == processing->end()) {
      // A file from before the key ran its feature_model through the engine.
      if (!project.feature_model.empty()) project.processing_mode = "overlapped";
    } else if (mode != "auto" && !mode.empty()) {
      if (mode != "overlapped" && mode != "sequential" && mode != "frame-parallel")
        fail(path, "\"processing.mode\" must be \"auto\", \"overlapped\", \"sequential\" or "
                   "\"frame-parallel\", not \"" + mode + "\"");
      project.processing_mode = mode;
    }
    const auto every_keyframe = processing->find("register_every_keyframe");
    if (every_keyframe != processing->end() && !every_keyframe->is_null()) {
      if (!every_keyframe->is_boolean())
        fail(path, "\"processing.register_every_keyframe\" must be true or false");
      project.register_every_keyframe = every_keyframe->get<bool>();
    }
    const auto half = processing->find("half_precision");
    if (half != processing->end() && !half->is_null()) {
      if (!half->is_boolean()) fail(path, "\"processing.half_precision\" must be true or false");
      project.half_precision = half->get<bool>();
    }
    project.lightglue_depth = stringField(*processing, "lightglue_depth", path, false);
    if (!project.lightglue_depth.empty() && project.lightglue_depth != "adaptive" && project.lightglue_depth != "full")
      fail(path, "\"processing.lightglue_depth\" must be \"adaptive\" or \"full\", not \"" +
                     project.lightglue_depth + "\"");
  }
  const std::string results = stringField(root, "results", path, false);
  project.results_dir = results.empty() ? defaultResultsDir(path) : resolvedPath(results, base);
  return project;
}

void writeProjectFile(const std::string& path, const Project& project) {
  project.check();
  const fs::path base = folderOf(path);
  json root;
  root["format"] = kFormat;
  root["version"] = kVersion;
  root["video"] = storedPath(project.video_path, base);
  json basemaps = json::array();
  for (const std::string& basemap : project.basemap_paths) basemaps.push_back(storedPath(basemap, base));
  root["basemaps"] = basemaps;
  root["telemetry"] = project.telemetry_path.empty() ? json(nullptr)
                                                     : json(storedPath(project.telemetry_path, base));
  if (project.telemetry_time_offset_s) root["telemetry_time_offset_s"] = *project.telemetry_time_offset_s;
  json camera;
  camera["source"] = cameraSourceName(project.camera.source);
  if (project.camera.source == CameraSource::File) camera["path"] = storedPath(project.camera.file_path, base);
  if (project.camera.source == CameraSource::HorizontalFov) camera["hfov_deg"] = project.camera.hfov_deg;
  root["camera"] = camera;
  json processing = json::object();  // unset fields left out: the processing defaults
  for (const auto& [key, value] : {std::pair<const char*, const std::string*>{"feature_model", &project.feature_model},
                                   {"device", &project.device},
                                   {"vo_model", &project.vo_model},
                                   {"satellite_model", &project.satellite_model},
                                   {"vo_device", &project.vo_device},
                                   {"satellite_device", &project.satellite_device}})
    if (!value->empty()) processing[key] = *value;
  processing["mode"] = project.processing_mode.empty() ? std::string("auto") : project.processing_mode;
  processing["register_every_keyframe"] = project.register_every_keyframe;
  if (project.half_precision) processing["half_precision"] = true;
  if (!project.lightglue_depth.empty()) processing["lightglue_depth"] = project.lightglue_depth;
  root["processing"] = processing;
  root["results"] = storedPath(project.results_dir.empty() ? defaultResultsDir(path) : project.results_dir, base);
  writeFileAtomically(path, root.dump(2) + "\n");
}

}  // namespace skytrace::io
