// EventsPanel: the events of the flight on screen (app::flightEvents: flagged GNSS,
// rejected registrations, lost odometry, GNSS dropouts), one row each in time order,
// with a filter button per kind that also counts it. Activating a row (click, Enter)
// seeks the timeline to the event's start; the same events, filtered alike, are the
// timeline's markers (markers()). The owner calls refresh() when the results changed
// (at most once per 40 ms, ResultsModel::changed); the list is rebuilt only when the
// events did change, so a selection survives a live run's updates.
// Thread: GUI thread only.
#pragma once

#include <QColor>
#include <QWidget>

#include <array>
#include <vector>

#include "core/app/flight_events.h"
#include "ui/timeline_widget.h"

class QLabel;
class QToolButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace skytrace::ui {

class ResultsModel;
class TimeModel;

class EventsPanel : public QWidget {
  Q_OBJECT

 public:
  EventsPanel(ResultsModel* results, TimeModel* time, QWidget* parent = nullptr);

  QTreeWidget* list() const { return list_; }
  QToolButton* filterButton(app::FlightEventKind kind) const { return filters_[int(kind)]; }
  // Every event of the results, shown or filtered out.
  const std::vector<app::FlightEvent>& events() const { return events_; }
  // The events shown (after the filter), as timeline markers.
  std::vector<TimelineMarker> markers() const;

  static QColor colourOf(app::FlightEventKind kind);
  // An event in words (the list's columns; the flight report uses them too).
  static QString titleOf(app::FlightEventKind kind);
  static QString detailsOf(const app::FlightEvent& event);
  static QString timeText(double t_s);  // "1:05.3" (video time)

 Q_SIGNALS:
  // The analyst chose an event: its start on the video timeline, seconds.
  void timeRequested(double t_s);
  // The events or the filter changed (the timeline's markers follow).
  void eventsChanged();

 public Q_SLOTS:
  void refresh();

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void rebuildList();
  void retranslateUi();
  void activate(QTreeWidgetItem* item);

  ResultsModel* results_;
  TimeModel* time_;
  QTreeWidget* list_ = nullptr;
  QLabel* empty_label_ = nullptr;
  std::array<QToolButton*, app::kFlightEventKindCount> filters_{};
  std::vector<app::FlightEvent> events_;
  bool results_empty_ = true;  // what the empty list's note says
};

// A registration's rejection reason (fixes.csv `reason`) in words; the code itself when
// it is not one the registrar writes.
QString rejectionReasonText(const QString& reason);

}  // namespace skytrace::ui
