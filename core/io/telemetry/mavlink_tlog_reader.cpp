#include "core/io/telemetry/mavlink_tlog_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>

#include "core/io/telemetry/parse_support.h"
#include "core/util/error.h"

namespace skytrace::io {

namespace {

constexpr unsigned char kMagicV1 = 0xFE;
constexpr unsigned char kMagicV2 = 0xFD;
constexpr std::size_t kStampBytes = 8;
constexpr std::size_t kHeaderV1 = 6;   // magic, len, seq, sysid, compid, msgid
constexpr std::size_t kHeaderV2 = 10;  // magic, len, incompat, compat, seq, sysid, compid, msgid[3]
constexpr std::size_t kChecksumBytes = 2;
constexpr std::size_t kSignatureBytes = 13;
constexpr unsigned kIncompatSigned = 0x01;
// A timestamp further than this from the last good one marks bytes that start no record
// (what QGroundControl's and MAVProxy's readers also assume).
constexpr double kMaxStampJumpS = 3.0 * 24 * 3600;
constexpr double kEarliestStampS = 788918400.0;   // 1995-01-01
constexpr double kLatestStampS = 4102444800.0;    // 2100-01-01

// Messages read, by id. Lengths: the payload without extensions (all a v1 frame can
// carry) and with them.
enum MessageId : std::uint32_t {
  kGpsRawInt = 24,
  kAttitude = 30,
  kGlobalPositionInt = 33,
  kCameraTrigger = 112,
  kCameraFeedback = 180,
  kCameraImageCaptured = 263,
};
struct MessageInfo {
  std::uint32_t id;
  const char* name;
  unsigned char crc_extra;
  std::size_t base_length;
  std::size_t full_length;
};
constexpr MessageInfo kMessages[] = {
    {kGpsRawInt, "GPS_RAW_INT", 24, 30, 52},
    {kAttitude, "ATTITUDE", 39, 28, 28},
    {kGlobalPositionInt, "GLOBAL_POSITION_INT", 104, 28, 28},
    {kCameraTrigger, "CAMERA_TRIGGER", 174, 12, 12},
    {kCameraFeedback, "CAMERA_FEEDBACK", 52, 45, 47},
    {kCameraImageCaptured, "CAMERA_IMAGE_CAPTURED", 133, 255, 255},
};

const MessageInfo* messageInfo(std::uint32_t id) {
  for (const MessageInfo& m : kMessages)
    if (m.id == id) return &m;
  return nullptr;
}

// CRC-16/MCRF4XX (MAVLink's "X.25" checksum).
std::uint16_t crcAccumulate(std::uint16_t crc, unsigned char byte) {
  unsigned char tmp = byte ^ static_cast<unsigned char>(crc & 0xff);
  tmp ^= static_cast<unsigned char>(tmp << 4);
  return static_cast<std::uint16_t>((crc >> 8) ^ (tmp << 8) ^ (tmp << 3) ^ (tmp >> 4));
}

std::uint64_t stampMicroseconds(const unsigned char* p) {
  std::uint64_t us = 0;
  for (int i = 0; i < 8; ++i) us = (us << 8) | p[i];
  return us;
}
double stampSeconds(const unsigned char* p) { return static_cast<double>(stampMicroseconds(p)) * 1e-6; }

// One frame found at a record's offset.
struct Frame {
  std::size_t size = 0;  // bytes of the frame (magic .. checksum / signature)
  std::uint32_t id = 0;
  unsigned sysid = 0;
  const unsigned char* payload = nullptr;
  std::size_t payload_length = 0;
  bool verified = false;  // a message read here whose checksum matched
};

enum class FrameCheck { kOk, kTruncated, kBad };

// Reads the frame at `p` (`available` bytes left). kBad: not a frame (wrong magic, a
// message read here with a wrong checksum or length).
FrameCheck readFrame(const unsigned char* p, std::size_t available, Frame& frame) {
  if (available < 2) return FrameCheck::kTruncated;
  const bool v2 = p[0] == kMagicV2;
  if (!v2 && p[0] != kMagicV1) return FrameCheck::kBad;
  const std::size_t length = p[1];
  const std::size_t header = v2 ? kHeaderV2 : kHeaderV1;
  if (available < header) return FrameCheck::kTruncated;
  const bool is_signed = v2 && (p[2] & kIncompatSigned);
  if (v2 && (p[2] & ~kIncompatSigned)) return FrameCheck::kBad;  // flags this reader cannot follow
  frame.size = header + length + kChecksumBytes + (is_signed ? kSignatureBytes : 0);
  if (available < frame.size) return FrameCheck::kTruncated;
  frame.sysid = v2 ? p[5] : p[3];
  frame.id = v2 ? (std::uint32_t(p[7]) | std::uint32_t(p[8]) << 8 | std::uint32_t(p[9]) << 16) : p[5];
  frame.payload = p + header;
  frame.payload_length = length;
  frame.verified = false;
  const MessageInfo* info = messageInfo(frame.id);
  if (!info) return FrameCheck::kOk;
  // v1 carries exactly the base payload; v2 may cut trailing zeros (or carry extensions).
  if (v2 ? length > info->full_length : (length < info->base_length || length > info->full_length))
    return FrameCheck::kBad;
  std::uint16_t crc = 0xffff;
  for (std::size_t i = 1; i < header + length; ++i) crc = crcAccumulate(crc, p[i]);
  crc = crcAccumulate(crc, info->crc_extra);
  if (crc != detail::loadLittleEndian<std::uint16_t>(p + header + length)) return FrameCheck::kBad;
  frame.verified = true;
  return FrameCheck::kOk;
}

struct PositionRecord {
  double t_s, lat, lon, alt, rel_alt, speed_h, speed_v;
};
struct AttitudeRecord {
  double roll, pitch, yaw;  // degrees
};

// What one system sent, in log order.
struct SystemRecords {
  std::vector<PositionRecord> gps;     // GPS_RAW_INT with a 3D fix
  std::size_t gps_without_fix = 0;
  std::vector<PositionRecord> global;  // GLOBAL_POSITION_INT
  std::vector<double> global_t;
  std::vector<double> attitude_t;
  std::vector<AttitudeRecord> attitude;
  std::vector<CameraTrigger> feedback, captured, triggers;

