#include "core/io/telemetry/srt_reader.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/io/telemetry/parse_support.h"
#include "core/util/error.h"

namespace skytrace::io {

using detail::isDigit;
using detail::scanNumber;

namespace {

struct Line {
  std::string_view text;
  std::size_t number = 0;  // 1-based
};

// Yields the lines of `text` one at a time ("\n", "\r\n" or "\r" ends a line; a UTF-8
// BOM is skipped) without materialising them all: memory stays bounded by one block.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : text_(text) {
    if (text_.size() >= 3 && std::memcmp(text_.data(), "\xEF\xBB\xBF", 3) == 0) pos_ = 3;
  }
  bool next(Line& line) {
    if (pos_ > text_.size() || (pos_ == text_.size() && ended_with_newline_)) return false;
    std::size_t end = pos_;
    while (end < text_.size() && text_[end] != '\n' && text_[end] != '\r') ++end;
    line.text = text_.substr(pos_, end - pos_);
    line.number = number_++;
    if (end == text_.size()) {
      pos_ = text_.size() + 1;  // last line without terminator
    } else {
      if (text_[end] == '\r' && end + 1 < text_.size() && text_[end + 1] == '\n') ++end;
      pos_ = end + 1;
      ended_with_newline_ = pos_ == text_.size();
    }
    return true;
  }
  std::size_t offset() const { return std::min(pos_, text_.size()); }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t number_ = 1;
  bool ended_with_newline_ = false;
};

constexpr std::size_t kMaxBlockLines = 64;  // DJI blocks have up to ~6 text lines

bool isIndexLine(std::string_view line) {
  line = detail::trim(line);
  return !line.empty() && line.size() < 19 &&
         std::all_of(line.begin(), line.end(), [](char c) { return isDigit(c); });
}

// "HH:MM:SS,mmm" (',' or '.'; hours of any width) -> seconds.
bool parseSubtitleTime(std::string_view s, double& seconds) {
  s = detail::trim(s);
  double h = 0, m = 0, sec = 0;
  std::size_t p = 0;
  auto readUnsigned = [&](double& v) {
    std::size_t begin = p;
    v = 0;
    while (p < s.size() && isDigit(s[p]) && p - begin < 9) v = v * 10 + (s[p++] - '0');
    return p > begin;
  };
  if (!readUnsigned(h) || p >= s.size() || s[p++] != ':') return false;
  if (!readUnsigned(m) || p >= s.size() || s[p++] != ':') return false;
  if (!readUnsigned(sec)) return false;
  double frac = 0.0;
  if (p < s.size() && (s[p] == ',' || s[p] == '.')) {
    ++p;
    double scale = 0.1;
    while (p < s.size() && isDigit(s[p])) {
      frac += (s[p++] - '0') * scale;
      scale *= 0.1;
    }
  }
  // DJI writes "00:00:60,000" at minute ends (Matrice 300): accept 60 as a value.
  if (p != s.size() || m > 60 || sec > 60) return false;
  seconds = h * 3600.0 + m * 60.0 + sec + frac;
  return true;
}

bool parseTimingLine(std::string_view line, double& start_s, double& end_s) {
  const std::size_t arrow = line.find("-->");
  if (arrow == std::string_view::npos) return false;
  return parseSubtitleTime(line.substr(0, arrow), start_s) &&
         parseSubtitleTime(line.substr(arrow + 3), end_s);
}

// Removes <font ...>, </font> and other tags.
std::string stripTags(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_tag = false;
  for (char c : text) {
    if (c == '<') in_tag = true;
    else if (c == '>' && in_tag) in_tag = false;
    else if (!in_tag) out.push_back(c);
  }
  return out;
}

bool isKeyChar(char c) {
  return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.' ||
         c == '/';
}

// Finds `key` at a word start followed by `separator` (':' allows spaces around it;
// ' ' requires whitespace; '(' allows spaces before it) and returns the position just
// after the separator, or npos.
std::size_t findValue(std::string_view text, std::string_view key, char separator) {
  std::size_t from = 0;
  while (from < text.size()) {
    const std::size_t at = text.find(key, from);
    if (at == std::string_view::npos) return std::string_view::npos;
    from = at + 1;
    if (at > 0 && isKeyChar(text[at - 1])) continue;
    std::size_t p = at + key.size();
    if (separator == ' ') {
      if (p >= text.size() || (text[p] != ' ' && text[p] != '\t')) continue;
      return p;
    }
    while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) ++p;
    if (p < text.size() && text[p] == separator) return p + 1;
  }
  return std::string_view::npos;
}

