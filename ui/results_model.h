// ResultsModel: the flight results every view reads, whole (a results folder) or growing
// (live, while the engine processes). Updates arrive as queued signals from the
// processing side (LiveFrameUpdate, registration fixes, latency batches) and are
// coalesced: the model emits `changed` at most once per 40 ms, and views repaint on
// `changed` only, so no view repaints more than once per 40 ms however fast frames come.
// Thread: GUI thread only (slots are meant for queued connections from workers).
#pragma once

#include <QMetaType>
#include <QObject>
#include <QPointF>
#include <QTimer>
#include <QVector>

#include <map>
#include <vector>

#include "core/engine/latency_recorder.h"
#include "core/app/flight_results.h"

namespace skytrace::ui {

// A results folder's content and its reader live in core/app; the views use them as is.
using app::DiscrepancyRecord;
using app::FlaggedSegment;
using app::FlightResults;
using app::isResultsFolder;
using app::poseIndexAt;
using app::readResultsFolder;
using app::RegistrationFixRecord;
using app::stageFromName;

// What the engine knows about one frame right after processing it.
struct LiveFrameUpdate {
  std::int64_t frame = -1;
  double t_s = 0.0;
  bool has_pose = false;
  geo::TrackPose online;    // the online fused pose (source visual), when has_pose
  bool has_odometry = false;
  geo::TrackPose odometry;  // chained VO pose, when has_odometry
  bool odometry_lost = false;  // VO lost this frame (FrameResult::odometry_lost)
  QVector<QPointF> keypoints_px;   // optional, for the video overlay
  QVector<QPointF> matches_from_px;  // optional: matched point in the reference keyframe,
                                     // parallel to the first matches_from_px.size() keypoints
};

class ResultsModel : public QObject {
  Q_OBJECT

 public:
  explicit ResultsModel(QObject* parent = nullptr);

  const FlightResults& results() const { return results_; }
  bool isLive() const { return live_; }
  // Keypoints/matches of a recent frame (live only; the last kKeptOverlays frames).
  const LiveFrameUpdate* overlayFor(std::int64_t frame) const;
  static constexpr std::size_t kKeptOverlays = 64;

  // Number of `changed` signals emitted (for tests of the repaint bound).
  int changeCount() const { return change_count_; }

 Q_SIGNALS:
  // The results were replaced or grew. Coalesced (see the header).
  void changed();
  // A new run or folder replaced everything (views may refit).
  void reset();

 public Q_SLOTS:
  // Replaces everything (a results folder read on a worker); emits reset + changed now.
  void setResults(const skytrace::app::FlightResults& results);
  // Starts an empty live run.
  void beginLive(const QString& device, const QString& feature_model);
  void addFrame(const skytrace::ui::LiveFrameUpdate& update);
  void addFix(const skytrace::app::RegistrationFixRecord& fix);
  void addLatency(const QVector<skytrace::engine::LatencySample>& samples);
  void setGroundAltitude(double alt_m);
  // The run ended: its final results (the results folder written by the run) replace the
  // live ones when given; otherwise the live results stay (e.g. after an error).
  void endLive();
  void clear();

 private:
  void scheduleChanged();
  void emitChanged();

  FlightResults results_;
  bool live_ = false;
  std::map<std::int64_t, LiveFrameUpdate> overlays_;
  QTimer change_timer_;
  int change_count_ = 0;
};

}  // namespace skytrace::ui

Q_DECLARE_METATYPE(skytrace::ui::LiveFrameUpdate)
Q_DECLARE_METATYPE(skytrace::app::RegistrationFixRecord)
Q_DECLARE_METATYPE(skytrace::app::FlightResults)
Q_DECLARE_METATYPE(skytrace::engine::LatencySample)