  std::size_t positions() const { return gps.size() + gps_without_fix + global.size(); }
};

void readMessage(const Frame& frame, double t, double unix_s, SystemRecords& rec) {
  // Zero-fill what v2 cut (bytes past the payload read as 0, as the specification says).
  unsigned char payload[255] = {};
  std::memcpy(payload, frame.payload, frame.payload_length);
  constexpr double kDeg = 180.0 / M_PI;
  switch (frame.id) {
    case kGpsRawInt: {
      const double lat = detail::loadLittleEndian<std::int32_t>(payload + 8) * 1e-7, lon = detail::loadLittleEndian<std::int32_t>(payload + 12) * 1e-7;
      if (payload[28] < 3 || (lat == 0.0 && lon == 0.0)) {
        ++rec.gps_without_fix;
        return;
      }
      const std::uint16_t vel = detail::loadLittleEndian<std::uint16_t>(payload + 24);
      rec.gps.push_back({t, lat, lon, detail::loadLittleEndian<std::int32_t>(payload + 16) * 1e-3, kNoValue,
                         vel == 0xffff ? kNoValue : vel * 0.01, kNoValue});
      return;
    }
    case kGlobalPositionInt: {
      const double vx = detail::loadLittleEndian<std::int16_t>(payload + 20) * 0.01, vy = detail::loadLittleEndian<std::int16_t>(payload + 22) * 0.01;
      rec.global_t.push_back(t);
      rec.global.push_back({t, detail::loadLittleEndian<std::int32_t>(payload + 4) * 1e-7, detail::loadLittleEndian<std::int32_t>(payload + 8) * 1e-7,
                            detail::loadLittleEndian<std::int32_t>(payload + 12) * 1e-3, detail::loadLittleEndian<std::int32_t>(payload + 16) * 1e-3,
                            std::hypot(vx, vy), -detail::loadLittleEndian<std::int16_t>(payload + 24) * 0.01});
      return;
    }
    case kAttitude:
      rec.attitude_t.push_back(t);
      rec.attitude.push_back({detail::loadLittleEndian<float>(payload + 4) * kDeg, detail::loadLittleEndian<float>(payload + 8) * kDeg,
                              wrapDegrees180(detail::loadLittleEndian<float>(payload + 12) * kDeg)});
      return;
    case kCameraFeedback: {
      CameraTrigger c;
      c.log_t_s = t;
      c.unix_s = unix_s;
      c.image_index = detail::loadLittleEndian<std::uint16_t>(payload + 40);
      c.lat_deg = detail::loadLittleEndian<std::int32_t>(payload + 8) * 1e-7;
      c.lon_deg = detail::loadLittleEndian<std::int32_t>(payload + 12) * 1e-7;
      c.alt_abs_m = detail::loadLittleEndian<float>(payload + 16);
      c.alt_rel_m = detail::loadLittleEndian<float>(payload + 20);
      rec.feedback.push_back(c);
      return;
    }
    case kCameraImageCaptured: {
      if (static_cast<std::int8_t>(payload[49]) == 0) return;  // capture failed
      CameraTrigger c;
      c.log_t_s = t;
      const std::uint64_t utc_us = detail::loadLittleEndian<std::uint64_t>(payload);
      c.unix_s = utc_us > 0 ? utc_us * 1e-6 : unix_s;
      c.image_index = detail::loadLittleEndian<std::int32_t>(payload + 44);
      c.lat_deg = detail::loadLittleEndian<std::int32_t>(payload + 12) * 1e-7;
      c.lon_deg = detail::loadLittleEndian<std::int32_t>(payload + 16) * 1e-7;
      c.alt_abs_m = detail::loadLittleEndian<std::int32_t>(payload + 20) * 1e-3;
      c.alt_rel_m = detail::loadLittleEndian<std::int32_t>(payload + 24) * 1e-3;
      rec.captured.push_back(c);
      return;
    }
    case kCameraTrigger: {
      CameraTrigger c;
      c.log_t_s = t;
      c.unix_s = unix_s;
      c.image_index = detail::loadLittleEndian<std::uint32_t>(payload + 8);
      rec.triggers.push_back(c);
      return;
    }
    default:
      return;
  }
}

bool plausibleFirstStamp(double t) { return t >= kEarliestStampS && t <= kLatestStampS; }

}  // namespace

bool isMavlinkTlog(std::string_view bytes) {
  if (bytes.size() < kStampBytes + 1) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  return plausibleFirstStamp(stampSeconds(p)) && (p[kStampBytes] == kMagicV1 || p[kStampBytes] == kMagicV2);
}

TelemetrySeries parseMavlinkTlog(std::string_view bytes, const std::string& source_name,
                                 const TelemetryReadOptions& options) {
  options.checkInput(bytes.size(), source_name);
  TelemetrySeries series;
  series.format = "mavlink-tlog";
  series.source_path = source_name;
  series.abs_alt_reference = "msl";
  detail::WarningSink warnings(series.warnings);

  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t size = bytes.size();
  std::map<unsigned, SystemRecords> systems;
  std::map<std::uint32_t, std::size_t> counts;  // frames per message id
  double first_stamp = kNoValue, last_stamp = kNoValue;
  std::uint64_t first_us = 0;  // times since the first record are taken in whole microseconds
  std::size_t frames = 0, skipped = 0, skip_start = 0;
  std::size_t pos = 0, next_progress = 0;
  bool truncated = false;
  while (pos + kStampBytes < size) {
    if (pos >= next_progress) {
      if (!reportProgress(options.progress, double(pos) / double(size), "tlog")) throw Cancelled();
      next_progress = pos + (1u << 20);
    }
    const double stamp = stampSeconds(data + pos);
    const bool plausible = std::isfinite(last_stamp) ? std::fabs(stamp - last_stamp) <= kMaxStampJumpS
                                                     : plausibleFirstStamp(stamp);
    Frame frame;
    const FrameCheck check =
        plausible ? readFrame(data + pos + kStampBytes, size - pos - kStampBytes, frame) : FrameCheck::kBad;
    if (check == FrameCheck::kTruncated) {
      truncated = true;
      break;
    }
    if (check == FrameCheck::kBad) {
      if (skipped++ == 0) skip_start = pos;
      ++pos;
      continue;
    }
    if (skipped) {
      warnings.atOffset(skip_start, std::to_string(skipped) + " bytes that start no record skipped");
      skipped = 0;
    }
    const std::uint64_t us = stampMicroseconds(data + pos);
    if (!std::isfinite(first_stamp)) first_stamp = stamp, first_us = us;
    last_stamp = stamp;
    ++frames;
    ++counts[frame.id];
    if (messageInfo(frame.id)) {
      // Signed: a ground station clock stepped back before the first record gives < 0.
      const double t = us >= first_us ? double(us - first_us) * 1e-6 : -double(first_us - us) * 1e-6;
      readMessage(frame, t, stamp, systems[frame.sysid]);
    }
    pos += kStampBytes + frame.size;
  }
  if (skipped) warnings.atOffset(skip_start, std::to_string(skipped) + " bytes that start no record skipped");
  if (truncated || (pos < size && frames > 0 && skipped == 0)) {
    warnings.atOffset(pos, "the log ends inside a record (" + std::to_string(size - pos) +
                               " bytes): the file is truncated; that record is ignored");
  }
  if (frames == 0)
    throw FormatError(source_name + ": not a MAVLink telemetry log (no timestamped MAVLink frame found)");
  reportProgress(options.progress, 1.0, "tlog");

  series.start_unix_s = first_stamp;
  series.metadata["frames"] = std::to_string(frames) + " of " + std::to_string(counts.size()) + " message types";
  for (const MessageInfo& m : kMessages)
    if (counts.count(m.id)) series.metadata[std::string("messages.") + m.name] = std::to_string(counts[m.id]);

  // The vehicle: the system that sent the most positions (then the most attitudes).
  unsigned vehicle = 0;
  std::size_t best = 0;
  bool found = false;
  for (const auto& [sysid, rec] : systems) {
    const std::size_t score = rec.positions() * 1000000 + rec.attitude.size();
    if (!found || score > best) vehicle = sysid, best = score, found = true;
  }
  std::string others;
  for (const auto& [sysid, rec] : systems)
    if (sysid != vehicle && rec.positions() > 0) others += (others.empty() ? "" : ", ") + std::to_string(sysid);
  if (!others.empty())
    warnings.atOffset(0, "positions of system(s) " + others + " ignored; the track is system " +
                             std::to_string(vehicle) + "'s");
  series.metadata["system"] = std::to_string(vehicle);
  SystemRecords empty;
  SystemRecords& rec = found ? systems[vehicle] : empty;

  auto addAttitude = [&](TelemetrySample& s) {
    const long i = detail::nearestIndex(rec.attitude_t, s.log_t_s, 0.5);
    if (i < 0) return;
    s.roll_deg = rec.attitude[i].roll;
    s.pitch_deg = rec.attitude[i].pitch;
    s.yaw_deg = rec.attitude[i].yaw;
  };
  auto sampleOf = [&](const PositionRecord& p) {
    TelemetrySample s;
    s.log_t_s = p.t_s;
    s.unix_s = first_stamp + p.t_s;
    s.lat_deg = p.lat;
    s.lon_deg = p.lon;
    s.alt_abs_m = p.alt;
    s.alt_rel_m = p.rel_alt;
    s.speed_h_mps = p.speed_h;
    s.speed_v_mps = p.speed_v;
    addAttitude(s);
    return s;
  };
  if (!rec.gps.empty()) {
    series.variant = "GPS_RAW_INT";
    for (const PositionRecord& p : rec.gps) {
      TelemetrySample s = sampleOf(p);
      const long i = detail::nearestIndex(rec.global_t, s.log_t_s, 0.5);
      if (i >= 0) s.alt_rel_m = rec.global[i].rel_alt, s.speed_v_mps = rec.global[i].speed_v;
      series.samples.push_back(s);
    }
    if (rec.gps_without_fix)
      warnings.atOffset(0, std::to_string(rec.gps_without_fix) + " GPS_RAW_INT messages without a 3D fix skipped");
  } else if (!rec.global.empty()) {
    series.variant = "GLOBAL_POSITION_INT";
    warnings.atOffset(0, "no GPS_RAW_INT with a 3D fix; positions are the autopilot's estimate "
                         "(GLOBAL_POSITION_INT)");
    for (const PositionRecord& p : rec.global)
      if (p.lat != 0.0 || p.lon != 0.0) series.samples.push_back(sampleOf(p));
  } else if (!rec.attitude.empty()) {
    series.variant = "attitude-only";
    warnings.atOffset(0, "no GPS_RAW_INT or GLOBAL_POSITION_INT messages; the series holds attitude only");
    for (double t : rec.attitude_t) {
      TelemetrySample s;
      s.log_t_s = t;
      s.unix_s = first_stamp + t;
      addAttitude(s);
      series.samples.push_back(s);
    }
  } else {
    warnings.atOffset(0, "no GPS_RAW_INT, GLOBAL_POSITION_INT or ATTITUDE messages in the log");
  }
  // The ground station's clock can step; the series is ordered by it.
  std::stable_sort(series.samples.begin(), series.samples.end(),
                   [](const TelemetrySample& a, const TelemetrySample& b) { return a.log_t_s < b.log_t_s; });
  series.camera_triggers = !rec.feedback.empty()   ? std::move(rec.feedback)
                           : !rec.captured.empty() ? std::move(rec.captured)
                                                   : std::move(rec.triggers);
  for (CameraTrigger& c : series.camera_triggers)
    if (c.lat_deg == 0.0 && c.lon_deg == 0.0) c.lat_deg = c.lon_deg = kNoValue;
  std::stable_sort(series.camera_triggers.begin(), series.camera_triggers.end(),
                   [](const CameraTrigger& a, const CameraTrigger& b) { return a.log_t_s < b.log_t_s; });
  warnings.finish();
  return series;
}

}  // namespace skytrace::io
