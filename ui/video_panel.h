// VideoPanel: shows one video frame scaled to fit (aspect kept) with a caption (file,
// frame number, time), an optional overlay of keypoints and match lines in image pixels
// (toggle), and a badge for the frame's registration (accepted/rejected fix).
// The main window feeds it (frames come decoded from FrameLoader); it owns no decoder.
// Thread: GUI thread only.
#pragma once

#include <QColor>
#include <QImage>
#include <QLineF>
#include <QVector>
#include <QWidget>

namespace skytrace::ui {

class VideoPanel : public QWidget {
  Q_OBJECT

 public:
  explicit VideoPanel(QWidget* parent = nullptr);

  // Shows `frame` (any QImage format) with `caption` under it.
  void showFrame(const QImage& frame, const QString& caption);
  void setCaption(const QString& caption);
  void clear();
  // No frame, and `message` where it would be (a frame that could not be decoded).
  void showMessage(const QString& message);
  const QString& message() const { return message_; }
  const QImage& frame() const { return frame_; }
  const QString& caption() const { return caption_; }
  // Frames shown since construction (for tests of the repaint bound).
  int framesShown() const { return frames_shown_; }

  // Keypoints (pixels of the shown frame) and matches (this frame -> reference frame
  // position, both in this frame's pixels). Empty: nothing to draw.
  void setFeatureOverlay(const QVector<QPointF>& keypoints_px, const QVector<QLineF>& matches_px);
  void setOverlayVisible(bool visible);
  bool overlayVisible() const { return overlay_visible_; }
  bool hasFeatureOverlay() const { return !keypoints_px_.isEmpty() || !matches_px_.isEmpty(); }
  // A badge in the top-left corner (empty text hides it).
  void setBadge(const QString& text, const QColor& colour);
  const QString& badge() const { return badge_; }

  QSize sizeHint() const override { return {360, 240}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  QImage frame_;
  QString caption_;
  QString message_;
  QVector<QPointF> keypoints_px_;
  QVector<QLineF> matches_px_;
  bool overlay_visible_ = true;
  QString badge_;
  QColor badge_colour_;
  int frames_shown_ = 0;
};

}  // namespace skytrace::ui
