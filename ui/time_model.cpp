#include "ui/time_model.h"

#include <QLocale>
#include <QTimeZone>

#include <algorithm>
#include <cmath>

namespace skytrace::ui {

QDateTime utcDateTime(double unix_s) {
  return QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(std::llround(unix_s * 1000.0)), QTimeZone::utc());
}
namespace {
constexpr int kTickMs = 40;
}

const double TimeModel::kSpeeds[] = {0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0};
const int TimeModel::kSpeedCount = 7;

TimeModel::TimeModel(QObject* parent) : QObject(parent) {
  timer_.setInterval(kTickMs);
  timer_.setTimerType(Qt::PreciseTimer);
  connect(&timer_, &QTimer::timeout, this, &TimeModel::tick);
}

void TimeModel::setTimeline(int frame_count, double fps, double start_unix_s,
                            std::vector<double> frame_times_s) {
  pause();
  frame_count_ = std::max(0, frame_count);
  fps_ = fps > 0.0 && std::isfinite(fps) ? fps : 30.0;
  start_unix_s_ = start_unix_s;
  frame_times_s_ = std::move(frame_times_s);
  frame_ = 0;
  Q_EMIT timelineChanged();
  Q_EMIT currentFrameChanged(frame_, currentTimeS());
}

void TimeModel::setFrameCount(int frame_count) {
  if (frame_count == frame_count_) return;
  frame_count_ = std::max(0, frame_count);
  Q_EMIT timelineChanged();
  if (frame_ >= frame_count_ && frame_count_ > 0) setCurrentFrame(frame_count_ - 1);
}

void TimeModel::setStartUnixS(double start_unix_s) {
  start_unix_s_ = start_unix_s;
  Q_EMIT timelineChanged();
  Q_EMIT currentFrameChanged(frame_, currentTimeS());
}

double TimeModel::timeOfFrame(int frame) const {
  const int known = static_cast<int>(frame_times_s_.size());
  if (known == 0 || frame < 0) return frame / fps_;
  if (frame < known) return frame_times_s_[static_cast<std::size_t>(frame)];
  return frame_times_s_.back() + (frame - (known - 1)) / fps_;
}

int TimeModel::frameAtTime(double t_s) const {
  if (frame_count_ <= 0 || !std::isfinite(t_s)) return 0;
  const int known = std::min(static_cast<int>(frame_times_s_.size()), frame_count_);
  if (known == 0 || t_s > frame_times_s_[static_cast<std::size_t>(known - 1)]) {
    const double from_t = known > 0 ? frame_times_s_[static_cast<std::size_t>(known - 1)] : 0.0;
    const int from_frame = known > 0 ? known - 1 : 0;
    return std::clamp(from_frame + static_cast<int>(std::lround((t_s - from_t) * fps_)), 0, frame_count_ - 1);
  }
  // The nearest of the timed frames.
  const auto end = frame_times_s_.begin() + known;
  const auto after = std::lower_bound(frame_times_s_.begin(), end, t_s);
  if (after == frame_times_s_.begin()) return 0;
  const auto before = after - 1;
  const auto nearest = (after == end || t_s - *before <= *after - t_s) ? before : after;
  return static_cast<int>(nearest - frame_times_s_.begin());
}

void TimeModel::setCurrentFrame(int frame) {
  const int clamped = frame_count_ > 0 ? std::clamp(frame, 0, frame_count_ - 1) : 0;
  if (clamped == frame_) return;
  frame_ = clamped;
  if (isPlaying()) {  // a seek while playing continues from the new place
    play_origin_t_s_ = currentTimeS();
    play_clock_.restart();
  }
  Q_EMIT currentFrameChanged(frame_, currentTimeS());
}

void TimeModel::play() {
  if (isPlaying() || frame_count_ <= 1) return;
  if (frame_ >= frame_count_ - 1) setCurrentFrame(0);  // replay from the start
  play_origin_t_s_ = currentTimeS();
  play_clock_.start();
  timer_.start();
  Q_EMIT playingChanged(true);
}

void TimeModel::pause() {
  if (!isPlaying()) return;
  timer_.stop();
  Q_EMIT playingChanged(false);
}

void TimeModel::setSpeed(double speed) {
  const double clamped = std::clamp(speed, 0.25, 16.0);
  if (clamped == speed_) return;
  if (isPlaying()) {
    play_origin_t_s_ = play_origin_t_s_ + play_clock_.elapsed() / 1000.0 * speed_;
    play_clock_.restart();
  }
  speed_ = clamped;
  Q_EMIT speedChanged(speed_);
}

void TimeModel::tick() {
  const double t_s = play_origin_t_s_ + play_clock_.elapsed() / 1000.0 * speed_;
  const int frame = std::min(static_cast<int>(std::floor(t_s * fps_ + 1e-9)), frame_count_ - 1);
  if (frame != frame_) {
    frame_ = frame;
    Q_EMIT currentFrameChanged(frame_, currentTimeS());
  }
  if (frame_ >= frame_count_ - 1) pause();
}

QString TimeModel::logTimeText(double t_s) const {
  if (!std::isfinite(start_unix_s_))
    return tr("t = %1 s").arg(QLocale().toString(t_s, 'f', 3));
  return utcDateTime(start_unix_s_ + t_s).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz")) +
         QStringLiteral(" UTC");
}

}  // namespace skytrace::ui
