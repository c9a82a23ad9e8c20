// DJI SRT reader: every shared sample against counts, first/last coordinates and times
// read off the raw text with grep (see docs/telemetry.md), the publicly documented
// variants written inline, and broken input (truncation at every byte, size limit).
#include <QtTest>

#include <cmath>
#include <string>

#include "core/io/telemetry/srt_reader.h"
#include "core/util/error.h"
#include "tests/test_support.h"

using namespace skytrace;
using namespace skytrace::io;

namespace {

struct Expected {
  const char* file;
  const char* variant;
  std::size_t samples;
  double first_t_s, first_lat, first_lon;
  double last_t_s, last_lat, last_lon;
  double first_alt_m, last_alt_m;  // rel (BAROMETER/Hb/H) or abs (altitude), see alt_is_abs
  bool alt_is_abs;
  std::size_t warnings;
};

// Values read from the raw files (grep of the first/last "GPS(...)"/"latitude" and
// "-->" lines); GPS(lon,lat) except the Matrice form GPS(lat,lon,..M).
const Expected kSamples[] = {
    {"air2s.srt", "srt-bracketed", 17, 0.0, 41.424724, 2.234156, 0.533, 41.424730, 2.234102, 117.0, 117.1, true, 0},
    {"mavic_air2.srt", "srt-bracketed", 25, 0.0, 41.420684, 2.162162, 0.400, 41.420686, 2.162162, 27.3, 29.2, true, 0},
    {"m2zoom.SRT", "srt-bracketed", 7113, 0.0, 31.452012, 74.398751, 118.651, 31.450438, 74.398905, 213.983002,
     264.541992, true, 0},
    {"matrice_300.srt", "srt-matrice", 381, 0.0, 36.6146, -6.1120, 380.0, 36.6146, -6.1120, 0.3, 0.0, false, 0},
    {"mavic_pro.SRT", "srt-home-gps", 468, 1.0, -20.2533, 149.0251, 468.0, -20.2532, 149.0251, 1.9, 0.0, false, 0},
    {"old_format.SRT", "srt-home-gps", 468, 1.0, -20.2533, 149.0251, 468.0, -20.2532, 149.0251, 1.9, 0.0, false, 0},
    {"mavic_mini.SRT", "srt-compact", 117, 0.0, 48.0771, -121.7458, 116.0, 48.0775, -121.7476, 200.70, 200.80, false, 0},
    {"p4_rtk.SRT", "srt-compact", 55, 0.0, -34.237922, -58.851745, 54.0, -34.232349, -58.849196, 85.80, 85.80, false, 0},
    // 20 blocks; the last ends after its HOME line (no GPS): 19 samples + 1 warning.
    {"broken_incomplete.SRT", "srt-home-gps", 19, 1.0, -34.7383, -58.4563, 19.0, -34.7383, -58.4563, 20.1, 7.7, false, 1},
};

QString samplePath(const char* file) {
  return test::sharedPath(QStringLiteral("data/flight_logs/dji_srt/") + file);
}

}  // namespace

