// `skytrace-cli export --track IN --format geojson|gpx|kml|gpkg|csv --out OUT`: converts
// any readable track (CSV, GeoJSON, GPX, GeoPackage, KML) or flight log (DJI SRT, PX4
// ULog, ArduPilot DataFlash, MAVLink .tlog, a GPX or CSV log; its GNSS positions, with
// UTC times when the log states them)
// to one of the export formats. The output is written atomically: an existing OUT
// survives a failed export.
#include <QCommandLineParser>
#include <QTextStream>

#include "app/cli/cli_command.h"
#include "app/cli/cli_support.h"
#include "core/geo/track_io.h"
#include "core/io/telemetry/telemetry_reader.h"
#include "core/io/telemetry/telemetry_track.h"
#include "core/util/error.h"

namespace skytrace::cli {
namespace {

geo::Track logTrack(const std::string& path) {
  const io::TelemetrySeries series = io::readTelemetry(path);
  for (const std::string& line : io::warningLines(series))
    QTextStream(stderr) << "skytrace-cli: warning: " << QString::fromStdString(line) << "\n";
  geo::Track track = io::gnssTrackFromTelemetry(series);
  if (track.poses.empty())
    throw FormatError(path + ": the log holds no GNSS positions (" + std::to_string(series.samples.size()) +
                      " samples): nothing to export");
  return track;
}

bool isTrackFile(const std::string& path) {
  return geo::trackFormatFromPath(path).has_value();
}

// A track file as it is; a flight log (or a CSV/GPX that is a log, not a track) as its
// GNSS track. Log warnings go to stderr.
geo::Track readTrackOrLog(const std::string& path) {
  if (isTrackFile(path)) {
    try {
      return geo::readTrack(path);
    } catch (const FormatError& track_error) {
      // A CSV or GPX flight log is not a track file: read it as a log below; report the
      // track reader's error when it is not a log either.
      try {
        return logTrack(path);
      } catch (const Error&) {
        throw track_error;
      }
    }
  }
  return logTrack(path);
}

int runExport(const QStringList& args) {
  QCommandLineParser parser;
  parser.addOption({QStringLiteral("track"),
                    QStringLiteral("Track (csv, geojson, gpx, gpkg, kml) or flight log (DJI SRT, PX4 ULog, "
                                   "ArduPilot .bin, MAVLink .tlog, GPX or CSV log) to convert."),
                    QStringLiteral("IN")});
  parser.addOption({QStringLiteral("format"),
                    QStringLiteral("Output format: geojson, gpx, kml, gpkg or csv (default: from "
                                   "the --out extension)."),
                    QStringLiteral("FORMAT")});
  parser.addOption({QStringLiteral("out"), QStringLiteral("Output file (replaced atomically)."),
                    QStringLiteral("OUT")});
  int exit_code = kExitOk;
  if (!parseArguments(parser,
                      QStringLiteral("Export a track to GeoJSON (RFC 7946), GPX 1.1, KML, GeoPackage "
                                     "or CSV (columns frame, t_s, lat_deg, lon_deg, alt_m, yaw_deg, "
                                     "pitch_deg, roll_deg, source, sigma_m)."),
                      args, &exit_code)) {
    return exit_code;
  }
  QString in_path, out_path;
  if (!requireOption(parser, QStringLiteral("track"), &in_path) ||
      !requireOption(parser, QStringLiteral("out"), &out_path)) {
    return kExitUsage;
  }
  if (!parser.positionalArguments().isEmpty()) {
    printError(QStringLiteral("export takes no positional arguments (see --help)"));
    return kExitUsage;
  }
  return runGuarded([&] {
    geo::TrackFormat format;
    if (parser.isSet(QStringLiteral("format"))) {
      format = geo::parseTrackFormat(parser.value(QStringLiteral("format")).toStdString());
    } else if (const auto from_extension = geo::trackFormatFromPath(out_path.toStdString())) {
      format = *from_extension;
    } else {
      throw InvalidArgument("cannot tell the format from '" + out_path.toStdString() +
                            "': give --format geojson|gpx|kml|gpkg|csv");
    }
    const geo::Track track = readTrackOrLog(in_path.toStdString());
    geo::exportTrack(track, out_path.toStdString(), format);
    QTextStream(stdout) << "wrote " << track.poses.size() << " poses to " << out_path << " ("
                        << geo::trackFormatName(format) << ")\n";
    return int(kExitOk);
  });
}

const CliCommandRegistration kRegistration{
    {QStringLiteral("export"),
     QStringLiteral("Convert a track to GeoJSON, GPX, KML, GeoPackage or CSV"), runExport}};

}  // namespace
}  // namespace skytrace::cli
