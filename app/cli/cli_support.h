// Helpers for subcommand implementations: parser setup, error printing, exception
// mapping. Main thread only.
#pragma once

#include <QCommandLineParser>
#include <QString>
#include <QStringList>

#include <functional>

#include "core/util/progress.h"
#include "core/util/thread_budget.h"

namespace skytrace::cli {

// Prepares `parser` with --help and the given description; parses `args`. On --help
// prints help and returns false with exit_code 0; on a parse error prints it and
// returns false with exit_code 2.
bool parseArguments(QCommandLineParser& parser, const QString& description,
                    const QStringList& args, int* exit_code);

// Prints "skytrace-cli: error: <message>" to stderr.
void printError(const QString& message);

// Runs `body`, mapping skytrace exceptions to exit codes with one clear message:
// InvalidArgument -> 2, Cancelled -> 130 (143 after SIGTERM), other errors -> 1.
int runGuarded(const std::function<int()>& body);

// Makes `budget` the process's thread budget and applies it: LibTorch's intra-op pool,
// OpenCV's parallel loops and the Ceres smoother use that many CPU threads.
void applyThreadBudget(const ThreadBudget& budget);
// Adds --threads N to a heavy command's options; after parsing, applyThreadsOption sets
// the budget from it when given (throws InvalidArgument for a count outside 1..4096).
void addThreadsOption(QCommandLineParser& parser);
void applyThreadsOption(const QCommandLineParser& parser);

// Reads a required option; prints an error naming it if missing.
bool requireOption(const QCommandLineParser& parser, const QString& name, QString* value);

// The value of a numeric option, `fallback` when it is not given. Throws InvalidArgument
// ("--NAME needs a number, got '...'") for text that is not a finite number.
double numberOption(const QCommandLineParser& parser, const QString& name, double fallback);

// The GPU switches as the environment sets them, for commands that also offer
// --no-cuda-graphs / --no-fused-kernels: SKYTRACE_CUDA_GRAPHS=0 (also "off", "false")
// and SKYTRACE_ALIKED_FUSED=0 turn them off (the switches of earlier versions).
struct GpuSwitches {
  bool cuda_graphs = true;
  bool fused_kernels = true;
};
GpuSwitches gpuSwitchesFromEnvironment();

// A progress callback printing "<stage> NN%" to stderr: on a terminal one line redrawn at
// most every 2 %, elsewhere (a log file, a pipe) one line per 10 % and per stage, so that
// logs hold no carriage returns. Never cancels. Main thread (the thread running the command).
ProgressCallback stderrProgress();

}  // namespace skytrace::cli
