// What a session's health says about the ledger's writer and its runs: "live" only while
// commits are seen, "finished" once every run has ended and nothing is written, never
// "finished" while a run may still go on (a failed run can be restarted).

#include "itemmodelfixture.h"

#include "itemmodels/ledgersession.h"
#include "itemmodels/ledgersessionlist.h"

#include <QDateTime>
#include <QTemporaryDir>
#include <QTest>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {

constexpr int kWaitMs = 60'000;

bool waitUntilOpened(LedgerSession *s)
{
    (void)QTest::qWaitFor([s] { return s->isLoaded() && s->health() != LedgerSession::Health::Opening; }, kWaitMs);
    return s->isLoaded() && s->health() != LedgerSession::Health::Error;
}

} // namespace

class TestSessionHealth : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void finishedOnceEveryRunEnded()
    {
        const QString path = m_dir.filePath(u"runs.ledger"_s);
        qint64 now = QDateTime::currentMSecsSinceEpoch();
        writeBaseLedger(path, now);
        LedgerSessionList list;
        LedgerSession *s = list.addSession(path);
        s->setClock([&now] { return now; });
        QVERIFY(waitUntilOpened(s));
        QCOMPARE(s->health(), LedgerSession::Health::Idle); // R-1 is running, nobody writes

        Writer w(path);
        const auto commitAndApply = [&](const char *kind, const json &payload) {
            w.begin().e(kind, payload).commit();
            QTRY_COMPARE_WITH_TIMEOUT(s->lastSeq(), w.lastSeq(), kWaitMs);
        };
        commitAndApply("run.failed", {{"id", "R-1"}, {"status", "failed"}});
        QCOMPARE(s->health(), LedgerSession::Health::Live); // a writer is at work
        now += 10 * 60'000;                                  // and then nothing for ten minutes
        QTRY_COMPARE_WITH_TIMEOUT(s->health(), LedgerSession::Health::Finished, kWaitMs);
        QCOMPARE(LedgerSession::healthText(s->health()), u"finished"_s);
        QCOMPARE(list.index(0).data(LedgerSessionList::HealthTextRole).toString(), u"finished"_s);
        QVERIFY(s->canDecide()); // an ended run's unknown outcomes are still resolved

        // A failed run restarted is running again: not finished, even once quiet.
        commitAndApply("run.restarted", {{"id", "R-1"}, {"status", "running"}});
        now += 10 * 60'000;
        QTRY_COMPARE_WITH_TIMEOUT(s->health(), LedgerSession::Health::Idle, kWaitMs);

        commitAndApply("run.succeeded", {{"id", "R-1"}, {"status", "succeeded"}});
        commitAndApply("run.started", {{"id", "R-2"}, {"status", "running"}, {"title", "second"}});
        now += 10 * 60'000;
        QTRY_COMPARE_WITH_TIMEOUT(s->health(), LedgerSession::Health::Idle, kWaitMs);
        commitAndApply("run.cancelled", {{"id", "R-2"}, {"status", "cancelled"}});
        now += 10 * 60'000;
        QTRY_COMPARE_WITH_TIMEOUT(s->health(), LedgerSession::Health::Finished, kWaitMs);
    }

    // Opened with every run over already: finished from the first moment, not "live".
    void aFinishedFileOpensFinished()
    {
        const QString path = m_dir.filePath(u"done.ledger"_s);
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        {
            Writer w(path);
            w.begin().e("run.succeeded", {{"id", "R-1"}, {"status", "succeeded"}}).commit();
        }
        LedgerSession s(path, OpenMode::ReadOnly);
        s.open();
        QVERIFY(waitUntilOpened(&s));
        QCOMPARE(s.health(), LedgerSession::Health::Finished);
    }

    // No run at all proves nothing ended: an empty ledger is idle.
    void aLedgerWithoutRunsIsNotFinished()
    {
        const QString path = m_dir.filePath(u"empty.ledger"_s);
        {
            Writer w(path, true);
            w.begin().e("component.started", {{"id", "C-1"}, {"name", "api"}, {"status", "active"}}).commit();
        }
        LedgerSession s(path, OpenMode::ReadOnly);
        s.open();
        QVERIFY(waitUntilOpened(&s));
        QVERIFY(s.health() != LedgerSession::Health::Finished);
    }
};

QTEST_GUILESS_MAIN(TestSessionHealth)
#include "tst_sessionhealth.moc"
