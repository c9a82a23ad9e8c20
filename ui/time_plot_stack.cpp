#include "ui/time_plot_stack.h"

#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

#include "ui/qcustomplot_include.h"
#include "ui/time_plot.h"

namespace skytrace::ui {
namespace {

// The value axes' width: tick labels of up to five digits and the axis title.
constexpr int kLeftMarginPx = 72;
// Low enough that two plots fit the dock's default height; the splitter and the dock
// make them taller.
constexpr int kMinPlotHeightPx = 70;

}  // namespace

TimePlotStack::TimePlotStack(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  toggles_ = new QWidget(this);
  auto* toggle_row = new QHBoxLayout(toggles_);
  toggle_row->setContentsMargins(4, 2, 4, 2);
  toggle_row->setSpacing(2);
  toggle_row->addStretch(1);
  reset_button_ = new QToolButton(toggles_);
  reset_button_->setObjectName(QStringLiteral("plotResetZoom"));
  reset_button_->setAutoRaise(true);
  connect(reset_button_, &QToolButton::clicked, this, [this] {
    if (refit_) refit_();
  });
  toggle_row->addWidget(reset_button_);
  layout->addWidget(toggles_);
  splitter_ = new QSplitter(Qt::Vertical, this);
  splitter_->setChildrenCollapsible(false);
  splitter_->setHandleWidth(3);
  layout->addWidget(splitter_, 1);
  retranslateUi();
}

void TimePlotStack::addPlot(TimePlot* plot, const QString& key, bool shown) {
  auto* button = new QToolButton(toggles_);
  button->setObjectName(QStringLiteral("plotToggle_") + key);
  button->setCheckable(true);
  button->setChecked(shown);
  button->setAutoRaise(true);
  auto* row = static_cast<QHBoxLayout*>(toggles_->layout());
  row->insertWidget(row->count() - 2, button);  // before the stretch and Reset Zoom
  connect(button, &QToolButton::toggled, this, [this, plot](bool on) { setPlotShown(plot, on); });
  splitter_->addWidget(plot);
  plot->setLeftMargin(kLeftMarginPx);
  plot->plot()->setMinimumHeight(kMinPlotHeightPx);
  plot->setVisible(shown);
  entries_.push_back({plot, key, button});
  connect(plot->plot()->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
          [this, plot] { linkTime(plot); });
  connect(plot, &TimePlot::hovered, this, [this, plot](double t_s) {
    for (const Entry& e : entries_)
      if (e.plot != plot && e.plot->isVisible()) e.plot->setHoverTime(t_s);
  });
  updateAxes();
  retranslateUi();
}

void TimePlotStack::setPlotTitle(TimePlot* plot, const QString& title) {
  if (const Entry* e = entryOf(plot)) e->button->setText(title);
}

void TimePlotStack::setPlotShown(TimePlot* plot, bool shown) {
  const Entry* e = entryOf(plot);
  if (!e) return;
  if (e->button->isChecked() != shown) {
    e->button->setChecked(shown);  // comes back here through toggled
    return;
  }
  plot->setVisible(shown);
  if (shown) {
    // Join the others' time window.
    for (const Entry& other : entries_) {
      if (other.plot != plot && !other.plot->isHidden()) {
        plot->plot()->xAxis->setRange(other.plot->plot()->xAxis->range());
        break;
      }
    }
    plot->replotIfVisible();
  }
  updateAxes();
  Q_EMIT layoutChanged();
}

bool TimePlotStack::isPlotShown(TimePlot* plot) const {
  const Entry* e = entryOf(plot);
  return e && e->button->isChecked();
}

QToolButton* TimePlotStack::toggleButton(TimePlot* plot) const {
  const Entry* e = entryOf(plot);
  return e ? e->button : nullptr;
}

QStringList TimePlotStack::shownKeys() const {
  QStringList keys;
  for (const Entry& e : entries_)
    if (e.button->isChecked()) keys << e.key;
  return keys;
}

void TimePlotStack::setShownKeys(const QStringList& keys) {
  for (const Entry& e : entries_) setPlotShown(e.plot, keys.contains(e.key));
}

void TimePlotStack::linkTime(TimePlot* source) {
  if (linking_) return;
  linking_ = true;
  const QCPRange range = source->plot()->xAxis->range();
  for (const Entry& e : entries_) {
    if (e.plot == source || e.plot->plot()->xAxis->range() == range) continue;
    e.plot->plot()->xAxis->setRange(range);
    e.plot->replotIfVisible();
  }
  linking_ = false;
}

void TimePlotStack::updateAxes() {
  const Entry* bottom = nullptr;
  for (const Entry& e : entries_)
    if (e.button->isChecked()) bottom = &e;
  for (const Entry& e : entries_) {
    e.plot->setTimeAxisLabelled(&e == bottom);
    e.plot->replotIfVisible();
  }
}

const TimePlotStack::Entry* TimePlotStack::entryOf(TimePlot* plot) const {
  for (const Entry& e : entries_)
    if (e.plot == plot) return &e;
  return nullptr;
}

namespace {

// The exported picture: a title line, then each plot at 1400 x 300 px.
constexpr int kExportWidthPx = 1400, kExportPlotHeightPx = 300, kExportTitleHeightPx = 50;

void drawStack(QPainter& painter, const std::vector<TimePlot*>& shown, const QString& title) {
  const int height = kExportTitleHeightPx + kExportPlotHeightPx * static_cast<int>(shown.size());
  painter.fillRect(QRect(0, 0, kExportWidthPx, height), Qt::white);
  QFont font = painter.font();
  font.setPointSizeF(14);
  font.setBold(true);
  painter.setFont(font);
  painter.setPen(Qt::black);
  painter.drawText(QRect(16, 0, kExportWidthPx - 32, kExportTitleHeightPx), Qt::AlignVCenter | Qt::AlignLeft, title);
  for (std::size_t i = 0; i < shown.size(); ++i)
    painter.drawPixmap(0, kExportTitleHeightPx + static_cast<int>(i) * kExportPlotHeightPx,
                       shown[i]->plot()->toPixmap(kExportWidthPx, kExportPlotHeightPx));
}

}  // namespace

std::vector<TimePlot*> TimePlotStack::shownPlots() const {
  std::vector<TimePlot*> shown;
  for (const Entry& e : entries_)
    if (e.button->isChecked()) shown.push_back(e.plot);
  return shown;
}

QImage TimePlotStack::image(const QString& title) {
  const std::vector<TimePlot*> shown = shownPlots();
  if (shown.empty()) return {};
  QImage picture(kExportWidthPx, kExportTitleHeightPx + kExportPlotHeightPx * static_cast<int>(shown.size()),
                 QImage::Format_RGB32);
  QPainter painter(&picture);
  drawStack(painter, shown, title);
  return picture;
}

bool TimePlotStack::exportImage(const QString& path, const QString& title) {
  const std::vector<TimePlot*> shown = shownPlots();
  if (shown.empty()) return false;
  if (QFileInfo(path).suffix().compare(QLatin1String("pdf"), Qt::CaseInsensitive) == 0) {
    const int height = kExportTitleHeightPx + kExportPlotHeightPx * static_cast<int>(shown.size());
    QPdfWriter writer(path);
    writer.setTitle(title);
    writer.setCreator(QStringLiteral("Skytrace"));
    writer.setPageSize(QPageSize(QSizeF(kExportWidthPx, height), QPageSize::Point));
    writer.setPageMargins(QMarginsF(0, 0, 0, 0));
    writer.setResolution(72);
    QPainter painter;
    if (!painter.begin(&writer)) return false;
    drawStack(painter, shown, title);
    return painter.end();
  }
  return image(title).save(path);
}

void TimePlotStack::retranslateUi() {
  reset_button_->setText(tr("Reset Zoom"));
  reset_button_->setToolTip(tr("Fit every plot to its data and the whole flight"));
  for (const Entry& e : entries_)
    e.button->setToolTip(tr("Show or hide this plot; all plots share one time axis"));
}

void TimePlotStack::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange && reset_button_) retranslateUi();
  QWidget::changeEvent(event);
}

}  // namespace skytrace::ui
