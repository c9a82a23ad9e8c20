#include "core/sim/flight_simulation.h"

#include <nlohmann/json.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stack>

#include "core/geo/crs_transform.h"
#include "core/sim/truth_csv.h"
#include "core/sim/video_writer.h"
#include "core/util/atomic_file.h"
#include "core/util/check.h"
#include "core/util/error.h"
#include "core/util/log.h"

namespace skytrace::sim {
namespace {

constexpr const char* kLog = "nav.simulation";

// Largest axis-aligned rectangle of non-zero pixels (histogram-stack method).
cv::Rect largestValidRectangle(const cv::Mat& valid) {
  std::vector<int> heights(valid.cols, 0);
  cv::Rect best;
  for (int r = 0; r < valid.rows; ++r) {
    const uchar* row = valid.ptr<uchar>(r);
    for (int c = 0; c < valid.cols; ++c) heights[c] = row[c] ? heights[c] + 1 : 0;
    std::vector<int> stack;
    for (int c = 0; c <= valid.cols; ++c) {
      const int h = c < valid.cols ? heights[c] : 0;
      while (!stack.empty() && heights[stack.back()] >= h) {
        const int height = heights[stack.back()];
        stack.pop_back();
        const int left = stack.empty() ? 0 : stack.back() + 1;
        const int width = c - left;
        if (double(width) * height > double(best.area())) {
          best = cv::Rect(left, r - height + 1, width, height);
        }
      }
      stack.push_back(c);
    }
  }
  return best;
}

// `valid` (CV_8UC1, 0/255) with its small holes marked valid: nodata regions that do not
// touch the border and are at most 2 % of the longer side across. Such speckle inside
// the imagery (a saturated sand pixel in a map that declares 255 as nodata, a dropout)
// is not an edge of the map; left in, it cuts the largest valid rectangle into a sliver.
// The frames show these pixels black, as the map has them.
cv::Mat withSpeckleFilled(const cv::Mat& valid) {
  cv::Mat holes = valid == 0;
  cv::Mat labels, stats, centroids;
  const int count = cv::connectedComponentsWithStats(holes, labels, stats, centroids, 8, CV_32S);
  const int max_side = std::max(3, int(0.02 * std::max(valid.cols, valid.rows)));
  std::vector<uchar> fill(std::size_t(count), 0);
  for (int i = 1; i < count; ++i) {
    const int x = stats.at<int>(i, cv::CC_STAT_LEFT), y = stats.at<int>(i, cv::CC_STAT_TOP);
    const int w = stats.at<int>(i, cv::CC_STAT_WIDTH), h = stats.at<int>(i, cv::CC_STAT_HEIGHT);
    const bool touches_border = x == 0 || y == 0 || x + w == valid.cols || y + h == valid.rows;
    fill[std::size_t(i)] = !touches_border && std::max(w, h) <= max_side;
  }
  cv::Mat filled = valid.clone();
  for (int r = 0; r < filled.rows; ++r) {
    const int* label = labels.ptr<int>(r);
    uchar* out = filled.ptr<uchar>(r);
    for (int c = 0; c < filled.cols; ++c) {
      if (fill[std::size_t(label[c])]) out[c] = 255;
    }
  }
  return filled;
}

// Largest horizontal distance from the camera to the ground under the image corners,
// per metre of height (plane ground), for the given gimbal pitch at any yaw.
double footprintRadiusPerHeight(const nav::CameraModel& camera, double pitch_deg) {
  nav::CameraPose pose;
  pose.position_enu = {0, 0, 1.0};
  pose.pitch_deg = pitch_deg;
  double radius = 0;
  for (const cv::Point2d corner :
       {cv::Point2d(0, 0), cv::Point2d(camera.width_px - 1, 0),
        cv::Point2d(0, camera.height_px - 1),
        cv::Point2d(camera.width_px - 1, camera.height_px - 1)}) {
    cv::Vec3d ground;
    if (!nav::groundFromPixel(camera, pose, corner, 0.0, &ground)) return 3.0;  // sees the sky
    radius = std::max(radius, std::hypot(ground[0], ground[1]));
  }
  return std::min(radius, 3.0);
}

nlohmann::ordered_json rectJson(const EnuRect& r) {
  return {{"min_east_m", r.min_east_m},
          {"min_north_m", r.min_north_m},
          {"max_east_m", r.max_east_m},
          {"max_north_m", r.max_north_m}};
}

}  // namespace

void FlightSimulationOptions::check() const {
  checkArgument(!basemap_path.empty(), "a basemap is required (--basemap)");
  checkArgument(!out_dir.empty(), "an output folder is required (--out)");
  if (camera_path.empty()) {
    checkArgument(width_px >= 64 && height_px >= 64 && width_px <= 7680 && height_px <= 4320,
                  "image size must be within 64x64 .. 7680x4320");
    checkArgument(hfov_deg > 5 && hfov_deg < 150, "horizontal FOV must be within 5..150 degrees");
  }
  checkArgument(std::isnan(altitude_m) || (altitude_m >= 30 && altitude_m <= 300),
                "altitude must be within 30..300 m above ground");
  checkArgument(max_auto_duration_s > 0, "max automatic duration must be > 0 s");
  effects.check();
  gnss.check();
  if (degrade) degradation.check();
}

UsableArea findUsableArea(const geo::Basemap& basemap, double ground_alt_m) {
  const geo::MapRect bounds = basemap.mapBounds();
  const double longest_m =
      std::max(basemap.width() * basemap.pixelSizeXM(), basemap.height() * basemap.pixelSizeYM());
  const geo::BasemapWindow overview = basemap.readWindow(bounds, longest_m / 400.0);
  cv::Mat valid = withSpeckleFilled(overview.valid);
  cv::erode(valid, valid, cv::Mat());  // one pixel of safety
  const cv::Rect r = largestValidRectangle(valid);
  if (r.area() == 0) {
    throw FormatError(basemap.path() + ": the basemap has no valid imagery to fly over");
  }
  const geo::MapGeoConverter& converter = basemap.converter();
  const geo::MapPoint centre = overview.map_from_pixel.mapFromPixel(r.x + r.width / 2.0,
                                                                    r.y + r.height / 2.0);
  UsableArea area;
  area.origin = converter.geoFromMap(centre, ground_alt_m);
  const geo::LocalEnuFrame frame(area.origin);
  // The map rectangle is a slightly rotated quad in ENU (grid convergence): keep the
  // axis-aligned rectangle inside it.
  auto enu = [&](double col, double row) {
    return converter.enuFromMap(frame, overview.map_from_pixel.mapFromPixel(col, row),
                                ground_alt_m);
  };
  const geo::EnuPoint tl = enu(r.x, r.y), tr = enu(r.x + r.width, r.y),
                      bl = enu(r.x, r.y + r.height), br = enu(r.x + r.width, r.y + r.height);
  area.rect.min_east_m = std::max(tl.east_m, bl.east_m);
  area.rect.max_east_m = std::min(tr.east_m, br.east_m);
  area.rect.min_north_m = std::max(bl.north_m, br.north_m);
  area.rect.max_north_m = std::min(tl.north_m, tr.north_m);
  return area;
}

FlightSimulationResult simulateFlight(const FlightSimulationOptions& options,
                                      const ProgressCallback& progress) {
  options.check();
  FlightSimulationResult result;
  std::error_code ec;
  std::filesystem::create_directories(options.out_dir, ec);
  if (ec) throw IoError(options.out_dir.string() + ": cannot create the output folder (" + ec.message() + ")");

  const geo::Basemap basemap = geo::Basemap::open(options.basemap_path);
  std::unique_ptr<SurfaceModel> dsm;
  double ground_alt_m = options.ground_alt_m;
  if (!options.dsm_path.empty()) {
    dsm = std::make_unique<SurfaceModel>(SurfaceModel::open(options.dsm_path));
    ground_alt_m = dsm->medianHeight_m();  // DSM heights taken as ellipsoidal metres
  }
  const nav::CameraModel camera =
      options.camera_path.empty()
          ? nav::CameraModel::fromHorizontalFov(options.width_px, options.height_px, options.hfov_deg)
          : nav::readCameraFile(options.camera_path);

  reportProgress(progress, 0.0, "planning");
  const UsableArea usable = findUsableArea(basemap, ground_alt_m);
  const geo::LocalEnuFrame enu_frame(usable.origin);

  // Altitude: native GSD if the map is large enough, else what keeps a footprint inside.
  const double pitch_for_margin = std::isnan(options.gimbal_pitch_deg)
                                      ? (options.trajectory == TrajectoryKind::Orbit ? -60.0 : -90.0)
                                      : options.gimbal_pitch_deg;
  const double k = footprintRadiusPerHeight(camera, pitch_for_margin);
  const double short_side = std::min(usable.rect.width_m(), usable.rect.height_m());
  double altitude = options.altitude_m;
  if (std::isnan(altitude)) {
    const double native = basemap.pixelSizeM() * camera.fx_px;
    altitude = std::clamp(std::min(std::max(native, 30.0), short_side / (4.0 * k)), 30.0, 300.0);
  }
  result.altitude_m = altitude;
  const double jitter_margin =
      altitude * std::tan(3.0 * options.attitude_jitter_deg * 3.14159265358979 / 180.0);
  const double margin = k * (altitude + 2 * options.altitude_variation_m) + jitter_margin;
  FlightPathOptions path;
  path.kind = options.trajectory;
  path.area = usable.rect;
  path.area.min_east_m += margin, path.area.max_east_m -= margin;
  path.area.min_north_m += margin, path.area.max_north_m -= margin;
  if (path.area.width_m() < 10 || path.area.height_m() < 10) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "the basemap's usable area (%.0f x %.0f m) is too small for a flight at %.0f m "
                  "(footprint radius %.0f m): the flight will show areas outside the map",
                  usable.rect.width_m(), usable.rect.height_m(), altitude, margin);
    result.warnings.push_back(text);
    SKYTRACE_LOG(Warning, kLog) << text;
    const double e = usable.rect.centerEast_m(), n = usable.rect.centerNorth_m();
    path.area = {e - 5, n - 5, e + 5, n + 5};
  }
  path.ground_up_m = 0.0;  // ENU origin is at ground level
  path.altitude_m = altitude;
  path.altitude_variation_m = options.altitude_variation_m;
  path.speed_mps = options.speed_mps;
  path.fps = options.fps;
  path.duration_s = options.duration_s;
  path.gimbal_pitch_deg = options.gimbal_pitch_deg;
  path.yaw_offset_deg = options.yaw_offset_deg;
  path.attitude_jitter_deg = options.attitude_jitter_deg;
  path.seed = options.seed;
  std::vector<nav::CameraPose> poses = generateFlightPath(path);
  if (options.duration_s <= 0 && poses.size() > options.max_auto_duration_s * options.fps) {
    poses.resize(size_t(options.max_auto_duration_s * options.fps));
  }

  // Ground truth.
  geo::Track truth;
  truth.name = "truth";
  truth.start_unix_s = options.start_unix_s;
  truth.alt_reference = "ellipsoid";
  for (size_t i = 0; i < poses.size(); ++i) {
    truth.poses.push_back(nav::trackPoseFromCameraPose(poses[i], enu_frame, std::int64_t(i)));
  }

  // Render.
  RenderOptions render_options;
  render_options.ground_up_m = 0.0;
  render_options.dsm_up_offset_m = -usable.origin.alt_m;
  render_options.effects = options.effects;
  render_options.effects.seed = options.seed;
  const FlightRenderer renderer(basemap, enu_frame, camera, render_options, dsm.get());
  result.video_path = options.out_dir / "flight.mp4";
  VideoWriterOptions video_options;
  video_options.fps = options.fps;
  VideoWriter writer(result.video_path, {camera.width_px, camera.height_px}, video_options);
  double invalid_sum = 0, worst_invalid = 0;
  int first_leaving = -1;
  for (size_t i = 0; i < poses.size(); ++i) {
    if (!reportProgress(progress, double(i) / poses.size(), "rendering")) throw Cancelled();
    const RenderedFrame frame =
        renderer.render(poses[i], std::int64_t(i), i > 0 ? &poses[i - 1] : nullptr, options.fps);
    writer.write(frame.bgr);
    invalid_sum += frame.invalid_fraction;
    worst_invalid = std::max(worst_invalid, frame.invalid_fraction);
    if (frame.invalid_fraction > 0.01) {
      ++result.frames_leaving_map;
      if (first_leaving < 0) first_leaving = int(i);
    }
  }
  writer.close();
  for (const auto& w : writer.warnings()) result.warnings.push_back(w);
  result.video_fourcc = writer.fourcc();
  result.frames = int(poses.size());
  result.fps = options.fps;
  result.mean_invalid_fraction = poses.empty() ? 0.0 : invalid_sum / poses.size();
  if (result.frames_leaving_map > 0) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "the flight leaves the basemap: %d of %d frames show areas without imagery "
                  "(black; worst %.0f%% of a frame, first at frame %d)",
                  result.frames_leaving_map, result.frames, 100.0 * worst_invalid, first_leaving);
    result.warnings.push_back(text);
    SKYTRACE_LOG(Warning, kLog) << text;
  }

  // Telemetry, truth, camera.
  reportProgress(progress, 1.0, "writing telemetry");
  GnssErrorModel gnss = options.gnss;
  gnss.seed = options.seed;
  const GnssSimulation simulated = simulateGnss(truth.poses, enu_frame, usable.origin.alt_m, gnss);
  result.srt_path = options.out_dir / "flight.srt";
  writeDjiSrt(result.srt_path, simulated.samples, options.fps, options.start_unix_s);
  result.truth_path = options.out_dir / "truth.csv";
  writeTruthCsv(result.truth_path, truth);
  result.camera_path = options.out_dir / "camera.json";
  nav::writeCameraFile(result.camera_path, camera);

  nlohmann::ordered_json gnss_json;
  gnss_json["description"] =
      "GNSS errors applied to flight.srt, per frame: error = reported - truth in the ENU frame "
      "of flight.json (metres); has_fix=false frames are written with latitude/longitude 0";
  gnss_json["noise_sigma_m"] = gnss.noise_sigma_m;
  gnss_json["baro_noise_sigma_m"] = gnss.baro_noise_sigma_m;
  gnss_json["bias_m"] = gnss.bias_m;
  gnss_json["bias_bearing_deg"] = simulated.bias_bearing_deg;
  gnss_json["dropout_rate"] = gnss.dropout_rate;
  nlohmann::ordered_json dropouts = nlohmann::ordered_json::array(),
                         spoofed = nlohmann::ordered_json::array(),
                         errors = nlohmann::ordered_json::array();
  for (const auto& s : simulated.samples) {
    if (!s.has_fix) dropouts.push_back(s.frame);
    if (s.spoofed) spoofed.push_back(s.frame);
    errors.push_back({s.frame, s.error_east_m, s.error_north_m, s.error_up_m, s.error_rel_alt_m});
  }
  gnss_json["dropout_frames"] = dropouts;
  if (gnss.hasSpoofing()) {
    gnss_json["spoof"] = {{"start_s", gnss.spoof_start_s},
                          {"duration_s", gnss.spoof_duration_s},
                          {"offset_m", gnss.spoof_offset_m},
                          {"bearing_deg", simulated.spoof_bearing_deg},
                          {"ramp_s", std::min(5.0, 0.25 * gnss.spoof_duration_s)},
                          {"frames", spoofed}};
  } else {
    gnss_json["spoof"] = nullptr;
  }
  gnss_json["errors_columns"] = {"frame", "east_m", "north_m", "up_m", "rel_alt_m"};
  gnss_json["errors"] = errors;
  writeFileAtomically(options.out_dir / "gnss_truth.json", gnss_json.dump(1) + "\n");

  // Degraded basemap over the flown area (+ one footprint of margin).
  nlohmann::ordered_json degraded_json = nullptr;
  if (options.degrade) {
    reportProgress(progress, 1.0, "degrading basemap");
    MapDegradation degradation = options.degradation;
    degradation.seed = options.seed;
    const geo::MapGeoConverter& converter = basemap.converter();
    std::vector<geo::MapPoint> corners_in_map;
    const EnuRect& a = usable.rect;
    for (double e : {a.min_east_m, a.max_east_m}) {
      for (double n : {a.min_north_m, a.max_north_m}) {
        corners_in_map.push_back(converter.mapFromEnu(enu_frame, {e, n, 0.0}));
      }
    }
    geo::MapRect rect = geo::envelopeOf(corners_in_map);
    const geo::MapRect bounds = basemap.mapBounds();
    const double pad_x = 0.1 * rect.width(), pad_y = 0.1 * rect.height();
    rect = {std::max(bounds.min_x, rect.min_x - pad_x), std::max(bounds.min_y, rect.min_y - pad_y),
            std::min(bounds.max_x, rect.max_x + pad_x), std::min(bounds.max_y, rect.max_y + pad_y)};
    result.degraded_basemap_path = options.out_dir / "basemap_degraded.tif";
    const DegradedBasemapInfo info =
        degradeBasemap(basemap, rect, result.degraded_basemap_path.string(), degradation);
    degraded_json = {{"path", result.degraded_basemap_path.filename().string()},
                     {"gsd_m", info.gsd_m},
                     {"gsd_factor", degradation.gsd_factor},
                     {"blur_sigma_px", degradation.blur_sigma_px},
                     {"season_shift", degradation.season_shift},
                     {"brightness_gain", degradation.brightness_gain},
                     {"colour_shift", degradation.colour_shift},
                     {"georeference_offset_east_m", info.offset_east_m},
                     {"georeference_offset_north_m", info.offset_north_m},
                     {"occluded_fraction", info.occluded_fraction}};
  }

  // Manifest.
  nlohmann::ordered_json m;
  m["generator"] = "skytrace render";
  m["seed"] = options.seed;
  m["basemap"] = {{"path", std::filesystem::absolute(options.basemap_path).string()},
                  {"crs", basemap.crsName()},
                  {"gsd_m", basemap.pixelSizeM()}};
  m["dsm"] = options.dsm_path.empty() ? nlohmann::ordered_json(nullptr)
                                      : nlohmann::ordered_json(options.dsm_path);
  m["enu_origin"] = {{"lat_deg", usable.origin.lat_deg},
                     {"lon_deg", usable.origin.lon_deg},
                     {"alt_m", usable.origin.alt_m}};
  m["usable_area_enu"] = rectJson(usable.rect);
  m["flight_area_enu"] = rectJson(path.area);
  m["trajectory"] = {{"kind", trajectoryKindName(options.trajectory)},
                     {"altitude_agl_m", altitude},
                     {"altitude_variation_m", options.altitude_variation_m},
                     {"speed_mps", options.speed_mps},
                     {"gimbal_pitch_deg", std::isnan(options.gimbal_pitch_deg)
                                              ? nlohmann::ordered_json("auto")
                                              : nlohmann::ordered_json(options.gimbal_pitch_deg)},
                     {"yaw_offset_deg", options.yaw_offset_deg},
                     {"attitude_jitter_deg", options.attitude_jitter_deg}};
  m["video"] = {{"path", "flight.mp4"},
                {"frames", result.frames},
                {"fps", options.fps},
                {"width_px", camera.width_px},
                {"height_px", camera.height_px},
                {"fourcc", result.video_fourcc},
                {"start_utc_unix_s", options.start_unix_s}};
  const ImageEffects& fx = options.effects;
  m["image_effects"] = {{"exposure_variation", fx.exposure_variation},
                        {"colour_variation", fx.colour_variation},
                        {"noise_sigma", fx.noise_sigma},
                        {"shutter_s", fx.shutter_s},
                        {"jpeg_quality", fx.jpeg_quality}};
  m["files"] = {{"truth", "truth.csv"},
                {"telemetry", "flight.srt"},
                {"camera", "camera.json"},
                {"gnss_truth", "gnss_truth.json"}};
  m["degraded_basemap"] = degraded_json;
  m["mean_invalid_fraction"] = result.mean_invalid_fraction;
  m["frames_leaving_map"] = result.frames_leaving_map;
  m["warnings"] = result.warnings;
  result.manifest_path = options.out_dir / "flight.json";
  writeFileAtomically(result.manifest_path, m.dump(2) + "\n");
  return result;
}

}  // namespace skytrace::sim
