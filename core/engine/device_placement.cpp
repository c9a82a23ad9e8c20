#include "core/engine/device_placement.h"

namespace skytrace::engine {

namespace {
// The name a device option gives, "" when it leaves the choice to the rules.
std::string named(const std::string& device) { return namesDevice(device) ? device : std::string(); }
}  // namespace

bool namesDevice(const std::string& device) { return !device.empty() && device != "auto"; }

std::string deviceListText(const std::vector<vision::DeviceSpec>& devices) {
  std::string list;
  for (const vision::DeviceSpec& device : devices) list += (list.empty() ? "" : ",") + device.toString();
  return list;
}

DevicePlacement resolveDevicePlacement(const std::string& device_arg, const std::string& vo_device_arg,
                                       const std::string& sat_device_arg, int cuda_device_count) {
  const std::string device = named(device_arg);
  const std::string vo_device = named(vo_device_arg);
  const std::string sat_device = named(sat_device_arg);
  DevicePlacement placement;
  vision::DeviceSpec common;
  if (!device.empty()) {
    common = vision::parseDevice(device);
  } else if (cuda_device_count > 0) {
    common = vision::parseDevice("cuda:0");
  }
  placement.vo = vo_device.empty() ? common : vision::parseDevice(vo_device);
  if (!sat_device.empty()) {
    placement.satellite = vision::parseDevice(sat_device);
    placement.reason = "satellite device given (--sat-device)";
  } else if (placement.vo.cuda && placement.vo.index == 0 && cuda_device_count >= 2 &&
             device.empty()) {
    placement.satellite = vision::parseDevice("cuda:1");
    placement.reason = "two GPUs: satellite stage on cuda:1";
  } else {
    placement.satellite = placement.vo;
    placement.reason = device.empty() && vo_device.empty()
                           ? (cuda_device_count > 0 ? "default: one GPU for both stages"
                                                    : "default: no GPU, CPU for both stages")
                           : "both stages on the VO device";
  }
  return placement;
}

}  // namespace skytrace::engine
