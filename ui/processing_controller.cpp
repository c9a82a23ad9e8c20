#include "ui/processing_controller.h"

#include <exception>

#include "core/util/error.h"
#include "core/vision/torch_runtime.h"
#include "ui/processing_choice.h"

namespace skytrace::ui {
namespace {

constexpr int kProgressIntervalMs = 100;
enum Outcome { kCompleted = 0, kCancelled = 1, kFailed = 2 };

}  // namespace

class ProcessingController::Sink final : public ProcessingSink {
 public:
  explicit Sink(ProcessingController* owner) : owner_(owner) {}

  void frameProcessed(const LiveFrameUpdate& update) override { Q_EMIT owner_->workerFrame(update); }
  void fixComputed(const RegistrationFixRecord& fix) override { Q_EMIT owner_->workerFix(fix); }
  void progress(std::int64_t frames_done, std::int64_t frames_total, const std::string& stage) override {
    owner_->frames_done_.store(frames_done);
    owner_->frames_total_.store(frames_total);
    std::lock_guard<std::mutex> lock(*owner_->stage_mutex_);
    *owner_->stage_ = stage;
  }
  void latencySamples(std::vector<engine::LatencySample> batch) override {
    Q_EMIT owner_->latencyReceived(QVector<engine::LatencySample>(batch.begin(), batch.end()));
  }
  engine::RunControl& control() override { return owner_->control_; }
  void warning(const std::string& message) override {
    Q_EMIT owner_->workerWarning(QString::fromStdString(message));
  }
  void groundAltitude(double alt_m) override { Q_EMIT owner_->workerGround(alt_m); }

 private:
  ProcessingController* owner_;
};

ProcessingController::ProcessingController(ResultsModel* results, QObject* parent)
    : QObject(parent),
      results_(results),
      stage_(std::make_shared<std::string>()),
      stage_mutex_(std::make_unique<std::mutex>()) {
  qRegisterMetaType<engine::LatencySample>();
  sink_ = std::make_unique<Sink>(this);
  connect(this, &ProcessingController::workerFrame, results_, &ResultsModel::addFrame, Qt::QueuedConnection);
  connect(this, &ProcessingController::workerFix, results_, &ResultsModel::addFix, Qt::QueuedConnection);
  connect(this, &ProcessingController::workerGround, results_, &ResultsModel::setGroundAltitude,
          Qt::QueuedConnection);
  connect(this, &ProcessingController::workerDone, this, &ProcessingController::onWorkerDone,
          Qt::QueuedConnection);
  connect(this, &ProcessingController::workerWarning, this, &ProcessingController::warningReported,
          Qt::QueuedConnection);
  // Queued by the worker (latencySamples): the model takes each batch on the GUI thread.
  connect(this, &ProcessingController::latencyReceived, results_, &ResultsModel::addLatency, Qt::QueuedConnection);
  progress_timer_.setInterval(kProgressIntervalMs);
  connect(&progress_timer_, &QTimer::timeout, this, &ProcessingController::sampleProgress);
}

ProcessingController::~ProcessingController() {
  if (thread_) {
    control_.requestCancel();
    control_.setPaused(false);
    thread_->wait();  // the runner stops at its next checkpoint
    delete thread_;
  }
}

bool ProcessingController::start(const io::Project& project, std::unique_ptr<ProcessingRunner> runner) {
  if (running_) {
    Q_EMIT failed(tr("A flight is already being processed."));
    return false;
  }
  project_ = project;
  control_.reset();
  frames_done_ = 0;
  frames_total_ = 0;
  const PlannedProcessing planned = plannedProcessing(project, vision::cudaDeviceCount());
  results_->beginLive(QString::fromStdString(planned.device), QString::fromStdString(planned.vo_model));
  running_ = true;
  paused_ms_ = 0;
  clock_.start();

  std::shared_ptr<ProcessingRunner> shared_runner(std::move(runner));
  thread_ = QThread::create([this, shared_runner, project] {
    try {
      shared_runner->run(project, *sink_);
      Q_EMIT workerDone(kCompleted, QString());
    } catch (const Cancelled&) {
      Q_EMIT workerDone(kCancelled, QString());
    } catch (const std::exception& e) {
      Q_EMIT workerDone(kFailed, QString::fromStdString(e.what()));
    }
  });
  thread_->setObjectName(QStringLiteral("skytrace-processing"));
  thread_->start();
  progress_timer_.start();
  Q_EMIT started();
  return true;
}

void ProcessingController::setPaused(bool paused) {
  if (!running_ || paused == control_.isPaused()) return;
  control_.setPaused(paused);
  if (paused) pause_clock_.start();
  else paused_ms_ += pause_clock_.elapsed();
  Q_EMIT pausedChanged(paused);
}

void ProcessingController::cancel() {
  if (!running_) return;
  control_.requestCancel();
  setPaused(false);
}

double ProcessingController::fraction() const {
  const std::int64_t total = frames_total_.load();
  return total > 0 ? std::min(1.0, static_cast<double>(frames_done_.load()) / total) : 0.0;
}

double ProcessingController::etaS() const {
  const double f = fraction();
  qint64 active_ms = clock_.elapsed() - paused_ms_;
  if (control_.isPaused()) active_ms -= pause_clock_.elapsed();
  if (f <= 0.01 || active_ms <= 0) return -1.0;
  return active_ms / 1000.0 * (1.0 - f) / f;
}

void ProcessingController::sampleProgress() {
  QString stage;
  {
    std::lock_guard<std::mutex> lock(*stage_mutex_);
    stage = QString::fromStdString(*stage_);
  }
  Q_EMIT progressChanged(fraction(), etaS(), stage);
}

void ProcessingController::onWorkerDone(int outcome, const QString& message) {
  if (thread_) {
    thread_->wait();
    delete thread_;
    thread_ = nullptr;
  }
  progress_timer_.stop();
  sampleProgress();
  running_ = false;
  results_->endLive();
  if (control_.isPaused()) Q_EMIT pausedChanged(false);
  control_.reset();
  if (outcome == kFailed) {
    Q_EMIT failed(message);
    return;
  }
  Q_EMIT finished(outcome == kCompleted, QString::fromStdString(project_.results_dir));
}

}  // namespace skytrace::ui
