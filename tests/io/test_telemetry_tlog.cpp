// MAVLink .tlog reader: the committed fixture (tests/io/data/flight.tlog: frames packed by
// pymavlink, MAVLink 1 then 2, signed from 30 s on, a damaged frame, broken bytes, a
// second vehicle, a cut last record) against what pymavlink reads from it
// (autopilot_logs_expected.json), and logs built here from the specification's framing
// for zero-trimmed payloads, checksums, the estimate-only variant and truncation at
// every byte.
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <set>
#include <string>

#include "core/io/telemetry/mavlink_tlog_reader.h"
#include "core/io/telemetry/telemetry_reader.h"
#include "core/io/telemetry/telemetry_track.h"
#include "core/util/error.h"
#include "tests/test_support.h"

using namespace skytrace;
using namespace skytrace::io;

namespace {

const QString kDataDir = QStringLiteral(SKYTRACE_TEST_DATA_DIR);
constexpr double kStartUnix = 1717236000.0;  // the fixture's flight: 2024-06-01T10:00:00Z
constexpr double kLinkLatency = 0.15;        // its ground station's receive times lag by this

QJsonObject expectedFor(const char* file) {
  QFile f(kDataDir + "/autopilot_logs_expected.json");
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(f.readAll()).object().value(QLatin1String(file)).toObject();
}

// A .tlog writer for tests, from the MAVLink specification's frame layout.
class TlogBuilder {
 public:
  template <typename T>
  static void put(std::string& s, T v) { s.append(reinterpret_cast<const char*>(&v), sizeof v); }

  // One record: receive time (big-endian microseconds), then a v1 or v2 frame of
  // `payload` for message `id` with `crc_extra`. v2 trims trailing zero bytes.
  void frame(double unix_s, std::uint32_t id, std::uint8_t crc_extra, std::string payload, bool v2 = true,
             std::uint8_t sysid = 1) {
    const auto us = static_cast<std::uint64_t>(std::llround(unix_s * 1e6));
    for (int i = 7; i >= 0; --i) bytes_.push_back(static_cast<char>((us >> (8 * i)) & 0xff));
    if (v2)
      while (payload.size() > 1 && payload.back() == '\0') payload.pop_back();
    std::string frame;
    frame.push_back(static_cast<char>(v2 ? 0xFD : 0xFE));
    frame.push_back(static_cast<char>(payload.size()));
    if (v2) frame += std::string("\0\0", 2);  // incompat, compat flags
    frame.push_back(static_cast<char>(seq_++));
    frame.push_back(static_cast<char>(sysid));
    frame.push_back(1);  // component
    frame.push_back(static_cast<char>(id & 0xff));
    if (v2) frame.push_back(static_cast<char>((id >> 8) & 0xff)), frame.push_back(static_cast<char>(id >> 16));
    frame += payload;
    std::uint16_t crc = 0xffff;
    auto accumulate = [&crc](unsigned char b) {
      unsigned char t = b ^ static_cast<unsigned char>(crc & 0xff);
      t ^= static_cast<unsigned char>(t << 4);
      crc = static_cast<std::uint16_t>((crc >> 8) ^ (t << 8) ^ (t << 3) ^ (t >> 4));
    };
    for (std::size_t i = 1; i < frame.size(); ++i) accumulate(static_cast<unsigned char>(frame[i]));
    accumulate(crc_extra);
    put(frame, crc);
    bytes_ += frame;
  }
  // GPS_RAW_INT (24, CRC_EXTRA 24): 52-byte payload with extensions zero.
  void gps(double unix_s, double lat, double lon, double alt_m, int fix = 3, bool v2 = true, std::uint8_t sysid = 1) {
    std::string p;
    put<std::uint64_t>(p, 0);
    put<std::int32_t>(p, static_cast<std::int32_t>(std::llround(lat * 1e7)));
    put<std::int32_t>(p, static_cast<std::int32_t>(std::llround(lon * 1e7)));
    put<std::int32_t>(p, static_cast<std::int32_t>(std::llround(alt_m * 1000)));
    put<std::uint16_t>(p, 100), put<std::uint16_t>(p, 100), put<std::uint16_t>(p, 512), put<std::uint16_t>(p, 0);
    p.push_back(static_cast<char>(fix));
    p.push_back(10);
    if (v2) p += std::string(22, '\0');
    frame(unix_s, 24, 24, p, v2, sysid);
  }
  // GLOBAL_POSITION_INT (33, CRC_EXTRA 104).
  void global(double unix_s, double lat, double lon, double alt_m, double rel_m) {
    std::string p;
    put<std::uint32_t>(p, 1000);
    put<std::int32_t>(p, static_cast<std::int32_t>(std::llround(lat * 1e7)));
    put<std::int32_t>(p, static_cast<std::int32_t>(std::llround(lon * 1e7)));
    put<std::int32_t>(p, static_cast<std::int32_t>(std::llround(alt_m * 1000)));
    put<std::int32_t>(p, static_cast<std::int32_t>(std::llround(rel_m * 1000)));
    put<std::int16_t>(p, 300), put<std::int16_t>(p, 400), put<std::int16_t>(p, 50), put<std::uint16_t>(p, 0);
    frame(unix_s, 33, 104, p);
  }
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
  std::uint8_t seq_ = 0;
};

// Three GNSS fixes with an unknown message between them, v1 then v2.
std::string smallLog() {
  TlogBuilder b;
  b.gps(kStartUnix, 47.1, 8.1, 400.0, 3, false);
  b.frame(kStartUnix + 0.05, 74, 20, std::string(20, '\x01'));  // VFR_HUD: not read, skipped whole
  b.gps(kStartUnix + 0.2, 47.2, 8.2, 410.0);
  b.gps(kStartUnix + 0.4, 47.3, 8.3, 420.0);
  return b.bytes();
}

}  // namespace

