// median() and quantile(): odd and even counts, an outlier, the nearest rank, the
// caller's vector untouched.
#include <QtTest>

#include <vector>

#include "core/util/statistics.h"

class TestStatistics : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void oddCountGivesTheMiddleValue() { QCOMPARE(skytrace::median({3.0, 1.0, 2.0}), 2.0); }

  void evenCountGivesTheUpperMiddleValue() { QCOMPARE(skytrace::median({4.0, 1.0, 3.0, 2.0}), 3.0); }

  void oneOutlierDoesNotMoveIt() {
    QCOMPARE(skytrace::median({5.0, 5.1, 4.9, 5.0, 1000.0}), 5.0);
  }

  void theCallersValuesKeepTheirOrder() {
    const std::vector<double> values = {9.0, 1.0, 5.0};
    QCOMPARE(skytrace::median(values), 5.0);
    QCOMPARE(values, (std::vector<double>{9.0, 1.0, 5.0}));
  }

  void quantileIsTheNearestRank() {
    std::vector<double> hundred;
    for (int i = 100; i >= 1; --i) hundred.push_back(i);  // 100 .. 1
    QCOMPARE(skytrace::quantile(hundred, 0.99), 99.0);
    QCOMPARE(skytrace::quantile(hundred, 0.5), 50.0);
    QCOMPARE(skytrace::quantile(hundred, 0.0), 1.0);
    QCOMPARE(skytrace::quantile(hundred, 1.0), 100.0);
    QCOMPARE(skytrace::quantile(hundred, 2.0), 100.0);  // clamped
    QCOMPARE(skytrace::quantile({4.0, 1.0, 3.0, 2.0}, 0.5), 2.0);  // the lower middle value
    QCOMPARE(skytrace::quantile({}, 0.5), 0.0);
    QCOMPARE(hundred.front(), 100.0);  // untouched
  }
};

QTEST_GUILESS_MAIN(TestStatistics)
#include "test_statistics.moc"
