// `skytrace-cli info TRACK`: format, pose count, time span, bounding box, length and pose
// sources of a Skytrace track file (CSV, GeoJSON, GPX, GeoPackage, KML).
#include <QDateTime>
#include <QString>
#include <QStringList>

#include <cmath>

#include "app/cli/info_describers.h"
#include "core/geo/track_io.h"

namespace skytrace::cli {

InfoDescription describeTrack(const QString& path) {
  const geo::Track track = geo::readTrack(path.toStdString());
  const geo::TrackSummary s = geo::summarizeTrack(track);
  const auto format = geo::trackFormatFromPath(path.toStdString());
  QStringList lines;
  lines << QStringLiteral("path: %1").arg(path);
  lines << QStringLiteral("kind: track (%1)")
               .arg(format ? QString::fromUtf8(geo::trackFormatName(*format)) : QStringLiteral("OGR"));
  lines << QStringLiteral("name: %1").arg(QString::fromStdString(track.name));
  lines << QStringLiteral("poses: %1").arg(s.pose_count);
  lines << QStringLiteral("time span: %1 .. %2 s (%3 s)")
               .arg(s.first_t_s, 0, 'f', 3)
               .arg(s.last_t_s, 0, 'f', 3)
               .arg(s.last_t_s - s.first_t_s, 0, 'f', 3);
  lines << QStringLiteral("start: %1")
               .arg(std::isfinite(track.start_unix_s)
                        ? QString::fromStdString(geo::isoTimeFromUnixSeconds(track.start_unix_s))
                        : QStringLiteral("unknown (relative times)"));
  if (s.pose_count > 0) {
    lines << QStringLiteral("bbox (lat, lon): %1 .. %2, %3 .. %4")
                 .arg(s.min_lat_deg, 0, 'f', 7)
                 .arg(s.max_lat_deg, 0, 'f', 7)
                 .arg(s.min_lon_deg, 0, 'f', 7)
                 .arg(s.max_lon_deg, 0, 'f', 7);
  }
  lines << QStringLiteral("length: %1 m").arg(s.length_m, 0, 'f', 1);
  QStringList sources;
  for (int i = 0; i < 6; ++i) {
    if (s.count_by_source[i] == 0) continue;
    sources << QStringLiteral("%1 %2")
                   .arg(QString::fromUtf8(geo::poseSourceName(static_cast<geo::PoseSource>(i))))
                   .arg(s.count_by_source[i]);
  }
  lines << QStringLiteral("sources: %1").arg(sources.isEmpty() ? QStringLiteral("none") : sources.join(", "));

  nlohmann::json by_source = nlohmann::json::object();
  for (int i = 0; i < 6; ++i) {
    if (s.count_by_source[i] > 0) by_source[geo::poseSourceName(static_cast<geo::PoseSource>(i))] = s.count_by_source[i];
  }
  nlohmann::json facts = {
      {"path", path.toStdString()},
      {"kind", "track"},
      {"format", format ? geo::trackFormatName(*format) : "OGR"},
      {"name", track.name},
      {"poses", s.pose_count},
      {"first_t_s", s.first_t_s},
      {"last_t_s", s.last_t_s},
      {"start_utc", std::isfinite(track.start_unix_s) ? nlohmann::json(geo::isoTimeFromUnixSeconds(track.start_unix_s))
                                                      : nlohmann::json(nullptr)},
      {"start_unix_s", finiteOrNull(track.start_unix_s)},
      {"alt_reference", track.alt_reference},
      {"bbox", s.pose_count == 0 ? nlohmann::json(nullptr)
                                 : bboxJson({s.min_lat_deg, s.min_lon_deg, s.max_lat_deg, s.max_lon_deg})},
      {"length_m", s.length_m},
      {"sources", by_source}};
  return {lines, facts};
}

}  // namespace skytrace::cli
