// Image assertions shared by the GUI tests: "is this screenshot showing imagery?"
#pragma once

#include <QImage>
#include <QRect>
#include <QSet>

#include <cmath>

namespace skytrace::test {

// Number of distinct RGB colours in `area` of `image` (a blank or flat fill has a few).
inline int distinctColours(const QImage& image, const QRect& area) {
  const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
  QSet<QRgb> colours;
  const QRect r = area.intersected(rgb.rect());
  for (int y = r.top(); y <= r.bottom(); ++y) {
    const auto* line = reinterpret_cast<const QRgb*>(rgb.constScanLine(y));
    for (int x = r.left(); x <= r.right(); ++x) colours.insert(line[x] & 0xFFFFFF);
  }
  return static_cast<int>(colours.size());
}

// Standard deviation of the grey level in `area` (0 for a uniform area).
inline double greyStdDev(const QImage& image, const QRect& area) {
  const QImage grey = image.convertToFormat(QImage::Format_Grayscale8);
  const QRect r = area.intersected(grey.rect());
  double sum = 0.0;
  double sum_sq = 0.0;
  long long n = 0;
  for (int y = r.top(); y <= r.bottom(); ++y) {
    const uchar* line = grey.constScanLine(y);
    for (int x = r.left(); x <= r.right(); ++x) {
      sum += line[x];
      sum_sq += double(line[x]) * line[x];
      ++n;
    }
  }
  if (n == 0) return 0.0;
  const double mean = sum / n;
  return std::sqrt(std::max(0.0, sum_sq / n - mean * mean));
}

}  // namespace skytrace::test
