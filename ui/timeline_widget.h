// TimelineWidget: the controls of the TimeModel: play/pause, step back/forward, speed
// (0.25x-16x), a scrub slider, jump to a frame or a time, and the current log time
// (the flight's UTC when known, not the wall clock).
// Thread: GUI thread only.
#pragma once

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QSlider;
class QSpinBox;
class QToolButton;

namespace skytrace::ui {

class TimeModel;

class TimelineWidget : public QWidget {
  Q_OBJECT

 public:
  explicit TimelineWidget(TimeModel* model, QWidget* parent = nullptr);

  QSlider* slider() const { return slider_; }
  QSpinBox* frameBox() const { return frame_box_; }
  QLineEdit* timeEdit() const { return time_edit_; }
  QComboBox* speedBox() const { return speed_box_; }
  QToolButton* playButton() const { return play_button_; }
  QLabel* timeLabel() const { return time_label_; }

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void retranslateUi();
  void syncTimeline();
  void syncFrame();
  void jumpToTypedTime();

  TimeModel* model_;
  QToolButton* back_button_ = nullptr;
  QToolButton* play_button_ = nullptr;
  QToolButton* forward_button_ = nullptr;
  QSlider* slider_ = nullptr;
  QSpinBox* frame_box_ = nullptr;
  QLineEdit* time_edit_ = nullptr;
  QComboBox* speed_box_ = nullptr;
  QLabel* time_label_ = nullptr;
  QLabel* frame_label_ = nullptr;
  QLabel* speed_label_ = nullptr;
};

// Parses "75.5", "1:15.5" or "0:01:15.5" as seconds; false when it is none of these.
bool parseTimeText(const QString& text, double* t_s);

}  // namespace skytrace::ui
