// ArduPilot DataFlash reader: the committed fixture (tests/io/data/flight.bin) against
// what pymavlink's DFReader reads from it (autopilot_logs_expected.json, written once by
// make_autopilot_logs.py), and logs built here byte by byte from the format description
// for older layouts, faults and truncation at every byte.
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <string>

#include "core/io/telemetry/dataflash_reader.h"
#include "core/io/telemetry/telemetry_reader.h"
#include "core/io/telemetry/telemetry_track.h"
#include "core/util/error.h"
#include "tests/test_support.h"

using namespace skytrace;
using namespace skytrace::io;

namespace {

const QString kDataDir = QStringLiteral(SKYTRACE_TEST_DATA_DIR);
constexpr double kStartUnix = 1717236000.0;  // the fixture's flight starts 2024-06-01T10:00:00Z
constexpr double kBootBeforeStart = 120.0;

QJsonObject expectedFor(const char* file) {
  QFile f(kDataDir + "/autopilot_logs_expected.json");
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(f.readAll()).object().value(QLatin1String(file)).toObject();
}

// A DataFlash writer for tests: FMT records, then data records, little-endian.
class DataflashBuilder {
 public:
  DataflashBuilder() { define(128, "FMT", "BBnNZ", "Type,Length,Name,Format,Columns", 89); }
  void define(std::uint8_t type, const char* name, const char* format, const char* columns, int length) {
    bytes_ += "\xa3\x95\x80";
    bytes_.push_back(static_cast<char>(type));
    bytes_.push_back(static_cast<char>(length));
    fixed(name, 4);
    fixed(format, 16);
    fixed(columns, 64);
  }
  void record(std::uint8_t type) {
    bytes_ += "\xa3\x95";
    bytes_.push_back(static_cast<char>(type));
  }
  template <typename T>
  void put(T v) { bytes_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void fixed(const char* text, std::size_t n) {
    std::string field(n, '\0');
    std::memcpy(field.data(), text, std::min(n, std::strlen(text)));
    bytes_ += field;
  }
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
};

// The oldest GPS layout (ArduCopter 3.2: T = boot ms, TimeMS = GPS time of week) with
// three fixes, and an ATT with centidegree columns.
std::string oldLayoutLog() {
  DataflashBuilder b;
  b.define(130, "GPS", "BIHBcLLeeEefI", "Status,TimeMS,Week,NSats,HDop,Lat,Lng,RelAlt,Alt,Spd,GCrs,VZ,T", 45);
  b.define(131, "ATT", "IccccCCCC", "TimeMS,DesRoll,Roll,DesPitch,Pitch,DesYaw,Yaw,ErrRP,ErrYaw", 23);
  for (int i = 0; i < 3; ++i) {
    b.record(131);
    b.put<std::uint32_t>(10000 + 200 * i);
    b.put<std::int16_t>(0), b.put<std::int16_t>(-550), b.put<std::int16_t>(0), b.put<std::int16_t>(120);
    b.put<std::uint16_t>(0), b.put<std::uint16_t>(27000), b.put<std::uint16_t>(0), b.put<std::uint16_t>(0);
    b.record(130);
    b.put<std::uint8_t>(3);
    b.put<std::uint32_t>(100000000 + 200 * i);  // time of week, ms
    b.put<std::uint16_t>(1800);                  // 2014-07-06
    b.put<std::uint8_t>(9);
    b.put<std::int16_t>(90);
    b.put<std::int32_t>(-353632610 + 10 * i);
    b.put<std::int32_t>(1491652370);
    b.put<std::int32_t>(1500);   // RelAlt, cm
    b.put<std::int32_t>(60000);  // Alt, cm
    b.put<std::uint32_t>(250);   // Spd, cm/s
    b.put<std::int32_t>(9000);
    b.put<float>(-0.5f);
    b.put<std::uint32_t>(10000 + 200 * i);  // T, boot ms
  }
  return b.bytes();
}

}  // namespace

class TestTelemetryDataflash : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void fixtureMatchesPymavlink() {
    const QJsonObject expected = expectedFor("flight.bin");
    QVERIFY2(!expected.isEmpty(), "tests/io/data/autopilot_logs_expected.json is missing");
    const std::string path = (kDataDir + "/flight.bin").toStdString();
    const TelemetrySeries s = readTelemetry(path);
    QCOMPARE(QString::fromStdString(s.format), QStringLiteral("ardupilot-dataflash"));
    QCOMPARE(QString::fromStdString(s.variant), QStringLiteral("GPS"));
    // GPS instance 0 with a 3D fix: DFReader's count.
    QCOMPARE(qsizetype(s.samples.size()), qsizetype(expected["gps_instance0_with_fix"].toInt()));
    QCOMPARE(qsizetype(s.camera_triggers.size()), qsizetype(expected["cam"].toInt()));
    const QJsonObject counts = expected["counts"].toObject();
    qsizetype records = 0;
    for (const QString& key : counts.keys())
      if (key != "FMT") records += counts[key].toInt();
    QCOMPARE(QString::fromStdString(s.metadata.at("records")),
             QStringLiteral("%1 in %2 message types").arg(records).arg(counts.size() - 1));
    QCOMPARE(QString::fromStdString(s.metadata.at("parameters")), QString::number(counts["PARM"].toInt()));
    QCOMPARE(QString::fromStdString(s.metadata.at("firmware")), QStringLiteral("ArduCopter V4.5.7 (2a3dc4b7)"));

