// `skytrace-cli bench`: the engine benchmark (bench/harness/engine_bench.h): the product's
// navigation on one workload in several engine modes (sequential, vo_only, overlapped,
// multi_gpu, multi_gpu_frames) in one run; writes bench.json and a bar chart bench.png.
//   skytrace-cli bench --flight DIR --frames 600 [--device cuda] --out bench.json
//   skytrace-cli bench --synthetic 640x480 --frames 200 [--device cuda] --out bench.json
//                                    (a flight rendered first over a procedural map)
//   skytrace-cli bench --video flight.mp4 --basemap map.tif --frames 300 --out bench.json
//   skytrace-cli bench --vo-model superpoint+lightglue --sat-model dinov2+litesam
//       --weights-dir DIR --device cuda --out bench.json     (the seed pipeline)
//   skytrace-cli bench --plot bench.json [--png chart.png]   (a JSON from the GPU machine)
#include <QTextStream>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli/cli_command.h"
#include "app/cli/cli_support.h"
#include "bench/harness/engine_bench.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace skytrace::cli {
namespace {

const char* const kUsage =
    "Usage: skytrace-cli bench [options] [--out bench.json]\n"
    "       skytrace-cli bench --plot bench.json [--png chart.png]\n\n"
    "Runs one workload through the engine in several modes and writes bench.json (per\n"
    "stage p50/p99, fps, VO latency alone vs loaded, H2D GB/s pinned vs pageable, peak\n"
    "device memory; with --flight the accuracy of each mode's track) and bench.png.\n"
    "Every workload is navigated by the classes `process` runs; a rendered flight's\n"
    "modes are scored against its truth. The seed pipeline: --vo-model\n"
    "superpoint+lightglue --sat-model dinov2+litesam (weights under their published\n"
    "names in --weights-dir or the model directory). Options:\n";

// Grouped bars: per stage (and VO frame / satellite keyframe) the p50 of every mode.
void writePlot(const nlohmann::json& report, const std::string& png_path) {
  const std::vector<std::string> groups = {"decode", "upload", "extract", "match", "pose",
                                           "retrieval", "fine_match", "fusion", "vo_frame",
                                           "satellite_keyframe"};
  std::vector<const nlohmann::json*> modes;
  for (const auto& mode : report.at("modes"))
    if (!mode.contains("skipped")) modes.push_back(&mode);
  if (modes.empty()) throw InvalidArgument("bench JSON has no measured modes to plot");
  auto p50 = [](const nlohmann::json& mode, const std::string& group) {
    const nlohmann::json* node = nullptr;
    if (group == "vo_frame" || group == "satellite_keyframe") {
      node = mode.contains(group) ? &mode.at(group) : nullptr;
    } else if (mode.contains("stages") && mode.at("stages").contains(group)) {
      node = &mode.at("stages").at(group);
    }
    return node && node->contains("p50_ms") && node->at("p50_ms").is_number() ? node->at("p50_ms").get<double>() : 0.0;
  };
  double max_ms = 1e-3;
  for (const auto* mode : modes)
    for (const auto& g : groups) max_ms = std::max(max_ms, p50(*mode, g));
  const int width = 1200, height = 640, left = 70, bottom = 110, top = 90;
  cv::Mat canvas(height, width, CV_8UC3, cv::Scalar(255, 255, 255));
  const std::vector<cv::Scalar> colours = {{180, 119, 31}, {14, 127, 255}, {44, 160, 44}, {40, 39, 214}};
  const int plot_h = height - bottom - top;
  const double group_w = static_cast<double>(width - left - 20) / groups.size();
  const double bar_w = group_w * 0.8 / modes.size();
  cv::line(canvas, {left, height - bottom}, {width - 10, height - bottom}, cv::Scalar(0, 0, 0));
  cv::line(canvas, {left, top}, {left, height - bottom}, cv::Scalar(0, 0, 0));
  for (int tick = 0; tick <= 4; ++tick) {
    const int y = height - bottom - tick * plot_h / 4;
    char label[32];
    std::snprintf(label, sizeof(label), "%.1f", max_ms * tick / 4);
    cv::putText(canvas, label, {5, y + 4}, cv::FONT_HERSHEY_SIMPLEX, 0.4, cv::Scalar(0, 0, 0));
    cv::line(canvas, {left - 4, y}, {width - 10, y}, cv::Scalar(220, 220, 220));
  }
  cv::putText(canvas, "p50 ms", {5, top - 10}, cv::FONT_HERSHEY_SIMPLEX, 0.45, cv::Scalar(0, 0, 0));
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const double x0 = left + g * group_w + group_w * 0.1;
    for (std::size_t m = 0; m < modes.size(); ++m) {
      const double value = p50(*modes[m], groups[g]);
      const int bar_h = static_cast<int>(std::round(value / max_ms * plot_h));
      const int x = static_cast<int>(x0 + m * bar_w);
      cv::rectangle(canvas, {x, height - bottom - bar_h}, {static_cast<int>(x + bar_w) - 1, height - bottom},
                    colours[m % colours.size()], cv::FILLED);
    }
    cv::putText(canvas, groups[g], {static_cast<int>(x0), height - bottom + 18 + 14 * static_cast<int>(g % 2)},
                cv::FONT_HERSHEY_SIMPLEX, 0.42, cv::Scalar(0, 0, 0));
  }
  const std::string title = "skytrace engine bench: " + report.at("workload").value("source", std::string()) +
                            " (" + report.value("date_utc", std::string()) + ")";
  cv::putText(canvas, title, {left, 25}, cv::FONT_HERSHEY_SIMPLEX, 0.55, cv::Scalar(0, 0, 0));
  for (std::size_t m = 0; m < modes.size(); ++m) {
    const auto& mode = *modes[m];
    char line[200];
    const double fps = mode.contains("fps") && mode.at("fps").is_number() ? mode.at("fps").get<double>() : NAN;
    std::snprintf(line, sizeof(line), "%s (VO %s, sat %s): %.1f fps", mode.value("mode", std::string()).c_str(),
                  mode.value("vo_device", std::string()).c_str(), (mode.value("satellite_device", std::string()).empty() ? std::string("-") : mode.value("satellite_device", std::string())).c_str(), fps);
    const int y = 45 + 16 * static_cast<int>(m % 3);
    const int x = left + static_cast<int>(m / 3) * 520;
    cv::rectangle(canvas, {x, y - 10}, {x + 12, y + 2}, colours[m % colours.size()], cv::FILLED);
    cv::putText(canvas, line, {x + 18, y}, cv::FONT_HERSHEY_SIMPLEX, 0.45, cv::Scalar(0, 0, 0));
  }
  std::vector<uchar> bytes;
  if (!cv::imencode(".png", canvas, bytes)) throw IoError(png_path + ": PNG encoding failed");
  writeFileAtomically(png_path, std::string(bytes.begin(), bytes.end()));
}

