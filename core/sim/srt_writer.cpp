#include "core/sim/srt_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <random>
#include <string>

#include "core/util/atomic_file.h"
#include "core/util/check.h"

namespace skytrace::sim {
namespace {

constexpr double kPi = 3.14159265358979323846;

std::string srtTimestamp(double t_s) {
  const long long ms = std::llround(t_s * 1000.0);
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%02lld:%02lld:%02lld,%03lld", ms / 3600000,
                (ms / 60000) % 60, (ms / 1000) % 60, ms % 1000);
  return buffer;
}

std::string wallClock(double unix_s) {
  const double whole = std::floor(unix_s);
  const std::time_t seconds = std::time_t(whole);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02d %02d:%02d:%02d.%03d", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                std::min(999, int(std::lround((unix_s - whole) * 1000.0))));
  return buffer;
}

}  // namespace

void GnssErrorModel::check() const {
  checkArgument(noise_sigma_m >= 0 && noise_sigma_m <= 100, "GNSS noise must be within 0..100 m");
  checkArgument(baro_noise_sigma_m >= 0 && baro_noise_sigma_m <= 100,
                "barometric height noise must be within 0..100 m");
  checkArgument(bias_m >= 0 && bias_m <= 1000, "GNSS bias must be within 0..1000 m");
  checkArgument(dropout_rate >= 0 && dropout_rate <= 0.9, "GNSS dropout rate must be within 0..0.9");
  if (hasSpoofing()) {
    checkArgument(spoof_start_s >= 0, "spoof start must be >= 0 s");
    checkArgument(spoof_offset_m > 0 && spoof_offset_m <= 10000,
                  "spoof offset must be within (0, 10000] m");
  }
}

