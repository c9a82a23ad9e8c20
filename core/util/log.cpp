#include "core/util/log.h"

#include <atomic>
#include <iostream>
#include <mutex>

namespace skytrace {
namespace {
std::mutex g_sink_mutex;
LogSink g_sink;
std::atomic<int> g_level{static_cast<int>(LogLevel::Info)};
}  // namespace

const char* logLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::Debug: return "debug";
    case LogLevel::Info: return "info";
    case LogLevel::Warning: return "warning";
    case LogLevel::Error: return "error";
  }
  return "?";
}

void setLogSink(LogSink sink) {
  std::lock_guard<std::mutex> lock(g_sink_mutex);
  g_sink = std::move(sink);
}

void setLogLevel(LogLevel level) { g_level.store(static_cast<int>(level)); }

LogLevel logLevel() { return static_cast<LogLevel>(g_level.load()); }

void logMessage(LogLevel level, const std::string& category, const std::string& message) {
  if (static_cast<int>(level) < g_level.load()) return;
  std::lock_guard<std::mutex> lock(g_sink_mutex);
  if (g_sink) {
    g_sink(level, category, message);
  } else {
    std::cerr << "[" << logLevelName(level) << "] " << category << ": " << message << "\n";
  }
}

}  // namespace skytrace
