// `skytrace-cli features --model NAME [--weights PATH] --image IMG --out F.json`:
// keypoints, scores and descriptors of one image, plus F.png with the keypoints drawn.
//
// F.json: {"model", "image", "width", "height", "device", "count", "descriptor_dim",
//          "keypoints": [[x, y], ...] (pixels, origin at the centre of the top-left pixel),
//          "scores": [...], "descriptors": [[...D floats, L2-normalised...], ...]}
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QTextStream>

#include <opencv2/imgcodecs.hpp>

#include <chrono>
#include <nlohmann/json.hpp>

#include "app/cli/cli_command.h"
#include "app/cli/cli_support.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/vision/features.h"
#include "core/vision/homography_pipeline.h"

namespace skytrace::cli {
namespace {

QString pngPathFor(const QString& out) {
  const QFileInfo info(out);
  return info.dir().filePath(info.completeBaseName() + QStringLiteral(".png"));
}

int runFeatures(const QStringList& args) {
  QCommandLineParser parser;
  const QString models = QString::fromStdString([] {
    std::string list;
    for (const auto& name : vision::availableFeatureModels()) list += (list.empty() ? "" : ", ") + name;
    return list;
  }());
  parser.addOptions({
      {"model", "Feature model: " + models + " (default: sift).", "NAME", "sift"},
      {"weights", "Weights file of a learned model (default: model directory).", "PATH"},
      {"image", "Input image.", "IMG"},
      {"out", "Output JSON file (a PNG with the keypoints is written beside it).", "F"},
      {"max-keypoints", "Keypoint budget (default: 2048).", "N", "2048"},
      {"device", "cpu, cuda or cuda:N (default: cpu).", "DEVICE", "cpu"},
  });
  int exit_code = kExitOk;
  addThreadsOption(parser);
  if (!parseArguments(parser,
                      QStringLiteral("Extract keypoints and descriptors of one image: JSON with "
                                     "keypoints, scores and descriptors, plus a PNG."),
                      args, &exit_code)) {
    return exit_code;
  }
  QString image_path, out_path;
  if (!requireOption(parser, "image", &image_path) || !requireOption(parser, "out", &out_path))
    return kExitUsage;
  return runGuarded([&] {
    applyThreadsOption(parser);
    vision::ExtractorOptions options;
    options.model = parser.value("model").toStdString();
    options.weights_path = parser.value("weights").toStdString();
    bool ok = false;
    options.max_keypoints = parser.value("max-keypoints").toInt(&ok);
    if (!ok) throw InvalidArgument("--max-keypoints must be an integer");
    options.device = vision::parseDevice(parser.value("device").toStdString());
    const auto extractor = vision::createFeatureExtractor(options);

    const cv::Mat image = cv::imread(image_path.toStdString(), cv::IMREAD_COLOR);
    if (image.empty())
      throw IoError(image_path.toStdString() + ": cannot read the image (missing or not an image)");
    const auto start = std::chrono::steady_clock::now();
    const vision::FeatureSet features = extractor->extract(image);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

    nlohmann::json json;
    json["model"] = extractor->name();
    json["image"] = image_path.toStdString();
    json["width"] = features.imageWidth();
    json["height"] = features.imageHeight();
    json["device"] = features.device().toString();
    json["count"] = features.size();
    json["descriptor_dim"] = features.descriptorDim();
    json["extract_ms"] = ms;
    nlohmann::json keypoints = nlohmann::json::array();
    for (const auto& p : features.keypoints()) keypoints.push_back({p.x, p.y});
    json["keypoints"] = std::move(keypoints);
    json["scores"] = features.scores();
    const cv::Mat rows = features.descriptors();
    nlohmann::json descriptors = nlohmann::json::array();
    for (int r = 0; r < rows.rows; ++r)
      descriptors.push_back(std::vector<float>(rows.ptr<float>(r), rows.ptr<float>(r) + rows.cols));
    json["descriptors"] = std::move(descriptors);
    const QString out_dir = QFileInfo(out_path).absolutePath();
    if (!QDir().mkpath(out_dir))
      throw IoError(out_dir.toStdString() + ": cannot create the output folder");
    writeFileAtomically(out_path.toStdString(), json.dump() + "\n");

    const QString png = pngPathFor(out_path);
    if (!cv::imwrite(png.toStdString(), vision::drawKeypoints(image, features)))
      throw IoError(png.toStdString() + ": cannot write the keypoint image");
    QTextStream(stdout) << extractor->name().c_str() << ": " << features.size()
                        << " keypoints (descriptor dim " << features.descriptorDim() << ") in "
                        << QString::number(ms, 'f', 1) << " ms -> " << out_path << ", " << png
                        << "\n";
    return int(kExitOk);
  });
}

const CliCommandRegistration kRegistration{
    {QStringLiteral("features"),
     QStringLiteral("Extract keypoints and descriptors of one image (JSON + PNG)"), runFeatures}};

}  // namespace
}  // namespace skytrace::cli