// Number after `key`, with an optional "/denominator" (1/80.0, -1/3) and optional
// leading 'F' (Fnum:F2.8).
bool numberAfter(std::string_view text, std::string_view key, char separator, double& value) {
  std::size_t p = findValue(text, key, separator);
  if (p == std::string_view::npos) return false;
  while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) ++p;
  if (p < text.size() && (text[p] == 'F' || text[p] == 'f')) ++p;
  double v = 0.0;
  if (!scanNumber(text, p, v)) return false;
  if (p < text.size() && text[p] == '/') {
    std::size_t q = p + 1;
    double denominator = 0.0;
    if (scanNumber(text, q, denominator) && denominator != 0.0) v /= denominator;
  }
  value = v;
  return true;
}

// "(a, b, c)" after `key` (up to `max_count` numbers, each optionally followed by a unit
// such as "m", "M" or "°"). Returns how many numbers were read; `units` gets the first
// unit character after the third number (for the Matrice "0.0M").
int tupleAfter(std::string_view text, std::string_view key, double* values, int max_count,
               char* third_unit = nullptr) {
  std::size_t p = findValue(text, key, '(');
  if (p == std::string_view::npos) return 0;
  int count = 0;
  while (count < max_count) {
    double v = 0.0;
    if (!scanNumber(text, p, v)) break;
    values[count++] = v;
    if (count == 3 && third_unit && p < text.size()) *third_unit = text[p];
    // Skip a unit up to the separator.
    std::size_t skipped = 0;
    while (p < text.size() && text[p] != ',' && text[p] != ')' && skipped < 8) {
      ++p;
      ++skipped;
    }
    if (p >= text.size() || text[p] == ')') break;
    if (text[p] != ',') break;
    ++p;
  }
  return count;
}

// Camera clock: "2022-08-07 13:40:40,774,808", "2017.07.03 10:15:03", "2017.8.5 14:11:51".
double findCameraClock(std::string_view text) {
  for (std::size_t i = 0; i + 4 < text.size(); ++i) {
    if (!isDigit(text[i]) || (i > 0 && isDigit(text[i - 1]))) continue;
    std::size_t p = i;
    long values[6] = {};
    const char separators[6] = {'-', '-', ' ', ':', ':', 0};
    bool ok = true;
    for (int k = 0; k < 6 && ok; ++k) {
      const std::size_t begin = p;
      long v = 0;
      while (p < text.size() && isDigit(text[p]) && p - begin < 4) v = v * 10 + (text[p++] - '0');
      if (p == begin) { ok = false; break; }
      values[k] = v;
      if (k == 5) break;
      if (p >= text.size()) { ok = false; break; }
      const char sep = text[p];
      const bool date_sep = separators[k] == '-' && (sep == '-' || sep == '.' || sep == '/');
      if (!(date_sep || sep == separators[k])) { ok = false; break; }
      ++p;
    }
    if (!ok) continue;
    if (values[0] < 1970 || values[1] < 1 || values[1] > 12 || values[2] < 1 || values[2] > 31 ||
        values[3] > 23 || values[4] > 59 || values[5] > 60)
      continue;
    double fraction = 0.0;
    // ",774,808" = milliseconds, microseconds; ".5" = decimal fraction.
    if (p + 1 < text.size() && (text[p] == ',' || text[p] == '.') && isDigit(text[p + 1])) {
      ++p;
      const std::size_t begin = p;
      double v = 0;
      while (p < text.size() && isDigit(text[p]) && p - begin < 9) v = v * 10 + (text[p++] - '0');
      fraction = v / std::pow(10.0, static_cast<double>(p - begin));
      if (p + 1 < text.size() && text[p] == ',' && isDigit(text[p + 1]) && p - begin == 3) {
        ++p;
        const std::size_t begin_us = p;
        double us = 0;
        while (p < text.size() && isDigit(text[p]) && p - begin_us < 3) us = us * 10 + (text[p++] - '0');
        fraction += us * 1e-6;
      }
    }
    const double days = static_cast<double>(detail::daysFromCivil(
        values[0], static_cast<unsigned>(values[1]), static_cast<unsigned>(values[2])));
    return days * 86400.0 + values[3] * 3600.0 + values[4] * 60.0 + values[5] + fraction;
  }
  return kNoValue;
}

