// TimePlotStack: several TimePlots stacked over one time axis, as PlotJuggler shows
// them. Zooming or panning time in one plot moves them all; the mouse over one shows the
// read-out at that time in every plot; the plots' value axes line up (one left margin)
// and only the bottom plot labels the time axis. A toggle button per plot shows or hides
// it; Reset Zoom fits every plot again. The plots stay owned by the stack's splitter;
// their data comes from the owner (PlotsPanel).
// Thread: GUI thread only.
#pragma once

#include <QImage>
#include <QWidget>

#include <functional>
#include <vector>

class QSplitter;
class QToolButton;

namespace skytrace::ui {

class TimePlot;

class TimePlotStack : public QWidget {
  Q_OBJECT

 public:
  explicit TimePlotStack(QWidget* parent = nullptr);

  // Adds a plot at the bottom, shown or hidden; its button is named `key`
  // ("plotToggle_<key>").
  void addPlot(TimePlot* plot, const QString& key, bool shown);
  void setPlotTitle(TimePlot* plot, const QString& title);
  void setPlotShown(TimePlot* plot, bool shown);
  bool isPlotShown(TimePlot* plot) const;
  QToolButton* toggleButton(TimePlot* plot) const;
  QToolButton* resetButton() const { return reset_button_; }
  QSplitter* splitter() const { return splitter_; }

  // The shown plots' keys, top to bottom (what QSettings keeps), and setting them back.
  QStringList shownKeys() const;
  void setShownKeys(const QStringList& keys);

  // Called by Reset Zoom: the owner refits every plot's data (PlotsPanel::refit).
  void setRefit(std::function<void()> refit) { refit_ = std::move(refit); }

  // Renders the shown plots, one under the other, under `title`, as PNG or PDF (by the
  // suffix); false on failure (or nothing shown).
  bool exportImage(const QString& path, const QString& title);
  // The same picture as an image (null when no plot is shown).
  QImage image(const QString& title);

 Q_SIGNALS:
  // Plots were shown or hidden.
  void layoutChanged();

 protected:
  void changeEvent(QEvent* event) override;

 private:
  struct Entry {
    TimePlot* plot;
    QString key;
    QToolButton* button;
  };
  void linkTime(TimePlot* source);
  std::vector<TimePlot*> shownPlots() const;
  void updateAxes();
  void retranslateUi();
  const Entry* entryOf(TimePlot* plot) const;

  QSplitter* splitter_ = nullptr;
  QWidget* toggles_ = nullptr;
  QToolButton* reset_button_ = nullptr;
  std::vector<Entry> entries_;
  std::function<void()> refit_;
  bool linking_ = false;
};

}  // namespace skytrace::ui
