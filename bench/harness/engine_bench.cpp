#include "bench/harness/engine_bench.h"

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "core/app/flight_processing.h"
#include "core/engine/device_placement.h"
#include "core/engine/gpu_streams.h"
#include "core/engine/latency_recorder.h"
#include "core/engine/navigation_payloads.h"
#include "core/engine/pipeline.h"
#include "core/engine/sequential_run.h"
#include "core/engine/transfer_bandwidth.h"
#include "core/engine/video_frame_source.h"
#include "core/io/telemetry/telemetry_reader.h"
#include "core/io/video_source.h"
#include "core/nav/camera_model.h"
#include "core/nav/model_choice.h"
#include "core/nav/visual_odometry.h"
#include "core/sim/flight_simulation.h"
#include "core/sim/paced_frame_source.h"
#include "core/sim/preloaded_frame_source.h"
#include "core/sim/procedural_basemap.h"
#include "core/sim/trajectory_eval.h"
#include "core/sim/truth_csv.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/remove_tree.h"
#include "core/util/thread_budget.h"
#include "core/vision/aliked_config.h"
#include "core/vision/model_paths.h"
#include "core/vision/torch_runtime.h"

namespace skytrace::engine {

using nlohmann::json;

void EngineBenchOptions::check() const {
  if (!flight_dir.empty() && !video_path.empty())
    throw InvalidArgument("--flight and --video exclude each other (a flight folder names its video)");
  if (!video_path.empty() && basemap.empty())
    throw InvalidArgument("--video needs --basemap: the benchmark navigates the video on a map, as `process` does");
  if (video_path.empty() && flight_dir.empty()) {
    if (synthetic_width_px < 64 || synthetic_height_px < 64 || synthetic_width_px > 4096 ||
        synthetic_height_px > 4096)
      throw InvalidArgument("--synthetic: frames of 64x64 to 4096x4096 pixels, got " +
                            std::to_string(synthetic_width_px) + "x" + std::to_string(synthetic_height_px));
  }
  if (!telemetry_path.empty() && video_path.empty())
    throw InvalidArgument("--telemetry goes with --video (a rendered flight brings its own log)");
  if (!camera_path.empty() && video_path.empty())
    throw InvalidArgument("--camera goes with --video (a rendered flight brings its own camera.json)");
  if (frames < 2) throw InvalidArgument("--frames must be >= 2");
  if (warmup_frames < 0 || warmup_frames >= frames)
    throw InvalidArgument("--warmup must be in [0, frames)");
  if (modes.empty()) throw InvalidArgument("--modes: no mode given");
  for (const std::string& mode : modes)
    if (mode != "sequential" && mode != "vo_only" && mode != "overlapped" && mode != "multi_gpu" &&
        mode != "multi_gpu_frames")
      throw InvalidArgument("unknown bench mode '" + mode +
                            "' (sequential, vo_only, overlapped, multi_gpu, multi_gpu_frames)");
  for (const std::string& device : frame_parallel_devices) vision::parseDevice(device);
  if (satellite_sm_limit < 0) throw InvalidArgument("--sat-sm-limit must be >= 0 (0: no limit)");
  if (frame_parallel_devices.size() == 1)
    throw InvalidArgument("--frame-parallel-devices needs at least two devices (e.g. cuda:0,cuda:1)");
  if (vo_keypoints < 1) throw InvalidArgument("--vo-keypoints must be >= 1");
  if (satellite_keypoints < 0) throw InvalidArgument("--sat-keypoints must be >= 1 (0: as `process`)");
  if (register_every_n_keyframes < 1) throw InvalidArgument("--keyframe-interval must be >= 1");
  if (retrieval_candidates < 0) throw InvalidArgument("--candidates must be >= 1 (0: as `process`)");
  if (retrieval_input_px < 0 || retrieval_input_px % 14 != 0)
    throw InvalidArgument("--retrieval-crop must be a multiple of 14 (DINOv2's patch size; 0: 224)");
  if (dense_size_px < 0 || dense_size_px % 32 != 0)
    throw InvalidArgument("--fine-size must be a multiple of 32 (LiteSAM's stride; 0: 512)");
  {
    nav::NavigationOptions scratch;  // the model specs, checked as `process` checks them
    nav::applyVisualOdometryModel(vo_model, scratch);
    if (!satellite_model.empty()) nav::applySatelliteModel(satellite_model, scratch.registration);
  }
  if (ring_slots < 2) throw InvalidArgument("--ring-slots must be >= 2");
  keyframePolicyName(keyframe_policy);  // throws for a value outside the enum
  if (!std::isfinite(pace_fps) || pace_fps < 0.0)
    throw InvalidArgument("--pace-fps must be >= 0 (0: free-running)");
  if (transfer_mib < 0 || transfer_repeats < 1)
    throw InvalidArgument("--transfer-mib must be >= 0 and repeats >= 1");
}

namespace {

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, ','))
    if (!part.empty()) parts.push_back(part);
  return parts;
}

int toInt(const std::string& option, const std::string& value) {
  try {
    std::size_t used = 0;
    const int result = std::stoi(value, &used);
    if (used == value.size()) return result;
  } catch (const std::exception&) {
  }
  throw InvalidArgument("option " + option + " expects an integer, got '" + value + "'");
}

double toDouble(const std::string& option, const std::string& value) {
  try {
    std::size_t used = 0;
    const double result = std::stod(value, &used);
    if (used == value.size()) return result;
  } catch (const std::exception&) {
  }
  throw InvalidArgument("option " + option + " expects a number, got '" + value + "'");
}

}  // namespace

