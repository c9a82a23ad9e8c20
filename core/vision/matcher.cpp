#include "core/vision/matcher.h"

#include <c10/core/InferenceMode.h>

#include "core/util/error.h"
#include "core/vision/feature_set_impl.h"
#include "core/vision/lightglue_matcher.h"
#include "core/vision/matcher_impl.h"

namespace skytrace::vision {
namespace {

class MutualNearestNeighbourMatcher final : public Matcher {
 public:
  explicit MutualNearestNeighbourMatcher(const MatchOptions& options) : options_(options) {
    options_.check();
  }

  std::string name() const override { return "mnn"; }

  Matches match(const FeatureSet& a, const FeatureSet& b) override {
    if (a.empty() || b.empty()) return {};
    if (a.device().toString() != b.device().toString()) {
      throw InvalidArgument("matching: features are on different devices (" +
                            a.device().toString() + " vs " + b.device().toString() + ")");
    }
    c10::InferenceMode inference;
    return toHostMatches(
        matchMutualNearestNeighbours(a.impl().descriptors, b.impl().descriptors, options_));
  }

 private:
  MatchOptions options_;
};

}  // namespace

std::unique_ptr<Matcher> createMatcher(const std::string& name, const MatchOptions& options) {
  if (name == "mnn") return std::make_unique<MutualNearestNeighbourMatcher>(options);
  if (name == "lightglue") return createLightGlueMatcher(options);
  throw InvalidArgument("unknown matcher '" + name + "' (available: mnn, lightglue)");
}

}  // namespace skytrace::vision
