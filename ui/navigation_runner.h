// NavigationRunner: processes a project in this process so the views update live, by
// app::processFlight (the same code as `skytrace-cli process`, the same results folder),
// with the project's models, devices and mode (ui/processing_choice.h). Each frame's
// online pose, each fix and each stage's time go to the ProcessingSink as they happen
// (the sink queues them to the GUI thread); pause and cancel reach the run through the
// sink's RunControl; a cancelled run writes its partial results and throws Cancelled.
// Missing weights of a model chosen explicitly fail the run with the message naming the
// file and where it is published.
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
