// `skytrace-cli locate`: where was each photo taken? The command line of
// app::locatePhotos (core/app/photo_location.h): the photos and basemaps, the field of
// view and height where the photos do not say, the models; a line per photo, the
// distance to EXIF GPS, the CSV (--out), Ctrl-C keeping the photos done so far.
#include <QCommandLineParser>
#include <QTextStream>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "app/cli/cancel_on_interrupt.h"
#include "app/cli/cli_command.h"
#include "app/cli/cli_support.h"
#include "core/app/photo_location.h"
#include "core/engine/run_control.h"
#include "core/nav/basemap_registration.h"
#include "core/nav/model_choice.h"
#include "core/util/atomic_file.h"
#include "core/vision/torch_runtime.h"

namespace skytrace::cli {
namespace {

// One line per photo on stdout; the progress of a global search's preparation on stderr
// (a large map takes minutes the first time a photo's resolution is seen): a line at most
// every 2 s, after the first 2 s of a photo. Ctrl-C cancels (the control given).
class TerminalLocateObserver : public app::LocateObserver {
 public:
  explicit TerminalLocateObserver(const engine::RunControl* control) : control_(control) {}
  void onPhotoLocated(const app::PhotoLocation& photo, int, int) override {
    QTextStream out(stdout);
    out << QString::fromStdString(photo.photo_path) << ": "
        << (photo.fix.accepted ? QStringLiteral("located")
                               : "not located (" + QString::fromStdString(photo.fix.reason) + ")")
        << ", " << photo.fix.inliers << " inliers";
    if (std::isfinite(photo.distance_to_gps_m))
      out << ", " << QString::number(photo.distance_to_gps_m, 'f', 2) << " m from its GPS";
    if (!photo.fix.accepted && std::isfinite(photo.gps_footprint_on_map))
      out << ", " << QString::number(100.0 * photo.gps_footprint_on_map, 'f', 0) << " % of its GPS footprint on the map";
    out << "\n";
    out.flush();
    photo_started_ = std::chrono::steady_clock::now();
  }
  void onSearchProgress(const std::string& photo, int done, int total) override {
    const auto now = std::chrono::steady_clock::now();
    if (now - photo_started_ < std::chrono::seconds(2) || now - last_ < std::chrono::seconds(2)) return;
    last_ = now;
    QTextStream(stderr) << QString::fromStdString(photo) << ": "
                        << QString::fromStdString(nav::globalSearchStage(done, total)) << "\n";
  }
  const engine::RunControl* control() const override { return control_; }

 private:
  const engine::RunControl* control_;
  std::chrono::steady_clock::time_point photo_started_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
};

int runLocate(const QStringList& args) {
  QCommandLineParser parser;
  parser.addOptions({
      {"basemap", "Georeferenced basemap; repeat for several.", "FILE"},
      {"image", "Photo to locate; repeat, or give photos as positional arguments.", "FILE"},
      {"model", "Feature model (default sift).", "NAME", "sift"},
      {"weights", "Weights file of --model.", "FILE"},
      {"sat-model", QString::fromStdString("Registration models instead of --model: " +
                                           nav::satelliteModelSyntax() + "."),
       "SPEC"},
      {"sat-weights", "Weights of the --sat-model fine matcher (LiteSAM checkpoint) or features.", "FILE"},
      {"retrieval-weights", "Weights of the --sat-model DINOv2 retrieval.", "FILE"},
      {"sat-size", "Dense matcher input: long side of the larger image of a pair (default 512).", "PX"},
      {"alt-m", "Height above ground when the photo does not say (DJI XMP).", "M"},
      {"hfov-deg", "Horizontal field of view when EXIF has no 35 mm focal length.", "DEG"},
      {"out", "CSV with one row per photo.", "FILE"},
  });
  parser.addPositionalArgument("photos", "Photos to locate.", "[PHOTO...]");
  int exit_code = kExitOk;
  addThreadsOption(parser);
  if (!parseArguments(parser, QStringLiteral("Locate drone photos on basemaps from the images alone."),
                      args, &exit_code)) {
    return exit_code;
  }
  QStringList images = parser.values("image") + parser.positionalArguments();
  const QStringList basemaps = parser.values("basemap");
  if (images.isEmpty() || basemaps.isEmpty()) {
    printError(QStringLiteral("locate needs --basemap FILE and at least one photo"));
    return kExitUsage;
  }
  return runGuarded([&] {
    applyThreadsOption(parser);
    app::LocateRequest request;
    for (const auto& p : images) request.photo_paths.push_back(p.toStdString());
    for (const auto& b : basemaps) request.basemap_paths.push_back(b.toStdString());
    request.hfov_deg = numberOption(parser, "hfov-deg", app::LocateRequest::kFromPhoto);
    request.height_m = numberOption(parser, "alt-m", app::LocateRequest::kFromPhoto);
    request.feature_model = parser.value("model").toStdString();
    request.weights_path = parser.value("weights").toStdString();
    request.satellite_model = parser.value("sat-model").toStdString();
    request.satellite_weights_path = parser.value("sat-weights").toStdString();
    request.retrieval_weights_path = parser.value("retrieval-weights").toStdString();
    if (parser.isSet("sat-size")) request.satellite_size_px = int(numberOption(parser, "sat-size", 512));

    engine::RunControl control;
    TerminalLocateObserver observer(&control);
    app::LocateOutcome outcome;
    {
      const CancelOnInterrupt interrupt(&control);  // Ctrl+C / SIGTERM: exit 130 / 143
      outcome = app::locatePhotos(request, observer);
    }

    QTextStream out(stdout);
    const int attempted = int(outcome.photos.size());
    if (outcome.cancelled) out << "cancelled after " << attempted << " photos; ";
    out << "located " << outcome.located << " of " << (outcome.cancelled ? attempted : int(images.size()))
        << " photos";
    std::vector<double> distances;
    for (const auto& photo : outcome.photos) {
      if (std::isfinite(photo.distance_to_gps_m)) distances.push_back(photo.distance_to_gps_m);
    }
    if (!distances.empty()) {
      std::sort(distances.begin(), distances.end());
      out << "; distance to EXIF GPS: median " << QString::number(distances[distances.size() / 2], 'f', 2)
          << " m, max " << QString::number(distances.back(), 'f', 2) << " m";
    }
    out << "\n";
    // The photos done so far are kept when cancelled.
    if (parser.isSet("out")) writeFileAtomically(parser.value("out").toStdString(), app::locationsCsv(outcome));
    if (outcome.cancelled) return stopSignalExitCode();
    return int(outcome.located > 0 ? kExitOk : kExitFailure);
  });
}

const CliCommandRegistration kRegistration{
    {QStringLiteral("locate"), QStringLiteral("Locate drone photos on basemaps from the images alone"),
     runLocate}};

}  // namespace
}  // namespace skytrace::cli
