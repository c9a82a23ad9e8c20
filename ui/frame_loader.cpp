#include "ui/frame_loader.h"

#include <QMetaObject>

#include <exception>

namespace skytrace::ui {

// Lives on FrameLoader's thread; owns the VideoSource.
class FrameDecoder : public QObject {
  Q_OBJECT

 public:
  FrameDecoder(std::shared_ptr<std::atomic<int>> latest, std::atomic<int>* decoded)
      : latest_(std::move(latest)), decoded_(decoded) {}

  void setSource(std::shared_ptr<io::VideoSource> source) {
    source_ = std::move(source);
    probed_ = false;
  }

  void decode(int index) {
    if (index != latest_->load() || !source_) return;  // superseded by a newer request
    decodeFrame(index);
    if (!probed_) probeDataEnd();  // once, after the first frame is on screen
  }

 Q_SIGNALS:
  void frameReady(int index, double t_s, const QImage& image);
  void failed(int index, const QString& message);
  void dataEnds(int frames_held, const QString& message);

 private:
  // A truncated file announces frames it does not hold: find where its data ends, so
  // that the timeline offers only frames that decode.
  void probeDataEnd() {
    probed_ = true;
    try {
      const int announced = source_->info().frame_count;
      const int held = io::framesHeld(*source_);
      if (held < announced) Q_EMIT dataEnds(held, QString::fromStdString(source_->earlyEnd()));
    } catch (const std::exception&) {
      // The frames that do decode still show; a failing frame reports itself.
    }
  }

  void decodeFrame(int index) {
    try {
      if (source_->position() != index) source_->seek(index);
      io::VideoFrame frame;
      if (!source_->read(&frame)) {
        // Past the data of a truncated file, say so (the file announces frames it lacks).
        QString message = tr("Frame %1 could not be decoded").arg(index);
        if (!source_->earlyEnd().empty()) message += QStringLiteral(": ") + QString::fromStdString(source_->earlyEnd());
        Q_EMIT failed(index, message);
        return;
      }
      QImage image;
      if (frame.bgr.type() == CV_8UC3)
        image = QImage(frame.bgr.data, frame.bgr.cols, frame.bgr.rows,
                       static_cast<qsizetype>(frame.bgr.step), QImage::Format_BGR888)
                    .copy();
      decoded_->fetch_add(1);
      Q_EMIT frameReady(frame.index, frame.t_s, image);
    } catch (const std::exception& e) {
      Q_EMIT failed(index, QString::fromStdString(e.what()));
    }
  }

  std::shared_ptr<std::atomic<int>> latest_;
  std::atomic<int>* decoded_;
  std::shared_ptr<io::VideoSource> source_;
  bool probed_ = false;  // where the data ends has been looked for
};

FrameLoader::FrameLoader(QObject* parent)
    : QObject(parent), latest_request_(std::make_shared<std::atomic<int>>(-1)) {
  decoder_ = new FrameDecoder(latest_request_, &decoded_);
  decoder_->moveToThread(&thread_);
  connect(decoder_, &FrameDecoder::frameReady, this, &FrameLoader::frameReady, Qt::QueuedConnection);
  connect(decoder_, &FrameDecoder::failed, this, &FrameLoader::failed, Qt::QueuedConnection);
  connect(decoder_, &FrameDecoder::dataEnds, this, &FrameLoader::dataEnds, Qt::QueuedConnection);
  thread_.setObjectName(QStringLiteral("skytrace-frame-loader"));
  thread_.start();
}

FrameLoader::~FrameLoader() {
  latest_request_->store(-1);  // pending requests become stale
  thread_.quit();
  thread_.wait();
  delete decoder_;  // its thread has ended: nothing else touches it
}

io::VideoInfo FrameLoader::open(const QString& path) {
  std::shared_ptr<io::VideoSource> source(io::openVideoSource(path.toStdString()));
  const io::VideoInfo info = source->info();
  latest_request_->store(-1);
  // The source moves to the decoder's thread; from now on only that thread touches it.
  QMetaObject::invokeMethod(
      decoder_, [decoder = decoder_, source] { decoder->setSource(source); }, Qt::QueuedConnection);
  open_ = true;
  return info;
}

void FrameLoader::close() {
  latest_request_->store(-1);
  QMetaObject::invokeMethod(
      decoder_, [decoder = decoder_] { decoder->setSource(nullptr); }, Qt::QueuedConnection);
  open_ = false;
}

void FrameLoader::request(int index) {
  if (!open_) return;
  latest_request_->store(index);
  QMetaObject::invokeMethod(
      decoder_, [decoder = decoder_, index] { decoder->decode(index); }, Qt::QueuedConnection);
}

}  // namespace skytrace::ui

#include "frame_loader.moc"
