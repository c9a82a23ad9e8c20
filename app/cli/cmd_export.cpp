// `skytrace-cli export --track IN --format geojson|gpx|kml|gpkg|csv --out OUT`: converts
// any readable track (CSV, GeoJSON, GPX, GeoPackage, KML) to one of the export formats.
// The output is written atomically: an existing OUT survives a failed export.
#include <QCommandLineParser>
#include <QTextStream>

#include "app/cli/cli_command.h"
#include "app/cli/cli_support.h"
#include "core/geo/track_io.h"
#include "core/util/error.h"

namespace skytrace::cli {
namespace {

int runExport(const QStringList& args) {
  QCommandLineParser parser;
  parser.addOption({QStringLiteral("track"), QStringLiteral("Track to convert (csv, geojson, gpx, gpkg, kml)."),
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
                                     "or CSV (frame,t_s,lat_deg,lon_deg,alt_m,yaw_deg,pitch_deg,"
                                     "roll_deg,source,sigma_m)."),
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
    const geo::Track track = geo::readTrack(in_path.toStdString());
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
