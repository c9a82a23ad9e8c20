// TimeModel: the one current time every view follows (video frame, map position, plot
// cursors), and the playback clock that moves it.
//
// Time is the video timeline: frame i at t_s = i / fps (seconds from the first frame), or
// at its own time when the frames come with one (a folder of photos timed by their
// capture times); the flight log's absolute time is start_unix_s + t_s when the start is
// known. Playback
// advances by wall-clock elapsed x speed, in ticks of 40 ms, so however fast it plays
// the views get at most 25 time changes per second (frames in between are skipped, as a
// player does). Changing the time to the frame it already shows emits nothing.
// Thread: GUI thread only.
#pragma once

#include <QDateTime>
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <limits>
#include <vector>

namespace skytrace::ui {

// `unix_s` (seconds since 1970-01-01 UTC) as a UTC date-time, to the millisecond.
QDateTime utcDateTime(double unix_s);

class TimeModel : public QObject {
  Q_OBJECT

 public:
  explicit TimeModel(QObject* parent = nullptr);

  // The timeline: frame_count frames at fps (> 0); resets the current frame to 0 and
  // stops playback. start_unix_s: UTC of frame 0, NaN when unknown. frame_times_s, when
  // not empty: frame i's time (increasing, from 0); frames beyond it follow at fps.
  void setTimeline(int frame_count, double fps,
                   double start_unix_s = std::numeric_limits<double>::quiet_NaN(),
                   std::vector<double> frame_times_s = {});
  // Dates the timeline (UTC of frame 0, NaN when unknown); keeps the frame and playback.
  void setStartUnixS(double start_unix_s);
  // The timeline grows while a flight is processed (live): keeps the current frame.
  void setFrameCount(int frame_count);
  int frameCount() const { return frame_count_; }
  double fps() const { return fps_; }
  double durationS() const { return frame_count_ > 0 ? timeOfFrame(frame_count_ - 1) : 0.0; }
  double startUnixS() const { return start_unix_s_; }

  int currentFrame() const { return frame_; }
  double currentTimeS() const { return timeOfFrame(frame_); }
  double timeOfFrame(int frame) const;
  // Nearest frame to t_s, clamped to the timeline.
  int frameAtTime(double t_s) const;

  bool isPlaying() const { return timer_.isActive(); }
  double speed() const { return speed_; }
  // Speeds offered by the timeline widget (0.25x .. 16x).
  static const double kSpeeds[];
  static const int kSpeedCount;

  // "2024-06-01 10:00:12.300 UTC" when the start is known, else "t = 12.300 s".
  QString logTimeText(double t_s) const;

 Q_SIGNALS:
  void currentFrameChanged(int frame, double t_s);
  void timelineChanged();
  void playingChanged(bool playing);
  void speedChanged(double speed);

 public Q_SLOTS:
  void setCurrentFrame(int frame);
  void seekToTime(double t_s) { setCurrentFrame(frameAtTime(t_s)); }
  void play();
  void pause();
  void togglePlay() { isPlaying() ? pause() : play(); }
  void stepForward() { pause(); setCurrentFrame(frame_ + 1); }
  void stepBackward() { pause(); setCurrentFrame(frame_ - 1); }
  // Clamped to [0.25, 16].
  void setSpeed(double speed);

 private:
  void tick();

  int frame_count_ = 0;
  double fps_ = 30.0;
  std::vector<double> frame_times_s_;  // empty: frame i at i / fps_
  double start_unix_s_ = std::numeric_limits<double>::quiet_NaN();
  int frame_ = 0;
  double speed_ = 1.0;
  double play_origin_t_s_ = 0.0;  // timeline time when playback (re)started
  QElapsedTimer play_clock_;
  QTimer timer_;
};

}  // namespace skytrace::ui
