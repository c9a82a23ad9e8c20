#include "ui/timeline_widget.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QStyle>
#include <QToolButton>

#include <algorithm>
#include <cmath>

#include "ui/time_model.h"

namespace skytrace::ui {

bool parseTimeText(const QString& text, double* t_s) {
  const QStringList parts = text.trimmed().split(QLatin1Char(':'));
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
  slider_ = new QSlider(Qt::Horizontal, this);
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
  if (!time_edit_->hasFocus()) time_edit_->setText(QString::number(t_s, 'f', 2));
  time_label_->setText(model_->logTimeText(t_s));
}

void TimelineWidget::jumpToTypedTime() {
  double t_s = 0.0;
  if (parseTimeText(time_edit_->text(), &t_s)) model_->seekToTime(t_s);
  time_edit_->setText(QString::number(model_->currentTimeS(), 'f', 2));
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
