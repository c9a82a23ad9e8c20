// The flight report: what an analyst sends to someone without Skytrace. One HTML file
// (self-contained: its pictures are inside it) and a PDF of the same content, written
// from a flight's results and two pictures the window makes (the map as shown, the
// stacked time plots as chosen):
//   - the flight: results folder, video, flight log, when the report was made, software
//     version;
//   - a summary: frames processed and placed, registrations accepted and rejected,
//     frames odometry lost, the log clock's measured offset;
//   - accuracy: against a reference track where the results folder holds an evaluation
//     (accuracy.json, app::AccuracySummary), and the track's estimated uncertainty;
//   - the logged GNSS against the visual track (distances, flagged stretches);
//   - the map and the plots;
//   - the flagged GNSS stretches and every event (app::flightEvents) in time order;
//   - the settings the run used (inputs, device, models, mode; report.json's own text).
// Text goes through tr() (the report is in the interface language).
// Thread: GUI thread (QTextDocument, QPdfWriter).
#pragma once

#include <QCoreApplication>
#include <QImage>
#include <QString>

#include "core/app/flight_results.h"

namespace skytrace::ui {

class FlightReport {
  Q_DECLARE_TR_FUNCTIONS(skytrace::ui::FlightReport)

 public:
  // Writes `html_path` and, beside it, the same name with .pdf. `map` and `plots` may be
  // null (left out, with a line saying why). `version` is the software's. False with
  // `error` set when a file cannot be written.
  static bool write(const app::FlightResults& results, const QImage& map, const QImage& plots,
                    const QString& version, const QString& html_path, QString* error);

  // The report's HTML; pictures referenced as `map_src` and `plots_src` (data: URIs for
  // the HTML file, resource names for the PDF), `image_width` wide.
  static QString html(const app::FlightResults& results, const QString& map_src, const QString& plots_src,
                      const QString& version, int image_width);

 private:
  // The report's Accuracy section: the score against a reference track where the results
  // hold one (accuracy.json), else how to make one; the track's estimated uncertainty.
  static QString accuracySection(const app::FlightResults& results);
  // Logged GNSS against the visual track: distances, frames beyond 3 sigma, stretches.
  static QString discrepancySection(const app::FlightResults& results);
};

}  // namespace skytrace::ui