std::string defaultPngPath(const std::string& json_path) {
  std::filesystem::path path(json_path);
  return path.replace_extension(".png").string();
}

int runBench(const QStringList& qargs) {
  std::vector<std::string> args;
  std::string out = "bench.json", plot, png;
  for (int i = 1; i < qargs.size(); ++i) {
    const std::string arg = qargs[i].toStdString();
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage << engine::engineBenchUsage()
                << "  --out FILE            bench JSON (default bench.json; PNG beside it)\n"
                << "  --plot FILE           only draw FILE (a bench JSON) as a PNG\n"
                << "  --png FILE            PNG path (default: the JSON's with .png)\n";
      return kExitOk;
    }
    const bool has_value = i + 1 < qargs.size();
    if ((arg == "--out" || arg == "--plot" || arg == "--png") && !has_value) {
      printError(QString::fromStdString("option " + arg + " needs a value"));
      return kExitUsage;
    }
    if (arg == "--out") {
      out = qargs[++i].toStdString();
    } else if (arg == "--plot") {
      plot = qargs[++i].toStdString();
    } else if (arg == "--png") {
      png = qargs[++i].toStdString();
    } else {
      args.push_back(arg);
    }
  }
  return runGuarded([&] {
    if (!plot.empty()) {
      const nlohmann::json report = nlohmann::json::parse(readFileBytes(plot), nullptr, false);
      if (report.is_discarded() || !report.contains("modes"))
        throw FormatError(plot + ": not a bench JSON (no \"modes\")");
      const std::string target = png.empty() ? defaultPngPath(plot) : png;
      writePlot(report, target);
      QTextStream(stdout) << "wrote " << QString::fromStdString(target) << "\n";
      return kExitOk;
    }
    engine::EngineBenchOptions options = engine::parseEngineBenchArguments(args);
    const GpuSwitches gpu = gpuSwitchesFromEnvironment();
    options.cuda_graphs = options.cuda_graphs && gpu.cuda_graphs;
    options.fused_kernels = options.fused_kernels && gpu.fused_kernels;
    // The results' folder before the measurements (a run can take many minutes).
    const std::filesystem::path out_folder = std::filesystem::path(out).parent_path();
    std::error_code ec;
    if (!out_folder.empty()) std::filesystem::create_directories(out_folder, ec);
    if (ec) throw IoError(out_folder.string() + ": cannot create the folder for --out (" + ec.message() + ")");
    const nlohmann::json report = engine::runEngineBench(
        options, [](const std::string& line) { QTextStream(stderr) << QString::fromStdString(line) << "\n"; });
    writeFileAtomically(out, report.dump(2) + "\n");
    const std::string target = png.empty() ? defaultPngPath(out) : png;
    writePlot(report, target);
    QTextStream(stdout) << QString::fromStdString(report.at("summary").dump(2)) << "\nwrote "
                        << QString::fromStdString(out) << " and " << QString::fromStdString(target) << "\n";
    // A mode that failed makes the whole benchmark a failure (its JSON is kept for the
    // error text): a figure missing from a comparison must not pass for a result.
    QStringList failed;
    for (const nlohmann::json& mode : report.at("modes")) {
      const std::string error = mode.value("error", std::string());
      if (!error.empty())
        failed << QString::fromStdString(mode.value("mode", std::string("?")) + ": " + error);
    }
    if (!failed.isEmpty()) {
      printError(QStringLiteral("%1 of %2 modes failed:\n  %3")
                     .arg(failed.size())
                     .arg(report.at("modes").size())
                     .arg(failed.join(QStringLiteral("\n  "))));
      return kExitFailure;
    }
    return kExitOk;
  });
}

const CliCommandRegistration kRegistration{
    {QStringLiteral("bench"),
     QStringLiteral("engine benchmark: sequential vs overlapped vs multi-GPU (bench.json + PNG)"),
     runBench}};

}  // namespace
}  // namespace skytrace::cli