class TestTelemetryTlog : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void fixtureMatchesPymavlink() {
    const QJsonObject expected = expectedFor("flight.tlog");
    QVERIFY2(!expected.isEmpty(), "tests/io/data/autopilot_logs_expected.json is missing");
    const TelemetrySeries s = readTelemetry((kDataDir + "/flight.tlog").toStdString());
    QCOMPARE(QString::fromStdString(s.format), QStringLiteral("mavlink-tlog"));
    QCOMPARE(QString::fromStdString(s.variant), QStringLiteral("GPS_RAW_INT"));
    QCOMPARE(QString::fromStdString(s.metadata.at("system")), QStringLiteral("1"));
    // Frames per message, over every system, as pymavlink decodes them.
    const QJsonObject counts = expected["counts"].toObject();
    std::map<QString, int> per_message;
    int frames = 0;
    for (const QString& key : counts.keys()) {
      per_message[key.section(':', 1)] += counts[key].toInt();
      frames += counts[key].toInt();
    }
    QCOMPARE(QString::fromStdString(s.metadata.at("frames")),
             QStringLiteral("%1 of %2 message types").arg(frames).arg(per_message.size()));
    for (const char* name : {"GPS_RAW_INT", "GLOBAL_POSITION_INT", "ATTITUDE", "CAMERA_FEEDBACK"})
      QCOMPARE(QString::fromStdString(s.metadata.at(std::string("messages.") + name)),
               QString::number(per_message[name]));
    QCOMPARE(qsizetype(s.samples.size()), qsizetype(expected["gps_with_fix"].toInt()));
    QCOMPARE(qsizetype(s.camera_triggers.size()), qsizetype(counts["1:CAMERA_FEEDBACK"].toInt()));

    // Receive times are UTC: the log starts with the first record.
    QVERIFY(std::fabs(s.start_unix_s - (kStartUnix + kLinkLatency)) < 1e-6);
    for (const char* which : {"first_gps", "last_gps"}) {  // a MAVLink 1 and a signed MAVLink 2 frame
      const QJsonObject g = expected[which].toObject();
      const TelemetrySample& x = which[0] == 'f' ? s.samples.front() : s.samples.back();
      QVERIFY(std::fabs(x.unix_s - g["t"].toDouble()) < 1e-6);
      QVERIFY(std::fabs(s.start_unix_s + x.log_t_s - g["t"].toDouble()) < 1e-6);
      QVERIFY(std::fabs(x.lat_deg - g["lat"].toDouble()) < 1e-9);
      QVERIFY(std::fabs(x.lon_deg - g["lon"].toDouble()) < 1e-9);
      QVERIFY(std::fabs(x.alt_abs_m - g["alt"].toDouble()) < 1e-6);
      QVERIFY(std::fabs(x.speed_h_mps - g["vel"].toDouble()) < 1e-9);
    }
    // Attitude (ATTITUDE) and height above home and climb (GLOBAL_POSITION_INT) nearest
    // each fix: the fixture flies 50 m above home, rolled 10-14 deg, pitched -3 deg,
    // climbing 0.2 m/s.
    for (const TelemetrySample& x : s.samples) {
      QVERIFY(std::fabs(x.alt_rel_m - 50.0) < 1e-9);
      QVERIFY(std::fabs(x.speed_v_mps - 0.2) < 1e-9);
      QVERIFY(std::fabs(x.pitch_deg + 3.0) < 1e-4);
      QVERIFY(x.roll_deg >= 9.99 && x.roll_deg <= 14.01);
    }
    const CameraTrigger& photo = s.camera_triggers.front();
    QCOMPARE(photo.image_index, std::int64_t(3));
    QVERIFY(std::fabs(photo.alt_rel_m - 50.0) < 1e-4);
    QVERIFY(std::isfinite(photo.lat_deg) && std::isfinite(photo.unix_s));

