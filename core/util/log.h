// Minimal thread-safe logging for core/. Messages go to one process-wide sink
// (stderr by default); the GUI and CLI install their own. Callable from any thread.
#pragma once

#include <functional>
#include <sstream>
#include <string>

namespace skytrace {

enum class LogLevel { Debug = 0, Info = 1, Warning = 2, Error = 3 };

using LogSink = std::function<void(LogLevel level, const std::string& category,
                                   const std::string& message)>;

// Replaces the sink (nullptr restores stderr). Thread-safe.
void setLogSink(LogSink sink);
// Messages below this level are dropped. Default: Info.
void setLogLevel(LogLevel level);
LogLevel logLevel();
void logMessage(LogLevel level, const std::string& category, const std::string& message);

const char* logLevelName(LogLevel level);

}  // namespace skytrace

// Usage: SKYTRACE_LOG(Warning, "geo.basemap") << "no overviews in " << path;
#define SKYTRACE_LOG(level, category)                                              \
  for (bool skytrace_log_once_ =                                                   \
           ::skytrace::LogLevel::level >= ::skytrace::logLevel();                  \
       skytrace_log_once_; skytrace_log_once_ = false)                             \
  ::skytrace::detail::LogLine(::skytrace::LogLevel::level, category).stream()

namespace skytrace::detail {
class LogLine {
 public:
  LogLine(LogLevel level, const char* category) : level_(level), category_(category) {}
  ~LogLine() { logMessage(level_, category_, stream_.str()); }
  std::ostringstream& stream() { return stream_; }

 private:
  LogLevel level_;
  const char* category_;
  std::ostringstream stream_;
};
}  // namespace skytrace::detail
