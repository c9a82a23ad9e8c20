// LogOffsetWidget: the flight log's clock against the video's, under the timeline. Shows
// the offset in use (video time = log time + offset, seconds) and where it came from,
// lets the analyst type or step it (every change is emitted at once, so the map's logged
// position moves while they adjust it), go back to the automatic choice, and take the
// offset the images measured after a run (report.json's log_alignment).
// Thread: GUI thread only.
#pragma once

#include <QWidget>

#include <cmath>

class QDoubleSpinBox;
class QLabel;
class QToolButton;

namespace skytrace::ui {

class LogOffsetWidget : public QWidget {
  Q_OBJECT

 public:
  explicit LogOffsetWidget(QWidget* parent = nullptr);

  // Shows `offset_s` and where it came from ("given", "video clock", "recording time",
  // "assumed": app::placeLogOnVideoClock), without emitting offsetEdited. `has_log`
  // false disables the controls.
  void showOffset(bool has_log, double offset_s, const QString& source);
  // The offset the images measured (NaN: none; the button is then disabled).
  void setMeasuredOffset(double offset_s, double sigma_s);

  double offset() const;
  QDoubleSpinBox* offsetBox() const { return offset_box_; }
  QToolButton* measuredButton() const { return measured_button_; }
  QToolButton* automaticButton() const { return automatic_button_; }

 Q_SIGNALS:
  // The analyst set the offset (typed, stepped, or took the measured one).
  void offsetEdited(double offset_s);
  // The analyst asked for the automatic choice again (no offset given).
  void automaticRequested();

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void retranslateUi();

  QLabel* title_label_ = nullptr;
  QDoubleSpinBox* offset_box_ = nullptr;
  QLabel* source_label_ = nullptr;
  QToolButton* automatic_button_ = nullptr;
  QToolButton* measured_button_ = nullptr;
  QString source_;
  double measured_s_ = NAN;
  double measured_sigma_s_ = NAN;
};

}  // namespace skytrace::ui
