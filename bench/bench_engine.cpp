// skytrace-bench-engine: the engine benchmark (bench/harness/engine_bench.h) as a small
// program. Same options as `skytrace-cli bench` except --plot, plus --tf32 (TF32 tensor cores for cuDNN convolutions and cuBLAS matmuls in
// the whole process, as PyTorch's own default for convolutions; off: exact float32);
// writes the JSON to --out (default bench_engine.json).
//   skytrace-bench-engine --synthetic 640x480 --frames 300 --device cuda:0
//       --weights-dir DIR --out bench.json
#include <QCoreApplication>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/harness/engine_bench.h"
#include "core/util/error.h"
#include "core/vision/torch_runtime.h"

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  std::vector<std::string> args;
  std::string out = "bench_engine.json";
  bool tf32 = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << "skytrace-bench-engine [options] [--out FILE.json]\n"
                << skytrace::engine::engineBenchUsage()
                << "  --tf32                TF32 tensor cores for convolutions and matmuls (default: exact float32)\n";
      return 0;
    }
    if (arg == "--tf32") {
      tf32 = true;
      continue;
    }
    if (arg == "--out" && i + 1 < argc) {
      out = argv[++i];
      continue;
    }
    args.push_back(arg);
  }
  try {
    skytrace::vision::configureTorchRuntime();
    skytrace::vision::setFastGpuMath(tf32);
    const skytrace::engine::EngineBenchOptions options =
        skytrace::engine::parseEngineBenchArguments(args);
    nlohmann::json report = skytrace::engine::runEngineBench(
        options, [](const std::string& line) { std::cerr << line << std::endl; });
    report["workload"]["tf32"] = tf32;
    std::ofstream file(out);
    file << report.dump(2) << "\n";
    if (!file) throw skytrace::IoError("cannot write " + out);
    std::cout << report["summary"].dump(2) << "\n";
    std::cerr << "wrote " << out << "\n";
    return 0;
  } catch (const skytrace::InvalidArgument& e) {
    std::cerr << "skytrace-bench-engine: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "skytrace-bench-engine: error: " << e.what() << "\n";
    return 1;
  }
}
