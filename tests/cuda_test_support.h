// What the device tests (tests/<layer>/test_*_cuda.cpp, ctest label gpu) share: which
// device they check and where their data are. Plain programs, not Qt Test: each prints
// one PASS/FAIL line per check and exits 0 (all passed), 1 (a check failed) or
// kSkipExitCode (registered as SKIP_RETURN_CODE) with the reason on stdout.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>

#include "core/vision/torch_runtime.h"

namespace skytrace::test {

constexpr int kSkipExitCode = 77;

// The device under test: $SKYTRACE_GPU_CHECK_DEVICE when set ("cpu" runs the same
// comparisons CPU against CPU, to test a check program without a GPU), else cuda:0 when
// LibTorch sees a CUDA device, else none (the caller skips with skipNoCudaDevice()).
inline std::optional<std::string> deviceUnderTest() {
  const char* env = std::getenv("SKYTRACE_GPU_CHECK_DEVICE");
  if (env && *env) return std::string(env);
  if (vision::cudaDeviceCount() > 0) return std::string("cuda:0");
  return std::nullopt;
}

inline int skipNoCudaDevice(const char* program) {
  std::printf("SKIP %s: no CUDA device visible to LibTorch (%s); "
              "SKYTRACE_GPU_CHECK_DEVICE=cpu runs the checks CPU against CPU\n",
              program, vision::torchRuntimeSummary().c_str());
  return kSkipExitCode;
}

// The parity fixtures: $SKYTRACE_PARITY_DIR, else <SKYTRACE_SHARED_DIR>/fixtures/parity
// (ctest sets SKYTRACE_SHARED_DIR), else ../shared/fixtures/parity.
inline std::string parityFixtureDir() {
  if (const char* dir = std::getenv("SKYTRACE_PARITY_DIR"); dir && *dir) return dir;
  if (const char* shared = std::getenv("SKYTRACE_SHARED_DIR"); shared && *shared)
    return std::string(shared) + "/fixtures/parity";
  return "../shared/fixtures/parity";
}

// The ALIKED weights folder: $SKYTRACE_MODEL_DIR, else <SKYTRACE_SHARED_DIR>/models/aliked.
inline std::string alikedModelDir() {
  if (const char* dir = std::getenv("SKYTRACE_MODEL_DIR"); dir && *dir) return dir;
  if (const char* shared = std::getenv("SKYTRACE_SHARED_DIR"); shared && *shared)
    return std::string(shared) + "/models/aliked";
  return "../shared/models/aliked";
}

// Boolean checks: one "PASS what" / "FAIL what" line each, failures counted (checks
// with a numeric tolerance use gpucheck::CheckLog, tests/vision/cuda_tolerance_checks.h).
class PassFailLog {
 public:
  void expect(bool ok, const std::string& what) {
    std::cout << (ok ? "PASS  " : "FAIL  ") << what << std::endl;
    if (!ok) ++failures_;
  }
  int failures() const { return failures_; }
  // The closing line and the exit status: 0 when every check passed, else 1.
  int finish() const {
    std::cout << (failures_ == 0 ? "all checks passed" : std::to_string(failures_) + " check(s) failed")
              << std::endl;
    return failures_ == 0 ? 0 : 1;
  }

 private:
  int failures_ = 0;
};

}  // namespace skytrace::test
