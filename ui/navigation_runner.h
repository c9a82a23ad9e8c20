// NavigationRunner: processes a project in this process so the views update live, the
// way the project asks (ui/processing_choice.h: models, devices, mode):
//   overlapped (default): through the engine (engine::runNavigationEngine: decode thread,
//     VO worker with the NavigationSession, basemap registration on the satellite
//     QThread); the engine's NavigationLiveSink hands each frame's result and each fix
//     over on the VO thread, its latency samples (every engine stage) are forwarded to the
//     controller's recorder, pause/cancel reach the pipeline through the sink's RunControl;
//   sequential: decode -> NavigationSession::processFrame -> registration -> addFix, all
//     on the processing thread (the driver of nav::runNavigationSequential).
// Either way each frame's online pose, each fix and each stage's time go to the
// ProcessingSink as they happen (the sink queues them to the GUI thread). At the end (or
// when cancelled: partial results) the results folder is written exactly as
// `skytrace-cli process` writes it, plus latency.csv. Missing weights of a model chosen
// explicitly fail the run with the message naming the file and where it is published.
// Thread: run() on the processing thread; models are created on the threads using them.
#pragma once

#include "ui/processing_controller.h"

namespace skytrace::ui {

class NavigationRunner final : public ProcessingRunner {
 public:
  std::string name() const override { return "in-process navigation"; }
  void run(const io::Project& project, ProcessingSink& sink) override;
};

}  // namespace skytrace::ui