bool validLatLon(double lat, double lon) {
  return std::isfinite(lat) && std::isfinite(lon) && std::fabs(lat) <= 90.0 &&
         std::fabs(lon) <= 180.0;
}

struct BlockResult {
  TelemetrySample sample;
  std::string variant;
  bool has_position = false;
  bool no_fix = false;
  std::string home;
  // Something besides a position was read (camera settings, clock, heights, attitude):
  // a block of a camera that had no GNSS fix yet, kept without a position.
  bool has_other_fields() const {
    const TelemetrySample& t = sample;
    for (double v : {t.alt_rel_m, t.alt_abs_m, t.yaw_deg, t.pitch_deg, t.roll_deg, t.speed_h_mps, t.speed_v_mps,
                     t.gimbal_yaw_deg, t.gimbal_pitch_deg, t.gimbal_roll_deg, t.iso, t.shutter_s, t.f_number,
                     t.ev, t.focal_length_mm, t.color_temp_k, t.unix_s})
      if (std::isfinite(v)) return true;
    return false;
  }
};

// Whether `line`, the file's last and without a line end, stops inside a value: on a
// digit, sign, decimal point or a separator (',' ':'), or inside brackets, parentheses or
// a tag it opened.
bool endsInsideAValue(std::string_view line) {
  line = detail::trim(line);
  if (line.empty()) return false;
  const char last = line.back();
  if (isDigit(last) || last == '.' || last == '-' || last == ',' || last == ':') return true;
  return std::count(line.begin(), line.end(), '[') > std::count(line.begin(), line.end(), ']') ||
         std::count(line.begin(), line.end(), '(') > std::count(line.begin(), line.end(), ')') ||
         std::count(line.begin(), line.end(), '<') > std::count(line.begin(), line.end(), '>');
}

// Binary data (an executable, an image, a video) named .srt: NUL bytes or many control
// characters in the first 4 KiB. Subtitle text has neither.
bool looksBinary(std::string_view text) {
  const std::string_view head = text.substr(0, 4096);
  std::size_t control = 0;
  for (const char c : head) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte == 0) return true;
    if (byte < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f') ++control;
  }
  return control * 100 > head.size();
}