    // The damaged frame and the broken bytes are skipped with their offsets, the second
    // vehicle is named, the cut record reported.
    std::multiset<std::string> messages;
    for (const ParseWarning& w : s.warnings) messages.insert(w.message);
    QCOMPARE(int(messages.count("41 bytes that start no record skipped")), 1);
    int skips = 0;
    for (const std::string& m : messages) skips += m.find("bytes that start no record skipped") != std::string::npos;
    QCOMPARE(skips, expected["bad_data_messages"].toInt());
    QCOMPARE(int(messages.count("positions of system(s) 2 ignored; the track is system 1's")), 1);
    QCOMPARE(int(messages.count("5 GPS_RAW_INT messages without a 3D fix skipped")), 1);
    bool truncated = false;
    for (const std::string& m : messages) truncated |= m.find("truncated") != std::string::npos;
    QVERIFY(truncated);

    const geo::Track track = gnssTrackFromTelemetry(s);
    QCOMPARE(QString::fromStdString(track.alt_reference), QStringLiteral("msl"));
    QVERIFY(std::fabs(track.start_unix_s - (kStartUnix + kLinkLatency)) < 1e-6);
  }

  void framesAreCheckedAndZeroFilled() {
    const TelemetrySeries s = parseMavlinkTlog(smallLog(), "small.tlog");
    QCOMPARE(s.samples.size(), std::size_t(3));
    QVERIFY(s.warnings.empty());
    QVERIFY(std::fabs(s.samples[2].log_t_s - 0.4) < 1e-9);
    QVERIFY(std::fabs(s.samples[2].alt_abs_m - 420.0) < 1e-9);
    QVERIFY(std::fabs(s.samples[1].speed_h_mps - 5.12) < 1e-9);
    // A flipped payload bit: the checksum no longer matches, the frame is skipped.
    // Records: v1 GPS 8 + 38 bytes, VFR_HUD 8 + 32, then the second GPS's frame.
    std::string damaged = smallLog();
    const std::size_t second = 46 + 40 + 8;
    QCOMPARE(static_cast<unsigned char>(damaged[second]), static_cast<unsigned char>(0xFD));
    damaged[second + 10 + 4] ^= 0x01;
    const TelemetrySeries d = parseMavlinkTlog(damaged, "damaged.tlog");
    QCOMPARE(d.samples.size(), std::size_t(2));
    QCOMPARE(d.warnings.size(), std::size_t(1));
    QCOMPARE(d.warnings.front().byte_offset, std::uint64_t(second - 8));
  }

  void estimateOnlyLogsGiveTheEstimate() {
    TlogBuilder b;
    b.gps(kStartUnix, 0.0, 0.0, 0.0, 0);  // no fix yet
    for (int i = 0; i < 4; ++i) b.global(kStartUnix + 0.25 * i, 47.0 + 1e-4 * i, 8.0, 500.0, 30.0);
    const TelemetrySeries s = parseMavlinkTlog(b.bytes(), "estimate.tlog");
    QCOMPARE(QString::fromStdString(s.variant), QStringLiteral("GLOBAL_POSITION_INT"));
    QCOMPARE(s.samples.size(), std::size_t(4));
    QVERIFY(std::fabs(s.samples[3].lat_deg - 47.0003) < 1e-9);
    QVERIFY(std::fabs(s.samples[3].alt_rel_m - 30.0) < 1e-9);
    QVERIFY(std::fabs(s.samples[3].speed_h_mps - 5.0) < 1e-9);
    QVERIFY(std::fabs(s.samples[3].speed_v_mps + 0.5) < 1e-9);
  }

  void truncationAtEveryByte() {
    const std::string log = smallLog();
    std::size_t previous = 0;
    for (std::size_t n = 0; n <= log.size(); ++n) {
      try {
        const TelemetrySeries s = parseMavlinkTlog(std::string_view(log.data(), n), "cut.tlog");
        QVERIFY(s.samples.size() >= previous);
        previous = s.samples.size();
      } catch (const FormatError&) {
        QVERIFY(n < 8 + 6 + 30 + 2);  // only before the first frame is whole
      }
    }
    QCOMPARE(previous, std::size_t(3));
  }

  void refusedInputs() {
    QVERIFY(test::errorMessageOf<FormatError>([] { parseMavlinkTlog("hello, world; not a log", "x.tlog"); })
                .contains("not a MAVLink telemetry log"));
    QVERIFY(!isMavlinkTlog("\xFD\x01\x02"));
    TelemetryReadOptions small;
    small.max_bytes = 10;
    QVERIFY(test::errorMessageOf<FormatError>([&] { parseMavlinkTlog(smallLog(), "big.tlog", small); })
                .contains("size limit"));
  }

  void readTelemetryRecognisesTheLogUnderAnyName() {
    QTemporaryDir dir;
    const QString path = dir.filePath("2024-06-01 10-00-00.log");
    QFile out(path);
    QVERIFY(out.open(QIODevice::WriteOnly));
    const std::string log = smallLog();
    out.write(log.data(), qint64(log.size()));
    out.close();
    QCOMPARE(QString::fromStdString(readTelemetry(path.toStdString()).format), QStringLiteral("mavlink-tlog"));
  }
};

QTEST_GUILESS_MAIN(TestTelemetryTlog)
#include "test_telemetry_tlog.moc"