std::string engineBenchUsage() {
  return "Workload (the product's navigation, as `process` runs it; default --synthetic 640x480):\n"
         "  --flight DIR          a rendered flight (`skytrace-cli render --out DIR`): each\n"
         "                        mode's track scored against its truth\n"
         "  --synthetic WxH       the same on a flight rendered first (procedural basemap,\n"
         "                        WxH video of --frames frames, log, truth) in a temporary folder\n"
         "  --seed N              the synthetic flight's seed (default 1)\n"
         "  --video PATH          a recorded video navigated on --basemap (no truth: no accuracy)\n"
         "  --basemap PATH        the map (--video: required; --flight: default the flight's)\n"
         "  --telemetry FILE      with --video: its flight log\n"
         "  --camera FILE         with --video: camera JSON (default as `process`)\n"
         "  --no-telemetry        --flight/--synthetic: navigate without the flight's log\n"
         "  --frames N            frames per mode (default 200)\n"
         "  --warmup N            frames left out of the statistics (default 10)\n"
         "  --modes a,b           sequential,vo_only,overlapped,multi_gpu,multi_gpu_frames\n"
         "                        (default: all)\n"
         "  --device D            cpu, cuda, cuda:N for both stages\n"
         "  --vo-device D / --sat-device D   per stage (two GPUs: registration on cuda:1)\n"
         "  --vo-model M          as `process --vo-model` (default aliked-n16rot), e.g.\n"
         "                        superpoint+lightglue, aliked-n16rot+lightglue, orb\n"
         "  --vo-keypoints N      (default 1024)\n"
         "  --sat-model M         as `process --sat-model`, e.g. dinov2+litesam (default: the\n"
         "                        VO model's features with VLAD retrieval)\n"
         "  --sat-keypoints N     registration's local features (default: as `process`)\n"
         "  --retrieval-crop N    DINOv2 input side in px, multiple of 14 (default 224)\n"
         "  --fine-size N         LiteSAM input long side in px, multiple of 32 (default 512;\n"
         "                        `process --sat-size`)\n"
         "  --candidates N        global search: tiles fine-matched per keyframe (default 4)\n"
         "  --lightglue-depth D   adaptive (the original's early exit and pruning: default, as\n"
         "                        `process`) or full (every layer on every point)\n"
         "  --weights-dir DIR     the model directory (weights under their published names)\n"
         "  --keyframe-interval N every N-th VO keyframe is registered (default 1)\n"
         "  --keyframe-policy P   engine modes with a busy registration: latest (drop the\n"
         "                        oldest request, VO never waits: default) or every (VO waits\n"
         "                        for room: every keyframe registered, as `process`)\n"
         "  --ring-slots N        frame ring depth (default 4)\n"
         "  --transfer-mib N      H2D copy size for the pinned/pageable test, 0 = skip (default 64)\n"
         "  --threads N           CPU threads of LibTorch and the smoother (default: as\n"
         "                        skytrace-cli grants them: Slurm, OMP_NUM_THREADS, affinity)\n"
         "  --preload             decode all frames into memory first (decode = a copy)\n"
         "  --aliked-fp16         ALIKED extractors run their dense part in float16 (CUDA only)\n"
         "  --half-precision      as `process --half-precision`: float16 in SuperPoint,\n"
         "                        LightGlue, DINOv2 and LiteSAM's dense stages on a GPU\n"
         "  --no-cuda-graphs      GPU: every model eager, no CUDA graph replays (comparisons)\n"
         "  --no-fused-kernels    GPU: LibTorch's operators instead of Skytrace's fused kernels\n"
         "                        (ALIKED's, SuperPoint's NMS, float16 LightGlue's, LiteSAM's\n"
         "                        matching; comparisons)\n"
         "  --pace-fps F          deliver frames at F per second in every mode, as a video in\n"
         "                        real time (default 0: as fast as the pipeline takes them);\n"
         "                        for VO latency at a frame rate, not for throughput\n"
         "  --frame-parallel-devices a,b\n"
         "                        the devices of multi_gpu_frames (default cuda:0,cuda:1 when\n"
         "                        there are two GPUs; e.g. cpu,cpu to try the mode anywhere)\n"
         "  --sat-sm-limit N      CUDA: registration's kernels on at most N SMs of its GPU\n"
         "                        (a green context; VO keeps the others), 0 = no limit (default)\n"
         "  --tiles N             ignored (earlier versions' model-only workload)\n";
}

EngineBenchOptions parseEngineBenchArguments(const std::vector<std::string>& args) {
  EngineBenchOptions options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& key = args[i];
    if (key == "--aliked-fp16") {  // a flag without a value
      options.aliked_float16 = true;
      continue;
    }
    if (key == "--half-precision") {  // a flag without a value
      options.half_precision = true;
      continue;
    }
    if (key == "--no-cuda-graphs") {  // a flag without a value
      options.cuda_graphs = false;
      continue;
    }
    if (key == "--no-fused-kernels") {  // a flag without a value
      options.fused_kernels = false;
      continue;
    }
    if (key == "--preload") {  // a flag without a value
      options.preload_frames = true;
      continue;
    }
    if (key == "--no-telemetry") {  // a flag without a value
      options.flight_telemetry = false;
      continue;
    }
    if (i + 1 >= args.size()) throw InvalidArgument("option " + key + " needs a value");
    const std::string value = args[++i];
    if (key == "--synthetic") {
      const auto x = value.find('x');
      if (x == std::string::npos) throw InvalidArgument("--synthetic expects WxH, got '" + value + "'");
      options.synthetic_width_px = toInt(key, value.substr(0, x));
      options.synthetic_height_px = toInt(key, value.substr(x + 1));
    } else if (key == "--seed") {
      const int seed = toInt(key, value);
      if (seed < 0) throw InvalidArgument("--seed must be >= 0");
      options.synthetic_seed = static_cast<std::uint64_t>(seed);
    } else if (key == "--video") {
      options.video_path = value;
    } else if (key == "--flight") {
      options.flight_dir = value;
    } else if (key == "--basemap") {
      options.basemap = value;
    } else if (key == "--telemetry") {
      options.telemetry_path = value;
    } else if (key == "--camera") {
      options.camera_path = value;
    } else if (key == "--frames") {
      options.frames = toInt(key, value);
    } else if (key == "--warmup") {
      options.warmup_frames = toInt(key, value);
    } else if (key == "--modes") {
      options.modes = splitList(value);
    } else if (key == "--device") {
      options.device = value;
    } else if (key == "--vo-device") {
      options.vo_device = value;
    } else if (key == "--sat-device") {
      options.sat_device = value;
    } else if (key == "--vo-model") {
      options.vo_model = value;
    } else if (key == "--vo-keypoints") {
      options.vo_keypoints = toInt(key, value);
    } else if (key == "--sat-model") {
      options.satellite_model = value;
    } else if (key == "--sat-keypoints") {
      options.satellite_keypoints = toInt(key, value);
    } else if (key == "--retrieval-crop") {
      options.retrieval_input_px = toInt(key, value);
    } else if (key == "--fine-size") {
      options.dense_size_px = toInt(key, value);
    } else if (key == "--lightglue-depth") {
      if (value != "full" && value != "adaptive")
        throw InvalidArgument("--lightglue-depth expects full or adaptive, got '" + value + "'");
      options.lightglue_adaptive = value == "adaptive";
    } else if (key == "--weights-dir") {
      options.weights_dir = value;
    } else if (key == "--keyframe-interval") {
      options.register_every_n_keyframes = toInt(key, value);
    } else if (key == "--keyframe-policy") {
      options.keyframe_policy = parseKeyframePolicy(value);
    } else if (key == "--candidates") {
      options.retrieval_candidates = toInt(key, value);
    } else if (key == "--tiles") {
      toInt(key, value);
      options.ignored_options.push_back("--tiles " + value);
    } else if (key == "--ring-slots") {
      options.ring_slots = toInt(key, value);
    } else if (key == "--transfer-mib") {
      options.transfer_mib = toInt(key, value);
    } else if (key == "--threads") {
      options.threads = toInt(key, value);
    } else if (key == "--pace-fps") {
      options.pace_fps = toDouble(key, value);
    } else if (key == "--sat-sm-limit") {
      options.satellite_sm_limit = toInt(key, value);
    } else if (key == "--frame-parallel-devices") {
      options.frame_parallel_devices = splitList(value);
    } else {
      throw InvalidArgument("unknown bench option " + key);
    }
  }
  options.check();
  return options;
}