GnssSimulation simulateGnss(const std::vector<geo::TrackPose>& truth,
                            const geo::LocalEnuFrame& enu_frame, double takeoff_alt_m,
                            const GnssErrorModel& model) {
  model.check();
  GnssSimulation simulation;
  std::mt19937_64 rng(model.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  simulation.bias_bearing_deg = 360.0 * uniform(rng);
  simulation.spoof_bearing_deg = 360.0 * uniform(rng);
  const double bias_rad = simulation.bias_bearing_deg * kPi / 180.0;
  const double spoof_rad = simulation.spoof_bearing_deg * kPi / 180.0;
  const double ramp_s = std::min(5.0, 0.25 * model.spoof_duration_s);

  double noise_e = model.noise_sigma_m * normal(rng), noise_n = model.noise_sigma_m * normal(rng),
         noise_u = 1.5 * model.noise_sigma_m * normal(rng);
  // The barometer's own generator and distribution (normal_distribution keeps a spare
  // draw): its draws leave every other error as it was.
  std::mt19937_64 baro_rng(model.seed ^ 0x9e3779b97f4a7c15ULL);
  std::normal_distribution<double> baro_normal(0.0, 1.0);
  double noise_baro = model.baro_noise_sigma_m * baro_normal(baro_rng);
  bool in_dropout = false;
  constexpr double kMeanDropoutS = 0.5;
  double previous_t = truth.empty() ? 0.0 : truth.front().t_s;
  for (const auto& pose : truth) {
    const double dt = std::max(0.0, pose.t_s - previous_t);
    previous_t = pose.t_s;
    // Gauss-Markov noise, time constant 5 s, stationary sigma.
    const double a = std::exp(-dt / 5.0), b = std::sqrt(1.0 - a * a);
    noise_e = a * noise_e + b * model.noise_sigma_m * normal(rng);
    noise_n = a * noise_n + b * model.noise_sigma_m * normal(rng);
    noise_u = a * noise_u + b * 1.5 * model.noise_sigma_m * normal(rng);
    // The barometer wanders slowly: time constant 30 s.
    const double a_baro = std::exp(-dt / 30.0), b_baro = std::sqrt(1.0 - a_baro * a_baro);
    noise_baro = a_baro * noise_baro + b_baro * model.baro_noise_sigma_m * baro_normal(baro_rng);
    // Two-state dropout chain whose stationary share of dropped frames is dropout_rate.
    const double end_probability = std::min(1.0, dt / kMeanDropoutS);
    const double start_probability =
        model.dropout_rate > 0 ? end_probability * model.dropout_rate / (1.0 - model.dropout_rate)
                               : 0.0;
    const double draw = uniform(rng);
    in_dropout = in_dropout ? draw >= end_probability : draw < start_probability;

    GnssSample s;
    s.frame = pose.frame;
    s.t_s = pose.t_s;
    s.yaw_deg = pose.yaw_deg;
    s.pitch_deg = pose.pitch_deg;
    s.roll_deg = pose.roll_deg;
    double de = model.bias_m * std::sin(bias_rad) + noise_e;
    double dn = model.bias_m * std::cos(bias_rad) + noise_n;
    if (model.hasSpoofing() && pose.t_s >= model.spoof_start_s &&
        pose.t_s < model.spoof_start_s + model.spoof_duration_s) {
      s.spoofed = true;
      const double ramp = ramp_s > 0 ? std::min(1.0, (pose.t_s - model.spoof_start_s) / ramp_s) : 1.0;
      de += ramp * model.spoof_offset_m * std::sin(spoof_rad);
      dn += ramp * model.spoof_offset_m * std::cos(spoof_rad);
    }
    s.error_east_m = de;
    s.error_north_m = dn;
    s.error_up_m = noise_u;
    const geo::EnuPoint p = enu_frame.toEnu({pose.lat_deg, pose.lon_deg, pose.alt_m});
    const geo::GeoPoint g = enu_frame.toGeo({p.east_m + de, p.north_m + dn, p.up_m + noise_u});
    s.lat_deg = g.lat_deg;
    s.lon_deg = g.lon_deg;
    s.abs_alt_m = g.alt_m;
    s.rel_alt_m = pose.alt_m + noise_baro - takeoff_alt_m;
    s.error_rel_alt_m = noise_baro;
    s.has_fix = !in_dropout;
    simulation.samples.push_back(s);
  }
  return simulation;
}

void writeDjiSrt(const std::filesystem::path& path, const std::vector<GnssSample>& samples,
                 double fps, double start_unix_s) {
  checkArgument(fps > 0, "SRT fps must be > 0");
  std::string out;
  out.reserve(samples.size() * 330);
  const int diff_ms = int(std::lround(1000.0 / fps));
  char line[512];
  for (size_t i = 0; i < samples.size(); ++i) {
    const GnssSample& s = samples[i];
    const long long counter = s.frame + 1;
    out += std::to_string(counter) + "\n" + srtTimestamp(s.t_s) + " --> " +
           srtTimestamp(s.t_s + 1.0 / fps) + "\n";
    std::snprintf(line, sizeof line, "<font size=\"28\">FrameCnt: %lld, DiffTime: %dms\n",
                  counter, diff_ms);
    out += line;
    out += wallClock(start_unix_s + s.t_s) + "\n";
    std::snprintf(line, sizeof line,
                  "[iso: 100] [shutter: 1/1000.0] [fnum: 2.8] [ev: 0] [color_md: default] "
                  "[focal_len: 24.00] [latitude: %.6f] [longitude: %.6f] "
                  "[rel_alt: %.3f abs_alt: %.3f] [gb_yaw: %.1f gb_pitch: %.1f gb_roll: %.1f] "
                  "</font>\n\n",
                  s.has_fix ? s.lat_deg : 0.0, s.has_fix ? s.lon_deg : 0.0, s.rel_alt_m,
                  s.abs_alt_m, s.yaw_deg, s.pitch_deg, s.roll_deg);
    out += line;
  }
  writeFileAtomically(path, out);
}

}  // namespace skytrace::sim