    for (const char* which : {"first_gps", "last_gps"}) {
      const QJsonObject g = expected[which].toObject();
      const TelemetrySample& x = which[0] == 'f' ? s.samples.front() : s.samples.back();
      QVERIFY(std::fabs(x.log_t_s - g["time_us"].toDouble() * 1e-6) < 1e-9);
      QVERIFY(std::fabs(x.lat_deg - g["lat"].toDouble()) < 1e-9);
      QVERIFY(std::fabs(x.lon_deg - g["lon"].toDouble()) < 1e-9);
      QVERIFY(std::fabs(x.alt_abs_m - g["alt"].toDouble()) < 1e-6);
      QVERIFY(std::fabs(x.speed_h_mps - g["spd"].toDouble()) < 1e-5);
      // UTC from GPS week and time of week, less 18 leap seconds (DFReader's clock).
      QVERIFY2(std::fabs(x.unix_s - g["unix"].toDouble()) < 1e-6, qPrintable(QString::number(x.unix_s, 'f', 3)));
    }
    // The log's clock: boot time; its start is the boot instant in UTC.
    QVERIFY(std::fabs(s.start_unix_s - (kStartUnix - kBootBeforeStart)) < 1e-3);
    const QJsonObject cam = expected["first_cam"].toObject();
    QCOMPARE(s.camera_triggers.front().image_index, std::int64_t(cam["img"].toInt()));
    QVERIFY(std::fabs(s.camera_triggers.front().lat_deg - cam["lat"].toDouble()) < 1e-9);
    QVERIFY(std::fabs(s.camera_triggers.front().log_t_s - cam["time_us"].toDouble() * 1e-6) < 1e-9);
    QVERIFY(std::isfinite(s.camera_triggers.front().unix_s));

    // Attitude and height above home from the nearest ATT / POS (the fixture flies at
    // 50 m, rolled 10-14 deg, pitched -3 deg; yaw is the track's heading).
    for (const TelemetrySample& x : s.samples) {
      QVERIFY(std::fabs(x.alt_rel_m - 50.0) < 1e-4);
      QVERIFY(std::fabs(x.pitch_deg + 3.0) < 1e-6);
      QVERIFY(x.roll_deg >= 9.99 && x.roll_deg <= 14.01);
      QVERIFY(x.yaw_deg > -180.0 && x.yaw_deg <= 180.0);
      QVERIFY(std::fabs(x.speed_v_mps + 0.2) < 1e-5);  // VZ 0.2 m/s down
    }
    // What was skipped, with where.
    bool garbage = false, truncated = false, no_fix = false;
    for (const ParseWarning& w : s.warnings) {
      garbage |= w.message == "29 bytes that start no record skipped" && w.byte_offset > 0;
      truncated |= w.message.find("truncated") != std::string::npos;
      no_fix |= w.message == "5 GPS records without a 3D fix skipped";
    }
    QVERIFY(garbage);
    QVERIFY(truncated);
    QVERIFY(no_fix);

    // The logged track exports with absolute times and MSL altitudes.
    const geo::Track track = gnssTrackFromTelemetry(s);
    QCOMPARE(QString::fromStdString(track.alt_reference), QStringLiteral("msl"));
    QVERIFY(std::fabs(track.start_unix_s - (kStartUnix - kBootBeforeStart)) < 1e-3);
  }

