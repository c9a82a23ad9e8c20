// NavigationRunner: processes a project in this process, frame by frame, so the views
// update live: decode -> nav::NavigationSession::processFrame (visual odometry + online
// fusion) -> its registration requests to nav::BasemapRegistrar -> fixes back to the
// session, on the processing thread (the sequential driver of
// nav::runNavigationSequential, with a live sink). Each frame's online pose, each fix and
// each stage's time (decode, extract, match, pose, fusion, retrieval, fine_match) go to
// the ProcessingSink as they happen. At the end (or when cancelled: partial results) the
// results folder is written exactly as `skytrace-cli process` writes it, plus
// latency.csv.
// Thread: run() on the processing thread; it creates all models there.
#pragma once

#include "ui/processing_controller.h"

namespace skytrace::ui {

class NavigationRunner final : public ProcessingRunner {
 public:
  std::string name() const override { return "in-process navigation"; }
  void run(const io::Project& project, ProcessingSink& sink) override;
};

}  // namespace skytrace::ui
