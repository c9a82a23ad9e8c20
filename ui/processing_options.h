// How a project is processed, as the analyst chooses it:
//   ProcessingOptionsWidget  the visual odometry model and device, the satellite stage's
//                            model and device (core/nav/model_choice.h specs, e.g.
//                            "superpoint+lightglue", "dinov2+litesam"; devices "auto",
//                            "cpu", "cuda:N"), the mode (overlapped: the engine;
//                            sequential: one thread) and, for the overlapped mode only,
//                            whether every keyframe is registered (VO waits for the
//                            satellite stage) instead of the newest; float16 on the GPU
//                            (process --half-precision) and LightGlue at full depth
//                            (process --lightglue-depth full; enabled when VO matches with
//                            LightGlue). Under the fields a note names every
//                            weights file the choice needs and cannot find (the file, the
//                            folders searched, where the authors publish it) and what
//                            processing then does; an unknown spec is shown as a problem.
//                            The model folder where weights are looked for is the
//                            application's (vision::setDefaultModelDirectory), set here
//                            and applied at once to every project; SKYTRACE_MODEL_DIR,
//                            when set, wins and is shown instead.
//   ProcessingOptionsDialog  the widget with OK/Cancel (Process > Processing Options).
// The choice lives in io::Project (vo_model, satellite_model, vo_device, satellite_device,
// processing_mode, register_every_keyframe, half_precision, lightglue_depth; feature_model/
// device follow the VO choice for older readers).
// Thread: GUI thread only.
#pragma once

#include <QDialog>
#include <QWidget>

#include "core/io/project_file.h"

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace skytrace::ui {

class ProcessingOptionsWidget : public QWidget {
  Q_OBJECT

 public:
  explicit ProcessingOptionsWidget(QWidget* parent = nullptr);

  // Shows the processing fields of `project` (the effective choice of older projects).
  void setProject(const io::Project& project);
  // Writes the shown choice into the processing fields of `project`.
  void applyTo(io::Project* project) const;

  // Empty when the specs and devices are valid, else why not.
  QString problem() const;
  // The missing-weights note shown ("" when every needed file is found).
  QString weightsNote() const;

  QComboBox* voModelBox() const { return vo_model_box_; }
  QComboBox* voDeviceBox() const { return vo_device_box_; }
  QComboBox* satelliteModelBox() const { return satellite_model_box_; }
  QComboBox* satelliteDeviceBox() const { return satellite_device_box_; }
  QComboBox* modeBox() const { return mode_box_; }
  // Enabled only while the mode is overlapped.
  QCheckBox* everyKeyframeBox() const { return every_keyframe_box_; }
  QCheckBox* halfPrecisionBox() const { return half_precision_box_; }
  // Enabled only while the VO model matches with LightGlue.
  QCheckBox* lightGlueFullDepthBox() const { return full_depth_box_; }
  // The application's model folder (read-only while SKYTRACE_MODEL_DIR is set).
  QLineEdit* modelFolderEdit() const { return model_folder_edit_; }

  // The note for a project's choice, and its problem (pure: for tests and other views).
  static QString weightsNoteFor(const io::Project& project);
  static QString problemFor(const io::Project& project);

 Q_SIGNALS:
  void changed();
  // The analyst set the application's model folder (already applied).
  void modelFolderChanged(const QString& folder);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void retranslateUi();
  void updateNote();
  void updateModeDependents();
  void updateMatcherDependents();

  QLabel* vo_label_ = nullptr;
  QComboBox* vo_model_box_ = nullptr;
  QComboBox* vo_device_box_ = nullptr;
  QLabel* satellite_label_ = nullptr;
  QComboBox* satellite_model_box_ = nullptr;
  QComboBox* satellite_device_box_ = nullptr;
  QLabel* mode_label_ = nullptr;
  QComboBox* mode_box_ = nullptr;
  QCheckBox* every_keyframe_box_ = nullptr;
  QCheckBox* half_precision_box_ = nullptr;
  QCheckBox* full_depth_box_ = nullptr;
  QLabel* model_folder_label_ = nullptr;
  QLineEdit* model_folder_edit_ = nullptr;
  QPushButton* model_folder_button_ = nullptr;
  QLabel* note_label_ = nullptr;
  QLabel* problem_label_ = nullptr;
};

// Gives `window` the height its contents need at its current width: taller when a
// word-wrapped note appears, shorter again when it goes (the width is the analyst's).
void fitHeightToContents(QWidget* window);

class ProcessingOptionsDialog : public QDialog {
  Q_OBJECT

 public:
  explicit ProcessingOptionsDialog(QWidget* parent = nullptr);

  void setProject(const io::Project& project) { widget_->setProject(project); }
  void applyTo(io::Project* project) const { widget_->applyTo(project); }
  ProcessingOptionsWidget* optionsWidget() const { return widget_; }

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void retranslateUi();
  void updateState();

  ProcessingOptionsWidget* widget_ = nullptr;
  QDialogButtonBox* buttons_ = nullptr;
};

}  // namespace skytrace::ui
