#include "ui/flight_report.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QLocale>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QTextDocument>
#include <QUrl>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/app/flight_events.h"
#include "core/util/atomic_file.h"
#include "core/util/statistics.h"
#include "ui/events_panel.h"
#include "ui/time_model.h"

namespace skytrace::ui {
namespace {

// The pictures' width in the PDF, in the document's units: the text width of an A4 page
// with 15 mm margins.
constexpr int kPdfImageWidth = 480;

QString escaped(const QString& text) { return text.toHtmlEscaped(); }
QString escaped(const std::string& text) { return QString::fromStdString(text).toHtmlEscaped(); }

QString number(double value, int decimals) { return QLocale().toString(value, 'f', decimals); }

QString row(const QString& label, const QString& value) {
  return QStringLiteral("<tr><th align=\"left\">%1</th><td>%2</td></tr>\n").arg(escaped(label), value);
}

QString pngDataUri(const QImage& image) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  image.save(&buffer, "PNG");
  return QStringLiteral("data:image/png;base64,") + QString::fromLatin1(bytes.toBase64());
}

// A number from report.json (an object path); NaN when absent.
double reportNumber(const nlohmann::json& report, std::initializer_list<const char*> path) {
  const nlohmann::json* node = &report;
  for (const char* key : path) {
    if (!node->is_object() || !node->contains(key)) return std::nan("");
    node = &(*node)[key];
  }
  return node->is_number() ? node->get<double>() : std::nan("");
}

// "12.3 m" with the locale's decimal mark.
QString metres(double value_m, int decimals) {
  return QCoreApplication::translate("skytrace::ui::FlightReport", "%1 m").arg(number(value_m, decimals));
}

QString percent(double fraction) {
  return QCoreApplication::translate("skytrace::ui::FlightReport", "%1 %").arg(number(100.0 * fraction, 1));
}

}  // namespace

// Accuracy: against a reference track where the results folder holds an evaluation
// (accuracy.json), and the track's own uncertainty estimate.
QString FlightReport::accuracySection(const app::FlightResults& r) {
  QString h = QStringLiteral("<h2>%1</h2>\n").arg(escaped(tr("Accuracy")));
  if (r.accuracy) {
    const app::AccuracySummary& a = *r.accuracy;
    h += QStringLiteral("<h3>%1</h3>\n<table>\n").arg(escaped(tr("Against a reference track")));
    h += row(tr("Reference"), escaped(QFileInfo(QString::fromStdString(a.reference)).fileName()));
    if (a.alignment != "none")
      h += row(tr("Alignment"), escaped(tr("%1 fit of the track onto the reference before scoring")
                                            .arg(QString::fromStdString(a.alignment))));
    h += row(tr("Reference frames with a position"),
             escaped(tr("%1 of %2").arg(number(a.fraction_with_position * a.reference_frames, 0),
                                        number(a.reference_frames, 0))));
    h += row(tr("Horizontal error"), escaped(tr("RMSE %1, median %2, p90 %3, largest %4")
                                                 .arg(metres(a.rmse_m, 2), metres(a.median_m, 2),
                                                      metres(a.p90_m, 2), metres(a.max_m, 2))));
    h += row(tr("Within 5 / 10 / 20 m"),
             escaped(QStringLiteral("%1 / %2 / %3").arg(percent(a.within_5m), percent(a.within_10m), percent(a.within_20m))));
    if (std::isfinite(a.vertical_rmse_m)) h += row(tr("Vertical error (RMSE)"), escaped(metres(a.vertical_rmse_m, 2)));
    if (std::isfinite(a.heading_rmse_deg))
      h += row(tr("Heading error (RMSE)"), escaped(tr("%1 deg").arg(number(a.heading_rmse_deg, 2))));
    h += QStringLiteral("</table>\n");
  } else {
    h += QStringLiteral("<p>%1</p>\n").arg(escaped(
        tr("No reference track was scored: the figures below are the track's own estimate. "
           "To score it against a reference (an RTK log, a surveyed path), write the results "
           "folder's accuracy.json with: skytrace-cli eval --truth REFERENCE --track "
           "RESULTS/track.csv --out RESULTS/accuracy.json")));
  }
  std::vector<double> sigmas;
  for (const geo::TrackPose& p : r.primaryTrack().poses)
    if (std::isfinite(p.sigma_m)) sigmas.push_back(p.sigma_m);
  if (!sigmas.empty()) {
    h += QStringLiteral("<h3>%1</h3>\n<table>\n").arg(escaped(tr("Estimated uncertainty (1 sigma)")));
    h += row(tr("Frames with an estimate"), escaped(number(double(sigmas.size()), 0)));
    h += row(tr("Median / p90 / largest"),
             escaped(QStringLiteral("%1 / %2 / %3")
                         .arg(metres(median(sigmas), 2), metres(quantile(sigmas, 0.9), 2),
                              metres(*std::max_element(sigmas.begin(), sigmas.end()), 2))));
    h += QStringLiteral("</table>\n");
  }
  return h;
}

