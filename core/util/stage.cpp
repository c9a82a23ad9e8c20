#include "core/util/stage.h"

namespace skytrace {

const char* stageName(Stage stage) {
  switch (stage) {
    case Stage::Decode: return "decode";
    case Stage::Upload: return "upload";
    case Stage::Extract: return "extract";
    case Stage::Match: return "match";
    case Stage::Pose: return "pose";
    case Stage::Retrieval: return "retrieval";
    case Stage::FineMatch: return "fine_match";
    case Stage::Fusion: return "fusion";
  }
  return "?";
}

}  // namespace skytrace
