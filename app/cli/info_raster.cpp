// Placeholder until the raster reader lands; replaced by the module's owner.
#include "app/cli/info_describers.h"
#include "core/util/error.h"

namespace skytrace::cli {
QString describeRaster(const QString& path) {
  throw FormatError(path.toStdString() + ": raster files are not supported by this build yet");
}
}  // namespace skytrace::cli
