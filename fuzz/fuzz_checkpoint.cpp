// libFuzzer target: PyTorch checkpoints (.pth: zip + pickle, our reader) and
// .safetensors. The first byte chooses the reader ('s' safetensors, else .pth).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/util/error.h"
#include "core/vision/checkpoint_impl.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    if (data[0] == 's') {
      (void)skytrace::vision::loadSafetensorsBytes(bytes, "fuzz.safetensors");
    } else {
      (void)skytrace::vision::loadTorchCheckpointBytes(bytes, "fuzz.pth");
    }
  } catch (const skytrace::Error&) {
  }
  return 0;
}
