// Per-kind descriptions for `skytrace-cli info PATH`. Each returns human-readable
// lines (key: value) and throws a skytrace::Error subtype when the file is not of that
// kind or cannot be read. Main thread.
#pragma once

#include <QString>

namespace skytrace::cli {

QString describeRaster(const QString& path);     // info_raster.cpp (GDAL)
QString describeVideo(const QString& path);      // info_video.cpp (video or image folder)
QString describeTrack(const QString& path);      // info_track.cpp (Skytrace track files)
QString describeTelemetry(const QString& path);  // info_telemetry.cpp (SRT, ULog, GPX, CSV)

}  // namespace skytrace::cli
