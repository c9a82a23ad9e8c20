// Placeholder until the video reader lands; replaced by the module's owner.
#include "app/cli/info_describers.h"
#include "core/util/error.h"

namespace skytrace::cli {
QString describeVideo(const QString& path) {
  throw FormatError(path.toStdString() + ": video files are not supported by this build yet");
}
}  // namespace skytrace::cli
