// OpenFlightDialog: chooses what a project holds: the video (file or image folder), one
// or more basemaps, an optional flight log, the camera (processing default, a camera
// file, a horizontal FOV, or the log's camera model), how it is processed (models and
// devices of both stages, mode: ProcessingOptionsWidget), plus the results folder. It
// says clearly when a learned model's weights are missing and what processing then does.
// OK is enabled only for a valid project (io::Project::check() and a valid model choice).
// Thread: GUI thread only.
#pragma once

#include <QDialog>

#include <optional>
#include <string>

#include "core/io/project_file.h"

class QComboBox;
class QDialogButtonBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace skytrace::ui {

class ProcessingOptionsWidget;

class OpenFlightDialog : public QDialog {
  Q_OBJECT

 public:
  explicit OpenFlightDialog(QWidget* parent = nullptr);

  void setProject(const io::Project& project);
  io::Project project() const;

  // Files dropped or given on the command line: sorted by kind (video, basemap, log,
  // camera JSON) into the fields. Returns the paths it could not place.
  QStringList addPaths(const QStringList& paths);

  // The note shown for the chosen models ("" when their weights are found or none needed).
  QString modelNote() const;
  // Empty when the project is valid, else why not (as shown under the fields).
  QString validationMessage() const;

  ProcessingOptionsWidget* processingOptions() const { return processing_; }

 protected:
  void changeEvent(QEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void retranslateUi();
  void updateState();

  // The clock offset of the project's log (not edited here), kept while that log is.
  std::string offset_log_;
  std::optional<double> telemetry_time_offset_s_;
  QLabel* video_label_ = nullptr;
  QLineEdit* video_edit_ = nullptr;
  QPushButton* video_button_ = nullptr;
  QPushButton* folder_button_ = nullptr;
  QLabel* basemaps_label_ = nullptr;
  QListWidget* basemap_list_ = nullptr;
  QPushButton* add_basemap_button_ = nullptr;
  QPushButton* remove_basemap_button_ = nullptr;
  QLabel* telemetry_label_ = nullptr;
  QLineEdit* telemetry_edit_ = nullptr;
  QPushButton* telemetry_button_ = nullptr;
  QLabel* camera_label_ = nullptr;
  QComboBox* camera_box_ = nullptr;
  QLineEdit* camera_file_edit_ = nullptr;
  QPushButton* camera_file_button_ = nullptr;
  QDoubleSpinBox* hfov_box_ = nullptr;
  QLabel* model_label_ = nullptr;
  ProcessingOptionsWidget* processing_ = nullptr;
  QLabel* results_label_ = nullptr;
  QLineEdit* results_edit_ = nullptr;
  QPushButton* results_button_ = nullptr;
  QLabel* validation_label_ = nullptr;
  QDialogButtonBox* buttons_ = nullptr;
};

// What kind of input a path is, from its extension (or being a folder).
enum class InputKind { Unknown, Project, Video, ImageFolder, Basemap, Telemetry, CameraFile, ResultsFolder };
InputKind classifyInputPath(const QString& path);

}  // namespace skytrace::ui
