// The MP4 / QuickTime recording time: 'mvhd' version 0 and 1 inside 'moov', after a media
// box with a 64-bit size or before one running to the end of the file; nothing for an
// unset time, a placeholder, a cut 'mvhd', no 'moov' or a file that is no MP4; from a
// file, reading only the box headers and 'moov'.
#include <QTemporaryDir>
#include <QtTest>

#include <cstdint>
#include <fstream>
#include <string>

#include "core/io/mp4_creation_time.h"
#include "core/io/video_source.h"

using namespace skytrace;

namespace {

// 2024-06-01 10:00:00 UTC as seconds since 1904-01-01.
constexpr std::uint64_t kMp4Time = 1717236000ull + 2082844800ull;

std::string bigEndian(std::uint64_t value, int bytes) {
  std::string out;
  for (int i = bytes - 1; i >= 0; --i) out += char((value >> (8 * i)) & 0xff);
  return out;
}

std::string box(const std::string& type, const std::string& body) {
  return bigEndian(body.size() + 8, 4) + type + body;
}

std::string mvhd(int version, std::uint64_t creation) {
  std::string body = std::string(1, char(version)) + std::string(3, '\0');
  body += version == 1 ? bigEndian(creation, 8) + bigEndian(creation, 8) + bigEndian(1000, 4) + bigEndian(5000, 8)
                       : bigEndian(creation, 4) + bigEndian(creation, 4) + bigEndian(1000, 4) + bigEndian(5000, 4);
  body += std::string(80, '\0');  // rate, volume, matrix, next track: not read
  return box("mvhd", body);
}

const std::string kFtyp = box("ftyp", "isom" + bigEndian(512, 4) + "isomavc1");

}  // namespace

class TestMp4CreationTime : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void readsTheMovieHeader() {
    const std::string moov0 = box("moov", box("udta", "xxxx") + mvhd(0, kMp4Time) + box("trak", ""));
    QCOMPARE(*io::mp4CreationUnixSeconds(kFtyp + box("mdat", std::string(100, 'x')) + moov0), 1717236000.0);
    // 64-bit times, after a media box with a 64-bit size.
    const std::string mdat64 = bigEndian(1, 4) + "mdat" + bigEndian(16 + 50, 8) + std::string(50, 'x');
    QCOMPARE(*io::mp4CreationUnixSeconds(kFtyp + mdat64 + box("moov", mvhd(1, kMp4Time + 7))), 1717236007.0);
    // 'moov' first, then a media box whose size 0 runs to the end.
    QCOMPARE(*io::mp4CreationUnixSeconds(kFtyp + moov0 + bigEndian(0, 4) + "mdat" + std::string(30, 'x')),
             1717236000.0);
  }

  void statesNothingWhereTheFileDoesNot() {
    QVERIFY(!io::mp4CreationUnixSeconds(kFtyp + box("moov", mvhd(0, 0))));  // unset
    QVERIFY(!io::mp4CreationUnixSeconds(kFtyp + box("moov", mvhd(0, 86400))));  // 1904: a placeholder
    const std::string cut = mvhd(1, kMp4Time).substr(0, 14);
    QVERIFY(!io::mp4CreationUnixSeconds(kFtyp + box("moov", cut)));
    QVERIFY(!io::mp4CreationUnixSeconds(kFtyp + box("mdat", "abc")));  // no 'moov'
    QVERIFY(!io::mp4CreationUnixSeconds(kFtyp + bigEndian(4000, 4) + "moov" + mvhd(0, kMp4Time)));  // too long
    QVERIFY(!io::mp4CreationUnixSeconds("\x1a\x45\xdf\xa3 Matroska"));
    QVERIFY(!io::mp4CreationUnixSeconds(""));
  }

  // From a file: only the box headers and 'moov' are read.
  void readsAFile() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("clip.mp4").toStdString();
    std::ofstream(path, std::ios::binary) << kFtyp << box("mdat", std::string(1 << 20, 'x'))
                                          << box("moov", mvhd(0, kMp4Time));
    QCOMPARE(*io::readMp4CreationUnixSeconds(path), 1717236000.0);
    std::ofstream(path, std::ios::binary) << kFtyp << box("mdat", std::string(1000, 'x')).substr(0, 500);
    QVERIFY(!io::readMp4CreationUnixSeconds(path));  // cut inside the media box
    QVERIFY(!io::readMp4CreationUnixSeconds(dir.filePath("missing.mp4").toStdString()));
  }
};

QTEST_GUILESS_MAIN(TestMp4CreationTime)
#include "test_mp4_creation_time.moc"
