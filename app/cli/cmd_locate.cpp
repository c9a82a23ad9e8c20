// `skytrace-cli locate`: where was each photo taken? Registers single drone photos to
// basemaps without any position prior (global retrieval + rotation-invariant matching),
// using only the photo's height above ground (DJI XMP RelativeAltitude, or --alt-m) and
// field of view (EXIF 35 mm focal length, or --hfov-deg). When the photo has EXIF GPS,
// the distance to it is reported (the GPS is never used for the search).
#include <QCommandLineParser>
#include <QTextStream>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <sstream>

#include "app/cli/cli_command.h"
#include "app/cli/cli_support.h"
#include "core/geo/geodesy.h"
#include "core/geo/photo_metadata.h"
#include "core/nav/basemap_registration.h"
#include "core/nav/camera_pose.h"
#include "core/nav/model_choice.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/vision/torch_runtime.h"

#include <opencv2/imgcodecs.hpp>

namespace skytrace::cli {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void onLocateInterrupt(int) { g_interrupted.store(true); }

// Progress of a global search's preparation on stderr (a large map takes minutes the
// first time a photo's resolution is seen): a line at most every 2 s, after the first 2 s.
// Ctrl-C cancels it (skytrace::Cancelled).
class SearchProgress {
 public:
  explicit SearchProgress(QString photo) : photo_(std::move(photo)) {}
  void operator()(int done, int total) {
    if (g_interrupted.load()) throw Cancelled();
    const auto now = std::chrono::steady_clock::now();
    if (now - started_ < std::chrono::seconds(2) || now - last_ < std::chrono::seconds(2)) return;
    last_ = now;
    QTextStream(stderr) << photo_ << ": " << QString::fromStdString(nav::globalSearchStage(done, total))
                        << "\n";
  }

