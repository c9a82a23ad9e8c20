// libFuzzer target: project files (readProjectFile on a .skytrace file).
#include <cstddef>
#include <cstdint>

#include "core/io/project_file.h"
#include "core/util/error.h"
#include "fuzz/fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = skytrace::fuzz::writeTemporaryFile(data, size, "skytrace");
  try {
    (void)skytrace::io::readProjectFile(path);
  } catch (const skytrace::Error&) {
  }
  return 0;
}
