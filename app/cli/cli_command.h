// Subcommand registry of skytrace-cli. Each subcommand lives in its own cmd_*.cpp and
// registers itself with a static CliCommandRegistration. Commands run on the main thread,
// parse their own arguments with QCommandLineParser and return a process exit code.
#pragma once

#include <QString>
#include <QStringList>

#include <functional>
#include <vector>

namespace skytrace::cli {

// Exit codes shared by all subcommands (documented in the README).
enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,     // the work failed: unreadable input, processing error
  kExitUsage = 2,       // bad command line
  kExitCancelled = 130  // stopped by Ctrl-C (SIGTERM: 143, stopSignalExitCode); partial
                        // results were kept
};

struct CliCommand {
  QString name;
  QString summary;  // one line for `skytrace-cli --help`
  // args[0] is "skytrace-cli <name>", the rest are the subcommand's arguments.
  std::function<int(const QStringList& args)> run;
};

const std::vector<CliCommand>& registeredCommands();

struct CliCommandRegistration {
  explicit CliCommandRegistration(CliCommand command);
};

}  // namespace skytrace::cli
