#include "ui/trajectory_plot.h"

#include <QEvent>
#include <QVBoxLayout>

#include "ui/qcustomplot_include.h"

namespace skytrace::ui {

TrajectoryPlot::TrajectoryPlot(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot_);
  plot_->setMinimumHeight(160);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);

  visual_ = plot_->addGraph();
  visual_->setPen(QPen(QColor(220, 60, 40), 2));
  visual_->setLineStyle(QCPGraph::lsLine);
  gnss_ = plot_->addGraph();
  gnss_->setPen(QPen(QColor(30, 110, 220), 2, Qt::DashLine));
  plot_->legend->setVisible(true);
  plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  plot_->xAxis->setRange(-100, 100);
  plot_->yAxis->setRange(-100, 100);
  retranslateUi();
}

void TrajectoryPlot::retranslateUi() {
  plot_->xAxis->setLabel(tr("East [m]"));
  plot_->yAxis->setLabel(tr("North [m]"));
  visual_->setName(tr("Visual track"));
  gnss_->setName(tr("GNSS track"));
  plot_->replot();
}

void TrajectoryPlot::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange) retranslateUi();
  QWidget::changeEvent(event);
}

}  // namespace skytrace::ui
