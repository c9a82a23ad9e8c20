// Placeholder until the track reader lands; replaced by the module's owner.
#include "app/cli/info_describers.h"
#include "core/util/error.h"

namespace skytrace::cli {
QString describeTrack(const QString& path) {
  throw FormatError(path.toStdString() + ": track files are not supported by this build yet");
}
}  // namespace skytrace::cli
