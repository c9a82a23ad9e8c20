// Tests for core/io video sources and the video writer: round trips through real
// encoders (H.264/MP4, MJPEG/AVI, Matroska), exact seeking, image folders (generated and
// the shared KITTI frames), and the documented errors for missing, corrupt and damaged
// input. Frames carry their own index as a big block code, so content proves position.
#include <QFileInfo>
#include <QTemporaryDir>
#include <QProcess>
#include <QStandardPaths>
#include <QtTest>

#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <random>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <nlohmann/json.hpp>

#include "core/io/image_sequence_source.h"
#include "core/io/video_source.h"
#include "core/sim/video_writer.h"
#include "core/util/error.h"
#include "tests/test_support.h"

using namespace skytrace;
using namespace skytrace::io;
using namespace skytrace::sim;

namespace {

constexpr int kWidth = 320;
constexpr int kHeight = 240;
constexpr int kBits = 10;       // frame index encoded in 10 blocks of 32x32 px
constexpr int kBlockPx = 32;

// A frame whose top row of blocks spells `index` in binary, plus a moving disc.
cv::Mat patternFrame(int index) {
  cv::Mat frame(kHeight, kWidth, CV_8UC3, cv::Scalar(40, 60, 80));
  for (int bit = 0; bit < kBits; ++bit) {
    const cv::Scalar colour = (index >> bit) & 1 ? cv::Scalar(255, 255, 255) : cv::Scalar(0, 0, 0);
    frame(cv::Rect(bit * kBlockPx, 0, kBlockPx, kBlockPx)).setTo(colour);
  }
  cv::circle(frame, {(index * 9) % kWidth, 150}, 25, cv::Scalar(0, 0, 255), cv::FILLED);
  return frame;
}

// Reads the index back from the block code (robust to lossy compression).
int decodeIndex(const cv::Mat& frame) {
  int index = 0;
  for (int bit = 0; bit < kBits; ++bit) {
    const cv::Rect centre(bit * kBlockPx + 8, 8, kBlockPx - 16, kBlockPx - 16);
    if (cv::mean(frame(centre))[1] > 128.0) index |= 1 << bit;
  }
  return index;
}

std::string writePatternVideo(const QString& dir, const QString& name, int frames, double fps,
                              VideoCodec codec, std::string* fourcc = nullptr) {
  const std::string path = (dir + "/" + name).toStdString();
  VideoWriterOptions options;
  options.fps = fps;
  options.codec = codec;
  VideoWriter writer(path, {kWidth, kHeight}, options);
  for (int i = 0; i < frames; ++i) writer.write(patternFrame(i));
  writer.close();
  if (fourcc) *fourcc = writer.fourcc();
  return path;
}

// Zeroes the payload of the `frame`-th '00dc' chunk of an AVI (one MJPEG frame), so
// that FFmpeg finds no JPEG data there.
void damageAviFrame(const std::string& path, int frame) {
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  size_t pos = bytes.find("movi");
  QVERIFY(pos != std::string::npos);
  for (int n = 0; n <= frame; ++n) {
    pos = bytes.find("00dc", pos + 4);
    QVERIFY(pos != std::string::npos);
  }
  const uint32_t size = static_cast<uint8_t>(bytes[pos + 4]) |
                        static_cast<uint8_t>(bytes[pos + 5]) << 8 |
                        static_cast<uint8_t>(bytes[pos + 6]) << 16 |
                        static_cast<uint32_t>(static_cast<uint8_t>(bytes[pos + 7])) << 24;
  QVERIFY(size > 100 && pos + 8 + size <= bytes.size());
  QCOMPARE(bytes.substr(pos + 8, 2), std::string("\xFF\xD8"));  // JPEG SOI: a real frame
  std::fill(bytes.begin() + static_cast<long>(pos + 8), bytes.begin() + static_cast<long>(pos + 8 + size), '\0');
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

bool hasWarningFor(const VideoSource& source, int index) {
  for (const VideoWarning& w : source.warnings())
    if (w.frame_index == index) return true;
  return false;
}

}  // namespace

class TestVideoSource : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void h264Mp4RoundTrip() {
    QTemporaryDir dir;
    std::string fourcc;
    const std::string path = writePatternVideo(dir.path(), "flight.mp4", 60, 25.0, VideoCodec::H264, &fourcc);
    QCOMPARE(fourcc, std::string("avc1"));  // Debian's FFmpeg has libx264

