// PX4 ULog reader: the shared logs against topic counts from sample_info.txt (written by
// the log's publisher with pyulog) and from an independent script that walks the
// specification's message layout (docs/telemetry.md); synthetic logs built here byte by
// byte per the specification for nested formats, multi-instance topics, appended data,
// trailing padding, every message type, corruption and truncation at every byte.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "core/io/telemetry/telemetry_reader.h"
#include "core/io/telemetry/telemetry_track.h"
#include "core/io/telemetry/ulog_reader.h"
#include "core/io/telemetry/ulog_telemetry.h"
#include "core/util/error.h"
#include "tests/test_support.h"

using namespace skytrace;
using namespace skytrace::io;

namespace {

std::string ulogPath(const char* file) {
  return test::sharedPath(QStringLiteral("data/flight_logs/px4_ulog/") + file).toStdString();
}

// Subscriptions that received data (pyulog and the spec walk list only those).
std::size_t topicsWithData(const ULogFile& f) {
  std::size_t n = 0;
  for (const ULogTopic& t : f.topics) n += t.count() > 0;
  return n;
}

std::size_t topicCount(const ULogFile& f, const char* name, int multi = 0) {
  const ULogTopic* t = f.topic(name, multi);
  return t ? t->count() : 0;
}

// --- A ULog writer for tests, straight from the specification's layout. -------------
class ULogBuilder {
 public:
  ULogBuilder() {
    bytes_.append("ULog\x01\x12\x35", 7);
    bytes_.push_back(1);  // version
    put<std::uint64_t>(1000000);
  }
  template <typename T>
  void put(T v) { bytes_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  static std::string le(const void* p, std::size_t n) { return std::string(static_cast<const char*>(p), n); }
  template <typename T>
  static std::string v(T x) { return le(&x, sizeof x); }

  void message(char type, const std::string& body) {
    put<std::uint16_t>(static_cast<std::uint16_t>(body.size()));
    bytes_.push_back(type);
    bytes_ += body;
  }
  void flags(std::uint8_t incompat0, std::uint64_t appended0) {
    std::string body(16, '\0');
    body[8] = static_cast<char>(incompat0);
    body += v<std::uint64_t>(appended0) + v<std::uint64_t>(0) + v<std::uint64_t>(0);
    message('B', body);
  }
  void info(const std::string& key, const std::string& value) {
    message('I', std::string(1, char(key.size())) + key + value);
  }
  void subscribe(std::uint8_t multi, std::uint16_t id, const std::string& name) {
    message('A', std::string(1, char(multi)) + v(id) + name);
  }
  void data(std::uint16_t id, const std::string& payload) { message('D', v(id) + payload); }
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
};

// gps: timestamp, lat/lon int32 1e-7 deg, alt int32 mm, fix_type, then 3 padding bytes
// (left out of the data); att: timestamp, q[4]; pair: nested type with an array.
std::string syntheticLog(bool with_appended, std::size_t* cut_offset = nullptr) {
  ULogBuilder b;
  b.flags(with_appended ? 1 : 0, 0);
  b.message('F', "vec2:float x;float y;");
  b.message('F', "gps:uint64_t timestamp;int32_t lat;int32_t lon;int32_t alt;uint64_t time_utc_usec;"
                 "uint8_t fix_type;uint8_t[3] _padding0;");
  b.message('F', "vehicle_gps_position:uint64_t timestamp;int32_t lat;int32_t lon;int32_t alt;"
                 "uint64_t time_utc_usec;uint8_t fix_type;uint8_t[3] _padding0;");
  b.message('F', "vehicle_attitude:uint64_t timestamp;float[4] q;");
  b.message('F', "pair:uint64_t timestamp;vec2[2] points;int16_t tag;");
  b.info("char[3] sys_name", "PX4");
  b.info("uint32_t ver_sw_release", ULogBuilder::v<std::uint32_t>(0x01020300));
  b.message('M', std::string(1, '\0') + char(14) + "char[3] perf_a" + "abc");
  b.message('M', std::string(1, '\1') + char(14) + "char[3] perf_a" + "def");
  b.message('P', std::string(1, char(14)) + "float MIS_TAKE" + ULogBuilder::v<float>(2.5f));
  b.message('Q', std::string(1, '\1') + char(15) + "int32_t SYS_ABC" + ULogBuilder::v<std::int32_t>(7));
  b.subscribe(0, 1, "vehicle_gps_position");
  b.subscribe(0, 2, "vehicle_attitude");
  b.subscribe(0, 3, "pair");
  b.subscribe(1, 4, "pair");  // second instance of a multi-instance topic
  const double yaw = 30.0 * M_PI / 180.0;
  for (int i = 0; i < 5; ++i) {
    const std::uint64_t t = 2000000 + std::uint64_t(i) * 200000;  // 2.0 s .. 2.8 s
    std::string gps = ULogBuilder::v(t) + ULogBuilder::v<std::int32_t>(473977420 + i * 10) +
                      ULogBuilder::v<std::int32_t>(85455940 - i * 10) + ULogBuilder::v<std::int32_t>(488000 + i) +
                      ULogBuilder::v<std::uint64_t>(1651221935000000ull + t) + std::string(1, char(3));
    b.data(1, gps);  // 29 bytes: the 3 padding bytes are left out, as PX4 does
    const float q[4] = {float(std::cos(yaw / 2)), 0.f, 0.f, float(std::sin(yaw / 2))};
    b.data(2, ULogBuilder::v(t) + ULogBuilder::le(q, sizeof q));
    const float pts[4] = {1.f * i, 2.f, 3.f, 4.f * i};
    b.data(3, ULogBuilder::v(t) + ULogBuilder::le(pts, sizeof pts) + ULogBuilder::v<std::int16_t>(-5));
    if (i < 2) b.data(4, ULogBuilder::v(t) + ULogBuilder::le(pts, sizeof pts) + ULogBuilder::v<std::int16_t>(9));
  }
  b.message('L', std::string(1, '6') + ULogBuilder::v<std::uint64_t>(2100000) + "Takeoff detected");
  b.message('C', std::string(1, '4') + ULogBuilder::v<std::uint16_t>(7) + ULogBuilder::v<std::uint64_t>(2200000) +
                     "tagged");
  b.message('O', ULogBuilder::v<std::uint16_t>(42));
  b.message('S', std::string("\x2F\x73\x13\x20\x25\x0C\xBB\x12", 8));
  b.message('R', ULogBuilder::v<std::uint16_t>(4));
  if (with_appended) {
    // A last data message that the logger cut in the middle; appended data follows.
    const std::size_t cut_at = b.bytes().size() + 3 + 2 + 10;
    b.data(2, std::string(24, '\x55'));
    b.bytes().resize(cut_at);
    // Patch appended_offsets[0] (after 16 header + 3 message header + 16 flag bytes).
    const std::uint64_t off = cut_at;
    std::memcpy(&b.bytes()[16 + 3 + 16], &off, 8);
    if (cut_offset) *cut_offset = cut_at;
    const float q[4] = {1.f, 0.f, 0.f, 0.f};
    b.data(2, ULogBuilder::v<std::uint64_t>(3000000) + ULogBuilder::le(q, sizeof q));
    b.message('L', std::string(1, '3') + ULogBuilder::v<std::uint64_t>(3000000) + "appended");
  }
  return b.bytes();
}

}  // namespace

class TestTelemetryULog : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void sampleUlgMatchesItsInfoFile() {
    SKYTRACE_REQUIRE_SHARED();
    const ULogFile f = readULog(ulogPath("sample.ulg"));
    // sample_info.txt: 15 topics, all multi id 0, with these data point counts.
    QCOMPARE(topicsWithData(f), std::size_t(15));
    const std::pair<const char*, std::size_t> counts[] = {
        {"actuator_controls_0", 3269}, {"actuator_outputs", 1311},  {"commander_state", 678},
        {"control_state", 3268},       {"cpuload", 69},              {"ekf2_innovations", 3271},
        {"estimator_status", 1311},    {"sensor_combined", 17070},   {"sensor_preflight", 17072},
        {"telemetry_status", 70},      {"vehicle_attitude", 6461},   {"vehicle_attitude_setpoint", 3272},
        {"vehicle_local_position", 678}, {"vehicle_rates_setpoint", 6448}, {"vehicle_status", 294}};
    for (const auto& [name, count] : counts) QCOMPARE(topicCount(f, name), count);
    // Message sizes from sample_info.txt ("(multi id, message size in bytes)").
    QCOMPARE(f.topic("vehicle_attitude")->logged_size, std::size_t(36));
    QCOMPARE(f.topic("vehicle_attitude")->record_size, std::size_t(40));  // + trailing _padding0[4]
    QCOMPARE(f.topic("estimator_status")->logged_size, std::size_t(309));
    QCOMPARE(f.topic("vehicle_local_position")->logged_size, std::size_t(123));
    QCOMPARE(f.info.at("sys_name"), std::string("PX4"));
    QCOMPARE(f.info.at("ver_hw"), std::string("AUAV_X21"));
    QCOMPARE(f.info.at("ver_sw"), std::string("fd483321a5cf50ead91164356d15aa474643aa73"));
    QCOMPARE(f.info.at("time_ref_utc"), std::string("0"));
    QCOMPARE(f.dropouts.size(), std::size_t(4));  // "Dropouts: count: 4"
    std::uint64_t total_ms = 0, max_ms = 0;
    for (const auto& d : f.dropouts) total_ms += d.duration_ms, max_ms = std::max<std::uint64_t>(max_ms, d.duration_ms);
    QCOMPARE(max_ms, std::uint64_t(62));  // "max: 62 ms"
    QVERIFY(total_ms >= 100 && total_ms < 150);  // "total duration: 0.1 s", "mean: 29 ms"
    // "Logging start time: 0:01:52, duration: 0:01:08"
    QCOMPARE(f.start_timestamp_us / 1000000, std::uint64_t(112));
    QCOMPARE((f.lastTimestampUs() - f.start_timestamp_us) / 1000000, std::uint64_t(68));
    QCOMPARE(f.parameters.size(), std::size_t(493));  // unique names of 499 'P' messages
    QCOMPARE(f.logged.size(), std::size_t(4));
    QVERIFY(f.warnings.empty());

