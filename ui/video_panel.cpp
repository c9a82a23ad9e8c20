#include "ui/video_panel.h"

#include <QEvent>
#include <QPainter>

namespace skytrace::ui {

VideoPanel::VideoPanel(QWidget* parent) : QWidget(parent) { setMinimumSize(160, 120); }

void VideoPanel::showFrame(const QImage& frame, const QString& caption) {
  frame_ = frame;
  caption_ = caption;
  message_.clear();
  ++frames_shown_;
  update();
}

void VideoPanel::setCaption(const QString& caption) {
  caption_ = caption;
  update();
}

void VideoPanel::clear() {
  frame_ = QImage();
  caption_.clear();
  message_.clear();
  keypoints_px_.clear();
  matches_px_.clear();
  badge_.clear();
  update();
}

void VideoPanel::showMessage(const QString& message) {
  clear();
  message_ = message;
}

void VideoPanel::setFeatureOverlay(const QVector<QPointF>& keypoints_px, const QVector<QLineF>& matches_px) {
  keypoints_px_ = keypoints_px;
  matches_px_ = matches_px;
  update();
}

void VideoPanel::setOverlayVisible(bool visible) {
  overlay_visible_ = visible;
  update();
}

void VideoPanel::setBadge(const QString& text, const QColor& colour) {
  badge_ = text;
  badge_colour_ = colour;
  update();
}

void VideoPanel::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.fillRect(rect(), QColor(20, 22, 26));
  const int caption_h = fontMetrics().height() + 8;
  const QRect area = rect().adjusted(4, 4, -4, -caption_h);
  painter.setPen(QColor(200, 204, 210));
  if (frame_.isNull()) {
    painter.drawText(rect().adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap,
                     message_.isEmpty() ? tr("No video. Use File > Open Flight... to show one.") : message_);
    return;
  }
  QSize size = frame_.size();
  size.scale(area.size(), Qt::KeepAspectRatio);
  const QRect target(area.center() - QPoint(size.width() / 2, size.height() / 2), size);
  painter.setRenderHint(QPainter::SmoothPixmapTransform);
  painter.drawImage(target, frame_);
  painter.drawText(QRect(4, height() - caption_h, width() - 8, caption_h),
                   Qt::AlignLeft | Qt::AlignVCenter, caption_);

  if (overlay_visible_ && hasFeatureOverlay()) {
    // Image pixel centres are at integer coordinates: +0.5 to the widget's pixel grid.
    const double scale = static_cast<double>(target.width()) / frame_.width();
    auto widgetPoint = [&](const QPointF& p) {
      return QPointF(target.left() + (p.x() + 0.5) * scale, target.top() + (p.y() + 0.5) * scale);
    };
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setClipRect(target);
    painter.setPen(QPen(QColor(80, 220, 255, 200), 1.2));
    for (const QLineF& m : matches_px_) painter.drawLine(widgetPoint(m.p1()), widgetPoint(m.p2()));
    painter.setPen(QPen(QColor(255, 230, 40), 1.2));
    for (const QPointF& k : keypoints_px_) painter.drawEllipse(widgetPoint(k), 2.5, 2.5);
    painter.setClipping(false);
  }
  if (!badge_.isEmpty()) {
    const QRect text_rect = painter.fontMetrics().boundingRect(badge_).adjusted(-6, -3, 6, 3);
    const QRect badge_rect = text_rect.translated(target.topLeft() + QPoint(8, 8) - text_rect.topLeft());
    painter.setPen(Qt::NoPen);
    painter.setBrush(QColor(0, 0, 0, 170));
    painter.drawRoundedRect(badge_rect, 4, 4);
    painter.setPen(badge_colour_);
    painter.drawText(badge_rect, Qt::AlignCenter, badge_);
  }
}

void VideoPanel::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange) update();
  QWidget::changeEvent(event);
}

}  // namespace skytrace::ui
