// `skytrace-cli info VIDEO|FOLDER`: container, codec, frames, fps, duration and size of
// a video file or an image-sequence folder, its recording time where the container states
// it, plus any damaged frames noticed on opening. A video file's last announced frame is
// decoded (one seek: bounded by a keyframe interval), so a file cut short says where its
// data ends.
#include <QDateTime>
#include <QString>
#include <QStringList>

#include <cmath>

#include "app/cli/info_describers.h"
#include "core/io/video_source.h"

namespace skytrace::cli {

InfoDescription describeVideo(const QString& path) {
  const auto source = io::openVideoSource(path.toStdString());
  const io::VideoInfo& info = source->info();
  QStringList lines;
  lines << QStringLiteral("path: %1").arg(path);
  lines << QStringLiteral("kind: %1").arg(info.kind == io::VideoSourceKind::File
                                              ? QStringLiteral("video file")
                                              : QStringLiteral("image sequence folder"));
  lines << QStringLiteral("container: %1").arg(QString::fromStdString(info.container));
  lines << QStringLiteral("codec: %1").arg(QString::fromStdString(info.codec_fourcc));
  // Is the last announced frame there? A truncated file announces frames it lacks.
  const int held = io::framesHeld(*source);
  if (held < info.frame_count) {
    lines << QStringLiteral("frames: %1 decode, of the %2 the container announces (the file is cut short)")
                 .arg(held)
                 .arg(info.frame_count);
  } else {
    lines << QStringLiteral("frames: %1").arg(info.frame_count);
  }
  if (!info.frame_times_s.empty()) {
    // Photos at their own times: the rate is the mean over the flight.
    lines << QStringLiteral("fps: %1 (mean of the photos' capture times)").arg(info.fps, 0, 'f', 3);
    lines << QStringLiteral("frame times: EXIF capture times, %1 s from the first photo to the last")
                 .arg(info.frame_times_s.back(), 0, 'f', 3);
    lines << QStringLiteral("duration: %1 s").arg(info.frame_times_s.back(), 0, 'f', 3);
  } else {
    lines << QStringLiteral("fps: %1%2")
                 .arg(info.fps, 0, 'f', 3)
                 .arg(info.kind == io::VideoSourceKind::ImageSequence
                          ? QStringLiteral(" (the photos do not all state when they were taken; default)")
                          : QString());
    lines << QStringLiteral("duration: %1 s").arg(info.duration_s(), 0, 'f', 3);
  }
  lines << QStringLiteral("size: %1 x %2 px").arg(info.width_px).arg(info.height_px);
  if (std::isfinite(info.creation_unix_s)) {
    const QString origin = info.kind == io::VideoSourceKind::ImageSequence
                               ? QStringLiteral("the first photo's %1").arg(QString::fromStdString(info.creation_source))
                               : QStringLiteral("the container's creation time");
    lines << QStringLiteral("recorded: %1 (%2)")
                 .arg(QDateTime::fromSecsSinceEpoch(qint64(std::llround(info.creation_unix_s)), Qt::UTC)
                          .toString(Qt::ISODate),
                      origin);
  }
  nlohmann::json warnings = nlohmann::json::array();
  for (const io::VideoWarning& warning : source->warnings()) {
    lines << QStringLiteral("warning: %1").arg(QString::fromStdString(warning.message));
    warnings.push_back(warning.message);
  }

  const double duration_s = info.frame_times_s.empty() ? info.duration_s() : info.frame_times_s.back();
  nlohmann::json facts = {
      {"path", path.toStdString()},
      {"kind", info.kind == io::VideoSourceKind::File ? "video file" : "image sequence folder"},
      {"container", info.container},
      {"codec", info.codec_fourcc},
      {"frames", held},                      // what decodes
      {"frames_announced", info.frame_count},  // what the container says
      {"fps", info.fps},
      {"frame_timing", info.frame_timing},
      {"duration_s", duration_s},
      {"width_px", info.width_px},
      {"height_px", info.height_px},
      {"recorded_unix_s", finiteOrNull(info.creation_unix_s)},
      {"recorded_source", info.creation_source.empty() ? nlohmann::json(nullptr) : nlohmann::json(info.creation_source)},
      {"warnings", warnings}};
  return {lines, facts};
}

}  // namespace skytrace::cli
