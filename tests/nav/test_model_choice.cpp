// The model specs of the navigation stages (core/nav/model_choice.h): what each accepted
// spec selects, that every offered choice is accepted, and that rejected specs name the
// bad part.
#include <QtTest>

#include <string>

#include "core/nav/model_choice.h"
#include "core/util/error.h"

using namespace skytrace;
using namespace skytrace::nav;

namespace {

// The InvalidArgument message of applying `spec`, or "" when it was accepted.
std::string satelliteRejection(const std::string& spec) {
  RegistrationOptions options;
  try {
    applySatelliteModel(spec, options);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

std::string odometryRejection(const std::string& spec) {
  NavigationOptions options;
  try {
    applyVisualOdometryModel(spec, options);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

bool mentions(const std::string& message, const std::string& part) {
  return message.find(part) != std::string::npos;
}

}  // namespace

class TestModelChoice : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void defaultsAreTheClassicalPipeline() {
    const RegistrationOptions registration;
    QVERIFY(registration.retrieval == RetrievalMethod::kVlad);
    QVERIFY(registration.fine_matching == FineMatching::kLocalFeatures);
    QVERIFY(registration.features_fallback);
    QCOMPARE(satelliteModelName(registration), std::string("vlad+orb"));
    const NavigationOptions navigation;
    QCOMPARE(visualOdometryModelName(navigation), std::string("orb+mnn"));
  }

  void visualOdometrySpecs() {
    NavigationOptions options;
    applyVisualOdometryModel("superpoint+lightglue", options);
    QCOMPARE(options.vo_features.model, std::string("superpoint"));
    QCOMPARE(options.vo_matcher, std::string("lightglue"));
    QCOMPARE(options.vo_match.features, std::string("superpoint"));

    applyVisualOdometryModel("aliked-n16rot+lightglue", options);
    QCOMPARE(options.vo_features.model, std::string("aliked-n16rot"));
    QCOMPARE(options.vo_match.features, std::string("aliked"));

    applyVisualOdometryModel("sift", options);
    QCOMPARE(options.vo_features.model, std::string("sift"));
    QCOMPARE(options.vo_matcher, std::string("mnn"));
    QCOMPARE(visualOdometryModelName(options), std::string("sift+mnn"));

    applyVisualOdometryModel("orb+mnn", options);
    QCOMPARE(options.vo_matcher, std::string("mnn"));
  }

  void visualOdometryRejections() {
    QVERIFY(mentions(odometryRejection("akaze"), "unknown features 'akaze'"));
    QVERIFY(mentions(odometryRejection("superpoint+superglue"), "unknown matcher 'superglue'"));
    QVERIFY(mentions(odometryRejection("orb+lightglue"), "not for 'orb'"));
    QVERIFY(mentions(odometryRejection(""), "unknown features ''"));
  }

  void satelliteFeaturesOnly() {
    RegistrationOptions options;
    applySatelliteModel("aliked-n16rot", options);
    QVERIFY(options.retrieval == RetrievalMethod::kVlad);
    QVERIFY(options.fine_matching == FineMatching::kLocalFeatures);
    QCOMPARE(options.features.model, std::string("aliked-n16rot"));
    QVERIFY(!options.features_fallback);  // asked for by name: no silent ORB
    QCOMPARE(satelliteModelName(options), std::string("vlad+aliked-n16rot"));
  }

  void satelliteSeedDesign() {
    RegistrationOptions options;
    options.features.model = "sift";
    applySatelliteModel("dinov2+litesam", options);
    QVERIFY(options.retrieval == RetrievalMethod::kGlobalDescriptor);
    QCOMPARE(options.retrieval_descriptor.model, std::string("dinov2-vits14"));
    QVERIFY(options.fine_matching == FineMatching::kDenseMatcher);
    QCOMPARE(options.dense_matcher.model, std::string("litesam"));
    QCOMPARE(options.features.model, std::string("sift"));  // untouched
    QVERIFY(options.features_fallback);
    QCOMPARE(satelliteModelName(options), std::string("dinov2-vits14+litesam"));
    options.check();

    applySatelliteModel("dinov2-vitb14-reg+litesam", options);
    QCOMPARE(options.retrieval_descriptor.model, std::string("dinov2-vitb14-reg"));
  }

  void satelliteMixes() {
    RegistrationOptions options;
    applySatelliteModel("dinov2+superpoint", options);
    QVERIFY(options.retrieval == RetrievalMethod::kGlobalDescriptor);
    QVERIFY(options.fine_matching == FineMatching::kLocalFeatures);
    QCOMPARE(options.features.model, std::string("superpoint"));
    QCOMPARE(satelliteModelName(options), std::string("dinov2-vits14+superpoint"));

    RegistrationOptions vlad;
    vlad.features.model = "orb";
    applySatelliteModel("vlad+litesam", vlad);
    QVERIFY(vlad.retrieval == RetrievalMethod::kVlad);
    QVERIFY(vlad.fine_matching == FineMatching::kDenseMatcher);
    QCOMPARE(vlad.features.model, std::string("orb"));  // VLAD's vocabulary features
    QCOMPARE(satelliteModelName(vlad), std::string("vlad+litesam"));

    RegistrationOptions same;
    applySatelliteModel("vlad+sift", same);
    QCOMPARE(satelliteModelName(same), std::string("vlad+sift"));
  }

  void satelliteWeightsGoToTheFineMatcher() {
    RegistrationOptions dense;
    applySatelliteModel("dinov2+litesam", dense);
    setSatelliteWeights("/m/litesam.ckpt", "/m/dino.pth", dense);
    QCOMPARE(dense.dense_matcher.weights_path, std::string("/m/litesam.ckpt"));
    QCOMPARE(dense.retrieval_descriptor.weights_path, std::string("/m/dino.pth"));
    QVERIFY(dense.features.weights_path.empty());

    RegistrationOptions local;
    applySatelliteModel("aliked-t16", local);
    setSatelliteWeights("/m/aliked-t16.pth", "", local);
    QCOMPARE(local.features.weights_path, std::string("/m/aliked-t16.pth"));
    QVERIFY(local.dense_matcher.weights_path.empty());
  }

  void satelliteRejections() {
    QVERIFY(mentions(satelliteRejection("netvlad+litesam"), "unknown retrieval 'netvlad'"));
    QVERIFY(mentions(satelliteRejection("dinov2-vitl14+litesam"), "unknown retrieval 'dinov2-vitl14'"));
    QVERIFY(mentions(satelliteRejection("dinov2+loftr"), "unknown fine matcher 'loftr'"));
    const std::string lone_dense = satelliteRejection("litesam");
    QVERIFY(mentions(lone_dense, "dinov2+litesam"));
    QVERIFY(mentions(satelliteRejection("dinov2"), "needs a fine matcher"));
    QVERIFY(mentions(satelliteRejection("akaze"), "'akaze' is no feature model"));
    QVERIFY(mentions(satelliteRejection(""), "expected FEATURES or RETRIEVAL+FINE"));
    // A rejected spec leaves the options as they were.
    RegistrationOptions options;
    options.features.model = "sift";
    QVERIFY_EXCEPTION_THROWN(applySatelliteModel("dinov2+loftr", options), InvalidArgument);
    QVERIFY(options.retrieval == RetrievalMethod::kVlad);
    QCOMPARE(options.features.model, std::string("sift"));
  }

  // --half-precision: float16 only in the stages on a GPU and only in the models whose
  // float16 mode is faster (ALIKED keeps its fused float32 kernels).
  void halfPrecisionOnGpuStages() {
    NavigationOptions options;
    applyVisualOdometryModel("superpoint+lightglue", options);
    applySatelliteModel("dinov2+superpoint", options.registration);
    vision::DeviceSpec gpu;
    gpu.cuda = true;
    options.vo_features.device = gpu;
    options.vo_match.device = gpu;
    setHalfPrecision(true, options);  // registration on the CPU
    QVERIFY(options.vo_features.half_precision);
    QVERIFY(options.vo_match.half_precision);
    QVERIFY(!options.registration.features.half_precision);
    QCOMPARE(QString::fromStdString(options.registration.retrieval_descriptor.precision), QStringLiteral("float32"));
    QVERIFY(!options.registration.dense_matcher.half_precision);
    options.registration.features.device = gpu;
    setHalfPrecision(true, options);
    QVERIFY(options.registration.features.half_precision);
    QCOMPARE(QString::fromStdString(options.registration.retrieval_descriptor.precision), QStringLiteral("float16"));
    QVERIFY(options.registration.dense_matcher.half_precision);
    setHalfPrecision(false, options);
    QVERIFY(!options.vo_features.half_precision && !options.vo_match.half_precision &&
            !options.registration.features.half_precision && !options.registration.dense_matcher.half_precision);
    QCOMPARE(QString::fromStdString(options.registration.retrieval_descriptor.precision), QStringLiteral("float32"));

    NavigationOptions aliked;
    applyVisualOdometryModel("aliked-n16rot", aliked);
    aliked.vo_features.device = gpu;
    setHalfPrecision(true, aliked);
    QVERIFY(!aliked.vo_features.half_precision);
  }

  void everyOfferedChoiceIsAccepted() {
    QCOMPARE(satelliteModelChoices().front(), std::string("aliked-n16rot"));
    for (const auto& spec : satelliteModelChoices())
      QVERIFY2(satelliteRejection(spec).empty(), spec.c_str());
    for (const auto& spec : visualOdometryModelChoices())
      QVERIFY2(odometryRejection(spec).empty(), spec.c_str());
    QVERIFY(mentions(satelliteModelSyntax(), "dinov2-vitb14-reg"));
  }
};

QTEST_GUILESS_MAIN(TestModelChoice)
#include "test_model_choice.moc"
