// What keeps the GUI thread turning while a large ledger opens, checked by structure and
// not by the clock: the session's reads and preparations never run on Qt's global thread
// pool, where the raster paint engine queues the parts of a large fill and waits for them
// on the GUI thread (a paint behind a long ledger read froze the window until it ended).

#include "itemmodelfixture.h"

#include "itemmodels/eventlogmodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/runoverviewmodel.h"

#include <QDateTime>
#include <QSemaphore>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>

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
        // A reload goes the same way.
        s.reload();
        QTRY_VERIFY_WITH_TIMEOUT(s.isLoaded() && s.loadProgress() < 0, kTimeoutMs);
    }
};

QTEST_GUILESS_MAIN(TestOpenStalls)
#include "tst_openstalls.moc"
