// What the GPU check programs (litesam_gpu_check, seed_gpu_check) share: the largest
// deviation between two tensors, and one printed line per check that counts failures.
// Header-only: each check program is one translation unit.
#pragma once

#include <ATen/ATen.h>

#include <cstdio>
#include <string>

namespace skytrace::gpucheck {

// Max |a - b| in float64 on the CPU; 1e30 (a failure at any tolerance) when the shapes
// differ, 0 for two empty tensors.
inline double maxAbsDiff(const at::Tensor& a, const at::Tensor& b) {
  if (a.sizes() != b.sizes()) return 1e30;
  if (a.numel() == 0) return 0.0;
  return (a.to(at::kCPU).to(at::kDouble) - b.to(at::kCPU).to(at::kDouble)).abs().max().item<double>();
}

// Prints "ok  WHAT  value (tolerance t)" or "FAIL ..." per check, and "info WHAT value"
// for figures without a bound; WHAT is padded to `name_width` columns.
class CheckLog {
 public:
  explicit CheckLog(int name_width) : name_width_(name_width) {}

  void check(const std::string& what, double value, double tolerance) {
    const bool ok = value <= tolerance;
    if (!ok) ++failures_;
    std::printf("%-4s %-*s %.3g (tolerance %.0e)\n", ok ? "ok" : "FAIL", name_width_, what.c_str(), value,
                tolerance);
  }
  void info(const std::string& what, double value) const {
    std::printf("info %-*s %.3g\n", name_width_, what.c_str(), value);
  }
  bool passed() const { return failures_ == 0; }

 private:
  int name_width_;
  int failures_ = 0;
};

}  // namespace skytrace::gpucheck
