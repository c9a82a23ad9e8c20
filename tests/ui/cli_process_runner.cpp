#include "tests/ui/cli_process_runner.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>

#include <csignal>
#include <sys/types.h>

#include "core/util/error.h"

namespace skytrace::ui {
namespace {
constexpr int kPollMs = 100;
constexpr int kPercentScale = 1000;  // progress() counts in 1/1000 when the CLI gives percent
}  // namespace

bool parseCliProgressLine(const QString& line, QString* stage, int* percent) {
  // "[#####.....] 42% frame 126/300, 7.9 fps, ETA 0:22" (process) or "rendering 42%".
  static const QRegularExpression pattern(QStringLiteral("(\\d{1,3})%"));
  const QRegularExpressionMatch match = pattern.match(line);
  if (!match.hasMatch()) return false;
  *percent = match.captured(1).toInt();
  QString before = line.left(match.capturedStart()).trimmed();
  if (before.startsWith(QLatin1Char('['))) before.clear();  // a progress bar, no stage name
  *stage = before.isEmpty() ? QStringLiteral("processing") : before;
  return *percent <= 100;
}

CliProcessRunner::CliProcessRunner(QString executable) : executable_(std::move(executable)) {}

QString CliProcessRunner::findExecutable() {
  const QString app_dir = QCoreApplication::applicationDirPath();
  for (const QString& candidate : {app_dir + QStringLiteral("/skytrace-cli"),
                                   app_dir + QStringLiteral("/../cli/skytrace-cli"),
                                   app_dir + QStringLiteral("/../app/cli/skytrace-cli")}) {
    const QFileInfo info(candidate);
    if (info.isFile() && info.isExecutable()) return info.canonicalFilePath();
  }
  return QStandardPaths::findExecutable(QStringLiteral("skytrace-cli"));
}

QStringList CliProcessRunner::argumentsFor(const io::Project& project) {
  QStringList args{QStringLiteral("process"), QStringLiteral("--video"),
                   QString::fromStdString(project.video_path)};
  for (const std::string& basemap : project.basemap_paths)
    args << QStringLiteral("--basemap") << QString::fromStdString(basemap);
  if (!project.telemetry_path.empty()) {
    args << QStringLiteral("--telemetry") << QString::fromStdString(project.telemetry_path);
    if (project.telemetry_time_offset_s)
      args << QStringLiteral("--time-offset") << QString::number(*project.telemetry_time_offset_s, 'g', 17);
  }
  if (project.camera.source == io::CameraSource::File)
    args << QStringLiteral("--camera") << QString::fromStdString(project.camera.file_path);
  if (project.camera.source == io::CameraSource::HorizontalFov)
    args << QStringLiteral("--hfov-deg") << QString::number(project.camera.hfov_deg);
  // Unset fields are left to the CLI's defaults (the same as the in-process runner's).
  if (!project.feature_model.empty()) args << QStringLiteral("--model") << QString::fromStdString(project.feature_model);
  if (!project.vo_model.empty()) args << QStringLiteral("--vo-model") << QString::fromStdString(project.vo_model);
  if (!project.satellite_model.empty())
    args << QStringLiteral("--sat-model") << QString::fromStdString(project.satellite_model);
  if (project.processing_mode == "frame-parallel") {
    // Over every GPU: the mode places both stages itself.
  } else if (project.vo_device.empty() && project.satellite_device.empty()) {
    if (!project.device.empty()) args << QStringLiteral("--device") << QString::fromStdString(project.device);
  } else {  // per stage; "auto" = the CLI's automatic placement
    const std::string vo_device = project.effectiveVoDevice();
    const std::string satellite_device = project.effectiveSatelliteDevice();
    if (!vo_device.empty() && vo_device != "auto") args << QStringLiteral("--vo-device") << QString::fromStdString(vo_device);
    if (!satellite_device.empty() && satellite_device != "auto")
      args << QStringLiteral("--sat-device") << QString::fromStdString(satellite_device);
  }
  if (!project.processing_mode.empty())
    args << QStringLiteral("--mode") << QString::fromStdString(project.processing_mode);
  // Sequential mode registers every keyframe anyway; the option is the engine's.
  if (project.processing_mode != "sequential")
    args << QStringLiteral("--keyframe-policy")
         << (project.register_every_keyframe ? QStringLiteral("every") : QStringLiteral("latest"));
  if (project.half_precision) args << QStringLiteral("--half-precision");
  if (!project.lightglue_depth.empty())
    args << QStringLiteral("--lightglue-depth") << QString::fromStdString(project.lightglue_depth);
  args << QStringLiteral("--out") << QString::fromStdString(project.results_dir);
  return args;
}

void CliProcessRunner::run(const io::Project& project, ProcessingSink& sink) {
  const QString executable = executable_.isEmpty() ? findExecutable() : executable_;
  if (executable.isEmpty())
    throw IoError("skytrace-cli was not found next to skytrace or on PATH: it runs the processing");
  QProcess process;
  process.setProgram(executable);
  process.setArguments(argumentsFor(project));
  process.start();
  if (!process.waitForStarted(10000))
    throw IoError(executable.toStdString() + " could not be started: " + process.errorString().toStdString());

  QString pending;   // stderr text not yet split into lines
  QString last_lines;  // the end of stderr, for the error message
  bool stopped = false, interrupted = false;
  while (process.state() != QProcess::NotRunning) {
    process.waitForFinished(kPollMs);
    pending += QString::fromLocal8Bit(process.readAllStandardError());
    process.readAllStandardOutput();  // not needed; keep the pipe drained
    const QStringList lines = pending.split(QRegularExpression(QStringLiteral("[\\r\\n]")));
    for (int i = 0; i + 1 < lines.size(); ++i) {
      QString stage;
      int percent = 0;
      if (parseCliProgressLine(lines[i], &stage, &percent))
        sink.progress(percent * (kPercentScale / 100), kPercentScale, stage.toStdString());
      else if (!lines[i].trimmed().isEmpty())
        last_lines = (last_lines + QLatin1Char('\n') + lines[i]).right(2000);
    }
    pending = lines.back();

    const auto pid = static_cast<pid_t>(process.processId());
    const bool paused = sink.control().isPaused() && !sink.control().isCancelled();
    if (pid > 0 && paused != stopped) {
      ::kill(pid, paused ? SIGSTOP : SIGCONT);
      stopped = paused;
    }
    if (pid > 0 && sink.control().isCancelled() && !interrupted) {
      if (stopped) ::kill(pid, SIGCONT);
      ::kill(pid, SIGINT);  // the CLI writes the partial results and exits 130
      interrupted = stopped = false;
      interrupted = true;
    }
  }
  last_lines += QLatin1Char('\n') + pending;
  if (interrupted) throw Cancelled();
  if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0)
    throw Error("skytrace-cli process failed (exit code " + std::to_string(process.exitCode()) + "): " +
                last_lines.trimmed().toStdString());
}

}  // namespace skytrace::ui