    // No GNSS topic: the series is attitude-only, with a warning that says so.
    const TelemetrySeries s = telemetryFromULog(f);
    QCOMPARE(s.variant, std::string("attitude-only"));
    QCOMPARE(s.samples.size(), std::size_t(6461));
    QCOMPARE(s.positionCount(), std::size_t(0));
    QCOMPARE(s.warnings.size(), std::size_t(1));
    QVERIFY(std::isfinite(s.samples.front().yaw_deg));
  }

  void otherSharedLogs() {
    SKYTRACE_REQUIRE_SHARED();
    // Counts from the independent spec walk (docs/telemetry.md).
    const ULogFile appended = readULog(ulogPath("sample_appended_multiple.ulg"));
    QCOMPARE(appended.incompat_flags[0], std::uint8_t(1));
    QCOMPARE(appended.appended_offsets[0], std::uint64_t(434369));
    QCOMPARE(appended.appended_offsets[1], std::uint64_t(451825));
    QCOMPARE(appended.appended_offsets[2], std::uint64_t(469281));
    QCOMPARE(topicsWithData(appended), std::size_t(20));
    QCOMPARE(topicCount(appended, "actuator_outputs", 0), std::size_t(95));
    QCOMPARE(topicCount(appended, "actuator_outputs", 1), std::size_t(96));
    QCOMPARE(topicCount(appended, "sensor_combined"), std::size_t(2373));
    QCOMPARE(topicCount(appended, "vehicle_attitude"), std::size_t(306));
    QCOMPARE(topicCount(appended, "vehicle_land_detected"), std::size_t(1));
    QCOMPARE(appended.parameters.size(), std::size_t(750));
    QVERIFY(appended.warnings.empty());

    const ULogFile small = readULog(ulogPath("sample_log_small.ulg"));
    QCOMPARE(topicsWithData(small), std::size_t(70));
    QCOMPARE(topicCount(small, "sensor_accel", 2), std::size_t(6));
    QCOMPARE(topicCount(small, "vehicle_gps_position"), std::size_t(32));
    QCOMPARE(small.sync_count, std::size_t(12));
    QCOMPARE(small.dropouts.size(), std::size_t(1));
    QCOMPARE(small.parameters.size(), std::size_t(980));
    QCOMPARE(small.logged.size(), std::size_t(3));
    QVERIFY(small.warnings.empty());
    const TelemetrySeries gps = telemetryFromULog(small);
    QCOMPARE(gps.variant, std::string("vehicle_gps_position"));
    QCOMPARE(gps.samples.size(), std::size_t(32));
    // First/last fix: t 20471648 us lat 634170622 lon 104082151 alt 66814 mm utc 1618986658600345 us;
    //                 t 26658637 us lat 634170457 lon 104082271 alt 62977 mm.
    QCOMPARE(gps.samples.front().log_t_s, 20.471648);
    QCOMPARE(gps.samples.front().lat_deg, 634170622 * 1e-7);
    QCOMPARE(gps.samples.front().lon_deg, 104082151 * 1e-7);
    QCOMPARE(gps.samples.front().alt_abs_m, 66.814);
    QCOMPARE(gps.samples.back().log_t_s, 26.658637);
    QCOMPARE(gps.samples.back().lat_deg, 634170457 * 1e-7);
    QCOMPARE(gps.samples.back().lon_deg, 104082271 * 1e-7);
    QVERIFY(std::fabs(gps.start_unix_s - (1618986658.600345 - 20.471648)) < 1e-6);
    QVERIFY(std::isfinite(gps.samples.front().yaw_deg));

    const ULogFile tagged = readULog(ulogPath("sample_logging_tagged_and_default_params.ulg"));
    QCOMPARE(topicsWithData(tagged), std::size_t(96));
    QCOMPARE(topicCount(tagged, "telemetry_status", 3), std::size_t(10));
    QCOMPARE(topicCount(tagged, "vehicle_gps_position"), std::size_t(190));
    QCOMPARE(tagged.default_parameters.size(), std::size_t(44));
    QCOMPARE(tagged.parameters.size(), std::size_t(696));
    QCOMPARE(tagged.sync_count, std::size_t(21));
    std::size_t tagged_count = 0;
    for (const auto& l : tagged.logged) tagged_count += l.tag >= 0;
    QCOMPARE(tagged.logged.size(), std::size_t(7));
    QCOMPARE(tagged_count, std::size_t(3));
    const TelemetrySeries sitl = telemetryFromULog(tagged);
    QCOMPARE(sitl.samples.size(), std::size_t(44));  // 190 records, 146 without a 3D fix
    QCOMPARE(sitl.samples.front().lat_deg, 473977421 * 1e-7);
    QCOMPARE(sitl.samples.back().lon_deg, 85455939 * 1e-7);
    QCOMPARE(sitl.samples.front().alt_abs_m, 488.005);
  }

