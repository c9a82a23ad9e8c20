// RelocalisationPolicy: when attempts stop searching around the fused estimate, and how
// failed global searches back off.
#include <QtTest>

#include <string>

#include "core/nav/relocalisation_policy.h"

using namespace skytrace;
using namespace skytrace::nav;

namespace {

RegistrationFix attempt(double t_s, const std::string& reason, bool global = false) {
  RegistrationFix fix;
  fix.t_s = t_s;
  fix.reason = reason;
  fix.global_mode = global;
  return fix;
}

RegistrationFix accepted(double t_s) {
  RegistrationFix fix = attempt(t_s, "");
  fix.accepted = true;
  fix.has_pose = true;
  return fix;
}

}  // namespace

class TestRelocalisationPolicy : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void fiveFailuresOfAnyKindDistrustTheEstimate() {
    RelocalisationPolicy policy;
    // An estimate off the map finds no map under it: "no_candidate" without a pose.
    for (int i = 0; i < RelocalisationPolicy::kFailuresBeforeRelocalising - 1; ++i) {
      policy.record(attempt(i, i % 2 ? "no_candidate" : "too_few_inliers"), false);
      QVERIFY(!policy.distrustsEstimate());
      QVERIFY(!policy.globalSearchDue(i + 0.5));
    }
    policy.record(attempt(4, "no_candidate"), false);
    QVERIFY(policy.distrustsEstimate());
    QVERIFY(policy.globalSearchDue(4.5));
  }

  void anAcceptedFixRestoresTrust() {
    RelocalisationPolicy policy;
    for (int i = 0; i < 4; ++i) policy.record(attempt(i, "no_candidate"), false);
    policy.record(accepted(4), true);
    policy.record(attempt(5, "no_candidate"), false);
    QCOMPARE(policy.failuresInARow(), 1);
    QVERIFY(!policy.distrustsEstimate());
  }

  void failedSearchesWithoutTheEstimateBackOff() {
    RelocalisationPolicy policy;
    for (int i = 0; i < 5; ++i) policy.record(attempt(0.1 * i, "no_candidate"), false);
    // Each failed global search moves the next one 1, 2, 4, 8, then 16 s later.
    double t = 1.0;
    for (const double backoff_s : {1.0, 2.0, 4.0, 8.0, 16.0, 16.0}) {
      QVERIFY(policy.globalSearchDue(t));
      policy.record(attempt(t, "too_few_inliers", /*global=*/true), false);
      QVERIFY2(!policy.globalSearchDue(t + backoff_s - 0.01), qPrintable(QString::number(backoff_s)));
      // Attempts around the estimate in between fail too and do not move the retry.
      policy.record(attempt(t + 0.5, "no_candidate"), false);
      QVERIFY(policy.globalSearchDue(t + backoff_s));
      t += backoff_s;
    }
  }

  void aFixAcceptedAfterABackOffStartsItAgain() {
    RelocalisationPolicy policy;
    for (int i = 0; i < 5; ++i) policy.record(attempt(i, "no_candidate"), false);
    policy.record(attempt(5, "no_candidate", true), false);
    policy.record(attempt(6, "no_candidate", true), false);  // next retry 8 s after t = 6
    policy.record(accepted(7), true);
    for (int i = 0; i < 5; ++i) policy.record(attempt(8 + i, "no_candidate"), false);
    QVERIFY(policy.globalSearchDue(12.5));
    policy.record(attempt(12.5, "no_candidate", true), false);
    QVERIFY(!policy.globalSearchDue(13.4));
    QVERIFY(policy.globalSearchDue(13.5));  // 1 s again, not 4 s
  }

  void searchesAroundTheLoggedPositionDoNotBackOff() {
    RelocalisationPolicy policy;
    for (int i = 0; i < 5; ++i) policy.record(attempt(i, "no_candidate"), false);
    RegistrationFix logged = attempt(5, "too_few_inliers");
    logged.prior_from_telemetry = true;
    policy.record(logged, false);
    QCOMPARE(policy.failuresInARow(), 6);
    QVERIFY(policy.globalSearchDue(5.1));  // a window around the log is cheap: no back-off
  }
};

QTEST_GUILESS_MAIN(TestRelocalisationPolicy)
#include "test_relocalisation_policy.moc"
