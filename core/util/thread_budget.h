// How many CPU threads Skytrace's heavy work may use: LibTorch's intra-op pool, OpenCV's
// parallel loops and the Ceres smoother. The default is what the machine grants this
// process, so that a job on a shared node stays inside its allocation:
// SLURM_CPUS_PER_TASK (a Slurm job step), else OMP_NUM_THREADS, else the CPU affinity
// mask (taskset, cgroup cpusets such as docker --cpuset-cpus), else every core.
// Thread: set once at start-up on the main thread (setThreadBudget); read from any thread.
#pragma once

#include <string>

namespace skytrace {

struct ThreadBudget {
  int threads = 1;
  // What gave the count: "--threads", "SLURM_CPUS_PER_TASK", "OMP_NUM_THREADS",
  // "CPU affinity" or "hardware".
  std::string source;
};

// The budget the environment and the CPU affinity grant (see above). A variable that is
// not a whole number from 1 to 4096 is ignored.
ThreadBudget environmentThreadBudget();

// The process-wide budget: environmentThreadBudget() until set.
ThreadBudget threadBudget();
// Throws InvalidArgument unless 1 <= budget.threads <= 4096.
void setThreadBudget(const ThreadBudget& budget);

}  // namespace skytrace
