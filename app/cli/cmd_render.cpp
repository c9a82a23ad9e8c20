// `skytrace-cli render`: synthesise a UAV flight over a basemap (video, SRT telemetry,
// ground truth, camera, manifest; optionally a degraded basemap). See docs/renderer.md.
#include <QCommandLineParser>
#include <QTextStream>

#include <cmath>
#include <memory>

#include "app/cli/cli_command.h"
#include "app/cli/cli_support.h"
#include "core/sim/flight_simulation.h"
#include "core/util/check.h"
#include "core/util/error.h"
#include "core/util/progress.h"

namespace skytrace::cli {
namespace {

void parseSize(const QString& text, int* width, int* height) {
  const QStringList parts = text.toLower().split('x');
  bool ok_w = false, ok_h = false;
  if (parts.size() == 2) {
    *width = parts[0].toInt(&ok_w);
    *height = parts[1].toInt(&ok_h);
  }
  checkArgument(ok_w && ok_h, "--size needs WIDTHxHEIGHT, e.g. 960x540, got '" +
                                  text.toStdString() + "'");
}

}  // namespace

namespace {

int runRender(const QStringList& args) {
  QCommandLineParser parser;
  const QList<QCommandLineOption> options = {
      {"basemap", "Georeferenced raster to fly over (GeoTIFF, VRT, ...).", "FILE"},
      {"dsm", "Optional surface model (heights in metres) for the ground.", "FILE"},
      {"out", "Output folder (created).", "DIR"},
      {"trajectory", "lawnmower (default), orbit, transit or random.", "KIND", "lawnmower"},
      {"alt-m", "Height above ground, 30..300 m (default: from the map size).", "M"},
      {"alt-variation-m", "Amplitude of smooth altitude changes (default 0).", "M"},
      {"speed-mps", "Ground speed (default 8).", "MPS"},
      {"fps", "Frame rate (default 30).", "FPS"},
      {"size", "Image size WxH (default 960x540).", "WxH"},
      {"hfov-deg", "Horizontal field of view (default 70).", "DEG"},
      {"camera", "Camera JSON instead of --size/--hfov-deg.", "FILE"},
      {"duration-s", "Flight duration (default: the pattern, at most 60 s).", "S"},
      {"gimbal-pitch-deg", "Gimbal pitch, -90 = nadir (default -90; orbit: at centre).", "DEG"},
      {"yaw-offset-deg", "Added to the along-track heading (default 0).", "DEG"},
      {"jitter-deg", "Smooth attitude jitter amplitude (default 0.5).", "DEG"},
      {"ground-alt-m", "Ellipsoidal height of the ground plane (default 0).", "M"},
      {"seed", "Seed for everything random (default 1).", "N"},
      {"exposure", "Exposure variation RMS, 0..0.5 (default 0.05).", "X"},
      {"colour", "White-balance variation RMS, 0..0.3 (default 0.02).", "X"},
      {"noise", "Sensor noise sigma in grey levels (default 1.5).", "X"},
      {"shutter-s", "Exposure time for motion blur, 0 = off (default 1/250).", "S"},
      {"jpeg-quality", "Recompress frames at this JPEG quality, 0 = off (default 0).", "Q"},
      {"gnss-noise-m", "GNSS noise 1-sigma (default 1.5).", "M"},
      {"baro-noise-m", "Barometric height noise 1-sigma of the log's rel_alt (default 0.3).", "M"},
      {"gnss-bias-m", "Constant GNSS offset (default 0).", "M"},
      {"dropout-rate", "Share of frames without a GNSS fix, 0..0.9 (default 0).", "X"},
      {"spoof-start-s", "Start of a spoofed GNSS segment.", "S"},
      {"spoof-duration-s", "Length of the spoofed segment (default 10).", "S"},
      {"spoof-offset-m", "How far the spoofer drags the position (default 100).", "M"},
      {"degrade", "Also write basemap_degraded.tif (coarser, blurred, season-shifted, "
                  "offset, partly occluded)."},
      {"degrade-gsd-factor", "The degraded map's pixel against the source's, 1..16 (default 2).",
       "X"},
      {"degrade-season", "Season shift of the degraded map, 0..1 (default 0.5).", "X"},
      {"degrade-colour", "Another sensor's colours for the degraded map (gains, gammas, "
                         "contrast, haze), 0..1 (default 0).", "X"},
      {"degrade-offset-m", "Georeference error of the degraded map, 0..100 m (default 1.5).",
       "M"},
  };
  parser.addOptions(options);
  int exit_code = kExitOk;
  addThreadsOption(parser);
  if (!parseArguments(parser,
                      QStringLiteral("Render a synthetic UAV flight over a basemap: flight.mp4, "
                                     "flight.srt, truth.csv, camera.json, flight.json."),
                      args, &exit_code)) {
    return exit_code;
  }
  QString basemap, out;
  if (!requireOption(parser, "basemap", &basemap) || !requireOption(parser, "out", &out)) {
    return kExitUsage;
  }
  return runGuarded([&] {
    applyThreadsOption(parser);
    sim::FlightSimulationOptions o;
    o.basemap_path = basemap.toStdString();
    o.out_dir = out.toStdString();
    o.dsm_path = parser.value("dsm").toStdString();
    o.camera_path = parser.value("camera").toStdString();
    o.trajectory = sim::parseTrajectoryKind(parser.value("trajectory").toStdString());
    o.altitude_m = numberOption(parser, "alt-m", o.altitude_m);
    o.altitude_variation_m = numberOption(parser, "alt-variation-m", 0.0);
    o.speed_mps = numberOption(parser, "speed-mps", o.speed_mps);
    o.fps = numberOption(parser, "fps", o.fps);
    if (parser.isSet("size")) parseSize(parser.value("size"), &o.width_px, &o.height_px);
    o.hfov_deg = numberOption(parser, "hfov-deg", o.hfov_deg);
    o.duration_s = numberOption(parser, "duration-s", 0.0);
    o.gimbal_pitch_deg = numberOption(parser, "gimbal-pitch-deg", o.gimbal_pitch_deg);
    o.yaw_offset_deg = numberOption(parser, "yaw-offset-deg", 0.0);
    o.attitude_jitter_deg = numberOption(parser, "jitter-deg", o.attitude_jitter_deg);
    o.ground_alt_m = numberOption(parser, "ground-alt-m", 0.0);
    const double seed = numberOption(parser, "seed", 1.0);
    checkArgument(seed >= 0 && seed == std::floor(seed), "--seed needs a non-negative integer");
    o.seed = std::uint64_t(seed);
    o.effects.exposure_variation = numberOption(parser, "exposure", 0.05);
    o.effects.colour_variation = numberOption(parser, "colour", 0.02);
    o.effects.noise_sigma = numberOption(parser, "noise", 1.5);
    o.effects.shutter_s = numberOption(parser, "shutter-s", 1.0 / 250.0);
    o.effects.jpeg_quality = int(numberOption(parser, "jpeg-quality", 0));
    o.gnss.noise_sigma_m = numberOption(parser, "gnss-noise-m", 1.5);
    o.gnss.baro_noise_sigma_m = numberOption(parser, "baro-noise-m", 0.3);
    o.gnss.bias_m = numberOption(parser, "gnss-bias-m", 0.0);
    o.gnss.dropout_rate = numberOption(parser, "dropout-rate", 0.0);
    if (parser.isSet("spoof-start-s")) {
      o.gnss.spoof_start_s = numberOption(parser, "spoof-start-s", 0.0);
      o.gnss.spoof_duration_s = numberOption(parser, "spoof-duration-s", 10.0);
      o.gnss.spoof_offset_m = numberOption(parser, "spoof-offset-m", 100.0);
    }
    o.degrade = parser.isSet("degrade");
    for (const char* name : {"degrade-gsd-factor", "degrade-season", "degrade-colour", "degrade-offset-m"}) {
      checkArgument(o.degrade || !parser.isSet(name),
                    std::string("--") + name + " needs --degrade");
    }
    o.degradation.gsd_factor = numberOption(parser, "degrade-gsd-factor", o.degradation.gsd_factor);
    o.degradation.season_shift = numberOption(parser, "degrade-season", o.degradation.season_shift);
    o.degradation.colour_shift = numberOption(parser, "degrade-colour", o.degradation.colour_shift);
    o.degradation.georeference_offset_m =
        numberOption(parser, "degrade-offset-m", o.degradation.georeference_offset_m);

    const sim::FlightSimulationResult r = sim::simulateFlight(o, stderrProgress());
    QTextStream cout(stdout);
    cout << "Rendered " << r.frames << " frames at " << r.fps << " fps, "
         << r.altitude_m << " m above ground (" << QString::fromStdString(r.video_fourcc)
         << ")\n";
    for (const auto& path : {r.video_path, r.srt_path, r.truth_path, r.camera_path,
                             r.manifest_path, r.degraded_basemap_path}) {
      if (!path.empty()) cout << "  " << QString::fromStdString(path.string()) << "\n";
    }
    for (const auto& w : r.warnings) {
      QTextStream(stderr) << "skytrace-cli: warning: " << QString::fromStdString(w) << "\n";
    }
    return int(kExitOk);
  });
}

const CliCommandRegistration kRegistration{
    {QStringLiteral("render"),
     QStringLiteral("Render a synthetic flight (video, SRT, truth) over a basemap"), runRender}};

}  // namespace
}  // namespace skytrace::cli
