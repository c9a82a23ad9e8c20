// The manifest of a batch of flights (`skytrace-cli batch MANIFEST`): one flight per CSV
// row or JSONL line, each processed like `skytrace-cli process`.
//
// CSV: a header row naming the columns, then one row per flight; fields may be quoted
// ("a, b"; "" is a quote). JSONL: one JSON object per line with the same keys. Blank
// lines and lines starting with '#' are skipped in both. Keys:
//   id             required; letters, digits, '.', '_' and '-'; unique (the results
//                  folder's name)
//   video          required; a video file or an image folder
//   basemaps       required; several separated by ';' (JSONL: also an array of strings)
//   telemetry      flight log (process --telemetry)
//   camera         camera JSON (process --camera)
//   time_offset_s  seconds added to the log's clock (process --time-offset)
//   model, vo_model, sat_model   process --model / --vo-model / --sat-model
//   truth          a truth track (truth.csv from render, or any track file): the batch
//                  scores the flight's track against it (skytrace-cli eval)
// Relative paths are relative to the manifest's folder; unknown keys are an error (a
// typo must not silently drop an input). Thread: any.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace skytrace::app {

struct BatchFlight {
  std::string id;
  std::string video_path;
  std::vector<std::string> basemap_paths;
  std::string telemetry_path;  // empty: none
  std::string camera_path;     // empty: process's default
  std::optional<double> time_offset_s;
  std::string feature_model, vo_model, satellite_model;  // empty: process's default
  std::string truth_path;      // empty: no accuracy figures
  int line = 0;                // where the flight is in the manifest (1-based)
};

// Reads MANIFEST (.csv, or .jsonl / .ndjson; other extensions: JSONL when the first
// non-blank line starts with '{', else CSV). Throws IoError when the file cannot be read
// and FormatError naming the file and line for a malformed or incomplete entry, a bad or
// repeated id, or an unknown key. Does not check that the named files exist (a flight
// whose inputs are missing fails on its own).
std::vector<BatchFlight> readBatchManifest(const std::string& path);

}  // namespace skytrace::app
