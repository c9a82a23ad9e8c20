#include "core/util/thread_budget.h"

#include <sched.h>

#include <cstdlib>
#include <mutex>
#include <optional>
#include <thread>

#include "core/util/check.h"

namespace skytrace {
namespace {

constexpr int kMaxThreads = 4096;

std::optional<int> countFromVariable(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return std::nullopt;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < 1 || value > kMaxThreads) return std::nullopt;
  return static_cast<int>(value);
}

std::mutex g_mutex;
std::optional<ThreadBudget> g_budget;  // set by setThreadBudget

}  // namespace

ThreadBudget environmentThreadBudget() {
  for (const char* name : {"SLURM_CPUS_PER_TASK", "OMP_NUM_THREADS"}) {
    if (const std::optional<int> count = countFromVariable(name)) return {*count, name};
  }
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof(mask), &mask) == 0) {
    const int count = CPU_COUNT(&mask);
    if (count >= 1) return {count, "CPU affinity"};
  }
  const unsigned cores = std::thread::hardware_concurrency();
  return {cores >= 1 ? static_cast<int>(cores) : 1, "hardware"};
}

ThreadBudget threadBudget() {
  {
    const std::lock_guard<std::mutex> lock(g_mutex);
    if (g_budget) return *g_budget;
  }
  return environmentThreadBudget();
}

void setThreadBudget(const ThreadBudget& budget) {
  checkArgument(budget.threads >= 1 && budget.threads <= kMaxThreads,
                "thread count must be 1.." + std::to_string(kMaxThreads) + ", got " + std::to_string(budget.threads));
  const std::lock_guard<std::mutex> lock(g_mutex);
  g_budget = budget;
}

}  // namespace skytrace