  void syntheticLogEveryMessageType() {
    const ULogFile f = parseULog(syntheticLog(false), "synthetic.ulg");
    QVERIFY2(f.warnings.empty(), f.warnings.empty() ? "" : f.warnings[0].message.c_str());
    QCOMPARE(f.info.at("sys_name"), std::string("PX4"));
    QCOMPARE(f.info.at("ver_sw_release"), std::string("16909056"));
    QCOMPARE(f.multi_info.at("perf_a").size(), std::size_t(1));
    QCOMPARE(f.multi_info.at("perf_a")[0], std::string("abcdef"));  // continued message joined
    QCOMPARE(f.parameters.at("MIS_TAKE"), 2.5);
    QCOMPARE(f.default_parameters.at("SYS_ABC"), 7.0);
    QCOMPARE(f.logged.size(), std::size_t(2));
    QCOMPARE(f.logged[0].message, std::string("Takeoff detected"));
    QCOMPARE(f.logged[0].level, 6);
    QCOMPARE(f.logged[1].tag, 7);
    QCOMPARE(f.dropouts.size(), std::size_t(1));
    QCOMPARE(f.dropouts[0].duration_ms, std::uint16_t(42));
    QCOMPARE(f.sync_count, std::size_t(1));
    // Nested format with an array: pair = 8 + 2 * 8 + 2 = 26 bytes.
    const ULogTopic* pair0 = f.topic("pair", 0);
    const ULogTopic* pair1 = f.topic("pair", 1);
    QVERIFY(pair0 && pair1);
    QCOMPARE(pair0->record_size, std::size_t(26));
    QCOMPARE(pair0->count(), std::size_t(5));
    QCOMPARE(pair1->count(), std::size_t(2));
    QCOMPARE(ULogFieldReader(f, *pair0, "points[1].y").at(3), 12.0);
    QCOMPARE(ULogFieldReader(f, *pair0, "points[0].x").at(4), 4.0);
    QCOMPARE(ULogFieldReader(f, *pair1, "tag").at(1), 9.0);
    QVERIFY_THROWS_EXCEPTION(FormatError, ULogFieldReader(f, *pair0, "points[2].x"));
    // Trailing padding left out of the data: 29-byte messages for a 32-byte format.
    QCOMPARE(f.topic("vehicle_gps_position")->count(), std::size_t(5));

    const TelemetrySeries s = telemetryFromULog(f);
    QCOMPARE(s.samples.size(), std::size_t(5));
    QCOMPARE(s.samples[2].log_t_s, 2.4);
    QCOMPARE(s.samples[2].lat_deg, 47.3977440);
    QCOMPARE(s.samples[2].lon_deg, 8.5455920);
    QCOMPARE(s.samples[2].alt_abs_m, 488.002);
    QVERIFY(std::fabs(s.samples[2].yaw_deg - 30.0) < 1e-4);
    QVERIFY(std::fabs(s.samples[2].pitch_deg) < 1e-4);
    QVERIFY(std::fabs(s.start_unix_s - 1651221935.0) < 1e-6);
    // A GNSS track for core/geo export.
    const geo::Track track = gnssTrackFromTelemetry(s);
    QCOMPARE(track.poses.size(), std::size_t(5));
    QCOMPARE(track.poses[0].source, geo::PoseSource::Gnss);
    QCOMPARE(track.alt_reference, std::string("msl"));
  }