// The logged GNSS against the visual track (discrepancy.csv).
QString FlightReport::discrepancySection(const app::FlightResults& r) {
  if (r.discrepancy.empty()) return {};
  std::vector<double> distances;
  int beyond_3_sigma = 0, with_sigma = 0;
  for (const app::DiscrepancyRecord& d : r.discrepancy) {
    distances.push_back(d.distance_m);
    if (std::isfinite(d.sigma_m) && d.sigma_m > 0.0) {
      ++with_sigma;
      beyond_3_sigma += d.distance_m > 3.0 * d.sigma_m ? 1 : 0;
    }
  }
  QString h = QStringLiteral("<h2>%1</h2>\n<table>\n").arg(escaped(tr("Logged GNSS against the visual track")));
  h += row(tr("Frames compared"), escaped(number(double(distances.size()), 0)));
  h += row(tr("Distance: median / p90 / largest"),
           escaped(QStringLiteral("%1 / %2 / %3")
                       .arg(metres(median(distances), 1), metres(quantile(distances, 0.9), 1),
                            metres(*std::max_element(distances.begin(), distances.end()), 1))));
  if (with_sigma > 0)
    h += row(tr("Beyond 3 sigma of the visual track"),
             escaped(tr("%1 of %2 frames").arg(number(beyond_3_sigma, 0), number(with_sigma, 0))));
  h += row(tr("Flagged stretches"), escaped(number(double(r.flagged_segments.size()), 0)));
  h += QStringLiteral("</table>\n");
  return h;
}