BlockResult parseBlockText(std::string_view text) {
  BlockResult r;
  TelemetrySample& s = r.sample;
  double v = 0.0;
  double lat = kNoValue, lon = kNoValue;

  // Bracketed form.
  if (numberAfter(text, "latitude", ':', v)) {
    lat = v;
    if (numberAfter(text, "longitude", ':', v) || numberAfter(text, "longtitude", ':', v)) lon = v;
    r.variant = "srt-bracketed";
  }
  if (numberAfter(text, "rel_alt", ':', v)) s.alt_rel_m = v;
  if (numberAfter(text, "abs_alt", ':', v)) s.alt_abs_m = v;
  if (numberAfter(text, "altitude", ':', v)) s.alt_abs_m = v;
  if (numberAfter(text, "gb_yaw", ':', v)) s.gimbal_yaw_deg = v;
  if (numberAfter(text, "gb_pitch", ':', v)) s.gimbal_pitch_deg = v;
  if (numberAfter(text, "gb_roll", ':', v)) s.gimbal_roll_deg = v;
  if (numberAfter(text, "iso", ':', v)) s.iso = v;
  if (numberAfter(text, "shutter", ':', v)) s.shutter_s = v;
  if (numberAfter(text, "fnum", ':', v)) s.f_number = v >= 100.0 ? v / 100.0 : v;
  if (numberAfter(text, "ev", ':', v)) s.ev = v;
  if (numberAfter(text, "ct", ':', v)) s.color_temp_k = v;
  if (numberAfter(text, "focal_len", ':', v)) s.focal_length_mm = v >= 100.0 ? v / 10.0 : v;
  if (numberAfter(text, "SrtCnt", ':', v) || numberAfter(text, "FrameCnt", ':', v)) {
    if (v >= 1.0 && v < 9e15) s.frame = static_cast<std::int64_t>(v) - 1;
  }

  // GPS(...) forms.
  double gps[3] = {};
  char third_unit = 0;
  int gps_count = tupleAfter(text, "GPS", gps, 3, &third_unit);
  double home[3] = {};
  const int home_count = tupleAfter(text, "HOME", home, 3);
  const bool compact = text.find("F/") != std::string_view::npos ||
                       findValue(text, "SS", ' ') != std::string_view::npos;
  if (gps_count >= 2 && r.variant.empty()) {
    const bool matrice = home_count == 0 && !compact && third_unit == 'M';
    if (matrice) {
      lat = gps[0];
      lon = gps[1];
      r.variant = "srt-matrice";
    } else {
      lon = gps[0];
      lat = gps[1];
      r.variant = compact ? "srt-compact" : "srt-home-gps";
    }
    if (std::fabs(lat) > 90.0 && std::fabs(lon) <= 90.0) std::swap(lat, lon);
    if (gps_count == 3 && third_unit == 'm') s.alt_abs_m = gps[2];
  }
  if (home_count >= 2) {
    r.home = std::to_string(home[0]) + "," + std::to_string(home[1]);
  }
  if (numberAfter(text, "BAROMETER", ':', v)) s.alt_rel_m = v;
  if (numberAfter(text, "Hb", ':', v)) s.alt_rel_m = v;
  if (numberAfter(text, "H", ' ', v)) s.alt_rel_m = v;
  if (numberAfter(text, "H.S", ' ', v)) s.speed_h_mps = v;
  if (numberAfter(text, "V.S", ' ', v)) s.speed_v_mps = v;
  double pry[3] = {};
  if (tupleAfter(text, "F.PRY", pry, 3) == 3) {
    s.pitch_deg = pry[0];
    s.roll_deg = pry[1];
    s.yaw_deg = wrapDegrees180(pry[2]);
  }
  if (tupleAfter(text, "G.PRY", pry, 3) == 3) {
    s.gimbal_pitch_deg = pry[0];
    s.gimbal_roll_deg = pry[1];
    s.gimbal_yaw_deg = wrapDegrees180(pry[2]);
  }
  // Compact and HOME-line camera fields.
  if (numberAfter(text, "ISO", ' ', v) || numberAfter(text, "ISO", ':', v)) s.iso = v;
  if (numberAfter(text, "EV", ' ', v) || numberAfter(text, "EV", ':', v)) s.ev = v;
  if (numberAfter(text, "Fnum", ':', v) || numberAfter(text, "IR", ':', v)) s.f_number = v;
  if (text.find("F/") != std::string_view::npos) {
    std::size_t p = text.find("F/") + 2;
    if (scanNumber(text, p, v)) s.f_number = v;
  }
  // Shutter as denominator: "SS 400", "Shutter:400", "TV:60" mean 1/400 s etc.
  if (numberAfter(text, "SS", ' ', v) || numberAfter(text, "Shutter", ':', v) ||
      numberAfter(text, "TV", ':', v)) {
    if (v > 0.0) s.shutter_s = v >= 1.0 ? 1.0 / v : v;
  }

  s.unix_s = findCameraClock(text);
  if (validLatLon(lat, lon)) {
    if (lat == 0.0 && lon == 0.0) {
      r.no_fix = true;
    } else {
      s.lat_deg = lat;
      s.lon_deg = lon;
      r.has_position = true;
    }
  }
  return r;
}

}  // namespace