  // PX4 v1.15 and later: sensor_gps with latitude_deg / longitude_deg / altitude_msl_m
  // (double) and no lat/lon; its UTC (time_utc_usec) dates the series. A GNSS topic with
  // neither layout is reported, not skipped silently.
  void newerGnssFieldsAreRead() {
    ULogBuilder b;
    b.flags(0, 0);
    b.message('F', "sensor_gps:uint64_t timestamp;uint64_t time_utc_usec;double latitude_deg;"
                   "double longitude_deg;double altitude_msl_m;double altitude_ellipsoid_m;uint8_t fix_type;"
                   "uint8_t[7] _padding0;");
    b.subscribe(0, 1, "sensor_gps");
    for (int i = 0; i < 3; ++i) {
      const std::uint64_t t = 5000000 + std::uint64_t(i) * 100000;
      b.data(1, ULogBuilder::v(t) + ULogBuilder::v<std::uint64_t>(1700000000000000ull + t) +
                    ULogBuilder::v<double>(47.3977420 + i * 1e-6) + ULogBuilder::v<double>(8.5455940) +
                    ULogBuilder::v<double>(488.5 + i) + ULogBuilder::v<double>(535.0) + std::string(1, char(3)));
    }
    const TelemetrySeries s = telemetryFromULog(parseULog(b.bytes(), "v115.ulg"));
    QCOMPARE(s.variant, std::string("sensor_gps"));
    QCOMPARE(s.samples.size(), std::size_t(3));
    QCOMPARE(s.samples[1].lat_deg, 47.3977430);
    QCOMPARE(s.samples[1].lon_deg, 8.5455940);
    QCOMPARE(s.samples[1].alt_abs_m, 489.5);
    QVERIFY(std::fabs(s.start_unix_s - 1700000000.0) < 1e-6);
    QCOMPARE(s.abs_alt_reference, std::string("msl"));

    ULogBuilder odd;
    odd.flags(0, 0);
    odd.message('F', "vehicle_gps_position:uint64_t timestamp;double x;double y;");
    odd.subscribe(0, 1, "vehicle_gps_position");
    odd.data(1, ULogBuilder::v<std::uint64_t>(1000000) + ULogBuilder::v<double>(1.0) + ULogBuilder::v<double>(2.0));
    const TelemetrySeries unknown = telemetryFromULog(parseULog(odd.bytes(), "odd.ulg"));
    QVERIFY(unknown.samples.empty());
    bool reported = false;
    for (const auto& w : unknown.warnings) reported |= w.message.find("vehicle_gps_position has no") != std::string::npos;
    QVERIFY2(reported, "a GNSS topic the reader cannot use must be named in a warning");
  }