namespace {

double percentile(std::vector<double> values, double fraction) {
  if (values.empty()) return std::nan("");
  std::sort(values.begin(), values.end());
  const auto n = values.size();
  const auto rank = static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(n)));
  return values[std::min(n - 1, rank == 0 ? 0 : rank - 1)];
}

json distribution(const std::vector<double>& values) {
  if (values.empty()) return json{{"count", 0}};
  double sum = 0.0;
  for (double v : values) sum += v;
  return json{{"count", values.size()},
              {"mean_ms", sum / static_cast<double>(values.size())},
              {"p50_ms", percentile(values, 0.50)},
              {"p99_ms", percentile(values, 0.99)},
              {"max_ms", *std::max_element(values.begin(), values.end())}};
}

template <typename T>
std::vector<T> afterWarmup(const std::vector<T>& values, std::size_t warmup) {
  if (values.size() <= warmup) return {};
  return std::vector<T>(values.begin() + static_cast<std::ptrdiff_t>(warmup), values.end());
}

// Frames per second between the end of warm-up and the last frame.
double throughputFps(const std::vector<double>& frame_done_ms, std::size_t warmup) {
  if (frame_done_ms.size() < warmup + 2) return std::nan("");
  const std::size_t first = warmup == 0 ? 0 : warmup - 1;
  const double span_ms = frame_done_ms.back() - frame_done_ms[first];
  const double frames = static_cast<double>(frame_done_ms.size() - 1 - first);
  return span_ms > 0.0 ? frames * 1000.0 / span_ms : std::nan("");
}

bool isVoStage(Stage stage) {
  return stage == Stage::Decode || stage == Stage::Upload || stage == Stage::Extract ||
         stage == Stage::Match || stage == Stage::Pose;
}
bool isSatelliteStage(Stage stage) { return stage == Stage::Retrieval || stage == Stage::FineMatch; }

// {stage name: ms} of `frame`'s samples in the stages `wanted` selects.
json frameStages(const std::vector<LatencySample>& samples, std::int64_t frame, bool (*wanted)(Stage)) {
  json stages = json::object();
  for (const LatencySample& sample : samples)
    if (wanted(sample.stage) && sample.frame == frame) stages[stageName(sample.stage)] = sample.duration_ms;
  return stages;
}

// Where a VO p99 comes from: the five slowest measured frames with their VO stages
// (frames are numbered from 0 in processing order, so vo_frame_ms[i] is frame i).
json slowestVoFrames(const RunReport& report, const std::vector<LatencySample>& samples,
                     std::size_t warmup) {
  std::vector<std::size_t> order;
  for (std::size_t i = warmup; i < report.vo_frame_ms.size(); ++i) order.push_back(i);
  const std::size_t shown = std::min<std::size_t>(5, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(shown), order.end(),
                    [&](std::size_t a, std::size_t b) { return report.vo_frame_ms[a] > report.vo_frame_ms[b]; });
  json slowest = json::array();
  for (std::size_t k = 0; k < shown; ++k) {
    const auto frame = static_cast<std::int64_t>(order[k]);
    slowest.push_back(json{{"frame", frame},
                           {"vo_ms", report.vo_frame_ms[order[k]]},
                           {"stages", frameStages(samples, frame, isVoStage)}});
  }
  return slowest;
}

// The five slowest measured keyframes of the satellite stage (retrieval + fine match).
json slowestSatelliteKeyframes(const std::vector<LatencySample>& samples, std::size_t warmup) {
  std::map<std::int64_t, double> by_frame;
  for (const LatencySample& sample : samples)
    if (isSatelliteStage(sample.stage) && sample.frame >= static_cast<std::int64_t>(warmup))
      by_frame[sample.frame] += sample.duration_ms;
  std::vector<std::pair<double, std::int64_t>> keyframe_ms;  // (ms, frame)
  for (const auto& [frame, ms] : by_frame) keyframe_ms.emplace_back(ms, frame);
  std::sort(keyframe_ms.rbegin(), keyframe_ms.rend());
  if (keyframe_ms.size() > 5) keyframe_ms.resize(5);
  json slowest = json::array();
  for (const auto& [ms, frame] : keyframe_ms)
    slowest.push_back(json{{"frame", frame},
                           {"stages_ms", ms},
                           {"stages", frameStages(samples, frame, isSatelliteStage)}});
  return slowest;
}

