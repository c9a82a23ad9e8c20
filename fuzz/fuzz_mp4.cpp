// libFuzzer target: the MP4 / QuickTime recording time (ISO base media box walk to
// 'moov' > 'mvhd'), from memory and, for the same bytes, from a file.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/io/mp4_creation_time.h"
#include "fuzz/fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)skytrace::io::mp4CreationUnixSeconds(std::string_view(reinterpret_cast<const char*>(data), size));
  (void)skytrace::io::readMp4CreationUnixSeconds(skytrace::fuzz::writeTemporaryFile(data, size, "mp4"));
  return 0;
}
