// The models of the two navigation stages, chosen by short specs that the CLI
// (`process --vo-model / --sat-model`, `locate --sat-model`) and the GUI share:
//
//   visual odometry  FEATURES[+MATCHER]        e.g. orb, aliked-n16rot, superpoint+lightglue
//   satellite stage  FEATURES                  VLAD retrieval over FEATURES, FEATURES + MNN
//                    RETRIEVAL+FINE            RETRIEVAL: vlad | dinov2 | dinov2-vits14 |
//                                              dinov2-vitb14 | dinov2-vits14-reg | ...
//                                              FINE: litesam | FEATURES
//                    e.g. dinov2+litesam (the seed design), dinov2+aliked-n16rot,
//                    vlad+litesam (VLAD over the options' current features)
//
// FEATURES is a name of vision::availableFeatureModels(); "dinov2" means dinov2-vits14.
// The apply functions only set model names and methods: weights paths and devices stay
// the caller's (empty weights: the published file in the model directory).
// Thread: any (pure functions).
#pragma once

#include <string>
#include <vector>

#include "core/nav/basemap_registration.h"
#include "core/nav/navigation_session.h"

namespace skytrace::nav {

// Sets options.vo_features.model, vo_matcher ("mnn" when not given) and
// vo_match.features (the LightGlue weights family: "aliked" or "superpoint").
// Throws InvalidArgument naming the bad part (unknown features or matcher, LightGlue
// with features it has no weights for).
void applyVisualOdometryModel(const std::string& spec, NavigationOptions& options);

// Sets the retrieval method and descriptor model, the fine matching and, when the spec
// names FEATURES, features.model with features_fallback = false (an explicitly chosen
// learned model without weights is an error, not a silent ORB run). "vlad+litesam" keeps
// options.features (the VLAD vocabulary's features) as they are.
// Throws InvalidArgument naming the bad part.
void applySatelliteModel(const std::string& spec, RegistrationOptions& options);

// Weights of the satellite stage: `fine_weights` goes to the dense matcher when the fine
// matching is dense, else to the local features; `retrieval_weights` to the global
// descriptor. Empty strings leave the current paths (empty: the model directory).
void setSatelliteWeights(const std::string& fine_weights, const std::string& retrieval_weights,
                         RegistrationOptions& options);

// How every model of both stages runs on a GPU: CUDA graph replays (`cuda_graphs`) and
// Skytrace's fused kernels (`fused_kernels`: ALIKED's, SuperPoint's NMS, float16
// LightGlue's, LiteSAM's matching), both on by default; off for comparisons with the same binary. No effect
// on the CPU.
void setGpuExecution(bool cuda_graphs, bool fused_kernels, NavigationOptions& options);

// Float16 in the models of a stage on CUDA whose float16 mode is faster: SuperPoint's
// convolutions, LightGlue's transformer, DINOv2 (`precision` "float16") and LiteSAM's
// backbone, coarse transformer and FPN. ALIKED keeps
// its fused float32 kernels, which are faster than its float16 path (an H200's
// registration keyframe: 6.3 vs 21.5 ms); ExtractorOptions::half_precision still asks
// for that path. Not exact: docs/gpu.md states the deviations. Stages on the CPU are left
// as they are; call after the models and devices are set. enabled = false restores
// float32.
void setHalfPrecision(bool enabled, NavigationOptions& options);

// What the options run, in spec form: "aliked-n16rot+lightglue", "dinov2-vits14+litesam",
// "vlad+orb" (VLAD retrieval, local-feature fine matching). For reports and logs.
std::string visualOdometryModelName(const NavigationOptions& options);
std::string satelliteModelName(const RegistrationOptions& options);

// Specs to offer (--help, combo boxes): every accepted form is a combination of these
// parts, the lists give the useful ones first (the default first).
std::vector<std::string> visualOdometryModelChoices();
std::vector<std::string> satelliteModelChoices();

// One-line grammar for --help texts, e.g. "FEATURES, or RETRIEVAL+FINE with ...".
std::string satelliteModelSyntax();

}  // namespace skytrace::nav