// One mode's entry. `navigation`: what the run's navigation ended with (null when it
// ended without a result, e.g. after an error).
json modeJson(const RunReport& report, const std::vector<LatencySample>& samples,
              const nav::NavigationResult* navigation, std::size_t warmup) {
  json stages = json::object();
  for (int s = 0; s < kStageCount; ++s) {
    std::vector<double> durations;
    for (const LatencySample& sample : samples)
      if (static_cast<int>(sample.stage) == s && sample.frame >= static_cast<std::int64_t>(warmup))
        durations.push_back(sample.duration_ms);
    if (!durations.empty()) stages[stageName(static_cast<Stage>(s))] = distribution(durations);
  }
  // The registration attempts of the run (every keyframe the navigation asked for).
  std::int64_t attempted = 0, accepted = 0, matches = 0, inliers = 0;
  if (navigation) {
    for (const nav::RegistrationFix& fix : navigation->fixes) {
      ++attempted;
      accepted += fix.accepted;
      matches += fix.matches;
      inliers += fix.inliers;
    }
  }
  const auto mean = [](std::int64_t sum, std::int64_t count) {
    return count > 0 ? static_cast<double>(sum) / static_cast<double>(count) : 0.0;
  };
  std::int64_t max_bytes_in_use = -1;
  for (const LatencySample& sample : samples)
    max_bytes_in_use = std::max(max_bytes_in_use, sample.device_bytes_in_use);
  return json{
      {"slowest_vo_frames", slowestVoFrames(report, samples, warmup)},
      {"slowest_satellite_keyframes", slowestSatelliteKeyframes(samples, warmup)},
      {"mode", report.mode},
      {"vo_device", report.vo_device},
      {"satellite_device", report.satellite_device},
      {"completed", report.completed},
      {"error", report.error},
      {"frames", report.frames},
      {"measured_frames", report.frames > static_cast<std::int64_t>(warmup)
                              ? report.frames - static_cast<std::int64_t>(warmup) : 0},
      {"wall_s", report.wall_s},
      {"fps", throughputFps(report.frame_done_ms, warmup)},
      {"stages", stages},
      {"vo_frame", distribution(afterWarmup(report.vo_frame_ms, warmup))},
      {"satellite_keyframe", distribution(report.satellite_ms)},
      {"keyframe_policy", report.keyframe_policy},
      {"keyframes", {{"requested", report.keyframes_requested},
                     {"processed", report.keyframes_processed},
                     {"dropped", report.keyframes_dropped},
                     {"vo_wait_for_room_ms", report.keyframe_wait_ms}}},
      {"fixes", {{"applied", report.fixes_applied},
                 {"late", report.fixes_late},
                 {"out_of_order", report.fixes_out_of_order},
                 {"lost_at_end", report.fixes_lost_at_end},
                 {"attempted", attempted},
                 {"accepted", accepted},
                 {"mean_matches", mean(matches, attempted)},
                 {"mean_inliers", mean(inliers, attempted)}}},
      {"device_bytes", {{"peak_vo", report.peak_vo_device_bytes},
                        {"peak_satellite", report.peak_satellite_device_bytes},
                        {"max_in_use_sampled", max_bytes_in_use}}},
  };
}

// H2D bandwidth, pinned vs pageable, `mib` per copy (core/engine/transfer_bandwidth.h).
json measureTransfers(const vision::DeviceSpec& device, int mib, int repeats) {
  if (!device.cuda) return json{{"skipped", "CPU device: no host-to-device copies"}};
  if (mib == 0) return json{{"skipped", "--transfer-mib 0"}};
  const std::int64_t bytes = static_cast<std::int64_t>(mib) << 20;
  const TransferBandwidth bandwidth = measureHostToDeviceBandwidth(device, bytes, repeats);
  return json{{"bytes_per_copy", bytes},
              {"repeats", repeats},
              {"pinned_gb_s", bandwidth.pinned_gb_s},
              {"pageable_gb_s", bandwidth.pageable_gb_s}};
}

// A flight rendered for --synthetic, in a temporary folder removed with this object.
class SyntheticFlight {
 public:
  SyntheticFlight(const EngineBenchOptions& options, const std::function<void(const std::string&)>& say) {
    namespace fs = std::filesystem;
    std::string pattern = (fs::temp_directory_path() / "skytrace-bench-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw IoError("cannot create a temporary folder for the synthetic flight in " +
                                                fs::temp_directory_path().string());
    dir_ = pattern;
    sim::ProceduralBasemapOptions map;
    map.seed = options.synthetic_seed;
    const fs::path basemap = dir_ / "basemap.tif";
    say("bench: rendering a synthetic flight (" + std::to_string(options.synthetic_width_px) + "x" +
        std::to_string(options.synthetic_height_px) + ", " + std::to_string(options.frames) +
        " frames) over a procedural basemap in " + dir_.string());
    sim::writeProceduralBasemap(basemap.string(), map);
    sim::FlightSimulationOptions flight;
    flight.basemap_path = basemap.string();
    flight.out_dir = dir_ / "flight";
    flight.width_px = options.synthetic_width_px;
    flight.height_px = options.synthetic_height_px;
    flight.seed = options.synthetic_seed;
    // `skytrace-cli demo`'s flight (100 m over the 0.25 m map), long enough for every
    // frame a mode reads, without blur (rendering cost) and without a spoofed log.
    flight.altitude_m = 100.0;
    flight.speed_mps = 15.0;
    flight.fps = 30.0;
    flight.duration_s = static_cast<double>(options.frames + 1) / flight.fps;
    flight.effects.exposure_variation = 0.05;
    flight.effects.colour_variation = 0.02;
    flight.effects.noise_sigma = 1.5;
    sim::simulateFlight(flight);
    description_ = json{{"kind", "synthetic"},
                        {"size", std::to_string(flight.width_px) + "x" + std::to_string(flight.height_px)},
                        {"seed", options.synthetic_seed},
                        {"basemap", "procedural (as `skytrace-cli demo`), 0.25 m/px"},
                        {"altitude_m", flight.altitude_m},
                        {"speed_mps", flight.speed_mps},
                        {"fps", flight.fps}};
  }
  ~SyntheticFlight() { removeTree(dir_); }
  SyntheticFlight(const SyntheticFlight&) = delete;
  SyntheticFlight& operator=(const SyntheticFlight&) = delete;

  std::filesystem::path flightDir() const { return dir_ / "flight"; }
  const json& description() const { return description_; }

 private:
  std::filesystem::path dir_;
  json description_;
};

