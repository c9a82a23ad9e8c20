// `skytrace-cli info LOG`: format, sample count, time span and duration, start time (UTC
// when the log states it), bounding box, altitude range, fields present and what the
// parser skipped, for DJI SRT, PX4 ULog, ArduPilot DataFlash, MAVLink .tlog, GPX and CSV
// flight logs.
#include <QDateTime>
#include <QString>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "app/cli/info_describers.h"
#include "core/geo/geodesy.h"
#include "core/io/telemetry/telemetry_reader.h"

namespace skytrace::cli {

namespace {

QString isoTime(double unix_s) {
  return QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(std::llround(unix_s * 1000.0)), Qt::UTC)
      .toString(Qt::ISODateWithMs);
}

QString range(double lo, double hi, int decimals) {
  return QStringLiteral("%1 .. %2").arg(lo, 0, 'f', decimals).arg(hi, 0, 'f', decimals);
}

}  // namespace

InfoDescription describeTelemetry(const QString& path) {
  const io::TelemetrySeries s = io::readTelemetry(path.toStdString());
  QStringList lines;
  lines << QStringLiteral("path: %1").arg(path);
  lines << QStringLiteral("kind: flight log (%1, %2)")
               .arg(QString::fromStdString(s.format), QString::fromStdString(s.variant));
  lines << QStringLiteral("samples: %1 (%2 with position)").arg(s.samples.size()).arg(s.positionCount());
  if (!s.samples.empty()) {
    const double t0 = s.samples.front().log_t_s, t1 = s.samples.back().log_t_s;
    lines << QStringLiteral("time span: %1 s (log clock), duration %2 s")
                 .arg(range(t0, t1, 3))
                 .arg(t1 - t0, 0, 'f', 3);
  }
  lines << QStringLiteral("start: %1")
               .arg(std::isfinite(s.start_unix_s) ? isoTime(s.start_unix_s)
                                                  : QStringLiteral("unknown (no absolute time in the log)"));
  lines << QStringLiteral("time offset to video: %1 s").arg(s.time_offset_s, 0, 'f', 3);
  std::vector<geo::GeoPoint> positions;
  double min_rel = INFINITY, max_rel = -INFINITY, min_abs = INFINITY, max_abs = -INFINITY;
  for (const io::TelemetrySample& x : s.samples) {
    if (x.hasPosition()) positions.push_back({x.lat_deg, x.lon_deg, 0.0});
    if (std::isfinite(x.alt_rel_m)) min_rel = std::min(min_rel, x.alt_rel_m), max_rel = std::max(max_rel, x.alt_rel_m);
    if (std::isfinite(x.alt_abs_m)) min_abs = std::min(min_abs, x.alt_abs_m), max_abs = std::max(max_abs, x.alt_abs_m);
  }
  std::optional<geo::GeoBBox> box;
  if (!positions.empty()) {
    // West .. east: across the antimeridian the first longitude is the larger.
    box = geo::boundingBox(positions, geo::PointSet::kPoints);
    lines << QStringLiteral("bbox (lat, lon): %1, %2")
                 .arg(range(box->min_lat_deg, box->max_lat_deg, 7), range(box->min_lon_deg, box->max_lon_deg, 7));
  }
  if (std::isfinite(min_rel)) lines << QStringLiteral("altitude relative: %1 m").arg(range(min_rel, max_rel, 2));
  if (std::isfinite(min_abs))
    lines << QStringLiteral("altitude absolute (%1): %2 m")
                 .arg(QString::fromStdString(s.abs_alt_reference), range(min_abs, max_abs, 2));
  QStringList fields;
  for (io::TelemetryField f : s.fieldsPresent()) fields << QString::fromUtf8(io::telemetryFieldName(f));
  lines << QStringLiteral("fields: %1").arg(fields.isEmpty() ? QStringLiteral("none") : fields.join(", "));
  if (!s.camera_triggers.empty()) {
    lines << QStringLiteral("camera triggers: %1 (log clock %2 s)")
                 .arg(s.camera_triggers.size())
                 .arg(range(s.camera_triggers.front().log_t_s, s.camera_triggers.back().log_t_s, 3));
  }
  for (const auto& [key, value] : s.metadata)
    lines << QStringLiteral("%1: %2").arg(QString::fromStdString(key), QString::fromStdString(value));
  lines << QStringLiteral("warnings: %1").arg(s.warnings.size());
  for (std::size_t i = 0; i < s.warnings.size() && i < 10; ++i)
    lines << QStringLiteral("  %1").arg(QString::fromStdString(io::formatWarning(s.warnings[i])));

  nlohmann::json facts = {
      {"path", path.toStdString()},
      {"kind", "flight log"},
      {"format", s.format},
      {"variant", s.variant},
      {"samples", s.samples.size()},
      {"samples_with_position", s.positionCount()},
      {"first_log_t_s", s.samples.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.samples.front().log_t_s)},
      {"last_log_t_s", s.samples.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.samples.back().log_t_s)},
      {"start_utc", std::isfinite(s.start_unix_s) ? nlohmann::json(isoTime(s.start_unix_s).toStdString())
                                                  : nlohmann::json(nullptr)},
      {"start_unix_s", finiteOrNull(s.start_unix_s)},
      {"time_offset_s", s.time_offset_s},
      {"alt_rel_m", std::isfinite(min_rel) ? nlohmann::json{{"min", min_rel}, {"max", max_rel}} : nlohmann::json(nullptr)},
      {"alt_abs_m", std::isfinite(min_abs) ? nlohmann::json{{"min", min_abs}, {"max", max_abs}} : nlohmann::json(nullptr)},
      {"alt_abs_reference", std::isfinite(min_abs) ? nlohmann::json(s.abs_alt_reference) : nlohmann::json(nullptr)},
      {"camera_triggers", s.camera_triggers.size()},
      {"warnings", s.warnings.size()}};
  facts["bbox"] = box ? bboxJson(*box) : nlohmann::json(nullptr);
  nlohmann::json field_names = nlohmann::json::array();
  for (io::TelemetryField f : s.fieldsPresent()) field_names.push_back(io::telemetryFieldName(f));
  facts["fields"] = field_names;
  nlohmann::json metadata = nlohmann::json::object();
  for (const auto& [key, value] : s.metadata) metadata[key] = value;
  facts["metadata"] = metadata;
  nlohmann::json warning_texts = nlohmann::json::array();
  for (const auto& warning : s.warnings) warning_texts.push_back(io::formatWarning(warning));
  facts["warning_messages"] = warning_texts;
  return {lines, facts};
}

}  // namespace skytrace::cli
