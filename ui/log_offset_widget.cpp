#include "ui/log_offset_widget.h"

#include <QDoubleSpinBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QSignalBlocker>
#include <QToolButton>

namespace skytrace::ui {

namespace {
constexpr double kMaxOffsetS = 86400.0;  // a day either way: anything further is a wrong log
}  // namespace

LogOffsetWidget::LogOffsetWidget(QWidget* parent) : QWidget(parent) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(6, 0, 6, 2);
  title_label_ = new QLabel(this);
  offset_box_ = new QDoubleSpinBox(this);
  offset_box_->setObjectName(QStringLiteral("logOffsetBox"));
  offset_box_->setDecimals(2);
  offset_box_->setRange(-kMaxOffsetS, kMaxOffsetS);
  offset_box_->setSingleStep(0.1);
  offset_box_->setMinimumWidth(110);
  source_label_ = new QLabel(this);
  automatic_button_ = new QToolButton(this);
  automatic_button_->setObjectName(QStringLiteral("logOffsetAutomatic"));
  measured_button_ = new QToolButton(this);
  measured_button_->setObjectName(QStringLiteral("logOffsetMeasured"));
  layout->addWidget(title_label_);
  layout->addWidget(offset_box_);
  layout->addWidget(source_label_, 1);
  layout->addWidget(automatic_button_);
  layout->addWidget(measured_button_);

  connect(offset_box_, &QDoubleSpinBox::valueChanged, this, [this](double value) { Q_EMIT offsetEdited(value); });
  connect(automatic_button_, &QToolButton::clicked, this, &LogOffsetWidget::automaticRequested);
  connect(measured_button_, &QToolButton::clicked, this, [this] {
    if (std::isfinite(measured_s_)) offset_box_->setValue(measured_s_);  // emits offsetEdited
  });
  showOffset(false, 0.0, QString());
  retranslateUi();
}

void LogOffsetWidget::showOffset(bool has_log, double offset_s, const QString& source) {
  {
    const QSignalBlocker block(offset_box_);
    offset_box_->setValue(std::isfinite(offset_s) ? offset_s : 0.0);
  }
  source_ = has_log ? source : QString();
  offset_box_->setEnabled(has_log);
  automatic_button_->setEnabled(has_log && source == QLatin1String("given"));
  measured_button_->setEnabled(has_log && std::isfinite(measured_s_));
  retranslateUi();
}

void LogOffsetWidget::setMeasuredOffset(double offset_s, double sigma_s) {
  measured_s_ = offset_s;
  measured_sigma_s_ = sigma_s;
  measured_button_->setEnabled(offset_box_->isEnabled() && std::isfinite(measured_s_));
  retranslateUi();
}

double LogOffsetWidget::offset() const { return offset_box_->value(); }

void LogOffsetWidget::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange) retranslateUi();
  QWidget::changeEvent(event);
}

void LogOffsetWidget::retranslateUi() {
  title_label_->setText(tr("Log clock offset:"));
  offset_box_->setSuffix(tr(" s"));
  offset_box_->setToolTip(tr("Video time = flight log time + this offset. Changing it moves the logged "
                             "position on the map at once; the next processing run uses it."));
  if (source_.isEmpty()) {
    source_label_->setText(tr("no flight log"));
  } else if (source_ == QLatin1String("given")) {
    source_label_->setText(tr("set by you"));
  } else if (source_ == QLatin1String("video clock")) {
    source_label_->setText(tr("the log runs on the video's clock"));
  } else if (source_ == QLatin1String("recording time")) {
    source_label_->setText(tr("from the video's recording time"));
  } else {
    source_label_->setText(tr("assumed: the log and the video start together"));
  }
  automatic_button_->setText(tr("Automatic"));
  automatic_button_->setToolTip(tr("Forget the offset set by hand and place the log as processing would "
                                   "(the video's recording time, else 0)"));
  measured_button_->setText(tr("Use Measured"));
  measured_button_->setToolTip(
      std::isfinite(measured_s_)
          ? tr("Take the offset the images measured after the last run: %1 s (1-sigma %2 s)")
                .arg(QLocale().toString(measured_s_, 'f', 2))
                .arg(QLocale().toString(measured_sigma_s_, 'f', 2))
          : tr("After a run with this log, the offset measured from the images can be taken here"));
}

}  // namespace skytrace::ui
