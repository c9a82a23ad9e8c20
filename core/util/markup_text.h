// Text placed in XML or HTML markup that Skytrace writes itself (KML, the batch summary).
#pragma once

#include <string>

namespace skytrace {

// `text` with &, <, > and " replaced by their entities: safe as element content and as a
// double-quoted attribute value in XML and HTML. Bytes are passed through unchanged, so
// UTF-8 stays UTF-8.
inline std::string markupEscaped(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace skytrace
