// `skytrace-cli info PATH`: describes a video, raster, track or flight log.
#include <QCommandLineParser>
#include <QFile>
#include <QFileInfo>
#include <QTextStream>

#include "app/cli/cli_command.h"
#include "app/cli/cli_support.h"
#include "app/cli/info_describers.h"
#include "core/io/telemetry/dataflash_reader.h"
#include "core/io/telemetry/mavlink_tlog_reader.h"
#include "core/io/telemetry/ulog_reader.h"
#include "core/util/error.h"

namespace skytrace::cli {
namespace {

enum class FileKind { Video, Raster, TrackOrTelemetry, Telemetry };

// By extension, as readTelemetry and the track readers take them (a CSV log may be named
// .txt); a PX4 ULog, an ArduPilot DataFlash log (.bin, a name rasters also use) and a
// MAVLink .tlog are also recognised by their first bytes under any name.
FileKind guessKind(const QFileInfo& info) {
  if (info.isDir()) return FileKind::Video;  // image sequence folder
  const QString ext = info.suffix().toLower();
  static const QStringList video = {"mp4", "mov", "mkv", "avi", "m4v", "mpg", "mpeg", "ts"};
  static const QStringList tracks = {"csv", "geojson", "json", "gpx", "kml", "gpkg"};
  static const QStringList logs = {"srt", "ulg", "tlog", "txt"};
  if (video.contains(ext)) return FileKind::Video;
  if (tracks.contains(ext)) return FileKind::TrackOrTelemetry;
  if (logs.contains(ext)) return FileKind::Telemetry;
  QFile file(info.filePath());
  if (file.open(QIODevice::ReadOnly)) {
    const QByteArray head = file.read(16);
    const std::string_view bytes(head.constData(), static_cast<std::size_t>(head.size()));
    if (io::isULog(bytes) || io::isDataflashLog(bytes) || io::isMavlinkTlog(bytes)) return FileKind::Telemetry;
  }
  return FileKind::Raster;
}

int runInfo(const QStringList& args) {
  QCommandLineParser parser;
  parser.addPositionalArgument(QStringLiteral("PATH"),
                               QStringLiteral("Video, image folder, raster, track or flight log"));
  parser.addOption({QStringLiteral("json"),
                    QStringLiteral("Print the facts as one JSON object (typed values, units in the key names, "
                                   "null where unknown) instead of lines for people.")});
  int exit_code = kExitOk;
  if (!parseArguments(parser,
                      QStringLiteral("Describe a video (frames, fps, size), a raster (CRS, "
                                     "size, pixel size, footprint), a track or a flight log."),
                      args, &exit_code)) {
    return exit_code;
  }
  if (parser.positionalArguments().size() != 1) {
    printError(QStringLiteral("info takes exactly one PATH (see --help)"));
    return kExitUsage;
  }
  const QString path = parser.positionalArguments().first();
  return runGuarded([&] {
    const QFileInfo info(path);
    if (!info.exists()) throw IoError(path.toStdString() + ": file not found");
    InfoDescription description;
    switch (guessKind(info)) {
      case FileKind::Video: description = describeVideo(path); break;
      case FileKind::Raster: description = describeRaster(path); break;
      case FileKind::Telemetry: description = describeTelemetry(path); break;
      case FileKind::TrackOrTelemetry:
        try {
          description = describeTrack(path);
        } catch (const FormatError&) {
          description = describeTelemetry(path);  // a GPX/CSV log that is not a Skytrace track
        }
        break;
    }
    QTextStream out(stdout);
    if (parser.isSet(QStringLiteral("json"))) {
      out << QString::fromStdString(description.facts.dump(2)) << "\n";
    } else {
      out << description.lines.join('\n') << "\n";
    }
    return int(kExitOk);
  });
}

const CliCommandRegistration kRegistration{
    {QStringLiteral("info"),
     QStringLiteral("Describe a video, raster, track or flight log"), runInfo}};

}  // namespace
}  // namespace skytrace::cli
