#include "core/nav/area_correlation.h"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/util/check.h"

namespace skytrace::nav {
namespace {

// Grey level (float) of an 8-bit grey or BGR image.
cv::Mat greyFloat(const cv::Mat& image) {
  cv::Mat grey;
  if (image.channels() == 3) {
    cv::cvtColor(image, grey, cv::COLOR_BGR2GRAY);
  } else {
    grey = image;
  }
  cv::Mat out;
  grey.convertTo(out, CV_32F);
  return out;
}

cv::Mat gradientMagnitude(const cv::Mat& grey) {
  cv::Mat gx, gy, magnitude;
  cv::Sobel(grey, gx, CV_32F, 1, 0, 3);
  cv::Sobel(grey, gy, CV_32F, 0, 1, 3);
  cv::magnitude(gx, gy, magnitude);
  return magnitude;
}

// Zero-mean normalised cross-correlation of `templ` (within `mask`, 0/1 float) at every
// shift over `image`, from three plain correlations: with the template made zero-mean
// inside the mask, the image's local mean drops out of the numerator. `image` is centred
// on its mean first, to keep the float sums of squares precise. Shifts where the image
// under the mask is flat read -1.
cv::Mat normalisedCorrelation(const cv::Mat& image, const cv::Mat& templ, const cv::Mat& mask) {
  const double n = cv::sum(mask)[0];
  const cv::Mat mask_8u = mask > 0;
  const cv::Mat t = (templ - cv::mean(templ, mask_8u)[0]).mul(mask);
  const double t_norm = std::sqrt(cv::sum(t.mul(t))[0]);
  cv::Mat centred = image - cv::mean(image)[0];
  cv::Mat numerator, sum1, sum2;
  cv::matchTemplate(centred, t, numerator, cv::TM_CCORR);
  cv::matchTemplate(centred, mask, sum1, cv::TM_CCORR);
  cv::matchTemplate(centred.mul(centred), mask, sum2, cv::TM_CCORR);
  cv::Mat response(numerator.size(), CV_32F);
  for (int y = 0; y < response.rows; ++y) {
    const float* num = numerator.ptr<float>(y);
    const float* s1 = sum1.ptr<float>(y);
    const float* s2 = sum2.ptr<float>(y);
    float* out = response.ptr<float>(y);
    for (int x = 0; x < response.cols; ++x) {
      const double variance_sum = double(s2[x]) - double(s1[x]) * s1[x] / n;
      // Flat: a grey-level standard deviation under 0.5 (or an empty template).
      if (t_norm <= 0 || variance_sum <= 0.25 * n) {
        out[x] = -1.f;
        continue;
      }
      out[x] = float(std::clamp(num[x] / (t_norm * std::sqrt(variance_sum)), -1.0, 1.0));
    }
  }
  return response;
}

// Offset of a parabola's vertex through (-1, a), (0, b), (1, c), within +-0.5.
double parabolaVertex(double a, double b, double c) {
  const double denominator = a - 2 * b + c;
  if (std::abs(denominator) < 1e-12) return 0.0;
  return std::clamp(0.5 * (a - c) / denominator, -0.5, 0.5);
}

struct RotatedFrame {
  double angle_deg = 0;
  cv::Point2d centre;  // the frame's centre on the rotated canvas
  cv::Mat response;                  // combined correlation; top-left shift
};

}  // namespace

void AreaCorrelationOptions::check() const {
  checkArgument(max_rotation_deg >= 0 && max_rotation_deg <= 180,
                "area correlation max_rotation_deg must be within 0..180");
  checkArgument(rotation_step_deg > 0 && rotation_step_deg <= 90,
                "area correlation rotation_step_deg must be within (0, 90]");
  checkArgument(min_peak > -1 && min_peak < 1, "area correlation min_peak must be within (-1, 1)");
  checkArgument(min_peak_margin >= 0 && min_peak_margin < 2, "area correlation min_peak_margin must be within [0, 2)");
  checkArgument(exclusion_share > 0 && exclusion_share <= 2, "area correlation exclusion_share must be within (0, 2]");
  checkArgument(min_frame_px >= 4, "area correlation min_frame_px must be >= 4");
  checkArgument(min_map_coverage > 0 && min_map_coverage <= 1,
                "area correlation min_map_coverage must be within (0, 1]");
}

AreaCorrelation correlateWithMap(const cv::Mat& rectified, const cv::Mat& rectified_valid, const cv::Mat& map,
                                 const cv::Mat& map_valid, const AreaCorrelationOptions& options) {
  options.check();
  checkArgument(rectified.size() == rectified_valid.size() && map.size() == map_valid.size(),
                "area correlation: images and masks differ in size");
  checkArgument(rectified_valid.type() == CV_8UC1 && map_valid.type() == CV_8UC1,
                "area correlation: masks must be 8-bit, one channel");
  AreaCorrelation out;
  const cv::Rect box = cv::boundingRect(rectified_valid);
  if (std::min(box.width, box.height) < options.min_frame_px) {
    out.reason = "frame_too_small";
    return out;
  }

  // The map: invalid pixels take the valid pixels' mean (no texture, no edges there);
  // where the frame would lie on them, the coverage check below rejects the shift.
  cv::Mat map_grey = greyFloat(map);
  const cv::Scalar map_mean = cv::mean(map_grey, map_valid);
  map_grey.setTo(map_mean, map_valid == 0);
  const cv::Mat map_gradient = gradientMagnitude(map_grey);
  cv::Mat map_coverage;
  cv::Mat(map_valid != 0).convertTo(map_coverage, CV_32F, 1.0 / 255.0);

  const cv::Mat frame_grey = greyFloat(rectified(box));
  const cv::Mat frame_mask = rectified_valid(box) != 0;
  {
    cv::Scalar mean, stddev;
    cv::meanStdDev(frame_grey, mean, stddev, frame_mask);
    if (stddev[0] < 2.0) {
      out.reason = "no_texture";
      return out;
    }
  }

  // The rotations: about the prior heading, or the whole circle.
  std::vector<double> angles;
  if (options.max_rotation_deg >= 180.0) {
    for (double a = -180.0; a < 180.0 - 1e-9; a += options.rotation_step_deg) angles.push_back(a);
  } else {
    const int steps = int(std::floor(options.max_rotation_deg / options.rotation_step_deg + 1e-9));
    for (int k = -steps; k <= steps; ++k) angles.push_back(k * options.rotation_step_deg);
  }

  const cv::Point2d template_centre(0.5 * (box.width - 1), 0.5 * (box.height - 1));
  const double diagonal = std::hypot(box.width, box.height);
  std::vector<RotatedFrame> rotated;
  rotated.reserve(angles.size());
  for (const double angle : angles) {
    RotatedFrame r;
    r.angle_deg = angle;
    const int side = int(std::ceil(diagonal)) | 1;
    if (side > map.cols || side > map.rows) continue;
    cv::Mat m = cv::getRotationMatrix2D(template_centre, angle, 1.0);
    r.centre = cv::Point2d(0.5 * (side - 1), 0.5 * (side - 1));
    m.at<double>(0, 2) += r.centre.x - template_centre.x;
    m.at<double>(1, 2) += r.centre.y - template_centre.y;
    cv::Mat grey, mask;
    cv::warpAffine(frame_grey, grey, m, cv::Size(side, side), cv::INTER_LINEAR, cv::BORDER_CONSTANT);
    cv::warpAffine(frame_mask, mask, m, cv::Size(side, side), cv::INTER_NEAREST, cv::BORDER_CONSTANT);
    // Two pixels in from the frame's border: the step to the empty canvas is no edge.
    cv::Mat inner;
    cv::erode(mask, inner, cv::Mat(), cv::Point(-1, -1), 2);
    const double inner_px = cv::countNonZero(inner);
    if (inner_px < options.min_frame_px * options.min_frame_px) continue;
    const cv::Mat gradient = gradientMagnitude(grey);
    cv::Mat inner_float, coverage;
    inner.convertTo(inner_float, CV_32F, 1.0 / 255.0);
    const cv::Mat intensity = normalisedCorrelation(map_grey, grey, inner_float);
    const cv::Mat edges = normalisedCorrelation(map_gradient, gradient, inner_float);
    r.response = 0.5 * (intensity + edges);
    cv::matchTemplate(map_coverage, inner_float, coverage, cv::TM_CCORR);
    r.response.setTo(-1.f, coverage < float(options.min_map_coverage * inner_px));
    rotated.push_back(std::move(r));
  }
  if (rotated.empty()) {
    out.reason = "frame_too_small";
    return out;
  }

  // The best peak over every rotation, then the best one away from it.
  std::size_t best_rotation = 0;
  cv::Point best_at;
  double best = -2.0;
  for (std::size_t i = 0; i < rotated.size(); ++i) {
    double max_value = 0;
    cv::Point at;
    cv::minMaxLoc(rotated[i].response, nullptr, &max_value, nullptr, &at);
    if (max_value > best) {
      best = max_value;
      best_rotation = i;
      best_at = at;
    }
  }
  const RotatedFrame& winner = rotated[best_rotation];
  const cv::Point2d best_centre = cv::Point2d(best_at) + winner.centre;
  const double exclusion_px = options.exclusion_share * std::min(box.width, box.height);
  double second = -1.0;
  for (const RotatedFrame& r : rotated) {
    const cv::Mat& resp = r.response;
    for (int y = 0; y < resp.rows; ++y) {
      const float* row = resp.ptr<float>(y);
      for (int x = 0; x < resp.cols; ++x) {
        if (row[x] <= second) continue;
        if (std::hypot(x + r.centre.x - best_centre.x, y + r.centre.y - best_centre.y) < exclusion_px) continue;
        second = row[x];
      }
    }
  }
  out.peak = best;
  out.second_peak = second;
  if (best < options.min_peak) {
    out.reason = "low_correlation";
    return out;
  }
  if (best - second < options.min_peak_margin) {
    out.reason = "ambiguous";
    return out;
  }

  // Sub-pixel shift from the winner's response, sub-step rotation from its neighbours'.
  const cv::Mat& resp = winner.response;
  auto at = [&resp](int x, int y) {
    return double(resp.at<float>(std::clamp(y, 0, resp.rows - 1), std::clamp(x, 0, resp.cols - 1)));
  };
  const double dx = parabolaVertex(at(best_at.x - 1, best_at.y), best, at(best_at.x + 1, best_at.y));
  const double dy = parabolaVertex(at(best_at.x, best_at.y - 1), best, at(best_at.x, best_at.y + 1));
  double angle = winner.angle_deg;
  if (best_rotation > 0 && best_rotation + 1 < rotated.size()) {
    auto peak_near = [&](const RotatedFrame& r) {
      const cv::Point p(int(std::lround(best_centre.x - r.centre.x)), int(std::lround(best_centre.y - r.centre.y)));
      const cv::Rect around = cv::Rect(p.x - 1, p.y - 1, 3, 3) & cv::Rect(0, 0, r.response.cols, r.response.rows);
      double v = -1.0;
      if (!around.empty()) cv::minMaxLoc(r.response(around), nullptr, &v);
      return v;
    };
    const double step = rotated[best_rotation + 1].angle_deg - winner.angle_deg;
    angle += step * parabolaVertex(peak_near(rotated[best_rotation - 1]), best, peak_near(rotated[best_rotation + 1]));
  }

  // window pixel = map-side centre + R(angle) (rectified pixel - frame centre).
  const cv::Point2d frame_centre = cv::Point2d(box.x, box.y) + template_centre;
  const cv::Point2d map_centre = cv::Point2d(best_at.x + dx, best_at.y + dy) + winner.centre;
  const cv::Mat rotation = cv::getRotationMatrix2D(cv::Point2f(0.f, 0.f), angle, 1.0);
  const cv::Matx22d r(rotation.at<double>(0, 0), rotation.at<double>(0, 1), rotation.at<double>(1, 0),
                      rotation.at<double>(1, 1));
  const cv::Vec2d t = cv::Vec2d(map_centre.x, map_centre.y) - r * cv::Vec2d(frame_centre.x, frame_centre.y);
  out.window_from_rectified = cv::Matx33d(r(0, 0), r(0, 1), t[0], r(1, 0), r(1, 1), t[1], 0, 0, 1);
  out.rotation_deg = angle;
  out.shift_px = map_centre - frame_centre;
  out.found = true;
  return out;
}

}  // namespace skytrace::nav
