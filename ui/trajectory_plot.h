// TrajectoryPlot: the trajectory plot (East/North metres in the flight's local ENU
// frame) on QCustomPlot, with drag/zoom. It starts empty; later stages add the visual
// and GNSS tracks to its two graphs.
// Thread: GUI thread only.
#pragma once

#include <QWidget>

class QCustomPlot;
class QCPGraph;

namespace skytrace::ui {

class TrajectoryPlot : public QWidget {
  Q_OBJECT

 public:
  explicit TrajectoryPlot(QWidget* parent = nullptr);

  QCustomPlot* plot() const { return plot_; }
  QCPGraph* visualGraph() const { return visual_; }
  QCPGraph* gnssGraph() const { return gnss_; }

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void retranslateUi();

  QCustomPlot* plot_ = nullptr;
  QCPGraph* visual_ = nullptr;
  QCPGraph* gnss_ = nullptr;
};

}  // namespace skytrace::ui
