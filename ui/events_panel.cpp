#include "ui/events_panel.h"

#include <QCoreApplication>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <cmath>

#include "ui/results_model.h"
#include "ui/time_model.h"

namespace skytrace::ui {
namespace {

using app::FlightEvent;
using app::FlightEventKind;

constexpr int kEventIndexRole = Qt::UserRole + 1;

QIcon swatch(const QColor& colour) {
  QPixmap pixmap(12, 12);
  pixmap.fill(Qt::transparent);
  QPainter painter(&pixmap);
  painter.setRenderHint(QPainter::Antialiasing);
  painter.setPen(colour.darker(150));
  painter.setBrush(colour);
  painter.drawRoundedRect(QRectF(0.5, 0.5, 11, 11), 2, 2);
  return QIcon(pixmap);
}

}  // namespace

QString rejectionReasonText(const QString& reason) {
  struct Known {
    const char* code;
    const char* text;
  };
  static const Known kKnown[] = {
      {"too_few_inliers", QT_TRANSLATE_NOOP("skytrace::ui::EventsPanel", "too few matches agree")},
      {"low_inlier_ratio", QT_TRANSLATE_NOOP("skytrace::ui::EventsPanel", "too small a share of the matches agree")},
      {"weak_correlation", QT_TRANSLATE_NOOP("skytrace::ui::EventsPanel", "no clear correlation peak")},
      {"low_correlation", QT_TRANSLATE_NOOP("skytrace::ui::EventsPanel", "low correlation")},
      {"ambiguous", QT_TRANSLATE_NOOP("skytrace::ui::EventsPanel", "ambiguous: several places fit")},
      {"bad_geometry", QT_TRANSLATE_NOOP("skytrace::ui::EventsPanel", "implausible camera geometry")},
      {"inconsistent_with_odometry", QT_TRANSLATE_NOOP("skytrace::ui::EventsPanel", "inconsistent with the odometry")},
      {"no_candidate", QT_TRANSLATE_NOOP("skytrace::ui::EventsPanel", "no basemap under the search area")},
      {"no_texture", QT_TRANSLATE_NOOP("skytrace::ui::EventsPanel", "too little texture")},
      {"frame_too_small", QT_TRANSLATE_NOOP("skytrace::ui::EventsPanel", "the frame covers too few map pixels")},
      {"map_too_large_for_global_search",
       QT_TRANSLATE_NOOP("skytrace::ui::EventsPanel", "map too large to search without a position")},
      {"unknown", QT_TRANSLATE_NOOP("skytrace::ui::EventsPanel", "no reason recorded")},
  };
  for (const Known& k : kKnown)
    if (reason == QLatin1String(k.code)) return QCoreApplication::translate("skytrace::ui::EventsPanel", k.text);
  return reason;
}

EventsPanel::EventsPanel(ResultsModel* results, TimeModel* time, QWidget* parent)
    : QWidget(parent), results_(results), time_(time) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->setSpacing(4);
  auto* filter_row = new QHBoxLayout();
  filter_row->setSpacing(2);
  for (int i = 0; i < app::kFlightEventKindCount; ++i) {
    auto* button = new QToolButton(this);
    button->setObjectName(QStringLiteral("eventFilter_%1").arg(app::flightEventKindName(FlightEventKind(i))));
    button->setCheckable(true);
    button->setChecked(true);
    button->setAutoRaise(true);
    button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    button->setIcon(swatch(colourOf(FlightEventKind(i))));
    connect(button, &QToolButton::toggled, this, [this] {
      rebuildList();
      Q_EMIT eventsChanged();
    });
    filters_[i] = button;
    filter_row->addWidget(button);
  }
  filter_row->addStretch(1);
  layout->addLayout(filter_row);

  list_ = new QTreeWidget(this);
  list_->setObjectName(QStringLiteral("eventsList"));
  list_->setColumnCount(3);
  list_->setRootIsDecorated(false);
  list_->setUniformRowHeights(true);
  list_->setAlternatingRowColors(true);
  list_->header()->setStretchLastSection(true);
  list_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  list_->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  connect(list_, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) { activate(item); });
  connect(list_, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) { activate(item); });
  layout->addWidget(list_, 1);
  empty_label_ = new QLabel(this);
  empty_label_->setWordWrap(true);
  empty_label_->setAlignment(Qt::AlignCenter);
  layout->addWidget(empty_label_, 1);
  retranslateUi();
}

QColor EventsPanel::colourOf(FlightEventKind kind) {
  switch (kind) {
    case FlightEventKind::FlaggedGnss: return QColor(220, 40, 40);
    case FlightEventKind::RejectedFixes: return QColor(255, 140, 0);
    case FlightEventKind::OdometryLost: return QColor(150, 80, 220);
    case FlightEventKind::GnssDropout: return QColor(120, 120, 120);
    case FlightEventKind::FixFarFromTrack: return QColor(0, 140, 170);
  }
  return QColor(Qt::gray);
}

QString EventsPanel::titleOf(FlightEventKind kind) {
  switch (kind) {
    case FlightEventKind::FlaggedGnss: return tr("GNSS flagged");
    case FlightEventKind::RejectedFixes: return tr("Registration rejected");
    case FlightEventKind::OdometryLost: return tr("Odometry lost");
    case FlightEventKind::GnssDropout: return tr("GNSS dropout");
    case FlightEventKind::FixFarFromTrack: return tr("Registration set aside");
  }
  return QString();
}