    auto source = openVideoSource(path);
    const VideoInfo& info = source->info();
    QCOMPARE(info.kind, VideoSourceKind::File);
    QCOMPARE(info.frame_count, 60);
    QCOMPARE(info.fps, 25.0);
    QCOMPARE(info.width_px, kWidth);
    QCOMPARE(info.height_px, kHeight);
    QCOMPARE(info.codec_fourcc, std::string("avc1"));
    QVERIFY(QString::fromStdString(info.container).contains("MPEG-4"));
    QCOMPARE(info.duration_s(), 2.4);

    VideoFrame frame;
    int count = 0;
    while (source->read(&frame)) {
      QCOMPARE(frame.index, count);
      QCOMPARE(decodeIndex(frame.bgr), count);
      QVERIFY2(std::abs(frame.t_s - count / 25.0) < 1e-3, qPrintable(QString::number(frame.t_s)));
      ++count;
    }
    QCOMPARE(count, 60);
    QVERIFY(source->warnings().empty());
  }

  void seekIsExact_data() {
    QTest::addColumn<int>("codec");
    QTest::addColumn<QString>("name");
    QTest::newRow("h264 mp4") << int(VideoCodec::H264) << "seek.mp4";
    QTest::newRow("h264 mkv") << int(VideoCodec::H264) << "seek.mkv";
    QTest::newRow("mpeg4 mov") << int(VideoCodec::Mpeg4) << "seek.mov";
    QTest::newRow("mjpeg avi") << int(VideoCodec::Mjpeg) << "seek.avi";
  }
  void seekIsExact() {
    QFETCH(int, codec);
    QFETCH(QString, name);
    QTemporaryDir dir;
    const int frames = 150;
    const std::string path = writePatternVideo(dir.path(), name, frames, 30.0, VideoCodec(codec));
    auto source = openVideoSource(path);
    QCOMPARE(source->info().frame_count, frames);

    std::mt19937 rng(7);
    // Long jumps, backward steps, and short forward steps (decoded on, not seeked).
    std::vector<int> targets = {0, frames - 1, 75, 74, 76, 3, 140, 1, 100, 110, 120, 121, 149};
    for (int i = 0; i < 12; ++i) targets.push_back(static_cast<int>(rng() % frames));
    for (int target : targets) {
      source->seek(target);
      QCOMPARE(source->position(), target);
      VideoFrame frame;
      QVERIFY(source->read(&frame));
      QCOMPARE(frame.index, target);
      QCOMPARE(decodeIndex(frame.bgr), target);
      QVERIFY(std::abs(frame.t_s - target / 30.0) < 1e-3);
      if (target + 1 < frames) {  // sequential reading continues after a seek
        QVERIFY(source->read(&frame));
        QCOMPARE(decodeIndex(frame.bgr), target + 1);
        QCOMPARE(frame.index, target + 1);
      }
    }
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, source->seek(frames));
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, source->seek(-1));
  }

  void damagedFrameInTheMiddleIsSkippedAndReported() {
    QTemporaryDir dir;
    const std::string path = writePatternVideo(dir.path(), "damaged.avi", 40, 20.0, VideoCodec::Mjpeg);
    damageAviFrame(path, 17);
    if (QTest::currentTestFailed()) return;

    auto source = openVideoSource(path);
    QCOMPARE(source->info().frame_count, 40);
    std::vector<int> indices;
    VideoFrame frame;
    while (source->read(&frame)) {
      QCOMPARE(decodeIndex(frame.bgr), frame.index);
      indices.push_back(frame.index);
    }
    QCOMPARE(int(indices.size()), 39);
    QVERIFY(std::find(indices.begin(), indices.end(), 17) == indices.end());
    QCOMPARE(indices.back(), 39);
    QVERIFY(hasWarningFor(*source, 17));
    QCOMPARE(int(source->warnings().size()), 1);
    QVERIFY(QString::fromStdString(source->warnings().front().message).contains("17"));

    // Seeking onto the damaged frame yields the next good one.
    source->seek(17);
    QVERIFY(source->read(&frame));
    QCOMPARE(frame.index, 18);
    QCOMPARE(decodeIndex(frame.bgr), 18);
  }

  void corruptFileIsFormatError() {
    QTemporaryDir dir;
    const std::string path = (dir.path() + "/random.mp4").toStdString();
    std::mt19937 rng(42);
    std::string bytes(64 * 1024, '\0');
    for (char& c : bytes) c = static_cast<char>(rng() & 0xFF);
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    try {
      openVideoSource(path);
      QFAIL("a random-bytes .mp4 must not open");
    } catch (const FormatError& e) {
      const QString message = e.what();
      QVERIFY2(message.contains(QString::fromStdString(path)), qPrintable(message));
      QVERIFY2(message.contains("not a readable video"), qPrintable(message));
    }
    // An empty file too.
    const std::string empty = (dir.path() + "/empty.mkv").toStdString();
    std::ofstream(empty).close();
    QVERIFY_THROWS_EXCEPTION(FormatError, openVideoSource(empty));
  }

  void truncatedMp4IsFormatError() {
    // MP4 stores its index (moov) at the end: a recording cut short cannot be opened.
    QTemporaryDir dir;
    const std::string path = writePatternVideo(dir.path(), "cut.mp4", 30, 30.0, VideoCodec::H264);
    std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
    try {
      openVideoSource(path);
      QFAIL("a truncated mp4 must not open");
    } catch (const FormatError& e) {
      QVERIFY(QString(e.what()).contains("cut.mp4"));
    }
  }

  // A recording cut short whose index comes first (MP4 "faststart", as phones and
  // editors write them) opens, announces every frame, and holds only the first part.
  // Reading must deliver only frames the file holds, each with its true index (a seek
  // past the cut lands on an earlier keyframe: counting would relabel old frames), and
  // say that the stream ended early.
  void truncatedFaststartMp4EndsEarlyWithTrueIndices() {
    if (QStandardPaths::findExecutable(QStringLiteral("ffmpeg")).isEmpty())
      QSKIP("ffmpeg (scripts/debian-packages.txt) is needed to move the MP4 index to the front");
    QTemporaryDir dir;
    const std::string whole = writePatternVideo(dir.path(), "whole.mp4", 200, 10.0, VideoCodec::H264);
    const QString faststart = dir.filePath("faststart.mp4");
    QProcess remux;
    remux.start(QStringLiteral("ffmpeg"), {"-loglevel", "error", "-y", "-i", QString::fromStdString(whole),
                                           "-c", "copy", "-movflags", "+faststart", faststart});
    QVERIFY(remux.waitForFinished(60000) && remux.exitCode() == 0);
    std::filesystem::resize_file(faststart.toStdString(), std::filesystem::file_size(faststart.toStdString()) / 2);

    auto source = openVideoSource(faststart.toStdString());
    QCOMPARE(source->info().frame_count, 200);  // what the index announces
    VideoFrame frame;
    int read = 0, last_index = -1;
    while (source->read(&frame)) {
      QVERIFY2(frame.index > last_index, qPrintable(QString("frame %1 after %2").arg(frame.index).arg(last_index)));
      QCOMPARE(decodeIndex(frame.bgr), frame.index);
      last_index = frame.index;
      ++read;
    }
    qInfo("read %d of 200 announced frames, the last %d", read, last_index);
    QVERIFY(read > 20 && read < 200);
    QVERIFY2(QString::fromStdString(source->earlyEnd()).contains("although the container announces 200"),
             source->earlyEnd().c_str());

    // A seek past the data (a player scrubbing there) must not hand over the last frame
    // the file holds under the requested index: it fails and says where the data ends.
    for (int past : {last_index + 1, (last_index + 200) / 2, 199}) {
      auto seeker = openVideoSource(faststart.toStdString());
      seeker->seek(past);
      QVERIFY2(!seeker->read(&frame), qPrintable(QString("frame %1 of %2 read back as %3").arg(past).arg(read).arg(frame.index)));
      QVERIFY(!seeker->read(&frame));  // and stays ended
      QVERIFY2(QString::fromStdString(seeker->earlyEnd()).contains("although the container announces 200"),
               seeker->earlyEnd().c_str());
      seeker->seek(last_index / 2);  // a seek back into the data reads again
      QVERIFY(seeker->read(&frame));
      QCOMPARE(frame.index, last_index / 2);
      QCOMPARE(decodeIndex(frame.bgr), frame.index);
    }
    // framesHeld finds the frames that decode; `info` prints them.
    const int held = framesHeld(*openVideoSource(faststart.toStdString()));
    qInfo("framesHeld: %d", held);
    QVERIFY2(held >= last_index - 2 && held <= last_index + 1,
             qPrintable(QString("holds %1, read up to frame %2").arg(held).arg(last_index)));
    auto last_held = openVideoSource(faststart.toStdString());
    last_held->seek(held - 1);
    QVERIFY(last_held->read(&frame));
    QCOMPARE(decodeIndex(frame.bgr), held - 1);
    QCOMPARE(framesHeld(*openVideoSource(whole)), 200);
    if (QFileInfo::exists(test::cliPath())) {
      QString out;
      QCOMPARE(test::runCli({"info", faststart}, &out), 0);
      QVERIFY2(out.contains(QString("frames: %1 decode, of the 200 the container announces").arg(held)), qPrintable(out));
      QProcess json_info;
      json_info.start(test::cliPath(), {"info", "--json", faststart});
      QVERIFY(json_info.waitForFinished(60000) && json_info.exitCode() == 0);
      const nlohmann::json facts = nlohmann::json::parse(json_info.readAllStandardOutput().toStdString());
      QCOMPARE(facts["frames"].get<int>(), held);
      QCOMPARE(facts["frames_announced"].get<int>(), 200);
      QCOMPARE(facts["frame_timing"].get<std::string>(), std::string("container timestamps"));
    }

    // The intact file ends where announced.
    auto intact = openVideoSource(whole);
    while (intact->read(&frame)) {
    }
    QVERIFY(intact->earlyEnd().empty());
  }

  void missingFileIsIoError() {
    const std::string path = "/nonexistent/skytrace/flight_0042.mp4";
    try {
      openVideoSource(path);
      QFAIL("a missing file must not open");
    } catch (const IoError& e) {
      QVERIFY(QString(e.what()).contains("flight_0042.mp4"));
      QVERIFY(QString(e.what()).contains("not found"));
    }
  }

  void generatedImageSequenceInNaturalOrder() {
    QTemporaryDir dir;
    // Names without zero padding: plain string order would put frame_10 before frame_2.
    for (int i = 0; i < 12; ++i)
      QVERIFY(cv::imwrite((dir.path() + QString("/frame_%1.png").arg(i + 1)).toStdString(), patternFrame(i)));
    std::ofstream((dir.path() + "/notes.txt").toStdString()) << "not a frame";  // ignored
    VideoSourceOptions options;
    options.image_sequence_fps = 5.0;
    auto source = openVideoSource(dir.path().toStdString(), options);
    QCOMPARE(source->info().kind, VideoSourceKind::ImageSequence);
    QCOMPARE(source->info().frame_count, 12);
    QCOMPARE(source->info().codec_fourcc, std::string("png"));
    QCOMPARE(source->info().fps, 5.0);  // PNGs state no capture time: the nominal rate
    QCOMPARE(source->info().frame_timing, std::string("nominal frame rate"));
    QVERIFY(source->warnings().empty());
    VideoFrame frame;
    int count = 0;
    while (source->read(&frame)) {
      QCOMPARE(decodeIndex(frame.bgr), count);  // lossless: exact order
      QCOMPARE(frame.t_s, count / 5.0);
      ++count;
    }
    QCOMPARE(count, 12);
    source->seek(9);
    QVERIFY(source->read(&frame));
    QCOMPARE(decodeIndex(frame.bgr), 9);
  }

  void corruptImageInSequenceIsSkipped() {
    QTemporaryDir dir;
    for (int i = 0; i < 8; ++i)
      QVERIFY(cv::imwrite((dir.path() + QString("/img%1.png").arg(i, 3, 10, QChar('0'))).toStdString(), patternFrame(i)));
    // Damage img004.png: keep the PNG signature, scramble the rest.
    const std::string victim = (dir.path() + "/img004.png").toStdString();
    std::string bytes;
    {
      std::ifstream in(victim, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    for (size_t i = 40; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 31);
    std::ofstream(victim, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));

    auto source = openVideoSource(dir.path().toStdString());
    std::vector<int> indices;
    VideoFrame frame;
    while (source->read(&frame)) {
      QCOMPARE(decodeIndex(frame.bgr), frame.index);
      indices.push_back(frame.index);
    }
    QCOMPARE(indices, (std::vector<int>{0, 1, 2, 3, 5, 6, 7}));
    QVERIFY(hasWarningFor(*source, 4));
    QVERIFY(QString::fromStdString(source->warnings().front().message).contains("img004.png"));
  }

  void emptyFolderIsFormatError() {
    QTemporaryDir dir;
    QVERIFY_THROWS_EXCEPTION(FormatError, openVideoSource(dir.path().toStdString()));
  }

  void kittiSequence() {
    SKYTRACE_REQUIRE_SHARED();
    const QString folder = test::sharedPath("data/sequences/kitti_00");
    auto source = openVideoSource(folder.toStdString());
    const VideoInfo& info = source->info();
    QCOMPARE(info.frame_count, 20);
    QCOMPARE(info.fps, 10.0);  // default for folders
    const cv::Mat first = cv::imread((folder + "/000100.png").toStdString(), cv::IMREAD_COLOR);
    QCOMPARE(info.width_px, first.cols);
    QCOMPARE(info.height_px, first.rows);
    auto* sequence = dynamic_cast<ImageSequenceSource*>(source.get());
    QVERIFY(sequence);
    QVERIFY(QString::fromStdString(sequence->files().front()).endsWith("000100.png"));
    QVERIFY(QString::fromStdString(sequence->files().back()).endsWith("000119.png"));

    source->seek(19);
    VideoFrame frame;
    QVERIFY(source->read(&frame));
    QCOMPARE(frame.index, 19);
    QCOMPARE(frame.t_s, 1.9);
    const cv::Mat last = cv::imread((folder + "/000119.png").toStdString(), cv::IMREAD_COLOR);
    QCOMPARE(cv::norm(frame.bgr, last, cv::NORM_INF), 0.0);
    QVERIFY(!source->read(&frame));
    QVERIFY(source->warnings().empty());
  }

  void naturalOrder() {
    QVERIFY(naturalLess("img2.png", "img10.png"));
    QVERIFY(!naturalLess("img10.png", "img2.png"));
    QVERIFY(naturalLess("a_009.jpg", "a_10.jpg"));
    QVERIFY(naturalLess("000100.png", "000101.png"));
    QVERIFY(naturalLess("b1", "b1x"));
  }

  void writerLeavesExistingFileIntactWithoutClose() {
    QTemporaryDir dir;
    const std::string path = (dir.path() + "/keep.mp4").toStdString();
    std::ofstream(path) << "previous content";
    {
      VideoWriter writer(path, {kWidth, kHeight});
      writer.write(patternFrame(0));
      // destroyed without close(): simulates a failed render
    }
    std::ifstream in(path);
    std::string content((std::istreambuf_iterator<char>(in)), {});
    QCOMPARE(content, std::string("previous content"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 1);  // no temporary left over

    VideoWriter writer(path, {kWidth, kHeight});
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, writer.write(cv::Mat(10, 10, CV_8UC3)));
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, VideoWriter((dir.path() + "/odd.mp4").toStdString(), {321, 240}));
  }

  // Writes that fail (the disk fills up; here RLIMIT_FSIZE makes the kernel refuse them
  // past 16 KiB) leave a video without its index, and the encoder says nothing: close()
  // must fail and keep the previous file.
  void writerFailingWritesKeepExistingFile() {
    QTemporaryDir dir;
    const std::string path = (dir.path() + "/keep.mp4").toStdString();
    std::ofstream(path) << "previous content";
    struct rlimit saved {};
    QVERIFY(getrlimit(RLIMIT_FSIZE, &saved) == 0);
    const auto previous_handler = std::signal(SIGXFSZ, SIG_IGN);
    QString error;
    {
      VideoWriter writer(path, {kWidth, kHeight});
      struct rlimit limited = saved;
      limited.rlim_cur = 16 * 1024;
      setrlimit(RLIMIT_FSIZE, &limited);
      try {
        cv::Mat noise(kHeight, kWidth, CV_8UC3);
        for (int i = 0; i < 120; ++i) {
          cv::randu(noise, 0, 256);  // incompressible: the file passes the limit early
          writer.write(noise);
        }
        writer.close();
      } catch (const Error& e) {
        error = e.what();
      }
      setrlimit(RLIMIT_FSIZE, &saved);
    }
    std::signal(SIGXFSZ, previous_handler);
    QVERIFY2(error.contains("keep.mp4"), qPrintable(error));
    std::ifstream in(path);
    std::string content((std::istreambuf_iterator<char>(in)), {});
    QCOMPARE(content, std::string("previous content"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);  // no temporary left over
  }
};

QTEST_GUILESS_MAIN(TestVideoSource)
#include "test_video_source.moc"
