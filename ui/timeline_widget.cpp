#include "ui/timeline_widget.h"

#include <QAction>
#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPainter>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QStyle>
#include <QStyleOptionSlider>
#include <QHelpEvent>
#include <QToolButton>
#include <QToolTip>

#include <algorithm>
#include <cmath>

#include "ui/time_model.h"

namespace skytrace::ui {

bool parseTimeText(const QString& text, double* t_s) {
  // A decimal comma (as the German field shows it) or point; no thousands separators.
  QString plain = text.trimmed();
  plain.replace(QLatin1Char(','), QLatin1Char('.'));
  const QStringList parts = plain.split(QLatin1Char(':'));
  if (parts.isEmpty() || parts.size() > 3) return false;
  double total = 0.0;
  for (const QString& part : parts) {
    bool ok = false;
    const double value = part.toDouble(&ok);
    if (!ok || value < 0.0) return false;
    total = total * 60.0 + value;
  }
  *t_s = total;
  return std::isfinite(total);
}

// The scrub slider with the timeline's markers painted as coloured bars along its groove,
// under the handle; each marker is at least 3 px wide so a single frame shows.
class MarkedSlider : public QSlider {
 public:
  MarkedSlider(TimeModel* model, QWidget* parent) : QSlider(Qt::Horizontal, parent), model_(model) {}

  void setMarkers(std::vector<TimelineMarker> markers) {
    markers_ = std::move(markers);
    update();
  }
  const std::vector<TimelineMarker>& markers() const { return markers_; }

 protected:
  // The groove, then the markers on it, then the handle above them.
  void paintEvent(QPaintEvent* event) override {
    if (markers_.empty() || maximum() <= minimum()) {
      QSlider::paintEvent(event);
      return;
    }
    QPainter painter(this);
    QStyleOptionSlider option;
    initStyleOption(&option);
    option.subControls = QStyle::SC_SliderGroove;
    if (tickPosition() != NoTicks) option.subControls |= QStyle::SC_SliderTickmarks;
    style()->drawComplexControl(QStyle::CC_Slider, &option, &painter, this);
    const QRect groove = style()->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderGroove, this);
    const double height = std::max(4, groove.height() - 2);
    const double top = groove.center().y() + 0.5 - height / 2.0;
    for (const TimelineMarker& marker : markers_) painter.fillRect(markerRect(marker, top, height), marker.colour);
    option.subControls = QStyle::SC_SliderHandle;
    style()->drawComplexControl(QStyle::CC_Slider, &option, &painter, this);
  }

  // Over a marker, the tooltip names it.
  bool event(QEvent* event) override {
    if (event->type() == QEvent::ToolTip && !markers_.empty() && maximum() > minimum()) {
      auto* help = static_cast<QHelpEvent*>(event);
      QStringList labels;
      for (const TimelineMarker& marker : markers_) {
        const QRectF r = markerRect(marker, 0, height());
        if (help->pos().x() >= r.left() - 2 && help->pos().x() <= r.right() + 2)
          labels << QCoreApplication::translate("skytrace::ui::TimelineWidget", "%1 at %2 s")
                        .arg(marker.label, QLocale().toString(marker.start_s, 'f', 1));
      }
      if (!labels.isEmpty()) {
        QToolTip::showText(help->globalPos(), labels.join(QLatin1Char('\n')), this);
        return true;
      }
    }
    return QSlider::event(event);
  }

 private:
  // Where a marker is drawn: the handle's centre travels over [groove.left + handle/2,
  // groove.right - handle/2]; at least 3 px wide, so a single frame shows.
  QRectF markerRect(const TimelineMarker& marker, double top, double height) const {
    QStyleOptionSlider option;
    initStyleOption(&option);
    const QRect groove = style()->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderGroove, this);
    const QRect handle = style()->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderHandle, this);
    const int span_px = groove.width() - handle.width();
    auto x_of = [&](double t_s) {
      return groove.left() + handle.width() / 2.0 +
             QStyle::sliderPositionFromValue(minimum(), maximum(), model_->frameAtTime(t_s), span_px);
    };
    const double left = x_of(marker.start_s);
    const double width = x_of(marker.end_s) - left;
    return width >= 3.0 ? QRectF(left, top, width, height) : QRectF(left - 1.5, top, 3.0, height);
  }

  TimeModel* model_;
  std::vector<TimelineMarker> markers_;
};

