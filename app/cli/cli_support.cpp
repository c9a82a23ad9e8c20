#include "app/cli/cli_support.h"

#include <QTextStream>

#include <exception>

#include "app/cli/cli_command.h"
#include "core/util/error.h"

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
    QTextStream(stdout) << parser.helpText();
    *exit_code = kExitOk;
    return false;
  }
  return true;
}

void printError(const QString& message) {
  QTextStream(stderr) << "skytrace-cli: error: " << message << "\n";
}

int runGuarded(const std::function<int()>& body) {
  try {
    return body();
  } catch (const Cancelled&) {
    printError(QStringLiteral("cancelled; results computed so far were kept"));
    return kExitCancelled;
  } catch (const InvalidArgument& e) {
    printError(QString::fromStdString(e.what()));
    return kExitUsage;
  } catch (const std::exception& e) {
    printError(QString::fromStdString(e.what()));
    return kExitFailure;
  }
}

bool requireOption(const QCommandLineParser& parser, const QString& name, QString* value) {
  if (!parser.isSet(name) || parser.value(name).isEmpty()) {
    printError(QStringLiteral("missing required option --%1 (see --help)").arg(name));
    return false;
  }
  *value = parser.value(name);
  return true;
}

}  // namespace skytrace::cli
