// CliProcessRunner (a test helper, not part of the GUI): processes a project by running
// `skytrace-cli process` (found next to the skytrace executable, in the build tree's
// app/cli, or on PATH) as a child process, through the GUI's ProcessingRunner interface,
// so that tests can compare the CLI's results with the in-process runner's on the same
// project. Progress comes from its stderr progress lines; pause stops the child
// (SIGSTOP/SIGCONT), cancel interrupts it (SIGINT: the CLI then writes the partial
// results folder). It has no per-frame live data.
// Thread: run() on the processing thread (ProcessingRunner).
#pragma once

#include <QString>
#include <QStringList>

#include "ui/processing_controller.h"

namespace skytrace::ui {

class CliProcessRunner final : public ProcessingRunner {
 public:
  // `executable` empty: look it up (see above).
  explicit CliProcessRunner(QString executable = QString());

  std::string name() const override { return "skytrace-cli process"; }
  void run(const io::Project& project, ProcessingSink& sink) override;

  // The command-line arguments of `skytrace-cli process` for `project`.
  static QStringList argumentsFor(const io::Project& project);
  // The skytrace-cli found for this application; empty when none.
  static QString findExecutable();

 private:
  QString executable_;
};

// Parses one progress line of skytrace-cli ("[###...] 42% frame 126/300, ..." or
// "<stage> 42%"); false if it is none.
bool parseCliProgressLine(const QString& line, QString* stage, int* percent);

}  // namespace skytrace::ui
