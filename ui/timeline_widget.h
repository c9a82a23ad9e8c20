// TimelineWidget: the controls of the TimeModel: play/pause, step back/forward, speed
// (0.25x-16x), a scrub slider with the flight's events marked on it, jump to a frame or
// a time, and the current log time (the flight's UTC when known, not the wall clock).
// A typed time is applied with Enter and hands the keyboard back to the window, so its
// shortcuts (Space, Left, Right) work again.
// Thread: GUI thread only.
#pragma once

#include <QColor>
#include <QString>
#include <QWidget>

#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QSlider;
class QSpinBox;
class QToolButton;

namespace skytrace::ui {

class TimeModel;
class MarkedSlider;

// A stretch of the timeline drawn on the scrub slider (an event): video seconds.
struct TimelineMarker {
  double start_s = 0.0, end_s = 0.0;
  QColor colour;
  QString label;
};

class TimelineWidget : public QWidget {
  Q_OBJECT

 public:
  explicit TimelineWidget(TimeModel* model, QWidget* parent = nullptr);

  QSlider* slider() const;
  QSpinBox* frameBox() const { return frame_box_; }
  QLineEdit* timeEdit() const { return time_edit_; }
  QComboBox* speedBox() const { return speed_box_; }
  QToolButton* playButton() const { return play_button_; }
  QLabel* timeLabel() const { return time_label_; }

  // Marks these stretches on the slider, under the handle (replaces the previous ones).
  void setMarkers(std::vector<TimelineMarker> markers);
  const std::vector<TimelineMarker>& markers() const;

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
  MarkedSlider* slider_ = nullptr;
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