QString EventsPanel::detailsOf(const FlightEvent& event) {
  const QString duration = QLocale().toString(event.durationS(), 'f', 1);
  switch (event.kind) {
    case FlightEventKind::FlaggedGnss:
      return tr("up to %1 m from the visual track, for %2 s")
          .arg(QLocale().toString(event.max_m, 'f', 1), duration);
    case FlightEventKind::RejectedFixes: {
      QStringList reasons;
      for (const auto& [reason, count] : event.reasons)
        reasons << tr("%1 (%2)").arg(rejectionReasonText(QString::fromStdString(reason))).arg(count);
      const QString why = reasons.join(QStringLiteral(", "));
      return event.count == 1 ? tr("1 attempt: %1").arg(why) : tr("%1 attempts in a row: %2").arg(event.count).arg(why);
    }
    case FlightEventKind::OdometryLost:
      return event.count == 1 ? tr("1 frame without a visual odometry measurement; the track coasts")
                              : tr("%1 frames without a visual odometry measurement; the track coasts")
                                    .arg(event.count);
    case FlightEventKind::GnssDropout:
      return tr("no GNSS position in the log for %1 s").arg(duration);
    case FlightEventKind::FixFarFromTrack:
      return tr("accepted with %1 inliers, but the final track passes %2 m from it: the other "
                "registrations and the odometry disagree with it")
          .arg(event.count)
          .arg(QLocale().toString(event.max_m, 'f', 1));
  }
  return QString();
}

QString EventsPanel::timeText(double t_s) {
  const double rounded = std::round(t_s * 10.0) / 10.0;
  const int minutes = static_cast<int>(rounded / 60.0);
  return QStringLiteral("%1:%2").arg(minutes).arg(QLocale().toString(rounded - 60.0 * minutes, 'f', 1).rightJustified(4, QLatin1Char('0')));
}

std::vector<TimelineMarker> EventsPanel::markers() const {
  std::vector<TimelineMarker> markers;
  for (const FlightEvent& event : events_) {
    if (!filters_[int(event.kind)]->isChecked()) continue;
    markers.push_back({event.span.start_s, event.span.end_s, colourOf(event.kind), titleOf(event.kind)});
  }
  return markers;
}

void EventsPanel::refresh() {
  std::vector<FlightEvent> events = app::flightEvents(results_->results());
  const bool results_empty = results_->results().empty();
  if (events == events_ && results_empty == results_empty_) return;
  events_ = std::move(events);
  results_empty_ = results_empty;
  rebuildList();
  Q_EMIT eventsChanged();
}

void EventsPanel::rebuildList() {
  int counts[app::kFlightEventKindCount] = {};
  for (const FlightEvent& event : events_) ++counts[int(event.kind)];
  for (int i = 0; i < app::kFlightEventKindCount; ++i)
    filters_[i]->setText(tr("%1 (%2)").arg(titleOf(FlightEventKind(i))).arg(counts[i]));

  const int selected = list_->currentItem() ? list_->currentItem()->data(0, kEventIndexRole).toInt() : -1;
  list_->clear();
  QList<QTreeWidgetItem*> items;
  for (std::size_t i = 0; i < events_.size(); ++i) {
    const FlightEvent& event = events_[i];
    if (!filters_[int(event.kind)]->isChecked()) continue;
    auto* item = new QTreeWidgetItem();
    item->setText(0, timeText(event.span.start_s));
    item->setToolTip(0, time_->logTimeText(event.span.start_s));
    item->setIcon(1, swatch(colourOf(event.kind)));
    item->setText(1, titleOf(event.kind));
    item->setText(2, detailsOf(event));
    item->setToolTip(2, item->text(2));
    item->setData(0, kEventIndexRole, static_cast<int>(i));
    items << item;
  }
  list_->addTopLevelItems(items);
  for (QTreeWidgetItem* item : items)
    if (item->data(0, kEventIndexRole).toInt() == selected) list_->setCurrentItem(item);
  const bool none = events_.empty();
  list_->setVisible(!none);
  empty_label_->setVisible(none);
  empty_label_->setText(results_empty_
                            ? tr("Events of a processed flight appear here: flagged GNSS, rejected "
                                 "registrations, lost odometry, GNSS dropouts and registrations the track set aside.")
                            : tr("No events: no GNSS flagged, no registration rejected, no odometry lost, "
                                 "no GNSS dropout and no registration set aside."));
}

void EventsPanel::activate(QTreeWidgetItem* item) {
  if (!item) return;
  const int index = item->data(0, kEventIndexRole).toInt();
  if (index >= 0 && index < static_cast<int>(events_.size())) Q_EMIT timeRequested(events_[index].span.start_s);
}

void EventsPanel::retranslateUi() {
  list_->setHeaderLabels({tr("Time"), tr("Event"), tr("Details")});
  for (int i = 0; i < app::kFlightEventKindCount; ++i)
    filters_[i]->setToolTip(tr("Show or hide the events of this kind, in the list and on the timeline"));
  rebuildList();
}

void EventsPanel::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange && list_) retranslateUi();
  QWidget::changeEvent(event);
}

}  // namespace skytrace::ui
