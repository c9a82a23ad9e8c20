// The thread budget: what the environment grants (Slurm, OMP_NUM_THREADS, the CPU
// affinity mask) in that order, and the process-wide setting. The environment is changed
// through qputenv/qunsetenv: they hold the lock under which QtTest's watchdog thread reads
// it (plain setenv beside that read crashed getenv under ASan).
#include <QtTest>

#include <sched.h>


#include "core/util/error.h"
#include "core/util/thread_budget.h"

using namespace skytrace;

class TestThreadBudget : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void init() {
    qunsetenv("SLURM_CPUS_PER_TASK");
    qunsetenv("OMP_NUM_THREADS");
  }
  void cleanup() { init(); }

  void slurmThenOpenMpThenAffinity() {
    qputenv("SLURM_CPUS_PER_TASK", "3");
    qputenv("OMP_NUM_THREADS", "2");
    QCOMPARE(environmentThreadBudget().threads, 3);
    QCOMPARE(QString::fromStdString(environmentThreadBudget().source), QString("SLURM_CPUS_PER_TASK"));
    qunsetenv("SLURM_CPUS_PER_TASK");
    QCOMPARE(environmentThreadBudget().threads, 2);
    QCOMPARE(QString::fromStdString(environmentThreadBudget().source), QString("OMP_NUM_THREADS"));
    qunsetenv("OMP_NUM_THREADS");
    cpu_set_t granted;
    QVERIFY(sched_getaffinity(0, sizeof(granted), &granted) == 0);
    QCOMPARE(environmentThreadBudget().threads, CPU_COUNT(&granted));
    QCOMPARE(QString::fromStdString(environmentThreadBudget().source), QString("CPU affinity"));
  }

  // taskset -c N: one CPU granted, one thread (LibTorch used every core regardless).
  void affinityOfOneCpuGivesOneThread() {
    cpu_set_t granted;
    QVERIFY(sched_getaffinity(0, sizeof(granted), &granted) == 0);
    int first = 0;
    while (!CPU_ISSET(first, &granted)) ++first;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    QVERIFY(sched_setaffinity(0, sizeof(one), &one) == 0);
    const ThreadBudget budget = environmentThreadBudget();
    QVERIFY(sched_setaffinity(0, sizeof(granted), &granted) == 0);
    QCOMPARE(budget.threads, 1);
  }

  void malformedVariablesAreIgnored() {
    for (const char* text : {"", "0", "-2", "abc", "2x", "99999"}) {
      qputenv("OMP_NUM_THREADS", text);
      QVERIFY2(environmentThreadBudget().source != "OMP_NUM_THREADS", text);
    }
  }

  void processBudgetIsSetOnce() {
    setThreadBudget({5, "--threads"});
    QCOMPARE(threadBudget().threads, 5);
    QCOMPARE(QString::fromStdString(threadBudget().source), QString("--threads"));
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, setThreadBudget({0, "--threads"}));
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, setThreadBudget({5000, "--threads"}));
    QCOMPARE(threadBudget().threads, 5);
  }
};

QTEST_GUILESS_MAIN(TestThreadBudget)
#include "test_thread_budget.moc"
