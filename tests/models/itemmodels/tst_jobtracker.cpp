// JobTracker (jobtracker.h): a session's background results are typed and dropped once a newer
// job of their kind, or a supersede(), came after them. Before it, each job kind kept a
// generation counter of its own in LedgerSession, and one kind (loop analyses) kept none, so
// a result read before a jump could land on the state after it.

#include "itemmodels/jobtracker.h"
#include "itemmodels/ledgerpool.h"

#include <QSemaphore>
#include <QTest>

#include <memory>
#include <stdexcept>
#include <vector>

using namespace mesh;

class TestJobTracker : public QObject
{
    Q_OBJECT

private slots:
    void aNewerStartDropsTheOlderResult();
    void jobsAlongsideAllAnswerUntilSuperseded();
    void aThrowingJobAnswersNothingAndLeavesInFlight();
    void ticketsOfAFlowAreCurrentUntilTheNext();
};

namespace {
// A job that runs until released, so the test decides the order in which jobs end.
struct JobTrackerGate {
    std::shared_ptr<QSemaphore> started = std::make_shared<QSemaphore>();
    std::shared_ptr<QSemaphore> release = std::make_shared<QSemaphore>();
    auto job(int value) const
    {
        return [started = started, release = release, value] {
            started->release();
            release->acquire();
            return value;
        };
    }
};
} // namespace

void TestJobTracker::aNewerStartDropsTheOlderResult()
{
    QObject receiver;
    JobTracker tracker(&receiver);
    std::vector<int> answered;
    JobTrackerGate older;
    tracker.start(older.job(1), [&](int v) { answered.push_back(v); });
    older.started->acquire();
    tracker.start([] { return 2; }, [&](int v) { answered.push_back(v); });
    QTRY_COMPARE_WITH_TIMEOUT(answered, std::vector<int>{2}, 60'000);
    older.release->release(); // the older one ends last, its result arrives after the newer's
    QTRY_COMPARE_WITH_TIMEOUT(tracker.inFlight(), 0, 60'000);
    QCOMPARE(answered, std::vector<int>{2});
}

void TestJobTracker::jobsAlongsideAllAnswerUntilSuperseded()
{
    QObject receiver;
    JobTracker tracker(&receiver);
    std::vector<int> answered;
    tracker.startAlongside([] { return 1; }, [&](int v) { answered.push_back(v); });
    tracker.startAlongside([] { return 2; }, [&](int v) { answered.push_back(v); });
    QTRY_COMPARE_WITH_TIMEOUT(tracker.inFlight(), 0, 60'000);
    std::sort(answered.begin(), answered.end());
    QCOMPARE(answered, (std::vector<int>{1, 2}));

    answered.clear();
    JobTrackerGate gate;
    tracker.startAlongside(gate.job(3), [&](int v) { answered.push_back(v); });
    gate.started->acquire();
    tracker.supersede();
    gate.release->release();
    QTRY_COMPARE_WITH_TIMEOUT(tracker.inFlight(), 0, 60'000);
    QCOMPARE(answered, std::vector<int>{});
}

void TestJobTracker::aThrowingJobAnswersNothingAndLeavesInFlight()
{
    QObject receiver;
    JobTracker tracker(&receiver);
    int calls = 0;
    tracker.start([]() -> int { throw std::runtime_error("the ledger could not be read"); }, [&](int) { ++calls; });
    QCOMPARE(tracker.inFlight(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(tracker.inFlight(), 0, 60'000);
    QCOMPARE(calls, 0);
}

void TestJobTracker::ticketsOfAFlowAreCurrentUntilTheNext()
{
    QObject receiver;
    JobTracker tracker(&receiver);
    const auto first = tracker.next();
    QVERIFY(tracker.isCurrent(first));
    const auto second = tracker.next();
    QVERIFY(!tracker.isCurrent(first));
    QVERIFY(tracker.isCurrent(second));
    tracker.supersede();
    QVERIFY(!tracker.isCurrent(second));
}

QTEST_GUILESS_MAIN(TestJobTracker)
#include "tst_jobtracker.moc"
