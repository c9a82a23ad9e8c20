// median(): odd and even counts, an outlier, the caller's vector untouched.
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
};

QTEST_GUILESS_MAIN(TestStatistics)
#include "test_statistics.moc"
