// FrameLoader: decodes the video frame the timeline asks for on its own thread, so the
// GUI thread never decodes. Requests are "latest wins": while one frame decodes, newer
// requests replace older ones, and only the newest is decoded next (scrubbing never
// builds a backlog). Sequential requests read on; others seek exactly
// (io::VideoSource::seek).
// After the first frame of a file, the loader looks once for where its data ends (one
// keyframe interval of decoding): a truncated file announces frames it lacks, and
// dataEnds says how many it holds.
// Thread: construct, open() and request() on the GUI thread; frameReady, failed and
// dataEnds are delivered there (queued). The decoder lives on the loader's private thread.
#pragma once

#include <QImage>
#include <QObject>
#include <QString>
#include <QThread>

#include <atomic>
#include <memory>

#include "core/io/video_source.h"

namespace skytrace::ui {

class FrameDecoder;

class FrameLoader : public QObject {
  Q_OBJECT

 public:
  explicit FrameLoader(QObject* parent = nullptr);
  // Stops the thread after the frame in progress (bounded by one frame's decode).
  ~FrameLoader() override;

  // Opens a video on the calling thread (to report errors at once), then hands it to the
  // decoding thread. Throws skytrace::Error as io::openVideoSource does.
  io::VideoInfo open(const QString& path);
  void close();
  bool isOpen() const { return open_; }

  // Asks for frame `index`; frameReady follows, or failed with the index asked for and
  // why (past the data of a truncated file, the source's earlyEnd()).
  void request(int index);
  // Requests handed to the decoder so far, and frames it decoded (for tests and stats).
  int decodedCount() const { return decoded_.load(); }

 Q_SIGNALS:
  void frameReady(int index, double t_s, const QImage& image);
  void failed(int index, const QString& message);
  // The opened file holds frames 0 .. frames_held - 1 of the more its container announces;
  // message: the source's earlyEnd().
  void dataEnds(int frames_held, const QString& message);

 private:
  QThread thread_;
  FrameDecoder* decoder_ = nullptr;
  std::shared_ptr<std::atomic<int>> latest_request_;
  std::atomic<int> decoded_{0};
  bool open_ = false;
};

}  // namespace skytrace::ui