  void appendedDataResumesAtTheOffset() {
    std::size_t cut = 0;
    const std::string bytes = syntheticLog(true, &cut);
    const ULogFile f = parseULog(bytes, "appended.ulg");
    QCOMPARE(f.appended_offsets[0], std::uint64_t(cut));
    QCOMPARE(f.warnings.size(), std::size_t(1));  // the message cut by the append
    QCOMPARE(f.warnings[0].byte_offset, std::uint64_t(cut - 15));
    QCOMPARE(f.topic("vehicle_attitude")->count(), std::size_t(6));  // 5 + 1 appended
    QCOMPARE(f.logged.back().message, std::string("appended"));
  }

  void truncationAtEveryByte() {
    const std::string bytes = syntheticLog(false);
    // Message boundaries of the synthetic log (each message: u16 size, type, body).
    std::vector<bool> boundary(bytes.size() + 1, false);
    std::size_t messages_total = 0;
    for (std::size_t p = 16; p <= bytes.size();) {
      boundary[p] = true;
      if (p + 3 > bytes.size()) break;
      std::uint16_t size = 0;
      std::memcpy(&size, bytes.data() + p, 2);
      p += 3 + size;
      ++messages_total;
    }
    std::size_t previous_messages = 0;
    for (std::size_t n = 0; n <= bytes.size(); ++n) {
      if (n < 16) {
        QVERIFY_THROWS_EXCEPTION(FormatError, parseULog(bytes.substr(0, n), "cut.ulg"));
        continue;
      }
      const ULogFile f = parseULog(bytes.substr(0, n), "cut.ulg");
      QVERIFY(f.message_count >= previous_messages);
      previous_messages = f.message_count;
      bool truncated_warning = false;
      for (const ParseWarning& w : f.warnings) truncated_warning |= w.message.find("truncated") != std::string::npos;
      QCOMPARE(truncated_warning, !boundary[n]);
      (void)telemetryFromULog(f);
    }
    QCOMPARE(previous_messages, messages_total);
  }

