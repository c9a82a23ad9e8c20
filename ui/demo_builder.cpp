#include "ui/demo_builder.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>

namespace skytrace::ui {

DemoBuilder::DemoBuilder(QObject* parent) : QObject(parent) {}

DemoBuilder::~DemoBuilder() {
  if (isRunning()) {
    process_->disconnect(this);
    process_->kill();
    process_->waitForFinished(3000);
  }
}

QString DemoBuilder::defaultFolder() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/demo");
}

QString DemoBuilder::cliExecutable() {
  const QString from_environment = qEnvironmentVariable("SKYTRACE_CLI");
  if (!from_environment.isEmpty()) return from_environment;
  const QString here = QCoreApplication::applicationDirPath();
  for (const QString& candidate : {here + QStringLiteral("/skytrace-cli"), here + QStringLiteral("/../cli/skytrace-cli")}) {
    const QFileInfo info(candidate);
    if (info.isFile() && info.isExecutable()) return info.canonicalFilePath();
  }
  return QStandardPaths::findExecutable(QStringLiteral("skytrace-cli"));
}

QString DemoBuilder::projectIn(const QString& folder) {
  const QString project = folder + QStringLiteral("/demo.skytrace");
  return QFileInfo::exists(project) && QFileInfo::exists(folder + QStringLiteral("/flight/flight.mp4"))
             ? project
             : QString();
}

bool DemoBuilder::start(const QString& folder) {
  if (isRunning()) {
    Q_EMIT failed(tr("The demo is already being built."));
    return false;
  }
  const QString cli = cliExecutable();
  if (cli.isEmpty()) {
    Q_EMIT failed(tr("The demo is made by skytrace-cli, which was not found beside skytrace or on PATH "
                     "(or set SKYTRACE_CLI to it)."));
    return false;
  }
  folder_ = QFileInfo(folder).absoluteFilePath();
  QDir().mkpath(folder_);
  errors_.clear();
  delete process_;
  process_ = new QProcess(this);
  process_->setProcessChannelMode(QProcess::MergedChannels);
  connect(process_, &QProcess::readyRead, this, &DemoBuilder::readOutput);
  connect(process_, &QProcess::finished, this, [this](int exit_code) { onFinished(exit_code); });
  connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
    if (error == QProcess::FailedToStart)
      Q_EMIT failed(tr("Cannot start %1: %2").arg(process_->program(), process_->errorString()));
  });
  Q_EMIT progress(0, tr("generating the map"));
  process_->start(cli, {QStringLiteral("demo"), QStringLiteral("--out"), folder_, QStringLiteral("--no-process")});
  return true;
}

bool DemoBuilder::isRunning() const { return process_ && process_->state() != QProcess::NotRunning; }

void DemoBuilder::cancel() {
  if (isRunning()) process_->kill();
}

void DemoBuilder::readOutput() {
  static const QRegularExpression kProgressLine(QStringLiteral(R"(^\s*(.+?) (\d+)%\s*$)"));
  while (process_->canReadLine()) {
    const QString line = QString::fromLocal8Bit(process_->readLine()).trimmed();
    const QRegularExpressionMatch m = kProgressLine.match(line);
    if (m.hasMatch()) {
      // Rendering is nearly all of the time; the other stages are short.
      const int percent = m.captured(2).toInt();
      Q_EMIT progress(m.captured(1) == QLatin1String("rendering") ? std::min(95, 5 + percent * 9 / 10) : 5,
                      m.captured(1));
    } else if (!line.isEmpty()) {
      errors_ = (errors_ + QLatin1Char('\n') + line).right(2000);
    }
  }
}

void DemoBuilder::onFinished(int exit_code) {
  readOutput();
  const QString project = projectIn(folder_);
  if (exit_code == 0 && process_->exitStatus() == QProcess::NormalExit && !project.isEmpty()) {
    Q_EMIT progress(100, tr("done"));
    Q_EMIT finished(project);
    return;
  }
  Q_EMIT failed(process_->exitStatus() == QProcess::CrashExit
                    ? tr("Building the demo stopped.")
                    : tr("Building the demo failed (exit code %1): %2").arg(exit_code).arg(errors_.trimmed()));
}

}  // namespace skytrace::ui
