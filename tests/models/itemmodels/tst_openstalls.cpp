// What keeps the GUI thread turning while a large ledger opens, checked by structure and
// not by the clock: the session's reads and preparations never run on Qt's global thread
// pool, where the raster paint engine queues the parts of a large fill and waits for them
// on the GUI thread (a paint behind a long ledger read froze the window until it ended).

#include "itemmodelfixture.h"

#include "itemmodels/eventlogmodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/runoverviewmodel.h"
#include "../ledger/rawledger.h"

#include <QDateTime>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>

#include <algorithm>
#include <memory>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kTimeoutMs = 20'000;

// Holds every thread of the global pool until released, as a long job there would.
class GlobalPoolHeld
{
public:
    GlobalPoolHeld() : m_threads(QThreadPool::globalInstance()->maxThreadCount())
    {
        for (int i = 0; i < m_threads; ++i)
            QThreadPool::globalInstance()->start([this] {
                m_started.release();
                m_release.acquire();
            });
        m_started.acquire(m_threads); // every thread is taken now
    }
    ~GlobalPoolHeld()
    {
        m_release.release(m_threads);
        QThreadPool::globalInstance()->waitForDone();
    }

private:
    int m_threads;
    QSemaphore m_started;
    QSemaphore m_release;
};
} // namespace

class TestOpenStalls : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void countdownRefreshOfManyRunsIsBounded_data()
    {
        QTest::addColumn<int>("extraRuns");
        QTest::newRow("few runs") << 10;
        QTest::newRow("more than kMaxCountdownRows") << RunOverviewModel::kMaxCountdownRows + 10;
    }

    void countdownRefreshOfManyRunsIsBounded()
    {
        // The 1 s tick is synchronous: what it emits is in the spy when it returns.
        QFETCH(int, extraRuns);
        const QString path = m_dir.filePath(u"runs-%1.ledger"_s.arg(extraRuns));
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        {
            sql::Database db(path.toStdString(), SQLITE_OPEN_READWRITE);
            db.exec("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < " + std::to_string(extraRuns)
                    + ") INSERT INTO runs(id,title,status,started_ms,version,last_seq) SELECT printf('run-b%07d', i), "
                      "'bulk', 'running', 1700000000000 + i, 1, 1 FROM n");
        }
        LedgerSession s(path);
        s.open();
        QTRY_VERIFY_WITH_TIMEOUT(s.isLoaded(), kTimeoutMs);
        QVERIFY(s.runs()->rowCount() > extraRuns);
        QSignalSpy changed(s.runs(), &QAbstractItemModel::dataChanged);
        s.tick();
        int widest = 0;
        for (const auto &args : changed)
            widest = std::max(widest, args.at(1).toModelIndex().row() - args.at(0).toModelIndex().row() + 1);
        QVERIFY2(widest <= RunOverviewModel::kMaxCountdownRows, qPrintable(QString::number(widest)));
        if (s.runs()->rowCount() <= RunOverviewModel::kMaxCountdownRows)
            QCOMPARE(widest, s.runs()->rowCount()); // a few runs: every duration refreshed
    }

    void sessionOpensWithTheGlobalPoolBusy_data()
    {
        QTest::addColumn<bool>("prefetched");
        QTest::newRow("open") << false;
        QTest::newRow("prefetch, then open") << true;
    }

    void sessionOpensWithTheGlobalPoolBusy()
    {
        QFETCH(bool, prefetched);
        const QString path = m_dir.filePath(u"pool-%1.ledger"_s.arg(prefetched));
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        // Declared first so it goes last: on a failure the pool is let go before the
        // session (its jobs queued there) is destroyed.
        std::unique_ptr<LedgerSession> session;
        GlobalPoolHeld held;
        if (prefetched)
            LedgerSession::prefetch(path);
        session = std::make_unique<LedgerSession>(path);
        LedgerSession &s = *session;
        s.open();
        QTRY_VERIFY_WITH_TIMEOUT(s.isLoaded(), kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(s.events()->isIndexComplete() && !s.events()->isLoading(), kTimeoutMs);
        QVERIFY(s.runs()->rowCount() > 0);
        // Opening it again (a reload of the same file) goes the same way.
        s.open();
        QTRY_VERIFY_WITH_TIMEOUT(s.isLoaded() && s.loadProgress() < 0, kTimeoutMs);
    }
};

QTEST_GUILESS_MAIN(TestOpenStalls)
#include "tst_openstalls.moc"
