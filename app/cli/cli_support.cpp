#include "app/cli/cli_support.h"

#include <QCoreApplication>
#include <QTextStream>

#include <opencv2/core/utility.hpp>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>

#include "app/cli/cancel_on_interrupt.h"
#include "app/cli/cli_command.h"
#include "core/util/error.h"
#include "core/vision/torch_runtime.h"

namespace skytrace::cli {

bool parseArguments(QCommandLineParser& parser, const QString& description,
                    const QStringList& args, int* exit_code) {
  parser.setApplicationDescription(description);
  const QCommandLineOption help_option = parser.addHelpOption();
  if (!parser.parse(args)) {
    printError(parser.errorText() + QStringLiteral(" (see --help)"));
    *exit_code = kExitUsage;
    return false;
  }
  if (parser.isSet(help_option)) {
    // QCommandLineParser's usage line names the executable only ("Usage: /path/skytrace-cli
    // [options]"); a subcommand's must name the subcommand: args[0] is "skytrace-cli NAME".
    QString help = parser.helpText();
    const QString executable = QCoreApplication::arguments().value(0);
    const QString usage = QStringLiteral("Usage: ") + executable;
    if (!args.isEmpty() && help.startsWith(usage)) help.replace(0, usage.size(), QStringLiteral("Usage: ") + args[0]);
    QTextStream(stdout) << help;
    *exit_code = kExitOk;
    return false;
  }
  return true;
}

GpuSwitches gpuSwitchesFromEnvironment() {
  const auto off = [](const char* name) {
    const char* value = std::getenv(name);
    if (!value) return false;
    const std::string text(value);
    return text == "0" || text == "off" || text == "false";
  };
  GpuSwitches switches;
  switches.cuda_graphs = !off("SKYTRACE_CUDA_GRAPHS");
  switches.fused_kernels = !off("SKYTRACE_ALIKED_FUSED");
  return switches;
}

void printError(const QString& message) {
  QTextStream(stderr) << "skytrace-cli: error: " << message << "\n";
}

int runGuarded(const std::function<int()>& body) {
  try {
    return body();
  } catch (const Cancelled&) {
    printError(QStringLiteral("cancelled; results computed so far were kept"));
    return stopSignalExitCode();
  } catch (const InvalidArgument& e) {
    printError(QString::fromStdString(e.what()));
    return kExitUsage;
  } catch (const std::exception& e) {
    printError(QString::fromStdString(e.what()));
    return kExitFailure;
  }
}

void applyThreadBudget(const ThreadBudget& budget) {
  setThreadBudget(budget);
  vision::configureTorchRuntime(budget.threads);
  cv::setNumThreads(budget.threads);
}

void addThreadsOption(QCommandLineParser& parser) {
  parser.addOption({QStringLiteral("threads"),
                    QStringLiteral("CPU threads of the heavy work (LibTorch, OpenCV, Ceres). Default: "
                                   "SLURM_CPUS_PER_TASK, else OMP_NUM_THREADS, else the CPUs this "
                                   "process may run on (its affinity: taskset, cgroup cpusets)."),
                    QStringLiteral("N")});
}

void applyThreadsOption(const QCommandLineParser& parser) {
  if (!parser.isSet(QStringLiteral("threads"))) return;
  bool ok = false;
  const int threads = parser.value(QStringLiteral("threads")).toInt(&ok);
  if (!ok || threads < 1 || threads > 4096)
    throw InvalidArgument("--threads needs a whole number from 1 to 4096, got '" +
                          parser.value(QStringLiteral("threads")).toStdString() + "'");
  applyThreadBudget({threads, "--threads"});
}

bool requireOption(const QCommandLineParser& parser, const QString& name, QString* value) {
  if (!parser.isSet(name) || parser.value(name).isEmpty()) {
    printError(QStringLiteral("missing required option --%1 (see --help)").arg(name));
    return false;
  }
  *value = parser.value(name);
  return true;
}

ProgressCallback stderrProgress() {
  auto last = std::make_shared<int>(-1);
  auto stage_seen = std::make_shared<std::string>();
  // A terminal gets one line redrawn every 2 %; a log file (or a pipe) a line per 10 %.
  const bool interactive = isatty(fileno(stderr)) != 0;
  const int step = interactive ? 2 : 10;
  return [last, stage_seen, interactive, step](double fraction, const std::string& stage) {
    const int percent = int(std::floor(fraction * 100.0));
    if (percent / step != *last / step || stage != *stage_seen) {
      *last = percent;
      *stage_seen = stage;
      QTextStream err(stderr);
      if (interactive) {
        err << "\r" << QString::fromStdString(stage) << " " << percent << "%   " << (fraction >= 1.0 ? "\n" : "");
      } else {
        err << QString::fromStdString(stage) << " " << percent << "%\n";
      }
    }
    return true;
  };
}

double numberOption(const QCommandLineParser& parser, const QString& name, double fallback) {
  if (!parser.isSet(name)) return fallback;
  bool ok = false;
  const double value = parser.value(name).toDouble(&ok);
  if (!ok || !std::isfinite(value)) {
    throw InvalidArgument("--" + name.toStdString() + " needs a number, got '" +
                          parser.value(name).toStdString() + "'");
  }
  return value;
}

}  // namespace skytrace::cli
