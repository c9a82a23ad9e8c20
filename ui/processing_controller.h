// ProcessingController: runs one processing job (a ProcessingRunner) on its own thread
// and brings its output to the GUI: per-frame results and registration fixes as queued
// signals, the run's latency samples as the batches its engine::LatencyLog hands out
// (at most every 40 ms; queued signals too), and progress/ETA sampled every 100 ms from
// atomics (a fast pipeline cannot flood the event loop). Pause and cancel go through engine::RunControl.
// Errors are reported once per run (failed), and whatever was computed stays shown.
//
// Thread: the controller lives on the GUI thread; the runner runs on the controller's
// worker thread and must only touch what ProcessingSink gives it.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QThread>
#include <QTimer>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/engine/latency_recorder.h"
#include "core/engine/run_control.h"
#include "core/io/project_file.h"
#include "ui/results_model.h"

namespace skytrace::ui {

// What a runner may call from the worker thread (all thread-safe).
class ProcessingSink {
 public:
  virtual ~ProcessingSink() = default;
  virtual void frameProcessed(const LiveFrameUpdate& update) = 0;
  virtual void fixComputed(const RegistrationFixRecord& fix) = 0;
  // frames_done of frames_total (total may be an estimate; 0 when unknown).
  virtual void progress(std::int64_t frames_done, std::int64_t frames_total, const std::string& stage) = 0;
  // A batch of the run's latency samples (engine::LatencyBatchListener's contract).
  virtual void latencySamples(std::vector<engine::LatencySample> batch) = 0;
  virtual engine::RunControl& control() = 0;
  virtual void warning(const std::string& message) = 0;
  // Ellipsoidal ground height under the flight once known (camera footprints).
  virtual void groundAltitude(double alt_m) = 0;
};

// One way to process a project (in-process engine, `skytrace-cli process`, a test feeder).
class ProcessingRunner {
 public:
  virtual ~ProcessingRunner() = default;
  // Short description for the status bar ("skytrace-cli process", "engine").
  virtual std::string name() const = 0;
  // Processes `project` and writes its results folder (project.results_dir). Runs on the
  // worker thread; calls control().checkpoint() regularly. Throws skytrace::Cancelled when
  // cancelled (after writing the partial results, as docs/process_output.md says) and
  // skytrace::Error on failure.
  virtual void run(const io::Project& project, ProcessingSink& sink) = 0;
};

class ProcessingController : public QObject {
  Q_OBJECT

 public:
  ProcessingController(ResultsModel* results, QObject* parent = nullptr);
  // Cancels a running job and waits for it (bounded by the runner's cancel latency).
  ~ProcessingController() override;

  // Starts `runner` on `project`. Returns false (and emits failed) when a job runs.
  bool start(const io::Project& project, std::unique_ptr<ProcessingRunner> runner);
  bool isRunning() const { return running_; }
  bool isPaused() const { return control_.isPaused(); }
  double fraction() const;
  // Seconds left, from the rate so far; negative while unknown.
  double etaS() const;

 Q_SIGNALS:
  void started();
  // Sampled every 100 ms while running.
  void progressChanged(double fraction, double eta_s, const QString& stage);
  void pausedChanged(bool paused);
  // The run ended: completed (all frames) or cancelled; results_dir holds its files.
  void finished(bool completed, const QString& results_dir);
  // The run failed (once per run); results computed so far stay in the model.
  void failed(const QString& message);
  // Something the user should know that does not stop the run (e.g. a model replaced by
  // the classical fallback because its weights are missing).
  void warningReported(const QString& message);
  // A batch of the running job's latency samples, on the GUI thread (also added to the
  // results model).
  void latencyReceived(const QVector<skytrace::engine::LatencySample>& samples);

  // Internal (worker -> GUI, queued).
  void workerFrame(const skytrace::ui::LiveFrameUpdate& update);
  void workerFix(const skytrace::app::RegistrationFixRecord& fix);
  void workerWarning(const QString& message);
  void workerGround(double alt_m);
  void workerDone(int outcome, const QString& message);

 public Q_SLOTS:
  void setPaused(bool paused);
  void togglePause() { setPaused(!isPaused()); }
  void cancel();

 private:
  class Sink;
  void onWorkerDone(int outcome, const QString& message);
  void sampleProgress();

  ResultsModel* results_;
  engine::RunControl control_;
  std::unique_ptr<Sink> sink_;
  QThread* thread_ = nullptr;
  bool running_ = false;
  io::Project project_;
  std::atomic<std::int64_t> frames_done_{0};
  std::atomic<std::int64_t> frames_total_{0};
  std::shared_ptr<std::string> stage_;  // guarded by stage_mutex_
  std::unique_ptr<std::mutex> stage_mutex_;
  QElapsedTimer clock_;
  qint64 paused_ms_ = 0;
  QElapsedTimer pause_clock_;
  QTimer progress_timer_;
};

}  // namespace skytrace::ui
