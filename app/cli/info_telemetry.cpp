// Placeholder until the telemetry reader lands; replaced by the module's owner.
#include "app/cli/info_describers.h"
#include "core/util/error.h"

namespace skytrace::cli {
QString describeTelemetry(const QString& path) {
  throw FormatError(path.toStdString() + ": telemetry files are not supported by this build yet");
}
}  // namespace skytrace::cli