  void olderLayoutsAreRead() {
    const TelemetrySeries s = parseDataflashLog(oldLayoutLog(), "old.bin");
    QCOMPARE(s.samples.size(), std::size_t(3));
    const TelemetrySample& x = s.samples[1];
    QVERIFY(std::fabs(x.log_t_s - 10.2) < 1e-9);  // T, boot milliseconds
    QVERIFY(std::fabs(x.lat_deg - -35.3632600) < 1e-9);
    QVERIFY(std::fabs(x.alt_abs_m - 600.0) < 1e-9);
    QVERIFY(std::fabs(x.speed_h_mps - 2.5) < 1e-9);
    QVERIFY(std::fabs(x.roll_deg - -5.5) < 1e-9);
    QVERIFY(std::fabs(x.yaw_deg - -90.0) < 1e-9);  // 270 deg, wrapped
    // Week 1800, 100000.2 s into it, 16 leap seconds in July 2014.
    const double expected_unix = 315964800.0 + 1800 * 604800.0 + 100000.2 - 16.0;
    QVERIFY2(std::fabs(x.unix_s - expected_unix) < 1e-6, qPrintable(QString::number(x.unix_s, 'f', 3)));
  }

  void truncationAtEveryByte() {
    const std::string log = oldLayoutLog();
    std::size_t previous = 0;
    for (std::size_t n = 0; n <= log.size(); ++n) {
      const std::string_view head(log.data(), n);
      if (n < 3) {
        QVERIFY(!isDataflashLog(head));
        continue;
      }
      try {
        const TelemetrySeries s = parseDataflashLog(head, "cut.bin");
        QVERIFY(s.samples.size() >= previous);  // a longer head never loses a sample
        previous = s.samples.size();
      } catch (const FormatError&) {
        QVERIFY(n < 89);  // only before the first FMT record is whole
      }
    }
    QCOMPARE(previous, std::size_t(3));
  }

  void corruptionIsSkippedToTheNextRecord() {
    std::string log = oldLayoutLog();
    const std::size_t second_gps = log.find("\xa3\x95\x82", log.find("\xa3\x95\x82") + 3);
    log[second_gps + 1] = 'x';  // that record no longer starts with the sync bytes
    const TelemetrySeries s = parseDataflashLog(log, "damaged.bin");
    QCOMPARE(s.samples.size(), std::size_t(2));
    QVERIFY(!s.warnings.empty());
    QCOMPARE(s.warnings.front().byte_offset, std::uint64_t(second_gps));
  }

  void inconsistentFormatsAreReported() {
    DataflashBuilder b;
    b.define(130, "GPS", "QBLL", "TimeUS,Status,Lat,Lng", 40);  // 17 bytes of columns, not 37
    b.define(131, "ATT", "Qx", "TimeUS,Roll", 12);                // no type 'x'
    const TelemetrySeries s = parseDataflashLog(b.bytes(), "bad-fmt.bin");
    QVERIFY(s.samples.empty());
    QCOMPARE(s.warnings.size(), std::size_t(3));  // two FMTs, and no data
    QVERIFY(s.warnings[0].message.find("GPS") != std::string::npos);
    QVERIFY(s.warnings[1].message.find("'x'") != std::string::npos);
  }

  void refusedInputs() {
    QVERIFY(test::errorMessageOf<FormatError>([] { parseDataflashLog("not a log at all", "x.bin"); })
                .contains("not an ArduPilot DataFlash log"));
    TelemetryReadOptions small;
    small.max_bytes = 100;
    QVERIFY(test::errorMessageOf<FormatError>([&] { parseDataflashLog(oldLayoutLog(), "big.bin", small); })
                .contains("size limit"));
    TelemetryReadOptions cancel;
    cancel.progress = [](double, const std::string&) { return false; };
    QVERIFY(test::errorMessageOf<Cancelled>([&] { parseDataflashLog(oldLayoutLog(), "c.bin", cancel); }) !=
            QStringLiteral("(no exception of the expected type)"));
  }

  void readTelemetryRecognisesTheLogUnderAnyName() {
    QTemporaryDir dir;
    const QString path = dir.filePath("00000042.dat");
    QFile out(path);
    QVERIFY(out.open(QIODevice::WriteOnly));
    const std::string log = oldLayoutLog();
    out.write(log.data(), qint64(log.size()));
    out.close();
    QCOMPARE(QString::fromStdString(readTelemetry(path.toStdString()).format), QStringLiteral("ardupilot-dataflash"));
  }
};

QTEST_GUILESS_MAIN(TestTelemetryDataflash)
#include "test_telemetry_dataflash.moc"