  void corruptionResynchronisesOnSync() {
    std::string bytes = syntheticLog(false);
    // Put a sync message after the definitions and garble the message before it.
    const std::size_t sync_at = bytes.find(std::string("\x2F\x73\x13\x20\x25\x0C\xBB\x12", 8)) - 3;
    const std::size_t logging_at = bytes.find("Takeoff detected") - 3 - 9;
    QVERIFY(logging_at < sync_at);
    bytes[logging_at + 2] = '\x01';  // invalid message type byte
    const ULogFile f = parseULog(bytes, "corrupt.ulg");
    QCOMPARE(f.warnings.size(), std::size_t(1));
    QCOMPARE(f.warnings[0].byte_offset, std::uint64_t(logging_at));
    QVERIFY(f.warnings[0].message.find("sync") != std::string::npos);
    QCOMPARE(f.sync_count, std::size_t(1));
    QCOMPARE(f.logged.size(), std::size_t(0));  // skipped with the corrupt region
    QCOMPARE(f.topic("vehicle_gps_position")->count(), std::size_t(5));
  }

  void refusedInputs() {
    QVERIFY_THROWS_EXCEPTION(FormatError, parseULog("not a ulog file at all", "x.ulg"));
    std::string unknown_flags = syntheticLog(false);
    unknown_flags[16 + 3 + 8] = '\x02';  // incompat bit 1: unknown to this reader
    QVERIFY_THROWS_EXCEPTION(FormatError, parseULog(unknown_flags, "newer.ulg"));
    TelemetryReadOptions small;
    small.max_bytes = 100;
    QVERIFY_THROWS_EXCEPTION(FormatError, parseULog(syntheticLog(false), "big.ulg", small));
    // A message size that runs past the end of the file: a warning, what came before stays.
    ULogBuilder b;
    b.info("char[3] sys_name", "PX4");
    b.put<std::uint16_t>(60000);
    b.bytes().push_back('D');
    b.bytes() += "xx";
    const ULogFile f = parseULog(b.bytes(), "oversize.ulg");
    QCOMPARE(f.info.at("sys_name"), std::string("PX4"));
    QCOMPARE(f.warnings.size(), std::size_t(1));
    QVERIFY(f.warnings[0].message.find("past the end") != std::string::npos);
    QVERIFY_THROWS_EXCEPTION(IoError, readULog("/nonexistent/log.ulg"));
  }