class TestTelemetrySrt : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void sharedSamples_data() {
    QTest::addColumn<int>("index");
    for (int i = 0; i < int(std::size(kSamples)); ++i) QTest::newRow(kSamples[i].file) << i;
  }

  void sharedSamples() {
    SKYTRACE_REQUIRE_SHARED();
    QFETCH(int, index);
    const Expected& e = kSamples[index];
    const TelemetrySeries s = readDjiSrt(samplePath(e.file).toStdString());
    QCOMPARE(s.format, std::string("dji-srt"));
    QCOMPARE(s.variant, std::string(e.variant));
    QCOMPARE(s.samples.size(), e.samples);
    QCOMPARE(s.positionCount(), e.samples);
    QCOMPARE(s.warnings.size(), e.warnings);
    QCOMPARE(s.time_offset_s, 0.0);
    const TelemetrySample& a = s.samples.front();
    const TelemetrySample& b = s.samples.back();
    QCOMPARE(a.log_t_s, e.first_t_s);
    QVERIFY(std::fabs(b.log_t_s - e.last_t_s) < 1e-9);
    QCOMPARE(a.lat_deg, e.first_lat);
    QCOMPARE(a.lon_deg, e.first_lon);
    QCOMPARE(b.lat_deg, e.last_lat);
    QCOMPARE(b.lon_deg, e.last_lon);
    QCOMPARE(e.alt_is_abs ? a.alt_abs_m : a.alt_rel_m, e.first_alt_m);
    QCOMPARE(e.alt_is_abs ? b.alt_abs_m : b.alt_rel_m, e.last_alt_m);
    for (std::size_t i = 1; i < s.samples.size(); ++i) QVERIFY(s.samples[i].log_t_s >= s.samples[i - 1].log_t_s);
  }

  void brokenSampleReportsTheBreak() {
    SKYTRACE_REQUIRE_SHARED();
    const TelemetrySeries s = readDjiSrt(samplePath("broken_incomplete.SRT").toStdString());
    QCOMPARE(s.warnings.size(), std::size_t(1));
    // Block 20's timing line is line 115 of the file (5 lines per block, index first).
    QCOMPARE(s.warnings[0].line, std::size_t(116));
    QVERIFY(s.warnings[0].message.find("truncated") != std::string::npos);
  }

  void cameraAndAttitudeFields() {
    SKYTRACE_REQUIRE_SHARED();
    // air2s block 1: [iso : 100] [shutter : 1/80.0] [fnum : 280] [ev : 0] [ct : 5744] [focal_len : 240],
    // camera clock 2022-08-07 13:40:40,774,808.
    const TelemetrySeries air = readDjiSrt(samplePath("air2s.srt").toStdString());
    const TelemetrySample& a = air.samples.front();
    QCOMPARE(a.iso, 100.0);
    QCOMPARE(a.shutter_s, 1.0 / 80.0);
    QCOMPARE(a.f_number, 2.8);
    QCOMPARE(a.ev, 0.0);
    QCOMPARE(a.color_temp_k, 5744.0);
    QCOMPARE(a.focal_length_mm, 24.0);
    QCOMPARE(a.frame, std::int64_t(0));
    QCOMPARE(air.samples.back().frame, std::int64_t(16));  // SrtCnt : 17
    // 2022-08-07 13:40:40 UTC = 1659879640 (date -u -d '2022-08-07 13:40:40' +%s).
    QVERIFY(std::fabs(a.unix_s - (1659879640.0 + 0.774808)) < 1e-6);

    // p4_rtk block 2: H.S 2.88m/s, F.PRY (3.0°, -19.9°, 110.3°), G.PRY (-24.4°, 0.0°, 110.5°), SS 400, F/5.6.
    const TelemetrySeries rtk = readDjiSrt(samplePath("p4_rtk.SRT").toStdString());
    const TelemetrySample& r = rtk.samples[1];
    QCOMPARE(r.speed_h_mps, 2.88);
    QCOMPARE(r.pitch_deg, 3.0);
    QCOMPARE(r.roll_deg, -19.9);
    QCOMPARE(r.yaw_deg, 110.3);
    QCOMPARE(r.gimbal_pitch_deg, -24.4);
    QCOMPARE(r.gimbal_yaw_deg, 110.5);
    QCOMPARE(r.f_number, 5.6);
    QCOMPARE(r.shutter_s, 1.0 / 400.0);

    // old_format block 1: "ISO:100 TV:60 EV: 0 IR:F2.8".
    const TelemetrySeries old = readDjiSrt(samplePath("old_format.SRT").toStdString());
    QCOMPARE(old.samples.front().iso, 100.0);
    QCOMPARE(old.samples.front().shutter_s, 1.0 / 60.0);
    QCOMPARE(old.samples.front().f_number, 2.8);
    QCOMPARE(old.metadata.at("home_lon_lat").substr(0, 8), std::string("149.0251"));
  }

  void documentedVariantsInline() {
    // DJI Mini 3 / Mavic 3 style: rel_alt + abs_alt, gimbal angles, decimal point in the
    // subtitle time, CRLF line ends.
    const std::string mini3 =
        "1\r\n00:00:00.000 --> 00:00:00.033\r\n<font size=\"28\">FrameCnt: 1, DiffTime: 33ms\r\n"
        "2023-04-01 10:00:00.100\r\n[iso: 110] [shutter: 1/1000.0] [fnum: 1.7] [ev: 0] [focal_len: 24.00] "
        "[latitude: 59.302335] [longitude: 18.203059] [rel_alt: 1.300 abs_alt: 132.860] "
        "[gb_yaw: -12.5 gb_pitch: -90.0 gb_roll: 0.0] </font>\r\n\r\n"
        "2\r\n00:00:00.033 --> 00:00:00.066\r\n<font size=\"28\">FrameCnt: 2, DiffTime: 33ms\r\n"
        "[latitude: 59.302345] [longitude: 18.203079] [rel_alt: 1.500 abs_alt: 133.060] "
        "[gb_yaw: 170.0 gb_pitch: -45.0 gb_roll: 0.0] </font>\r\n";
    const TelemetrySeries s = parseDjiSrt(mini3, "mini3.srt");
    QCOMPARE(s.samples.size(), std::size_t(2));
    QCOMPARE(s.variant, std::string("srt-bracketed"));
    QCOMPARE(s.samples[1].log_t_s, 0.033);
    QCOMPARE(s.samples[0].alt_rel_m, 1.3);
    QCOMPARE(s.samples[0].alt_abs_m, 132.86);
    QCOMPARE(s.samples[0].gimbal_yaw_deg, -12.5);
    QCOMPARE(s.samples[0].gimbal_pitch_deg, -90.0);
    QCOMPARE(s.samples[0].f_number, 1.7);
    QCOMPARE(s.samples[0].focal_length_mm, 24.0);
    QCOMPARE(s.samples[0].frame, std::int64_t(0));

    // Compact form with an explicit altitude in GPS and a no-fix block at (0, 0).
    const std::string compact =
        "1\n00:00:00,000 --> 00:00:01,000\nF/2.8, SS 100, ISO 100, EV 0, GPS (0.0, 0.0, 0), D 0.0m, H 0.0m\n\n"
        "2\n00:00:01,000 --> 00:00:02,000\nF/2.8, SS 100, ISO 100, EV 0, GPS (8.5, 47.4, 512.5m), D 5.0m, H 1.0m, "
        "H.S 1.50m/s, V.S -0.50m/s\n";
    const TelemetrySeries c = parseDjiSrt(compact, "compact.srt");
    QCOMPARE(c.samples.size(), std::size_t(1));
    QCOMPARE(c.samples[0].lat_deg, 47.4);
    QCOMPARE(c.samples[0].lon_deg, 8.5);
    QCOMPARE(c.samples[0].alt_abs_m, 512.5);
    QCOMPARE(c.samples[0].speed_v_mps, -0.5);
    QCOMPARE(c.warnings.size(), std::size_t(1));  // "1 subtitle blocks at (0, 0)"
  }

  void corruptBlocksAreSkippedWithLineNumbers() {
    const std::string text =
        "1\n00:00:00,000 --> 00:00:01,000\nGPS(8.5,47.4,12) BAROMETER:1.0\n\n"
        "2\n00:00:xx,000 --> 00:00:02,000\nGPS(8.6,47.5,12) BAROMETER:1.0\n\n"  // bad time
        "3\n00:00:02,000 --> 00:00:03,000\n\x01\x02 garbage \xff\n\n"                 // no position
        "4\n00:00:03,000 --> 00:00:04,000\nGPS(8.7,47.6,12) BAROMETER:2.0\n";
    const TelemetrySeries s = parseDjiSrt(text, "mixed.srt");
    QCOMPARE(s.samples.size(), std::size_t(2));
    QCOMPARE(s.samples[1].lat_deg, 47.6);
    QCOMPARE(s.warnings.size(), std::size_t(2));
    QCOMPARE(s.warnings[0].line, std::size_t(6));
    QCOMPARE(s.warnings[1].line, std::size_t(10));
  }

  void truncationAtEveryByteNeverCrashes() {
    const std::string text =
        "1\n00:00:00,000 --> 00:00:01,000\nHOME(8.5,47.4) 2020.01.02 03:04:05\nGPS(8.5,47.4,12) BAROMETER:1.0\n\n"
        "2\n00:00:01,000 --> 00:00:02,000\nF/2.8, SS 100, ISO 100, EV 0, GPS (8.6, 47.5, 15), H 2.0m, "
        "F.PRY (1°, 2°, 3°)\n\n"
        "3\n00:00:02,000 --> 00:00:03,000\n[latitude: 47.6] [longitude: 8.7] [rel_alt: 3.0 abs_alt: 500.0]\n";
    std::size_t previous = 0;
    for (std::size_t n = 0; n <= text.size(); ++n) {
      try {
        const TelemetrySeries s = parseDjiSrt(text.substr(0, n), "cut.srt");
        QVERIFY(s.samples.size() <= 3);
        QVERIFY(s.samples.size() + 1 >= previous);  // a cut may only lose the last block
        previous = s.samples.size();
      } catch (const FormatError&) {
        QVERIFY(n < 40);  // only before the first "-->" line is complete
      }
    }
    QCOMPARE(previous, std::size_t(3));
  }

  // A file cut inside the last block's latitude ("4" of "47.4692") loses that block with
  // a warning; it does not keep the cut value (4,800 km off).
  void cutInsideANumberDropsTheBlock() {
    const std::string full =
        "1\n00:00:00,000 --> 00:00:01,000\n[iso: 100] [latitude: 47.4691] [longitude: 8.5455] [rel_alt: 10.0]\n\n"
        "2\n00:00:01,000 --> 00:00:02,000\n[iso: 100] [latitude: 47.4692] [longitude: 8.5456] [rel_alt: 11.0]\n";
    const std::size_t cut = full.rfind("47.4692") + 1;  // "... [latitude: 4"
    const TelemetrySeries s = parseDjiSrt(full.substr(0, cut), "cut.srt");
    QCOMPARE(s.samples.size(), std::size_t(1));
    QCOMPARE(s.samples[0].lat_deg, 47.4691);
    QCOMPARE(s.warnings.size(), std::size_t(1));
    QCOMPARE(s.warnings[0].line, std::size_t(6));
    QVERIFY2(s.warnings[0].message.find("truncated") != std::string::npos, s.warnings[0].message.c_str());
    // Cut inside the brackets after a complete number: the same.
    const std::size_t in_brackets = full.rfind("[rel_alt: 11") + 12;
    QCOMPARE(parseDjiSrt(full.substr(0, in_brackets), "cut.srt").samples.size(), std::size_t(1));
    // The whole file, also without its final line end, keeps both blocks.
    QCOMPARE(parseDjiSrt(full, "full.srt").samples.size(), std::size_t(2));
    QCOMPARE(parseDjiSrt(full.substr(0, full.size() - 1), "no-final-newline.srt").samples.size(), std::size_t(2));
  }

  // Blocks of a camera without a GNSS fix yet (camera settings and clock, no position) are
  // kept without a position, with one summary warning, also as the last block: no false
  // "truncated".
  void cameraOnlyBlocksAreKept() {
    const std::string text =
        "1\n00:00:00,000 --> 00:00:01,000\n2020.01.02 03:04:05 [iso : 100] [shutter : 1/200.0] [fnum : 280]\n\n"
        "2\n00:00:01,000 --> 00:00:02,000\n2020.01.02 03:04:06 [iso : 100] [latitude : 47.4] [longitude : 8.5]\n\n"
        "3\n00:00:02,000 --> 00:00:03,000\n2020.01.02 03:04:07 [iso : 200] [shutter : 1/100.0] [fnum : 280]\n";
    const TelemetrySeries s = parseDjiSrt(text, "camera.srt");
    QCOMPARE(s.samples.size(), std::size_t(3));
    QVERIFY(!s.samples[0].hasPosition());
    QVERIFY(s.samples[1].hasPosition());
    QVERIFY(!s.samples[2].hasPosition());
    QCOMPARE(s.samples[2].iso, 200.0);
    QCOMPARE(s.samples[2].shutter_s, 0.01);
    QCOMPARE(s.variant, std::string("srt-bracketed"));
    QCOMPARE(s.warnings.size(), std::size_t(1));
    QVERIFY2(s.warnings[0].message.find("2 subtitle blocks without a position") != std::string::npos,
             s.warnings[0].message.c_str());
    QVERIFY(s.warnings[0].message.find("truncated") == std::string::npos);
  }

  // Binary data named .srt is refused at once, not read as text with garbage warnings.
  void binaryDataIsRefused() {
    std::string elf("\x7f" "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0\x3e\0", 20);
    elf += "1\n00:00:00,000 --> 00:00:01,000\nGPS(8.5,47.4,12)\n";
    try {
      parseDjiSrt(elf, "program.srt");
      QFAIL("binary data was read as an SRT file");
    } catch (const FormatError& e) {
      QVERIFY2(std::string(e.what()).find("binary data") != std::string::npos, e.what());
    }
  }

  void notSrtAndSizeLimit() {
    QVERIFY_THROWS_EXCEPTION(FormatError, parseDjiSrt("hello\nworld\n", "x.srt"));
    QVERIFY_THROWS_EXCEPTION(FormatError, parseDjiSrt("", "empty.srt"));
    TelemetryReadOptions small;
    small.max_bytes = 16;
    QVERIFY_THROWS_EXCEPTION(FormatError,
                             parseDjiSrt("1\n00:00:00,000 --> 00:00:01,000\nGPS(1,2,3)\n", "big.srt", small));
    QVERIFY_THROWS_EXCEPTION(IoError, readDjiSrt("/nonexistent/flight.srt"));
  }
};

QTEST_GUILESS_MAIN(TestTelemetrySrt)
#include "test_telemetry_srt.moc"
