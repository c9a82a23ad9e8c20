#include "core/io/telemetry/parse_support.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace skytrace::io::detail {

void WarningSink::add(ParseWarning warning) {
  ++total_;
  if (out_.size() < max_stored_) out_.push_back(std::move(warning));
}

void WarningSink::atLine(std::size_t line, std::string message) {
  add({line, 0, std::move(message)});
}

void WarningSink::atOffset(std::uint64_t offset, std::string message) {
  add({0, offset, std::move(message)});
}

void WarningSink::finish() {
  if (total_ > max_stored_)
    out_.push_back({0, 0, std::to_string(total_ - max_stored_) + " more warnings not shown"});
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
  return s;
}

bool scanNumber(std::string_view text, std::size_t& pos, double& value) {
  std::size_t p = pos;
  while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) ++p;
  if (p < text.size() && text[p] == '+') ++p;
  // from_chars would also take "inf"/"nan"; require a digit or a sign/dot then digit.
  std::size_t q = p;
  if (q < text.size() && text[q] == '-') ++q;
  if (q < text.size() && text[q] == '.') ++q;
  if (q >= text.size() || !isDigit(text[q])) return false;
  double parsed = 0.0;
  const auto result = std::from_chars(text.data() + p, text.data() + text.size(), parsed);
  if (result.ec != std::errc() || !std::isfinite(parsed)) return false;
  value = parsed;
  pos = static_cast<std::size_t>(result.ptr - text.data());
  return true;
}

bool parseNumber(std::string_view field, double& value) {
  field = trim(field);
  std::size_t pos = 0;
  double parsed = 0.0;
  if (!scanNumber(field, pos, parsed) || pos != field.size()) return false;
  value = parsed;
  return true;
}

std::int64_t daysFromCivil(std::int64_t y, unsigned m, unsigned d) {
  // Howard Hinnant's days_from_civil.
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

namespace {

// Reads 1..max_digits digits as an integer.
bool scanInt(std::string_view s, std::size_t& pos, int max_digits, long& value) {
  long v = 0;
  int n = 0;
  while (pos < s.size() && isDigit(s[pos]) && n < max_digits) {
    v = v * 10 + (s[pos] - '0');
    ++pos;
    ++n;
  }
  value = v;
  return n > 0;
}

}  // namespace

double parseIsoDateTime(std::string_view text) {
  const std::string_view s = trim(text);
  std::size_t p = 0;
  long year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!scanInt(s, p, 4, year) || p != 4) return NAN;
  if (p >= s.size() || (s[p] != '-' && s[p] != '/' && s[p] != '.')) return NAN;
  ++p;
  if (!scanInt(s, p, 2, month) || p >= s.size() || (s[p] != '-' && s[p] != '/' && s[p] != '.'))
    return NAN;
  ++p;
  if (!scanInt(s, p, 2, day)) return NAN;
  if (month < 1 || month > 12 || day < 1 || day > 31) return NAN;
  double seconds = 0.0;
  if (p < s.size() && (s[p] == 'T' || s[p] == ' ')) {
    ++p;
    if (!scanInt(s, p, 2, hour) || p >= s.size() || s[p] != ':') return NAN;
    ++p;
    if (!scanInt(s, p, 2, minute)) return NAN;
    if (p < s.size() && s[p] == ':') {
      ++p;
      if (!scanInt(s, p, 2, second)) return NAN;
      if (p < s.size() && (s[p] == '.' || s[p] == ',')) {
        ++p;
        double scale = 0.1;
        while (p < s.size() && isDigit(s[p])) {
          seconds += (s[p] - '0') * scale;
          scale *= 0.1;
          ++p;
        }
      }
    }
    if (hour > 23 || minute > 59 || second > 60) return NAN;
  }
  double offset_s = 0.0;
  if (p < s.size()) {
    if (s[p] == 'Z' || s[p] == 'z') {
      ++p;
    } else if (s[p] == '+' || s[p] == '-') {
      const double sign = s[p] == '-' ? -1.0 : 1.0;
      ++p;
      long oh = 0, om = 0;
      if (!scanInt(s, p, 2, oh)) return NAN;
      if (p < s.size() && s[p] == ':') ++p;
      scanInt(s, p, 2, om);
      offset_s = sign * (oh * 3600.0 + om * 60.0);
    }
  }
  if (p != s.size()) return NAN;
  const double days = static_cast<double>(daysFromCivil(year, static_cast<unsigned>(month),
                                                        static_cast<unsigned>(day)));
  return days * 86400.0 + hour * 3600.0 + minute * 60.0 + second + seconds - offset_s;
}

long nearestIndex(const std::vector<double>& sorted_t, double t, double max_gap) {
  if (sorted_t.empty() || !std::isfinite(t)) return -1;
  const auto it = std::lower_bound(sorted_t.begin(), sorted_t.end(), t);
  long best = -1;
  double best_gap = max_gap;
  for (auto c : {it, it == sorted_t.begin() ? it : it - 1}) {
    if (c == sorted_t.end()) continue;
    const double gap = std::fabs(*c - t);
    if (gap <= best_gap) {
      best_gap = gap;
      best = static_cast<long>(c - sorted_t.begin());
    }
  }
  return best;
}

void startFromSampleTimes(TelemetrySeries& series) {
  for (const TelemetrySample& s : series.samples) {
    if (std::isfinite(s.unix_s)) {
      series.start_unix_s = s.unix_s - s.log_t_s;
      return;
    }
  }
}

double unixFromGpsWeek(double week, double time_of_week_s) {
  // GPS time began 1980-01-06T00:00:00Z (Unix 315964800) without leap seconds; UTC has
  // had them since. Each entry: the GPS second of the UTC midnight after which GPS - UTC
  // took its value (1981-07-01 ... 2017-01-01).
  constexpr double kGpsEpochUnix = 315964800.0;
  struct Leap { double gps_s; double offset_s; };
  static const Leap kLeaps[] = {
      {46828801.0, 1},   {78364802.0, 2},   {109900803.0, 3},  {173059204.0, 4},
      {252028805.0, 5},  {315187206.0, 6},  {346723207.0, 7},  {393984008.0, 8},
      {425520009.0, 9},  {457056010.0, 10}, {504489611.0, 11}, {551750412.0, 12},
      {599184013.0, 13}, {820108814.0, 14}, {914803215.0, 15}, {1025136016.0, 16},
      {1119744017.0, 17}, {1167264018.0, 18}};
  const double gps_s = week * 604800.0 + time_of_week_s;
  double offset = 0.0;
  for (const Leap& leap : kLeaps)
    if (gps_s >= leap.gps_s) offset = leap.offset_s;
  return kGpsEpochUnix + gps_s - offset;
}

}  // namespace skytrace::io::detail