QString FlightReport::html(const app::FlightResults& r, const QString& map_src, const QString& plots_src,
                           const QString& version, int image_width) {
  nlohmann::json report = nlohmann::json::object();
  try {
    if (!r.report_json.empty()) report = nlohmann::json::parse(r.report_json);
  } catch (const nlohmann::json::exception&) {
    report = nlohmann::json::object();  // the summary then shows what the files hold
  }
  const QString flight = r.inputs.video.empty() ? QFileInfo(QString::fromStdString(r.folder)).fileName()
                                                : QFileInfo(QString::fromStdString(r.inputs.video)).fileName();
  QString h;
  h += QStringLiteral("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%1</title>\n"
                      "<style>body{font-family:sans-serif;max-width:1100px;margin:auto;}"
                      "table{border-collapse:collapse;margin-bottom:12px;}"
                      "th,td{border:1px solid #bbb;padding:3px 8px;text-align:left;vertical-align:top;}"
                      "img{max-width:100%;border:1px solid #bbb;}</style></head><body>\n")
           .arg(escaped(tr("Flight report: %1").arg(flight)));
  h += QStringLiteral("<h1>%1</h1>\n").arg(escaped(tr("Flight report: %1").arg(flight)));
  h += QStringLiteral("<table>\n");
  h += row(tr("Results folder"), escaped(r.folder));
  if (!r.inputs.video.empty()) h += row(tr("Video"), escaped(r.inputs.video));
  h += row(tr("Flight log"), r.inputs.telemetry.empty() ? escaped(tr("none")) : escaped(r.inputs.telemetry));
  for (const std::string& basemap : r.inputs.basemaps) h += row(tr("Basemap"), escaped(basemap));
  if (std::isfinite(r.primaryTrack().start_unix_s))
    h += row(tr("Flight start (UTC)"),
             escaped(utcDateTime(r.primaryTrack().start_unix_s).toString(QStringLiteral("yyyy-MM-dd hh:mm:ss"))));
  h += row(tr("Report made"), escaped(QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyy-MM-dd hh:mm 'UTC'"))));
  h += row(tr("Software"), escaped(tr("Skytrace %1").arg(version)));
  h += QStringLiteral("</table>\n");

  // Summary.
  h += QStringLiteral("<h2>%1</h2>\n<table>\n").arg(escaped(tr("Summary")));
  const double total = reportNumber(report, {"frames", "total"});
  const double processed = reportNumber(report, {"frames", "processed"});
  const double placed = reportNumber(report, {"frames", "with_position"});
  if (std::isfinite(processed))
    h += row(tr("Frames processed"), std::isfinite(total) ? escaped(tr("%1 of %2").arg(number(processed, 0), number(total, 0)))
                                                          : escaped(number(processed, 0)));
  h += row(tr("Frames with a position"),
           std::isfinite(placed) && processed > 0
               ? escaped(tr("%1 (%2 %)").arg(number(placed, 0), number(100.0 * placed / processed, 1)))
               : escaped(number(double(r.primaryTrack().poses.size()), 0)));
  int accepted = 0;
  for (const app::RegistrationFixRecord& fix : r.fixes) accepted += fix.accepted ? 1 : 0;
  h += row(tr("Basemap registrations"),
           escaped(tr("%1 accepted, %2 rejected").arg(accepted).arg(int(r.fixes.size()) - accepted)));
  int lost = 0;
  for (const geo::FrameSpan& span : r.odometry_lost) lost += int(span.frameCount());
  h += row(tr("Frames odometry lost"), escaped(QString::number(lost)));
  if (r.log_alignment.estimated)
    h += row(tr("Log clock"), escaped(tr("measured offset %1 s (1 sigma %2 s; the run used %3 s)")
                                          .arg(number(r.log_alignment.best_time_offset_s, 2),
                                               number(r.log_alignment.sigma_s, 2),
                                               number(r.log_alignment.time_offset_used_s, 2))));
  h += QStringLiteral("</table>\n");
  h += accuracySection(r);
  h += discrepancySection(r);

  // Pictures.
  h += QStringLiteral("<h2>%1</h2>\n").arg(escaped(tr("Map")));
  h += map_src.isEmpty() ? QStringLiteral("<p>%1</p>\n").arg(escaped(tr("No map: no basemap was open.")))
                         : QStringLiteral("<p><img src=\"%1\" width=\"%2\"></p>\n").arg(map_src).arg(image_width);
  h += QStringLiteral("<h2>%1</h2>\n").arg(escaped(tr("Plots")));
  h += plots_src.isEmpty() ? QStringLiteral("<p>%1</p>\n").arg(escaped(tr("No plot was shown.")))
                           : QStringLiteral("<p><img src=\"%1\" width=\"%2\"></p>\n").arg(plots_src).arg(image_width);

  // GNSS check and events.
  h += QStringLiteral("<h2>%1</h2>\n").arg(escaped(tr("GNSS flagged")));
  if (r.flagged_segments.empty()) {
    h += QStringLiteral("<p>%1</p>\n").arg(escaped(tr("No stretch of the logged GNSS was flagged.")));
  } else {
    h += QStringLiteral("<table>\n<tr><th>%1</th><th>%2</th><th>%3</th></tr>\n")
             .arg(escaped(tr("From")), escaped(tr("To")), escaped(tr("Largest distance")));
    for (const app::FlaggedSegment& s : r.flagged_segments)
      h += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td></tr>\n")
               .arg(EventsPanel::timeText(s.start_s), EventsPanel::timeText(s.end_s),
                    escaped(tr("%1 m").arg(number(s.max_m, 1))));
    h += QStringLiteral("</table>\n");
  }
  h += QStringLiteral("<h2>%1</h2>\n").arg(escaped(tr("Events")));
  const std::vector<app::FlightEvent> events = app::flightEvents(r);
  if (events.empty()) {
    h += QStringLiteral("<p>%1</p>\n").arg(escaped(tr("No events.")));
  } else {
    h += QStringLiteral("<table>\n<tr><th>%1</th><th>%2</th><th>%3</th></tr>\n")
             .arg(escaped(tr("Time")), escaped(tr("Event")), escaped(tr("Details")));
    for (const app::FlightEvent& e : events)
      h += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td></tr>\n")
               .arg(EventsPanel::timeText(e.span.start_s), escaped(EventsPanel::titleOf(e.kind)),
                    escaped(EventsPanel::detailsOf(e)));
    h += QStringLiteral("</table>\n");
  }

  // Settings.
  h += QStringLiteral("<h2>%1</h2>\n<table>\n").arg(escaped(tr("Settings")));
  h += row(tr("Device"), escaped(r.device));
  h += row(tr("Visual odometry"), escaped(r.feature_model));
  h += row(tr("Satellite stage"), escaped(r.registration_model));
  if (!r.mode.empty()) {
    const QString mode = r.mode == "sequential"       ? tr("sequential")
                         : r.mode == "overlapped"     ? tr("overlapped")
                         : r.mode == "frame-parallel" ? tr("frame-parallel")
                                                      : QString::fromStdString(r.mode);
    h += row(tr("Mode"), escaped(mode));
  }
  if (!r.inputs.camera.empty()) h += row(tr("Camera"), escaped(r.inputs.camera));
  if (!r.fallback_reason.empty()) h += row(tr("Fallback"), escaped(r.fallback_reason));
  h += QStringLiteral("</table>\n");
  if (!r.report_json.empty()) {
    h += QStringLiteral("<h3>report.json</h3>\n<pre>%1</pre>\n")
             .arg(escaped(report.is_object() && !report.empty() ? QString::fromStdString(report.dump(1))
                                                                 : QString::fromStdString(r.report_json)));
  }
  h += QStringLiteral("</body></html>\n");
  return h;
}

bool FlightReport::write(const app::FlightResults& results, const QImage& map, const QImage& plots,
                         const QString& version, const QString& html_path, QString* error) {
  try {
    const QString html = FlightReport::html(results, map.isNull() ? QString() : pngDataUri(map),
                                            plots.isNull() ? QString() : pngDataUri(plots), version, 1000);
    writeFileAtomically(html_path.toStdString(), html.toStdString());

    // The PDF: the same HTML, its pictures as document resources.
    QTextDocument document;
    if (!map.isNull()) document.addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("map.png")), map);
    if (!plots.isNull()) document.addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("plots.png")), plots);
    document.setHtml(FlightReport::html(results, map.isNull() ? QString() : QStringLiteral("map.png"),
                                        plots.isNull() ? QString() : QStringLiteral("plots.png"), version,
                                        kPdfImageWidth));
    const QFileInfo info(html_path);
    const QString pdf_path = info.absolutePath() + QLatin1Char('/') + info.completeBaseName() + QStringLiteral(".pdf");
    QPdfWriter writer(pdf_path);
    writer.setPageSize(QPageSize(QPageSize::A4));
    writer.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout::Millimeter);
    writer.setTitle(tr("Flight report"));
    writer.setCreator(QStringLiteral("Skytrace"));
    document.print(&writer);
    if (!QFileInfo(pdf_path).isFile() || QFileInfo(pdf_path).size() == 0)
      throw std::runtime_error(tr("cannot write %1").arg(pdf_path).toStdString());
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

}  // namespace skytrace::ui
