// skytrace-cli: batch entry point. Dispatches to self-registered subcommands.
// Never opens a dialog; errors go to stderr with an exit code (see cli_command.h).
#include <QCoreApplication>
#include <QTextStream>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "app/cli/cli_command.h"
#include "app/cli/cli_support.h"
#include "core/vision/torch_runtime.h"

namespace skytrace::cli {

namespace {
std::vector<CliCommand>& mutableRegistry() {
  static std::vector<CliCommand> registry;
  return registry;
}
}  // namespace

const std::vector<CliCommand>& registeredCommands() { return mutableRegistry(); }

CliCommandRegistration::CliCommandRegistration(CliCommand command) {
  mutableRegistry().push_back(std::move(command));
}

}  // namespace skytrace::cli

namespace {

void printUsage(QTextStream& out) {
  using skytrace::cli::registeredCommands;
  std::vector<skytrace::cli::CliCommand> commands = registeredCommands();
  std::sort(commands.begin(), commands.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  out << "Usage: skytrace-cli <command> [options]\n\n"
      << "Skytrace " << QCoreApplication::applicationVersion()
      << ": where was the camera? Visual geolocalisation of UAV flight video.\n\n"
      << "Commands:\n";
  for (const auto& command : commands) {
    out << "  " << command.name.leftJustified(10) << " " << command.summary << "\n";
  }
  out << "\nRun 'skytrace-cli <command> --help' for a command's options.\n";
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  QCoreApplication::setApplicationName(QStringLiteral("skytrace-cli"));
  QCoreApplication::setApplicationVersion(QStringLiteral(SKYTRACE_VERSION));
  QCoreApplication::setOrganizationName(QStringLiteral("Skytrace"));
  // The CPUs this process is granted (Slurm, OMP_NUM_THREADS, affinity); --threads of a
  // heavy command overrides it.
  skytrace::cli::applyThreadBudget(skytrace::environmentThreadBudget());
  // cuDNN's convolution autotuning, process-wide in LibTorch (off by default: see
  // vision::setCudnnAutotune for why).
  if (const char* autotune = std::getenv("SKYTRACE_CUDNN_AUTOTUNE"); autotune && std::string(autotune) == "1")
    skytrace::vision::setCudnnAutotune(true);

  const QStringList args = QCoreApplication::arguments();
  QTextStream out(stdout);
  if (args.size() < 2 || args[1] == QLatin1String("--help") || args[1] == QLatin1String("-h") ||
      args[1] == QLatin1String("help")) {
    printUsage(out);
    return args.size() < 2 ? skytrace::cli::kExitUsage : skytrace::cli::kExitOk;
  }
  if (args[1] == QLatin1String("--version")) {
    out << "skytrace-cli " << QCoreApplication::applicationVersion() << "\n";
    return 0;
  }
  for (const auto& command : skytrace::cli::registeredCommands()) {
    if (command.name == args[1]) {
      QStringList sub_args = args.mid(2);
      sub_args.prepend(QStringLiteral("skytrace-cli ") + command.name);
      return command.run(sub_args);
    }
  }
  QTextStream(stderr) << "skytrace-cli: error: unknown command '" << args[1]
                      << "' (see skytrace-cli --help)\n";
  return skytrace::cli::kExitUsage;
}
