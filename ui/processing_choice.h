// What processing a project asks for, in the navigation's own terms: the project becomes
// an app::FlightRequest (app::flightRequestFromProject) and that request the options,
// placement, mode and keyframe policy by the rules of `skytrace-cli process`
// (app::processingChoiceFor): one set of rules for the CLI and the GUI.
// Thread: any (pure functions; the weights check reads the file system).
#pragma once

#include <string>

#include "core/app/flight_processing.h"
#include "core/engine/navigation_payloads.h"
#include "core/io/project_file.h"
#include "core/nav/model_choice.h"
#include "core/util/error.h"

namespace skytrace::ui {

using app::MissingWeights;
using app::missingWeights;
using app::ProcessingChoice;

// Throws InvalidArgument naming the bad part (an unknown model spec or device name).
// `cuda_device_count`: vision::cudaDeviceCount() in production ("auto" placement).
inline ProcessingChoice processingChoiceFor(const io::Project& project, int cuda_device_count) {
  return app::processingChoiceFor(app::flightRequestFromProject(project, nullptr), cuda_device_count);
}

// What processing `project` will run, in report.json's words ("cuda:0", "aliked-n16rot+mnn",
// "overlapped"): the project's unset fields resolved to the defaults of `process`. An
// invalid choice is shown as the project states it (the options name the problem).
struct PlannedProcessing {
  std::string device, vo_model, satellite_model, mode;
};
inline PlannedProcessing plannedProcessing(const io::Project& project, int cuda_device_count) {
  try {
    const ProcessingChoice choice = processingChoiceFor(project, cuda_device_count);
    return {app::devicesText(choice), nav::visualOdometryModelName(choice.options),
            nav::satelliteModelName(choice.options.registration), engine::navigationLayoutName(choice.layout)};
  } catch (const Error&) {
    return {project.effectiveVoDevice(), project.effectiveVoModel(), project.effectiveSatelliteModel(),
            project.processing_mode};
  }
}

}  // namespace skytrace::ui