TelemetrySeries parseDjiSrt(std::string_view text, const std::string& source_name,
                            const TelemetryReadOptions& options) {
  options.check();
  if (text.size() > options.max_bytes)
    throw FormatError(source_name + ": " + std::to_string(text.size()) +
                      " bytes is over the telemetry size limit of " +
                      std::to_string(options.max_bytes) + " bytes; is this really an SRT file?");
  if (looksBinary(text))
    throw FormatError(source_name + ": binary data, not a DJI SRT subtitle file (text blocks of \"00:00:00,000 --> "
                                    "00:00:01,000\" and telemetry)");
  TelemetrySeries series;
  series.format = "dji-srt";
  series.source_path = source_name;
  series.time_offset_s = 0.0;
  series.metadata["clock"] = "subtitle start = video time; camera clock is aircraft local time";
  detail::WarningSink warnings(series.warnings);

  std::size_t blocks_without_fix = 0;
  std::size_t camera_only_blocks = 0;
  double previous_start_s = -1.0;
  std::size_t block_count = 0;
  std::size_t previous_text_lines = 0;  // non-blank text lines of the previous block
  // The file's last line has no line end (a file cut in the middle of a line, or one
  // written without a final newline).
  const bool unterminated = !text.empty() && text.back() != '\n' && text.back() != '\r';

  // One subtitle block: its timing line and up to kMaxBlockLines text lines.
  auto processBlock = [&](const Line& timing, const std::vector<Line>& body, bool last_block) {
    std::size_t text_lines = 0;
    for (const Line& line : body) text_lines += !detail::trim(line.text).empty();
    // The last block of a cut file whose last line stops inside a value (lat "4" of
    // "47.4692"): its values cannot be trusted.
    if (last_block && unterminated && !body.empty() && endsInsideAValue(body.back().text)) {
      warnings.atLine(timing.number, "the file ends inside this subtitle block (truncated: its last value is cut); "
                                     "skipped");
      return;
    }
    // A last block without a position and with fewer lines than the block before it lost
    // its position lines to a cut (a camera-only block keeps its length).
    const bool lines_missing = last_block && previous_text_lines > 0 && text_lines < previous_text_lines;
    previous_text_lines = text_lines;
    double start_s = 0.0, end_s = 0.0;
    if (!parseTimingLine(timing.text, start_s, end_s)) {
      warnings.atLine(timing.number, "unreadable subtitle time \"" +
                                         std::string(timing.text.substr(0, 60)) + "\"; block skipped");
      return;
    }
    std::string block_text;
    for (const Line& line : body) {
      block_text.append(line.text);
      block_text.push_back('\n');
    }
    const std::string plain = stripTags(block_text);
    if (detail::trim(plain).empty()) {
      warnings.atLine(timing.number, "subtitle block has no text (file truncated?); skipped");
      return;
    }
    BlockResult block = parseBlockText(plain);
    if (!block.has_position) {
      if (block.no_fix) {
        ++blocks_without_fix;
        return;
      }
      if (lines_missing) {
        warnings.atLine(timing.number, "the file ends inside this subtitle block (truncated: its position lines are "
                                       "missing); skipped");
        return;
      }
      if (!block.has_other_fields()) {
        warnings.atLine(timing.number, "subtitle block has nothing readable (no position, camera or flight "
                                       "values); skipped");
        return;
      }
      ++camera_only_blocks;  // kept: its time, camera settings and heights are real
    }
    if (start_s < previous_start_s) {
      warnings.atLine(timing.number, "subtitle starts before the previous one; skipped");
      return;
    }
    previous_start_s = start_s;
    block.sample.log_t_s = start_s;
    if (series.variant.empty()) series.variant = block.variant;
    else if (!block.variant.empty() && series.variant != block.variant) series.variant = "mixed";
    if (!block.home.empty() && !series.metadata.count("home_lon_lat"))
      series.metadata["home_lon_lat"] = block.home;
    series.samples.push_back(block.sample);
  };

  LineReader reader(text);
  Line line, timing;
  std::vector<Line> body;
  bool in_block = false;
  std::size_t dropped_lines = 0;
  while (reader.next(line)) {
    if (line.text.find("-->") != std::string_view::npos) {
      if (in_block) {
        // The index line just before this timing line belongs to the new block.
        if (!body.empty() && isIndexLine(body.back().text)) body.pop_back();
        processBlock(timing, body, false);
      }
      timing = line;
      body.clear();
      in_block = true;
      if ((++block_count & 1023) == 0 &&
          !reportProgress(options.progress, double(reader.offset()) / double(text.size()), "srt"))
        throw Cancelled();
    } else if (in_block) {
      if (body.size() < kMaxBlockLines) {
        body.push_back(line);
      } else if (dropped_lines++ == 0) {
        warnings.atLine(line.number, "subtitle block longer than " + std::to_string(kMaxBlockLines) +
                                         " lines; the rest of it is ignored");
      }
    }
  }
  if (!in_block)
    throw FormatError(source_name + ": no subtitle block (\"00:00:00,000 --> 00:00:01,000\") "
                      "found; not a DJI SRT file");
  processBlock(timing, body, true);
  if (blocks_without_fix > 0)
    warnings.atLine(0, std::to_string(blocks_without_fix) +
                           " subtitle blocks at (0, 0) (no GNSS fix) skipped");
  if (camera_only_blocks > 0)
    warnings.atLine(0, std::to_string(camera_only_blocks) +
                           " subtitle blocks without a position (camera and flight values only) kept without one");
  warnings.finish();
  detail::startFromSampleTimes(series);
  reportProgress(options.progress, 1.0, "srt");
  return series;
}

TelemetrySeries readDjiSrt(const std::string& path, const TelemetryReadOptions& options) {
  options.check();
  const std::string bytes = readTelemetryFileBytes(path, options.max_bytes);
  return parseDjiSrt(bytes, path, options);
}

}  // namespace skytrace::io
