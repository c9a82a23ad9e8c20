// DemoBuilder: makes the demo flight behind "Open the Demo". It runs `skytrace-cli demo
// --out FOLDER --no-process` (a procedural map, a flight rendered over it with a spoofed
// GNSS stretch, and demo.skytrace naming them: seconds, no third-party data) as a child
// process, so the GUI shares the command line's demo exactly, and turns the lines the
// command prints ("rendering 40%") into progress. The executable is $SKYTRACE_CLI, else
// skytrace-cli beside this program (installed) or in the build tree's app/cli, else the
// one on PATH.
// Thread: GUI thread (QProcess reports through the event loop).
#pragma once

#include <QObject>
#include <QString>

class QProcess;

namespace skytrace::ui {

class DemoBuilder : public QObject {
  Q_OBJECT

 public:
  explicit DemoBuilder(QObject* parent = nullptr);
  ~DemoBuilder() override;

  // Where the demo lives unless told otherwise: the application's data folder.
  static QString defaultFolder();
  // The skytrace-cli to run; empty when none was found.
  static QString cliExecutable();
  // The project a built demo in `folder` holds (FOLDER/demo.skytrace); empty when the
  // folder holds no complete demo.
  static QString projectIn(const QString& folder);

  // Starts building into `folder` (created; a previous demo there is replaced). False,
  // with failed() emitted, when no skytrace-cli was found or a build is running.
  bool start(const QString& folder);
  bool isRunning() const;
  // Stops a running build (failed() follows).
  void cancel();

 Q_SIGNALS:
  // percent in [0, 100]; stage as the command names it ("rendering").
  void progress(int percent, const QString& stage);
  void finished(const QString& project_path);
  void failed(const QString& message);

 private:
  void readOutput();
  void onFinished(int exit_code);

  QProcess* process_ = nullptr;
  QString folder_;
  QString errors_;  // the command's last lines that are not progress
};

}  // namespace skytrace::ui