 private:
  QString photo_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
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
    vision::configureTorchRuntime(0);
    std::vector<std::string> basemap_paths;
    for (const auto& b : basemaps) basemap_paths.push_back(b.toStdString());
    const geo::LocalEnuFrame enu(nav::defaultEnuOrigin(basemap_paths.front(), 0.0));
    nav::RegistrationOptions options;
    options.features.model = parser.value("model").toStdString();
    options.features.weights_path = parser.value("weights").toStdString();
    options.features.max_keypoints = 2048;
    if (parser.isSet("sat-model")) nav::applySatelliteModel(parser.value("sat-model").toStdString(), options);
    nav::setSatelliteWeights(parser.value("sat-weights").toStdString(),
                             parser.value("retrieval-weights").toStdString(), options);
    if (parser.isSet("sat-size"))
      options.dense_matcher.resize_long_side_px = int(numberOption(parser, "sat-size", 512));
    try {
      nav::checkRegistrationWeights(options);  // before the first photo
    } catch (const ModelError& e) {
      throw ModelError(std::string(e.what()) +
                       ". For --sat-model: --sat-weights FILE (LiteSAM or the features), "
                       "--retrieval-weights FILE (DINOv2)");
    }
    std::ostringstream csv;
    csv << "image,lat_deg,lon_deg,yaw_deg,height_m,inliers,inlier_ratio,accepted,reason,gps_lat_deg,"
           "gps_lon_deg,distance_to_gps_m\n";
    std::vector<double> distances;
    int located = 0;
    int attempted = 0;
    bool cancelled = false;
    QTextStream out(stdout);
    g_interrupted.store(false);
    auto previous_handler = std::signal(SIGINT, onLocateInterrupt);
    for (const QString& image : images) {
      if (g_interrupted.load()) {
        cancelled = true;
        break;
      }
      const geo::PhotoMetadata meta = geo::readPhotoMetadata(image.toStdString());
      double hfov = numberOption(parser, "hfov-deg", std::nan(""));
      if (!std::isfinite(hfov)) hfov = meta.horizontalFovDeg();
      if (!std::isfinite(hfov)) {
        throw InvalidArgument(image.toStdString() + ": no 35 mm focal length in EXIF; give --hfov-deg");
      }
      double height = std::isfinite(meta.relative_alt_m) ? meta.relative_alt_m : numberOption(parser, "alt-m", std::nan(""));
      if (!std::isfinite(height)) {
        throw InvalidArgument(image.toStdString() + ": no relative altitude in its XMP; give --alt-m");
      }
      const nav::CameraModel camera = nav::CameraModel::fromHorizontalFov(meta.width_px, meta.height_px, hfov);
      nav::BasemapRegistrar registrar(basemap_paths, enu, 0.0, camera, options);
      nav::RegistrationRequest request;
      request.frame = 0;
      const cv::Mat pixels = cv::imread(image.toStdString(), cv::IMREAD_COLOR);
      request.image = vision::Image::fromHost(pixels);
      if (pixels.empty()) throw FormatError(image.toStdString() + ": cannot decode the image");
      request.height_hint_m = height;
      registrar.setSearchMonitor(SearchProgress(image));
      nav::RegistrationFix fix;
      try {
        fix = registrar.registerFrame(request);
      } catch (const Cancelled&) {
        cancelled = true;
        break;
      }
      ++attempted;
      std::string lat, lon, yaw, h, distance;
      if (fix.has_pose) {
        const geo::TrackPose p = nav::trackPoseFromCameraPose(fix.pose, enu, 0);
        lat = QString::number(p.lat_deg, 'f', 9).toStdString();
        lon = QString::number(p.lon_deg, 'f', 9).toStdString();
        yaw = QString::number(p.yaw_deg, 'f', 2).toStdString();
        h = QString::number(fix.pose.position_enu[2], 'f', 2).toStdString();
        if (fix.accepted && meta.hasGps()) {
          const double d = geo::horizontalDistanceM({p.lat_deg, p.lon_deg, 0}, {meta.lat_deg, meta.lon_deg, 0});
          distances.push_back(d);
          distance = QString::number(d, 'f', 2).toStdString();
        }
      }
      located += fix.accepted ? 1 : 0;
      csv << image.toStdString() << ',' << lat << ',' << lon << ',' << yaw << ',' << h << ',' << fix.inliers
          << ',' << fix.inlier_ratio << ',' << (fix.accepted ? 1 : 0) << ',' << fix.reason << ','
          << (meta.hasGps() ? QString::number(meta.lat_deg, 'f', 9).toStdString() : "") << ','
          << (meta.hasGps() ? QString::number(meta.lon_deg, 'f', 9).toStdString() : "") << ',' << distance
          << '\n';
      out << image << ": " << (fix.accepted ? "located" : "not located (" + QString::fromStdString(fix.reason) + ")")
          << ", " << fix.inliers << " inliers";
      if (!distance.empty()) out << ", " << QString::fromStdString(distance) << " m from its GPS";
      out << "\n";
      out.flush();
    }
    std::signal(SIGINT, previous_handler);
    if (cancelled) out << "cancelled after " << attempted << " photos; ";
    out << "located " << located << " of " << (cancelled ? attempted : int(images.size())) << " photos";
    if (!distances.empty()) {
      std::sort(distances.begin(), distances.end());
      out << "; distance to EXIF GPS: median " << QString::number(distances[distances.size() / 2], 'f', 2)
          << " m, max " << QString::number(distances.back(), 'f', 2) << " m";
    }
    out << "\n";
    // The photos done so far are kept when cancelled.
    if (parser.isSet("out")) writeFileAtomically(parser.value("out").toStdString(), csv.str());
    if (cancelled) return int(kExitCancelled);
    return int(located > 0 ? kExitOk : kExitFailure);
  });
}

const CliCommandRegistration kRegistration{
    {QStringLiteral("locate"), QStringLiteral("Locate drone photos on basemaps from the images alone"),
     runLocate}};

}  // namespace
}  // namespace skytrace::cli