TimelineWidget::TimelineWidget(TimeModel* model, QWidget* parent) : QWidget(parent), model_(model) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(6, 2, 6, 2);
  auto button = [this](QStyle::StandardPixmap icon) {
    auto* b = new QToolButton(this);
    b->setIcon(style()->standardIcon(icon));
    b->setAutoRaise(true);
    return b;
  };
  back_button_ = button(QStyle::SP_MediaSeekBackward);
  play_button_ = button(QStyle::SP_MediaPlay);
  forward_button_ = button(QStyle::SP_MediaSeekForward);
  slider_ = new MarkedSlider(model_, this);
  slider_->setObjectName(QStringLiteral("timelineSlider"));
  frame_label_ = new QLabel(this);
  frame_box_ = new QSpinBox(this);
  frame_box_->setKeyboardTracking(false);
  time_edit_ = new QLineEdit(this);
  time_edit_->setMaximumWidth(90);
  speed_label_ = new QLabel(this);
  speed_box_ = new QComboBox(this);
  for (int i = 0; i < TimeModel::kSpeedCount; ++i)
    speed_box_->addItem(QStringLiteral("%1x").arg(TimeModel::kSpeeds[i]), TimeModel::kSpeeds[i]);
  speed_box_->setCurrentIndex(2);  // 1x
  time_label_ = new QLabel(this);
  time_label_->setMinimumWidth(220);

  layout->addWidget(back_button_);
  layout->addWidget(play_button_);
  layout->addWidget(forward_button_);
  layout->addWidget(slider_, 1);
  layout->addWidget(frame_label_);
  layout->addWidget(frame_box_);
  layout->addWidget(time_edit_);
  layout->addWidget(speed_label_);
  layout->addWidget(speed_box_);
  layout->addWidget(time_label_);

  connect(back_button_, &QToolButton::clicked, model_, &TimeModel::stepBackward);
  connect(forward_button_, &QToolButton::clicked, model_, &TimeModel::stepForward);
  connect(play_button_, &QToolButton::clicked, model_, &TimeModel::togglePlay);
  connect(slider_, &QSlider::valueChanged, model_, &TimeModel::setCurrentFrame);
  connect(frame_box_, &QSpinBox::valueChanged, model_, &TimeModel::setCurrentFrame);
  connect(time_edit_, &QLineEdit::editingFinished, this, &TimelineWidget::jumpToTypedTime);
  // Escape in the time field drops what was typed and hands the keyboard back.
  auto* cancel_typing = new QAction(time_edit_);
  cancel_typing->setShortcut(QKeySequence(Qt::Key_Escape));
  cancel_typing->setShortcutContext(Qt::WidgetShortcut);
  time_edit_->addAction(cancel_typing);
  connect(cancel_typing, &QAction::triggered, this, [this] {
    time_edit_->setText(QLocale().toString(model_->currentTimeS(), 'f', 2));
    time_edit_->clearFocus();
  });
  connect(speed_box_, &QComboBox::currentIndexChanged, this,
          [this](int index) { model_->setSpeed(speed_box_->itemData(index).toDouble()); });
  connect(model_, &TimeModel::speedChanged, this, [this](double speed) {
    const int index = speed_box_->findData(speed);
    if (index >= 0) speed_box_->setCurrentIndex(index);
  });
  connect(model_, &TimeModel::playingChanged, this, [this](bool playing) {
    play_button_->setIcon(style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    retranslateUi();
  });
  connect(model_, &TimeModel::timelineChanged, this, &TimelineWidget::syncTimeline);
  connect(model_, &TimeModel::currentFrameChanged, this, &TimelineWidget::syncFrame);
  syncTimeline();
  retranslateUi();
}

QSlider* TimelineWidget::slider() const { return slider_; }

void TimelineWidget::setMarkers(std::vector<TimelineMarker> markers) { slider_->setMarkers(std::move(markers)); }

const std::vector<TimelineMarker>& TimelineWidget::markers() const { return slider_->markers(); }

void TimelineWidget::syncTimeline() {
  const QSignalBlocker block_slider(slider_);
  const QSignalBlocker block_box(frame_box_);
  const int last = std::max(0, model_->frameCount() - 1);
  slider_->setRange(0, last);
  slider_->setPageStep(std::max(1, static_cast<int>(std::lround(model_->fps()))));
  frame_box_->setRange(0, last);
  setEnabled(model_->frameCount() > 0);
  syncFrame();
}

void TimelineWidget::syncFrame() {
  const QSignalBlocker block_slider(slider_);
  const QSignalBlocker block_box(frame_box_);
  const int frame = model_->currentFrame();
  slider_->setValue(frame);
  frame_box_->setValue(frame);
  const double t_s = model_->currentTimeS();
  if (!time_edit_->hasFocus()) time_edit_->setText(QLocale().toString(t_s, 'f', 2));
  time_label_->setText(model_->logTimeText(t_s));
}

void TimelineWidget::jumpToTypedTime() {
  double t_s = 0.0;
  if (parseTimeText(time_edit_->text(), &t_s)) model_->seekToTime(t_s);
  time_edit_->setText(QLocale().toString(model_->currentTimeS(), 'f', 2));
  // Hand the keyboard back: the playback shortcuts (Space, Left, Right) are the window's.
  if (time_edit_->hasFocus()) time_edit_->clearFocus();
}

void TimelineWidget::retranslateUi() {
  back_button_->setToolTip(tr("Step back one frame (Left)"));
  forward_button_->setToolTip(tr("Step forward one frame (Right)"));
  play_button_->setToolTip(model_->isPlaying() ? tr("Pause (Space)") : tr("Play (Space)"));
  slider_->setToolTip(tr("Drag to scrub through the flight"));
  frame_label_->setText(tr("Frame"));
  time_edit_->setToolTip(tr("Jump to a time: seconds, m:ss or h:mm:ss"));
  speed_label_->setText(tr("Speed"));
  speed_box_->setToolTip(tr("Playback speed"));
  time_label_->setToolTip(tr("Flight log time of the current frame"));
  syncFrame();
}

void TimelineWidget::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange) retranslateUi();
  QWidget::changeEvent(event);
}

}  // namespace skytrace::ui
