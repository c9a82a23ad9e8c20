#include "ui/welcome_page.h"

#include <QEvent>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

namespace skytrace::ui {
namespace {
constexpr int kEntryRole = Qt::UserRole + 1;
}

WelcomePage::WelcomePage(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("welcomePage"));
  setAutoFillBackground(true);
  auto* outer = new QHBoxLayout(this);
  outer->addStretch(1);
  auto* column = new QVBoxLayout();
  column->setSpacing(10);
  outer->addLayout(column, 4);
  outer->addStretch(1);
  column->addStretch(1);

  title_ = new QLabel(this);
  QFont title_font = title_->font();
  title_font.setPointSizeF(title_font.pointSizeF() * 1.8);
  title_font.setBold(true);
  title_->setFont(title_font);
  column->addWidget(title_);
  intro_ = new QLabel(this);
  intro_->setWordWrap(true);
  column->addWidget(intro_);

  auto* buttons = new QGridLayout();
  auto button = [this](const char* name) {
    auto* b = new QPushButton(this);
    b->setObjectName(QLatin1String(name));
    b->setMinimumHeight(36);
    return b;
  };
  open_flight_ = button("welcomeOpenFlight");
  open_project_ = button("welcomeOpenProject");
  open_results_ = button("welcomeOpenResults");
  open_demo_ = button("welcomeOpenDemo");
  open_flight_->setDefault(true);
  buttons->addWidget(open_flight_, 0, 0);
  buttons->addWidget(open_project_, 0, 1);
  buttons->addWidget(open_results_, 1, 0);
  buttons->addWidget(open_demo_, 1, 1);
  column->addLayout(buttons);
  connect(open_flight_, &QPushButton::clicked, this, &WelcomePage::openFlightRequested);
  connect(open_project_, &QPushButton::clicked, this, &WelcomePage::openProjectRequested);
  connect(open_results_, &QPushButton::clicked, this, &WelcomePage::openResultsRequested);
  connect(open_demo_, &QPushButton::clicked, this, &WelcomePage::openDemoRequested);

  demo_progress_ = new QProgressBar(this);
  demo_progress_->setRange(0, 100);
  demo_progress_->hide();
  demo_stage_ = new QLabel(this);
  demo_stage_->hide();
  column->addWidget(demo_progress_);
  column->addWidget(demo_stage_);

  recent_title_ = new QLabel(this);
  QFont bold = recent_title_->font();
  bold.setBold(true);
  recent_title_->setFont(bold);
  column->addSpacing(8);
  column->addWidget(recent_title_);
  recent_ = new QListWidget(this);
  recent_->setObjectName(QStringLiteral("welcomeRecent"));
  recent_->setMaximumHeight(200);
  connect(recent_, &QListWidget::itemActivated, this,
          [this](QListWidgetItem* item) { Q_EMIT recentRequested(item->data(kEntryRole).toString()); });
  connect(recent_, &QListWidget::itemClicked, this,
          [this](QListWidgetItem* item) { Q_EMIT recentRequested(item->data(kEntryRole).toString()); });
  column->addWidget(recent_);
  no_recent_ = new QLabel(this);
  no_recent_->setWordWrap(true);
  column->addWidget(no_recent_);
  column->addStretch(2);
  retranslateUi();
  setRecentEntries({});
}

void WelcomePage::setRecentEntries(const QStringList& entries) {
  recent_entries_ = entries;
  recent_->clear();
  for (const QString& entry : entries) {
    const QString kind = entry.section(QLatin1Char(':'), 0, 0);
    const QString path = entry.section(QLatin1Char(':'), 1);
    QString label;
    if (kind == QLatin1String("project")) label = tr("Project %1").arg(QFileInfo(path).fileName());
    else if (kind == QLatin1String("results")) label = tr("Results %1").arg(QFileInfo(path).fileName());
    else continue;
    auto* item = new QListWidgetItem(label, recent_);
    item->setToolTip(path);
    item->setData(kEntryRole, entry);
  }
  recent_->setVisible(recent_->count() > 0);
  no_recent_->setVisible(recent_->count() == 0);
}

void WelcomePage::setDemoProgress(int percent, const QString& stage) {
  const bool running = percent >= 0;
  demo_progress_->setVisible(running);
  demo_stage_->setVisible(running);
  open_demo_->setEnabled(!running);
  if (!running) return;
  demo_progress_->setValue(percent);
  demo_stage_->setText(tr("Building the demo: %1").arg(stage));
}

void WelcomePage::retranslateUi() {
  title_->setText(tr("Skytrace"));
  intro_->setText(tr("Where was the camera really? Open a flight video with its flight log and a georeferenced "
                     "basemap; Skytrace computes the camera's track from the images, checks the logged GNSS "
                     "against it and shows both beside the video."));
  open_flight_->setText(tr("Open Flight..."));
  open_flight_->setToolTip(tr("Choose a video, basemaps, a flight log and a camera for a new project"));
  open_project_->setText(tr("Open Project..."));
  open_results_->setText(tr("Open Results Folder..."));
  open_results_->setToolTip(tr("Show a folder written by skytrace-cli process"));
  open_demo_->setText(tr("Open the Demo"));
  open_demo_->setToolTip(tr("Build a demo flight over a generated map (a few seconds, no data needed) and "
                            "process it"));
  recent_title_->setText(tr("Recent"));
  no_recent_->setText(tr("Projects and results folders you open are listed here."));
  if (recent_) setRecentEntries(recent_entries_);
}

void WelcomePage::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange && title_) retranslateUi();
  QWidget::changeEvent(event);
}

}  // namespace skytrace::ui
