// Shared helpers for the Qt Test executables.
#pragma once

#include <QDir>
#include <QFile>
#include <QList>
#include <QMap>
#include <QProcess>
#include <QString>
#include <QtTest>

namespace skytrace::test {

// The ../shared folder (real data, weights, fixtures) from SKYTRACE_SHARED_DIR, or an
// empty string when it is not present on this machine.
inline QString sharedDir() {
  const QString dir = qEnvironmentVariable("SKYTRACE_SHARED_DIR");
  if (dir.isEmpty() || !QDir(dir).exists()) return {};
  return QDir(dir).absolutePath();
}

// The message of the `E` that `fn` throws, or "(no <E>)" when it throws none, so a test
// can assert on what the user would read. Other exception types propagate.
template <typename E, typename Fn>
QString errorMessageOf(Fn&& fn) {
  try {
    fn();
  } catch (const E& e) {
    return QString::fromUtf8(e.what());
  }
  return QStringLiteral("(no exception of the expected type)");
}

// The data rows of a CSV file with a header, each by column name (empty when the file
// is unreadable). Fields are split at commas: the files the tests read quote none.
inline QList<QMap<QString, QString>> csvRows(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return {};
  const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
  if (lines.isEmpty()) return {};
  const QStringList header = lines.front().trimmed().split(',');
  QList<QMap<QString, QString>> rows;
  for (int i = 1; i < lines.size(); ++i) {
    const QStringList values = lines[i].trimmed().split(',');
    QMap<QString, QString> row;
    for (int c = 0; c < header.size() && c < values.size(); ++c) row.insert(header[c], values[c]);
    rows.push_back(row);
  }
  return rows;
}

// The first data row of a CSV file with a header, by column name (empty when unreadable).
inline QMap<QString, QString> firstCsvRow(const QString& path) { return csvRows(path).value(0); }

// Absolute path of a file below ../shared ("data/orthophotos/australia.tif").
inline QString sharedPath(const QString& relative) { return sharedDir() + "/" + relative; }

// The skytrace-cli of the build under test (SKYTRACE_BUILD_DIR).
inline QString cliPath() { return qEnvironmentVariable("SKYTRACE_BUILD_DIR") + "/app/cli/skytrace-cli"; }

// Runs skytrace-cli with `args`, with SKYTRACE_MODEL_DIR set to `model_dir` when it is
// not empty. Returns the exit code, -1 when the run took longer than `timeout_ms` (it
// is then killed), -2 when it crashed; *output (optional) receives stdout and stderr.
inline int runCli(const QStringList& args, QString* output = nullptr, int timeout_ms = 240000,
                  const QString& model_dir = QString()) {
  QProcess process;
  if (!model_dir.isEmpty()) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("SKYTRACE_MODEL_DIR"), model_dir);
    process.setProcessEnvironment(env);
  }
  process.setProcessChannelMode(QProcess::MergedChannels);
  process.start(cliPath(), args);
  const bool finished = process.waitForFinished(timeout_ms);
  if (output) *output = QString::fromUtf8(process.readAll());
  if (!finished) {
    process.kill();
    process.waitForFinished();
    return -1;
  }
  return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
}

}  // namespace skytrace::test

// Skips the current test with a visible reason when ../shared is missing.
#define SKYTRACE_REQUIRE_SHARED()                                                    \
  do {                                                                               \
    if (::skytrace::test::sharedDir().isEmpty())                                     \
      QSKIP("../shared not found (set -DSKYTRACE_SHARED_DIR): real-data test skipped"); \
  } while (false)
