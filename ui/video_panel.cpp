#include "ui/video_panel.h"

#include <QEvent>
#include <QPainter>

namespace skytrace::ui {

VideoPanel::VideoPanel(QWidget* parent) : QWidget(parent) { setMinimumSize(160, 120); }

void VideoPanel::showFrame(const QImage& frame, const QString& caption) {
  frame_ = frame;
  caption_ = caption;
  update();
}

void VideoPanel::clear() {
  frame_ = QImage();
  caption_.clear();
  update();
}

void VideoPanel::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.fillRect(rect(), QColor(20, 22, 26));
  const int caption_h = fontMetrics().height() + 8;
  const QRect area = rect().adjusted(4, 4, -4, -caption_h);
  painter.setPen(QColor(200, 204, 210));
  if (frame_.isNull()) {
    painter.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                     tr("No video. Use File > Open Video... to show one."));
    return;
  }
  QSize size = frame_.size();
  size.scale(area.size(), Qt::KeepAspectRatio);
  const QRect target(area.center() - QPoint(size.width() / 2, size.height() / 2), size);
  painter.setRenderHint(QPainter::SmoothPixmapTransform);
  painter.drawImage(target, frame_);
  painter.drawText(QRect(4, height() - caption_h, width() - 8, caption_h),
                   Qt::AlignLeft | Qt::AlignVCenter, caption_);
}

void VideoPanel::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange) update();
  QWidget::changeEvent(event);
}

}  // namespace skytrace::ui