  void floatingTimestampsAreClampedNotUndefined() {
    // Regression (code review during fuzzing): a log declaring "float timestamp" with 1e30
    // or NaN made the integer conversion undefined behaviour.
    ULogBuilder b;
    b.message('F', "vehicle_gps_position:float timestamp;int32_t lat;int32_t lon;");
    b.subscribe(0, 1, "vehicle_gps_position");
    b.data(1, ULogBuilder::v<float>(1e30f) + ULogBuilder::v<std::int32_t>(10) + ULogBuilder::v<std::int32_t>(20));
    b.data(1, ULogBuilder::v<float>(NAN) + ULogBuilder::v<std::int32_t>(10) + ULogBuilder::v<std::int32_t>(20));
    b.data(1, ULogBuilder::v<float>(-5.f) + ULogBuilder::v<std::int32_t>(10) + ULogBuilder::v<std::int32_t>(20));
    const ULogFile f = parseULog(b.bytes(), "float_ts.ulg");
    const ULogTopic* gps = f.topic("vehicle_gps_position");
    QVERIFY(gps);
    ULogFieldReader ts(f, *gps, "timestamp");
    QCOMPARE(ts.atU64(0), std::numeric_limits<std::uint64_t>::max());
    QCOMPARE(ts.atU64(1), std::uint64_t(0));
    QCOMPARE(ts.atU64(2), std::uint64_t(0));
    const TelemetrySeries s = telemetryFromULog(f);
    QCOMPARE(s.samples.size(), std::size_t(3));
    QCOMPARE(s.samples.front().log_t_s, 0.0);
    QVERIFY(std::isfinite(s.samples.back().log_t_s));
  }

  void hugeTrailingPaddingDoesNotExpandTinyMessages() {
    // Regression (review of the amplification risk): a format ending in a 100 kB "_padding"
    // must not turn each 10-byte data message into a 100 kB record.
    ULogBuilder b;
    b.message('F', "t:uint64_t timestamp;uint8_t[100000] _padding0;");
    b.subscribe(0, 1, "t");
    for (int i = 0; i < 100; ++i) b.data(1, ULogBuilder::v<std::uint64_t>(i));
    const ULogFile f = parseULog(b.bytes(), "padding.ulg");
    QCOMPARE(f.topic("t")->count(), std::size_t(0));
    QVERIFY2(f.warnings.size() == 1, formatWarning(f.warnings.front()).c_str());
    QVERIFY(f.warnings[0].message.find("shorter than the format") != std::string::npos);
  }

  void readTelemetryDispatchesByMagic() {
    SKYTRACE_REQUIRE_SHARED();
    const TelemetrySeries s = readTelemetry(ulogPath("sample_log_small.ulg"));
    QCOMPARE(s.format, std::string("px4-ulog"));
    QCOMPARE(s.metadata.at("info.sys_name"), std::string("PX4"));
  }
};

QTEST_GUILESS_MAIN(TestTelemetryULog)
#include "test_telemetry_ulog.moc"
