// Shared helpers for the Qt Test executables.
#pragma once

#include <QDir>
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

// Absolute path of a file below ../shared ("data/orthophotos/australia.tif").
inline QString sharedPath(const QString& relative) { return sharedDir() + "/" + relative; }

}  // namespace skytrace::test

// Skips the current test with a visible reason when ../shared is missing.
#define SKYTRACE_REQUIRE_SHARED()                                                    \
  do {                                                                               \
    if (::skytrace::test::sharedDir().isEmpty())                                     \
      QSKIP("../shared not found (set -DSKYTRACE_SHARED_DIR): real-data test skipped"); \
  } while (false)
