// `skytrace-cli match IMG_A IMG_B [--model NAME] [--weights PATH] [--matcher mnn|lightglue]
//  [--matcher-weights PATH] --out DIR [--truth-homography H.xml]`: features on both images,
// matches (mutual nearest neighbours, or LightGlue for superpoint / aliked-n16* features),
// robust homography (b_from_a). Writes
//   DIR/matches.csv      index_a,index_b,x_a,y_a,x_b,y_b,score,inlier (one row per match)
//   DIR/homography.json  {"homography": 3x3 rows (b ~ H a), "inliers", "matches",
//                         "keypoints_a", "keypoints_b", timings, and with a truth file
//                         "mean_corner_error_px" against it}
//   DIR/matches.png      side by side with the inlier matches
#include <QCommandLineParser>
#include <QDir>
#include <QTextStream>

#include <opencv2/imgcodecs.hpp>

#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/cli/cli_command.h"
#include "app/cli/cli_support.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/vision/homography_pipeline.h"

namespace skytrace::cli {
namespace {

cv::Mat readImage(const QString& path) {
  const cv::Mat image = cv::imread(path.toStdString(), cv::IMREAD_COLOR);
  if (image.empty())
    throw IoError(path.toStdString() + ": cannot read the image (missing or not an image)");
  return image;
}

double parseNumber(const QCommandLineParser& parser, const QString& name) {
  bool ok = false;
  const double value = parser.value(name).toDouble(&ok);
  if (!ok) throw InvalidArgument("--" + name.toStdString() + " must be a number");
  return value;
}

nlohmann::json matrixJson(const vision::Matrix3d& m) {
  return nlohmann::json::array({{m[0], m[1], m[2]}, {m[3], m[4], m[5]}, {m[6], m[7], m[8]}});
}

int runMatch(const QStringList& args) {
  QCommandLineParser parser;
  parser.addPositionalArgument("IMG_A", "First image.");
  parser.addPositionalArgument("IMG_B", "Second image.");
  parser.addOptions({
      {"model", "Feature model (see `features --help`; default: sift).", "NAME", "sift"},
      {"weights", "Weights file of a learned model (default: model directory).", "PATH"},
      {"out", "Output folder (created if needed).", "DIR"},
      {"truth-homography",
       "Ground-truth homography b_from_a (OpenCV XML/YAML or 9 numbers) to report the mean "
       "corner error against.",
       "H"},
      {"max-keypoints", "Keypoint budget per image (default: 4096).", "N", "4096"},
      {"ratio", "MNN ratio test, 1 = off (default: 0.9).", "R", "0.9"},
      {"matcher",
       "mnn (mutual nearest neighbours) or lightglue (superpoint or aliked-n16/n16rot "
       "features; weights superpoint_lightglue.pth / aliked_lightglue.pth; default: mnn).",
       "NAME", "mnn"},
      {"matcher-weights", "LightGlue weights file (default: model directory).", "PATH"},
      {"threshold", "RANSAC inlier threshold in pixels (default: 3).", "PX", "3"},
      {"seed", "RANSAC seed (default: 0).", "N", "0"},
      {"device", "cpu, cuda or cuda:N (default: cpu).", "DEVICE", "cpu"},
  });
  int exit_code = kExitOk;
  addThreadsOption(parser);
  if (!parseArguments(parser,
                      QStringLiteral("Match two images and estimate the homography between "
                                     "them: matches.csv, homography.json, matches.png."),
                      args, &exit_code)) {
    return exit_code;
  }
  if (parser.positionalArguments().size() != 2) {
    printError(QStringLiteral("match takes exactly two images IMG_A IMG_B (see --help)"));
    return kExitUsage;
  }
  QString out_dir;
  if (!requireOption(parser, "out", &out_dir)) return kExitUsage;
  const QString path_a = parser.positionalArguments().at(0);
  const QString path_b = parser.positionalArguments().at(1);
  return runGuarded([&] {
    applyThreadsOption(parser);
    vision::ExtractorOptions features;
    features.model = parser.value("model").toStdString();
    features.weights_path = parser.value("weights").toStdString();
    features.max_keypoints = static_cast<int>(parseNumber(parser, "max-keypoints"));
    features.device = vision::parseDevice(parser.value("device").toStdString());
    vision::MatchOptions match_options;
    match_options.max_ratio = static_cast<float>(parseNumber(parser, "ratio"));
    const std::string matcher_name = parser.value("matcher").toStdString();
    if (matcher_name != "mnn" && matcher_name != "lightglue")
      throw InvalidArgument("--matcher must be mnn or lightglue, got '" + matcher_name + "'");
    match_options.weights_path = parser.value("matcher-weights").toStdString();
    match_options.device = features.device;
    // LightGlue's weights are per feature type: superpoint, or aliked (128-D).
    match_options.features = features.model.rfind("aliked", 0) == 0 ? "aliked" : features.model;
    vision::RansacOptions ransac;
    ransac.inlier_threshold_px = parseNumber(parser, "threshold");
    ransac.seed = static_cast<uint64_t>(parseNumber(parser, "seed"));
    ransac.device = features.device;
    ransac.check();
    std::optional<vision::Matrix3d> truth;
    if (parser.isSet("truth-homography"))
      truth = vision::readHomographyFile(parser.value("truth-homography").toStdString());

    const auto extractor = vision::createFeatureExtractor(features);
    const auto matcher = vision::createMatcher(matcher_name, match_options);
    const cv::Mat image_a = readImage(path_a), image_b = readImage(path_b);
    const vision::ImagePairHomography result =
        vision::estimateImagePairHomography(*extractor, *matcher, image_a, image_b, ransac);

    if (!QDir().mkpath(out_dir))
      throw IoError(out_dir.toStdString() + ": cannot create the output folder");
    const QDir dir(out_dir);

    std::ostringstream csv;
    csv.precision(9);
    csv << "index_a,index_b,x_a,y_a,x_b,y_b,score,inlier\n";
    for (int k = 0; k < result.matches.size(); ++k) {
      csv << result.matches.index_a[k] << ',' << result.matches.index_b[k] << ','
          << result.points_a[k].x << ',' << result.points_a[k].y << ',' << result.points_b[k].x
          << ',' << result.points_b[k].y << ',' << result.matches.scores[k] << ','
          << int(result.ransac.inlier_mask[k]) << '\n';
    }
    writeFileAtomically(dir.filePath("matches.csv").toStdString(), csv.str());

    nlohmann::json json;
    json["image_a"] = path_a.toStdString();
    json["image_b"] = path_b.toStdString();
    json["model"] = extractor->name();
    json["matcher"] = matcher->name();
    json["device"] = features.device.toString();
    json["keypoints_a"] = result.features_a.size();
    json["keypoints_b"] = result.features_b.size();
    json["matches"] = result.matches.size();
    json["found"] = result.ransac.found;
    json["homography"] = matrixJson(result.ransac.model);
    json["convention"] = "b ~ H a (pixels, origin at the centre of the top-left pixel)";
    json["inliers"] = result.ransac.num_inliers;
    json["inlier_threshold_px"] = ransac.inlier_threshold_px;
    json["rms_inlier_error_px"] = result.ransac.rms_inlier_error_px;
    json["hypotheses"] = result.ransac.hypotheses_evaluated;
    json["timings_ms"] = {{"extract_both", result.extract_ms},
                          {"match", result.match_ms},
                          {"ransac", result.ransac_ms}};
    double corner_error = -1.0;
    if (truth) {
      corner_error = vision::meanCornerTransferError(result.ransac.model, *truth, image_a.cols,
                                                     image_a.rows);
      json["truth_homography"] = matrixJson(*truth);
      json["mean_corner_error_px"] = corner_error;
    }
    writeFileAtomically(dir.filePath("homography.json").toStdString(), json.dump(2) + "\n");
    const QString png = dir.filePath("matches.png");
    if (!cv::imwrite(png.toStdString(), vision::drawMatches(image_a, image_b, result)))
      throw IoError(png.toStdString() + ": cannot write the match image");

    QTextStream out(stdout);
    out << extractor->name().c_str() << ": " << result.features_a.size() << " / "
        << result.features_b.size() << " keypoints, " << result.matches.size() << " matches, "
        << result.ransac.num_inliers << " inliers (" << QString::number(result.extract_ms, 'f', 1)
        << " + " << QString::number(result.match_ms, 'f', 1) << " + "
        << QString::number(result.ransac_ms, 'f', 1) << " ms)\n";
    if (!result.ransac.found) {
      out << "no homography found\n";
      return int(kExitFailure);
    }
    const auto& h = result.ransac.model;
    out << "H (b ~ H a):\n";
    for (int r = 0; r < 3; ++r)
      out << "  " << QString::number(h[3 * r], 'g', 8) << " " << QString::number(h[3 * r + 1], 'g', 8)
          << " " << QString::number(h[3 * r + 2], 'g', 8) << "\n";
    if (truth)
      out << "mean corner error vs " << parser.value("truth-homography") << ": "
          << QString::number(corner_error, 'f', 3) << " px\n";
    out << "wrote " << dir.filePath("matches.csv") << ", " << dir.filePath("homography.json")
        << ", " << png << "\n";
    return int(kExitOk);
  });
}

const CliCommandRegistration kRegistration{
    {QStringLiteral("match"),
     QStringLiteral("Match two images and estimate their homography (CSV, JSON, PNG)"),
     runMatch}};

}  // namespace
}  // namespace skytrace::cli
