// When an MP4 / QuickTime video was recorded, from its container: the movie header's
// creation time ('moov' > 'mvhd', ISO/IEC 14496-12 8.2.2; seconds since 1904-01-01
// 00:00:00 UTC). Cameras write it at the start of the recording (some in local time
// instead of UTC: callers check it against what else they know). Plain C++, no Qt;
// reads at most the boxes' headers and one 'moov' box of up to 64 MiB.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace skytrace::io {

// The creation time as UTC Unix seconds, from the bytes of an ISO base media file (the
// top-level boxes up to 'moov'). nullopt when there is no 'mvhd', when it is cut short,
// or when its time is 0 (unset) or outside 1990..2100 (a placeholder); never throws.
std::optional<double> mp4CreationUnixSeconds(std::string_view file_bytes);

// The same for a file: reads only the box headers, and the 'moov' box. nullopt for a
// file that cannot be read or is not an MP4 / QuickTime file.
std::optional<double> readMp4CreationUnixSeconds(const std::string& path);

}  // namespace skytrace::io
