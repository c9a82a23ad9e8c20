// VideoPanel: shows one video frame scaled to fit (aspect kept) with a caption
// (file, frame number, time). The main window feeds it; it owns no decoder.
// Thread: GUI thread only.
#pragma once

#include <QImage>
#include <QWidget>

namespace skytrace::ui {

class VideoPanel : public QWidget {
  Q_OBJECT

 public:
  explicit VideoPanel(QWidget* parent = nullptr);

  // Shows `frame` (any QImage format) with `caption` under it.
  void showFrame(const QImage& frame, const QString& caption);
  void clear();
  const QImage& frame() const { return frame_; }
  const QString& caption() const { return caption_; }

  QSize sizeHint() const override { return {360, 240}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  QImage frame_;
  QString caption_;
};

}  // namespace skytrace::ui
