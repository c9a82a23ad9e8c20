// Where the engine's two workers run: --device for both, or --vo-device / --sat-device
// separately ("cpu", "cuda", "cuda:N"). With no explicit satellite device and two or
// more GPUs, the satellite stage goes to cuda:1 when VO is on cuda:0 (the measured way to
// overlap two compute-bound models: a second GPU, not a second stream).
// Thread: any (pure functions).
#pragma once

#include <string>
#include <vector>

#include "core/vision/torch_runtime.h"

namespace skytrace::engine {

struct DevicePlacement {
  vision::DeviceSpec vo;
  vision::DeviceSpec satellite;
  std::string reason;  // how it was chosen, for logs and reports

  bool splitAcrossDevices() const {
    return vo.cuda != satellite.cuda || vo.index != satellite.index;
  }
};

// `device`, `vo_device`, `sat_device`: empty or "auto" = not given. Without anything: cuda:0 when
// a GPU exists, else cpu. A specific choice wins over --device. `cuda_device_count` is
// passed in (vision::cudaDeviceCount() in production) so that the rule is testable.
// Throws InvalidArgument for unparsable names; availability is checked by the workers.
DevicePlacement resolveDevicePlacement(const std::string& device, const std::string& vo_device,
                                       const std::string& sat_device, int cuda_device_count);

// Whether a device option names a device: "" and "auto" leave the choice to the rules above.
bool namesDevice(const std::string& device);

// "cuda:0,cuda:1": a device list as reports and logs write it.
std::string deviceListText(const std::vector<vision::DeviceSpec>& devices);

}  // namespace skytrace::engine
