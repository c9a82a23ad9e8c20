// What processing a project asks for, in the navigation's own terms: the project becomes
// an app::FlightRequest (app::flightRequestFromProject) and that request the options,
// placement, mode and keyframe policy by the rules of `skytrace-cli process`
// (app::processingChoiceFor): one set of rules for the CLI and the GUI.
// Thread: any (pure functions; the weights check reads the file system).
#pragma once

#include "core/app/flight_processing.h"
#include "core/io/project_file.h"

namespace skytrace::ui {

using app::MissingWeights;
using app::missingWeights;
using app::ProcessingChoice;

// Throws InvalidArgument naming the bad part (an unknown model spec or device name).
// `cuda_device_count`: vision::cudaDeviceCount() in production ("auto" placement).
inline ProcessingChoice processingChoiceFor(const io::Project& project, int cuda_device_count) {
  return app::processingChoiceFor(app::flightRequestFromProject(project, nullptr), cuda_device_count);
}

}  // namespace skytrace::ui