// What the benchmark navigates: the video, the navigation inputs and the options
// `process` would choose for the bench's options (core/app's processing choice), set up
// once; each mode gets fresh payloads. `truth` (rendered flights) scores each mode.
struct NavigationWorkload {
  std::string video_path;
  nav::NavigationInputs inputs;
  nav::NavigationOptions options;
  std::optional<geo::Track> truth;
  json description;
};

// The bench's model options on top of `process`'s choice.
void applyBenchModelOptions(const EngineBenchOptions& bench, nav::NavigationOptions& options) {
  options.vo_features.max_keypoints = bench.vo_keypoints;
  if (bench.satellite_keypoints > 0) options.registration.features.max_keypoints = bench.satellite_keypoints;
  options.register_every_n_keyframes = bench.register_every_n_keyframes;
  if (bench.retrieval_candidates > 0) options.registration.global_candidates = bench.retrieval_candidates;
  if (bench.retrieval_input_px > 0) options.registration.retrieval_descriptor.input_size_px = bench.retrieval_input_px;
  if (!bench.lightglue_adaptive) {
    options.vo_match.depth_confidence = -1.0;
    options.vo_match.width_confidence = -1.0;
  }
  if (bench.aliked_float16) {
    for (vision::ExtractorOptions* features : {&options.vo_features, &options.registration.features})
      if (features->model.rfind("aliked", 0) == 0) features->half_precision = true;
  }
}

// What `process` would choose for the bench's options (models, weights, devices; core/app's
// processing choice) with the bench's model options on top. Throws ModelError for a
// weight file a chosen model needs and does not find (before anything is rendered or run).
app::ProcessingChoice benchChoice(const EngineBenchOptions& options, int cuda_count) {
  app::FlightRequest request;
  // Models as `process --vo-model` (and --sat-model when given): both stages' local
  // features are the VO model's unless the registration names its own.
  nav::NavigationOptions vo_spec;
  nav::applyVisualOdometryModel(options.vo_model, vo_spec);
  request.feature_model = vo_spec.vo_features.model;
  request.vo_model = options.vo_model;
  request.satellite_model = options.satellite_model;
  request.satellite_size_px = options.dense_size_px;
  request.device = options.device;
  request.vo_device = options.vo_device;
  request.satellite_device = options.sat_device;
  request.cuda_graphs = options.cuda_graphs;
  request.fused_kernels = options.fused_kernels;
  request.half_precision = options.half_precision;
  // --weights-dir is the model directory here (SKYTRACE_MODEL_DIR still wins).
  if (!options.weights_dir.empty()) vision::setDefaultModelDirectory(options.weights_dir);
  app::ProcessingChoice choice = app::processingChoiceFor(request, cuda_count);
  applyBenchModelOptions(options, choice.options);
  for (const app::MissingWeights& missing : app::missingWeights(choice.options))
    if (!missing.falls_back) throw ModelError(missing.message);
  return choice;
}

// The video, camera, log, map and truth of the workload: a rendered flight's folder
// (flight_dir) or the options' recorded video.
NavigationWorkload loadNavigationWorkload(const EngineBenchOptions& options, const std::string& flight_dir,
                                          const nav::NavigationOptions& navigation_options) {
  namespace fs = std::filesystem;
  app::FlightRequest request;
  NavigationWorkload workload;
  fs::path truth_path;
  std::string basemap = options.basemap;
  if (!flight_dir.empty()) {
    const fs::path dir = flight_dir;
    const fs::path manifest = dir / "flight.json";
    const json flight = json::parse(readFileBytes(manifest), nullptr, false);
    if (flight.is_discarded() || !flight.contains("video"))
      throw FormatError(manifest.string() + ": not a flight written by `skytrace-cli render` (no \"video\")");
    const auto inDir = [&](const std::string& path) { return fs::path(path).is_absolute() ? fs::path(path) : dir / path; };
    workload.video_path = inDir(flight["video"].value("path", "flight.mp4")).string();
    if (basemap.empty()) basemap = inDir(flight.value("basemap", json::object()).value("path", "")).string();
    const json files = flight.value("files", json::object());
    request.camera.source = app::CameraChoice::Source::kFile;
    request.camera.file = inDir(files.value("camera", "camera.json")).string();
    if (options.flight_telemetry && files.contains("telemetry"))
      request.telemetry_path = inDir(files["telemetry"].get<std::string>()).string();
    truth_path = inDir(files.value("truth", "truth.csv"));
  } else {
    workload.video_path = options.video_path;
    request.telemetry_path = options.telemetry_path;
    if (!options.camera_path.empty()) {
      request.camera.source = app::CameraChoice::Source::kFile;
      request.camera.file = options.camera_path;
    }
  }
  request.video_path = workload.video_path;
  request.basemap_paths = {basemap};
  workload.options = navigation_options;

  io::VideoInfo video;
  {
    auto source = io::openVideoSource(workload.video_path);  // fails early on an unreadable video
    video = source->info();
  }
  nav::checkVideoFrameSize(workload.video_path, video.width_px, video.height_px);
  std::string camera_source;
  const nav::CameraModel camera = app::resolveCamera(request, video, &camera_source);
  workload.options.vo_features.max_keypoints =
      nav::odometryKeypointBudget(navigation_options.vo_features.max_keypoints, camera.width_px, camera.height_px);
  std::optional<io::TelemetrySeries> telemetry;
  if (!request.telemetry_path.empty()) telemetry = io::readTelemetry(request.telemetry_path);
  workload.inputs = nav::makeNavigationInputs(camera, request.basemap_paths, std::move(telemetry));
  if (!truth_path.empty()) workload.truth = sim::readCsvTrack(truth_path);
  workload.description = json{{"flight", flight_dir.empty() ? json(nullptr) : json(flight_dir)},
                              {"video", workload.video_path},
                              {"basemap", basemap},
                              {"camera", camera_source},
                              {"telemetry", request.telemetry_path.empty() ? json(nullptr) : json(request.telemetry_path)},
                              {"vo_model", nav::visualOdometryModelName(navigation_options)},
                              {"satellite_model", nav::satelliteModelName(navigation_options.registration)},
                              {"vo_keypoints", workload.options.vo_features.max_keypoints},
                              {"satellite_keypoints", navigation_options.registration.features.max_keypoints},
                              {"register_every_n_keyframes", navigation_options.register_every_n_keyframes}};
  return workload;
}

// What a mode's navigation achieved: its fixes, the frame copies between host and
// device, and (with a truth) its track against the truth over the frames it ran.
json navigationAccuracy(const NavigationRunOutput& output, const std::optional<geo::Track>& truth) {
  const std::optional<nav::NavigationResult> result = output.result();
  if (!result) return json{{"error", "the run ended without a navigation result"}};
  int accepted = 0;
  for (const auto& fix : result->fixes) accepted += fix.accepted;
  json accuracy{{"frames_processed", result->frames_processed},
                {"fixes_attempted", result->fixes.size()},
                {"fixes_accepted", accepted},
                {"vo_features_model", result->vo_features_model},
                {"frame_transfers", {{"vo_uploads", result->vo_frame_transfers.uploads},
                                     {"vo_downloads", result->vo_frame_transfers.downloads},
                                     {"keyframe_downloads", output.keyframeTransfers().downloads}}}};
  if (!truth) {
    accuracy["truth"] = "none (a recorded video): no ATE";
    return accuracy;
  }
  geo::Track truth_run = *truth;
  truth_run.poses.clear();
  for (const geo::TrackPose& pose : truth->poses)
    if (pose.frame >= 0 && pose.frame < result->frames_processed) truth_run.poses.push_back(pose);
  const sim::EvalReport report = sim::evaluateTrack(truth_run, result->track, sim::EvalOptions{});
  const sim::EvalSummary& s = report.overall;
  accuracy["localized_fraction"] = s.fraction_with_position;
  accuracy["ate_rmse_m"] = s.horizontal.count > 0 ? json(s.horizontal.rmse_m) : json(nullptr);
  accuracy["ate_p90_m"] = s.horizontal.count > 0 ? json(s.horizontal.p90_m) : json(nullptr);
  accuracy["within_5m"] = s.within_5m;
  accuracy["heading_rmse_deg"] = s.heading_count > 0 ? json(s.heading_rmse_deg) : json(nullptr);
  return accuracy;
}

std::string isoTimeNow() {
  const std::time_t now = std::time(nullptr);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buffer;
}

}  // namespace

json runEngineBench(const EngineBenchOptions& options, const std::function<void(const std::string&)>& log) {
  options.check();
  const auto say = [&](const std::string& line) {
    if (log) log(line);
  };
  for (const std::string& ignored : options.ignored_options)
    say("bench: " + ignored + " ignored (the workload is the product's navigation; its map sets the tiles)");
  if (options.threads > 0) {
    setThreadBudget({options.threads, "--threads"});
    vision::configureTorchRuntime(options.threads);
  }
  const int cuda_count = vision::cudaDeviceCount();
  const DevicePlacement placement =
      resolveDevicePlacement(options.device, options.vo_device, options.sat_device, cuda_count);
  vision::requireDeviceAvailable(placement.vo);
  vision::requireDeviceAvailable(placement.satellite);
  if (options.aliked_float16 && !(placement.vo.cuda && placement.satellite.cuda))
    throw InvalidArgument("--aliked-fp16 needs CUDA devices for both stages (placement: VO " +
                          placement.vo.toString() + ", satellite " + placement.satellite.toString() + ")");
  // The models first (a missing weight file stops the benchmark here), then the workload:
  // a rendered flight (given, or rendered now) or a recorded video.
  const app::ProcessingChoice choice = benchChoice(options, cuda_count);
  std::optional<SyntheticFlight> synthetic;
  if (options.flight_dir.empty() && options.video_path.empty()) synthetic.emplace(options, say);
  const std::string flight_dir = synthetic ? synthetic->flightDir().string() : options.flight_dir;
  NavigationWorkload work = loadNavigationWorkload(options, flight_dir, choice.options);
  if (synthetic) work.description["synthetic"] = synthetic->description();

  std::function<std::unique_ptr<FrameSource>()> make_source = [path = work.video_path] {
    return std::make_unique<VideoFrameSource>(path);
  };
  std::string source_description = make_source()->info().description;
  if (options.preload_frames) {
    std::unique_ptr<FrameSource> source = make_source();
    std::shared_ptr<const sim::PreloadedFrames> frames = sim::preloadFrames(*source, options.frames);
    source_description = frames->info.description;
    make_source = [frames] { return std::make_unique<sim::PreloadedFrameSource>(frames); };
  }
  // The modes' frames: paced at --pace-fps when given (the warm-up run reads make_source
  // directly: it only warms caches). Paced, fps <= pace_fps and the throughput ratios of
  // the summary lose their meaning; the VO latency figures are what such a run measures.
  std::function<std::unique_ptr<FrameSource>()> make_mode_source = make_source;
  if (options.pace_fps > 0.0) {
    make_mode_source = [make_source, rate_hz = options.pace_fps]() -> std::unique_ptr<FrameSource> {
      return std::make_unique<sim::PacedFrameSource>(make_source(), rate_hz);
    };
  }

  const std::string kind = synthetic ? "synthetic" : (options.flight_dir.empty() ? "video" : "flight");
  json report{{"tool", "skytrace engine bench"},
              {"date_utc", isoTimeNow()},
              {"torch", vision::torchRuntimeSummary()},
              {"engine_cuda_build", engineBuiltWithCuda()},
              {"cuda_devices", cuda_count},
              {"workload", {{"kind", kind},
                            {"source", source_description},
                            {"navigation", work.description},
                            {"frames", options.frames},
                            {"warmup_frames", options.warmup_frames},
                            {"warmup_run", "an unreported run of warmup+10 frames precedes the modes"},
                            {"vo_model", work.description["vo_model"]},
                            {"satellite_model", work.description["satellite_model"]},
                            {"vo_keypoints", work.description["vo_keypoints"]},
                            {"satellite_keypoints", work.description["satellite_keypoints"]},
                            {"vo_pipeline", "the product's visual odometry (core/nav NavigationSession through "
                                            "the engine's navigation payload, as `skytrace-cli process` runs "
                                            "it): " + work.description["vo_model"].get<std::string>()},
                            {"satellite_pipeline", "the product's basemap registration (core/nav "
                                                   "BasemapRegistrar): " +
                                                       work.description["satellite_model"].get<std::string>()},
                            {"lightglue_depth", options.lightglue_adaptive ? "adaptive" : "full"},
                            {"aliked_float16", options.aliked_float16},
                            {"half_precision", options.half_precision},
                            {"cudnn_autotune", vision::cudnnAutotune()},
                            {"aliked_fused_kernels", options.fused_kernels && vision::alikedFusedKernelsBuilt()},
                            {"cuda_graphs", options.cuda_graphs},
                            {"keyframe_policy", keyframePolicyName(options.keyframe_policy)},
                            {"pace_fps", options.pace_fps},
                            {"satellite_sm_limit", options.satellite_sm_limit},
                            {"ignored_options", options.ignored_options}}},
              {"placement", {{"vo", placement.vo.toString()},
                             {"satellite", placement.satellite.toString()},
                             {"reason", placement.reason}}}};

  const std::size_t warmup = static_cast<std::size_t>(options.warmup_frames);
  // A short unreported run first, so that one-time costs (CUDA context, cuDNN algorithm
  // choice, RANSAC graph capture, allocator growth) do not land on whichever mode comes
  // first. Both GPUs are warmed when there are two.
  {
    DevicePlacement warm = placement;
    if (cuda_count >= 2 && placement.vo.cuda) warm.satellite = vision::parseDevice("cuda:1");
    const std::int64_t warm_frames = std::min<std::int64_t>(options.frames, options.warmup_frames + 10);
    say("bench: warm-up run (" + std::to_string(warm_frames) + " frames, not reported)");
    PipelineOptions warm_options;
    warm_options.placement = warm;
    warm_options.max_frames = warm_frames;
    warm_options.mode_name = "warm-up";
    warm_options.keyframe_policy = options.keyframe_policy;
    auto warm_output = std::make_shared<NavigationRunOutput>();
    Pipeline pipeline(warm_options, make_source,
                      makeNavigationPayloads(work.inputs, work.options, warm_frames, warm_output), nullptr);
    pipeline.start();
    pipeline.wait(std::numeric_limits<int>::max());
    const RunReport warm_report = pipeline.report();
    if (!warm_report.error.empty()) say("bench: warm-up run failed: " + warm_report.error);
  }
  // multi_gpu_frames: the given devices, or both GPUs.
  std::vector<vision::DeviceSpec> frame_parallel;
  for (const std::string& device : options.frame_parallel_devices) frame_parallel.push_back(vision::parseDevice(device));
  if (frame_parallel.empty() && cuda_count >= 2)
    frame_parallel = {vision::parseDevice("cuda:0"), vision::parseDevice("cuda:1")};
  for (const vision::DeviceSpec& device : frame_parallel) vision::requireDeviceAvailable(device);
  json modes = json::array();
  for (const std::string& mode : options.modes) {
    // The layout `process` runs: overlapped (also vo_only and multi_gpu, with another
    // placement) or frame-parallel.
    NavigationEngineOptions layout;
    layout.layout = NavigationLayout::Overlapped;
    layout.placement = placement;
    layout.keyframe_policy = options.keyframe_policy;
    layout.satellite_sm_limit = options.satellite_sm_limit;
    if (mode == "multi_gpu_frames") {
      if (frame_parallel.empty()) {
        modes.push_back(json{{"mode", mode}, {"skipped", "needs two CUDA devices (or --frame-parallel-devices), found " +
                                                             std::to_string(cuda_count)}});
        say("bench: multi_gpu_frames skipped (" + std::to_string(cuda_count) + " CUDA devices)");
        continue;
      }
      // As `process --mode frame-parallel`: one registration worker, on the last device
      // (the navigation applies fixes in the order they were asked for).
      layout.layout = NavigationLayout::FrameParallel;
      layout.placement.vo = frame_parallel.front();
      layout.placement.satellite = frame_parallel.back();
      layout.front_end_devices = frame_parallel;
    } else if (mode == "multi_gpu") {
      if (cuda_count < 2) {
        modes.push_back(json{{"mode", mode}, {"skipped", "needs two CUDA devices, found " + std::to_string(cuda_count)}});
        say("bench: multi_gpu skipped (" + std::to_string(cuda_count) + " CUDA devices)");
        continue;
      }
      layout.placement.vo = vision::parseDevice("cuda:0");
      layout.placement.satellite = vision::parseDevice("cuda:1");
    } else if (mode == "overlapped" && options.sat_device.empty()) {
      layout.placement.satellite = layout.placement.vo;  // one GPU: the design's single-device case
    }
    std::string devices = "VO " + layout.placement.vo.toString();
    if (!layout.front_end_devices.empty()) {
      devices += ", front ends";
      for (const vision::DeviceSpec& device : layout.front_end_devices) devices += " " + device.toString();
    }
    if (mode != "vo_only") devices += ", registration " + layout.placement.satellite.toString();
    say("bench: mode " + mode + " (" + devices + ")");
    auto navigation = std::make_shared<NavigationRunOutput>();
    nav::NavigationOptions mode_options = work.options;
    if (mode == "vo_only") mode_options.registration_enabled = false;
    PayloadFactories payloads = makeNavigationPayloads(work.inputs, mode_options, options.frames, navigation);
    if (mode == "vo_only") payloads.satellite = nullptr;
    LatencyLog recorder;  // every sample, pushed by the thread that measured it
    RunReport run;
    try {
      if (mode == "sequential") {
        std::unique_ptr<FrameSource> source = make_mode_source();
        SequentialOptions sequential;  // as `process --mode sequential`
        sequential.device = layout.placement.vo;
        sequential.satellite_device = layout.placement.satellite;
        sequential.max_frames = options.frames;
        run = runSequential(sequential, *source, payloads, &recorder);
      } else {
        // The engine options `process` runs this layout with (its keyframe queue too).
        PipelineOptions pipeline_options = navigationPipelineOptions(layout);
        pipeline_options.ring_slots = options.ring_slots;
        pipeline_options.max_frames = options.frames;
        pipeline_options.mode_name = mode;
        Pipeline pipeline(pipeline_options, make_mode_source, payloads, &recorder);
        pipeline.start();
        pipeline.wait(std::numeric_limits<int>::max());
        run = pipeline.report();
      }
    } catch (const std::exception& e) {
      run.mode = mode;
      run.error = e.what();
    }
    const std::vector<LatencySample> samples = recorder.samples();
    const std::optional<nav::NavigationResult> result = navigation->result();
    json entry = modeJson(run, samples, result ? &*result : nullptr, warmup);
    if (run.error.empty()) {
      try {
        entry["accuracy"] = navigationAccuracy(*navigation, work.truth);
      } catch (const std::exception& e) {
        entry["accuracy"] = json{{"error", e.what()}};
      }
    }
    say("bench: " + mode + ": " + std::to_string(run.frames) + " frames, " +
        (entry["fps"].is_number() ? std::to_string(entry["fps"].get<double>()) : std::string("n/a")) +
        " fps" + (run.error.empty() ? "" : ", error: " + run.error));
    modes.push_back(std::move(entry));
  }
  report["modes"] = modes;
  say("bench: host-to-device transfers on " + placement.vo.toString());
  report["h2d"] = measureTransfers(placement.vo, options.transfer_mib, options.transfer_repeats);

  // Ratios the targets are stated in.
  const auto find = [&](const std::string& name) -> const json* {
    for (const json& m : modes)
      if (m.value("mode", "") == name && !m.contains("skipped")) return &m;
    return nullptr;
  };
  const auto number = [](const json* m, const std::vector<std::string>& path) -> double {
    if (!m) return std::nan("");
    const json* node = m;
    for (const std::string& key : path) {
      if (!node->is_object() || !node->contains(key)) return std::nan("");
      node = &(*node)[key];
    }
    return node->is_number() ? node->get<double>() : std::nan("");
  };
  const json* sequential = find("sequential");
  const json* vo_only = find("vo_only");
  const json* overlapped = find("overlapped");
  const json* multi = find("multi_gpu");
  const json* multi_frames = find("multi_gpu_frames");
  json summary;
  const auto ratio = [](double a, double b) { return (std::isfinite(a) && std::isfinite(b) && b > 0) ? json(a / b) : json(nullptr); };
  summary["overlapped_fps_over_sequential"] = ratio(number(overlapped, {"fps"}), number(sequential, {"fps"}));
  summary["multi_gpu_fps_over_overlapped"] = ratio(number(multi, {"fps"}), number(overlapped, {"fps"}));
  // Both stages spread over both GPUs against both on one (overlapped).
  summary["multi_gpu_frames_fps_over_overlapped"] =
      ratio(number(multi_frames, {"fps"}), number(overlapped, {"fps"}));
  summary["vo_p99_loaded_over_alone"] =
      ratio(number(overlapped, {"vo_frame", "p99_ms"}), number(vo_only, {"vo_frame", "p99_ms"}));
  // The slowest stage of the frame-rate-bound chain: decode, upload, VO; with the
  // latest-wins policy the satellite stage drops requests and does not bound the frame
  // rate. With --keyframe-policy every, VO waits for room, so every keyframe is on that
  // chain too: the satellite stage costs its keyframe p50 times the keyframes the
  // navigation asked for per frame.
  // (On one device the two stages also compete for it, so this bound is optimistic
  // there; with the satellite stage on a second GPU it is the right one.)
  const bool every_keyframe = options.keyframe_policy == KeyframePolicy::EveryKeyframe;
  const auto slowestStageMs = [&](const json* mode) {
    double slowest = std::max({number(mode, {"stages", "decode", "p50_ms"}),
                               number(mode, {"stages", "upload", "p50_ms"}),
                               number(mode, {"vo_frame", "p50_ms"})});
    const double keyframes_per_frame = number(mode, {"keyframes", "requested"}) / number(mode, {"frames"});
    if (every_keyframe && std::isfinite(keyframes_per_frame))
      slowest = std::max(slowest, number(mode, {"satellite_keyframe", "p50_ms"}) * keyframes_per_frame);
    return slowest;
  };
  const auto finiteOrNull = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  summary["keyframe_policy"] = keyframePolicyName(options.keyframe_policy);
  summary["pace_fps"] = options.pace_fps;  // > 0: the fps ratios above are bound by it
  const double slowest_ms = slowestStageMs(overlapped);
  summary["overlapped_slowest_stage_p50_ms"] = finiteOrNull(slowest_ms);
  summary["overlapped_fps_over_slowest_stage_bound"] =
      ratio(number(overlapped, {"fps"}), std::isfinite(slowest_ms) ? 1000.0 / slowest_ms : std::nan(""));
  const double multi_slowest_ms = slowestStageMs(multi);
  summary["multi_gpu_slowest_stage_p50_ms"] = finiteOrNull(multi_slowest_ms);
  summary["multi_gpu_fps_over_slowest_stage_bound"] =
      ratio(number(multi, {"fps"}), std::isfinite(multi_slowest_ms) ? 1000.0 / multi_slowest_ms : std::nan(""));
  summary["satellite_keyframe_p50_ms"] = number(overlapped, {"satellite_keyframe", "p50_ms"});
  summary["vo_frame_p50_ms_alone"] = number(vo_only, {"vo_frame", "p50_ms"});
  if (!std::isfinite(summary["satellite_keyframe_p50_ms"].get<double>())) summary["satellite_keyframe_p50_ms"] = nullptr;
  if (!std::isfinite(summary["vo_frame_p50_ms_alone"].get<double>())) summary["vo_frame_p50_ms_alone"] = nullptr;
  // Accuracy (rendered flights): the same flight through every layout must give the
  // same navigation, so a faster layout that breaks it shows here.
  if (work.truth) {
    summary["sequential_ate_rmse_m"] = number(sequential, {"accuracy", "ate_rmse_m"});
    summary["overlapped_ate_rmse_m"] = number(overlapped, {"accuracy", "ate_rmse_m"});
    summary["multi_gpu_ate_rmse_m"] = number(multi, {"accuracy", "ate_rmse_m"});
    summary["multi_gpu_frames_ate_rmse_m"] = number(multi_frames, {"accuracy", "ate_rmse_m"});
    summary["overlapped_within_5m"] = number(overlapped, {"accuracy", "within_5m"});
    for (const char* key : {"sequential_ate_rmse_m", "overlapped_ate_rmse_m", "multi_gpu_ate_rmse_m",
                            "multi_gpu_frames_ate_rmse_m", "overlapped_within_5m"})
      if (!std::isfinite(summary[key].get<double>())) summary[key] = nullptr;
  }
  report["summary"] = summary;
  return report;
}

}  // namespace skytrace::engine
