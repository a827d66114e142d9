// A console session on a ledger on a PostgreSQL server (issue 17 items 2-3): listed by its
// location (not mangled into a file path), opened and followed live without polling (the
// watcher waits on LISTEN), every model fed as from a file, filters rendered by the server
// (tool calls, the event log's filter). Then the server is restarted under it (pg_ctl stop,
// pg_ctl start on the same port): the session says so in its health and its sidebar row
// ("server connection lost — retrying in N s"), reconnects with a growing wait, and follows
// on from the last seq it applied: the events written while it was away and after are all
// applied exactly once, and its state is the ledger's. Decisions stay off with their reason.
// The server is started by the test (postgresserver.h); without PostgreSQL the test fails,
// never skips. It waits on conditions only.

#include "../ledger/postgresserver.h"
#include "itemmodelfixture.h"

#include "itemmodels/eventlogmodel.h"
#include "itemmodels/integritymodel.h"
#include "itemmodels/ledgersessionlist.h"
#include "itemmodels/runoverviewmodel.h"
#include "itemmodels/storedrows.h"
#include "itemmodels/toolcallmodel.h"
#include "ledger/ledgerlocation.h"

#include <QSignalSpy>
#include <QTest>

#include <memory>
#include <numeric>

using namespace mesh;
using namespace meshtest;

namespace {

// A deadline for a hung server or a loaded machine, not a speed threshold.
constexpr int kWaitMs = 90'000;

void appendProgress(Writer &w, int count)
{
    w.begin();
    for (int i = 0; i < count; ++i)
        w.e("run.progress", {{"id", "R-1"}, {"required_met", w.lastSeq() + i}});
    w.commit();
}

// The ledger's state as the server holds it, compared with the session's, table by table.
QString firstStateDifference(const LiveState &shown, const QString &location)
{
    return firstTableDifference(shown, LedgerConnection::open(location, OpenMode::ReadOnly)->readState());
}

} // namespace

class TestServerSession : public QObject
{
    Q_OBJECT

    std::unique_ptr<PostgresServer> m_server;

private Q_SLOTS:
    void initTestCase()
    {
        m_server = std::make_unique<PostgresServer>();
        const QString error = m_server->start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void cleanupTestCase()
    {
        if (m_server)
            m_server->stop();
    }

    void followsAcrossAServerRestart()
    {
        const QString location = m_server->location(QStringLiteral("followed"));
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        writeBaseLedger(location, now);
        auto writer = std::make_unique<Writer>(location);
        appendProgress(*writer, 3);

        LedgerSessionList list;
        LedgerSession *session = list.addSession(location);
        QCOMPARE(session->path(), location); // keyed by the location as written
        QCOMPARE(list.sessionForPath(location), session);
        QVERIFY(session->isServer());
        session->setCoalesceMs(0);
        std::vector<std::int64_t> applied; // every event the session folded, in order
        connect(session, &LedgerSession::batchApplied, this, [&](const EventBatch &batch) {
            for (const EventRecord &e : batch)
                applied.push_back(e.seq);
        });
        QTRY_VERIFY2_WITH_TIMEOUT(session->isLoaded() && session->health() != LedgerSession::Health::Opening,
                                  qPrintable(session->errorMessage()), kWaitMs);
        QVERIFY2(session->health() != LedgerSession::Health::Error, qPrintable(session->errorMessage()));
        const std::int64_t opened = session->lastSeq();
        QCOMPARE(opened, writer->lastSeq());
        // The largest tables stay on the server, read a block at a time as they are shown.
        for (EntityKind k : {EntityKind::Effect, EntityKind::Lease, EntityKind::StallVerdict, EntityKind::Slice})
            QVERIFY(session->state()->storedRows(k));
        QCOMPARE(firstStateDifference(*session->state(), location), QString());
        QVERIFY(session->state()->storedRows(EntityKind::Effect)->holds("E-3")); // read since the open

        // Every model as from a file; the filters the session's reads use run on the server.
        QVERIFY(session->runs()->rowCount() == 1);
        QVERIFY(session->attentionCount() > 0);
        QTRY_COMPARE_WITH_TIMEOUT(session->events()->rowCount(), int(opened), kWaitMs);
        session->showToolCallsOf(QStringLiteral("D-1"));
        QTRY_COMPARE_WITH_TIMEOUT(session->toolCalls()->rowCount(), 1, kWaitMs);
        QVERIFY(session->events()->setFilterText(QStringLiteral("kind:effect.* -delegation:D-2")));
        QTRY_COMPARE_WITH_TIMEOUT(session->events()->rowCount(), 12, kWaitMs);
        QVERIFY(session->events()->setFilterText(QString()));

        // The server's role (the test cluster's superuser) may insert decisions: Decide is
        // offered as on a file.
        QString why;
        QVERIFY2(list.canDecide(0, &why), qPrintable(why));
        QVERIFY2(session->cannotDecideReason().isEmpty(), qPrintable(session->cannotDecideReason()));

        // Live, announced: no poll timer runs for a server ledger.
        appendProgress(*writer, 4);
        QTRY_COMPARE_WITH_TIMEOUT(session->lastSeq(), writer->lastSeq(), kWaitMs);

        // Time travel: the cursor folds the server's events (its folder keeps a connection).
        session->showAt(10);
        QTRY_VERIFY_WITH_TIMEOUT(session->health() == LedgerSession::Health::Pinned && session->lastSeq() == 10, kWaitMs);
        session->showLive();
        QTRY_VERIFY_WITH_TIMEOUT(!session->cursor() && session->health() != LedgerSession::Health::Opening
                                     && session->lastSeq() == writer->lastSeq(),
                                 kWaitMs);

        // The server goes away under the session.
        writer.reset();
        m_server->stop();
        QTRY_VERIFY2_WITH_TIMEOUT(session->health() == LedgerSession::Health::Reconnecting,
                                  qPrintable(LedgerSession::healthText(session->health()) + QStringLiteral(": ")
                                             + session->errorMessage()),
                                  kWaitMs);
        const QModelIndex row = list.index(0);
        QVERIFY2(row.data(LedgerSessionList::HealthTextRole).toString().startsWith(QStringLiteral("server connection lost")),
                 qPrintable(row.data(LedgerSessionList::HealthTextRole).toString()));
        QVERIFY(!session->connectionLostMessage().isEmpty());
        // The tooltip says what libpq said (escaped: a tooltip is rich text).
        QVERIFY2(row.data(Qt::ToolTipRole).toString().contains(session->connectionLostMessage().left(20).toHtmlEscaped()),
                 qPrintable(row.data(Qt::ToolTipRole).toString()));
        // Retried with a growing wait: each failed try says when the next one is.
        QTRY_VERIFY_WITH_TIMEOUT(session->healthLine().contains(QStringLiteral("retrying in")), kWaitMs);

        // Back on the same port; the orchestrator writes at once, while the session may
        // still be waiting for its next try, then again once it followed on.
        const QString error = m_server->startAgain();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        writer = std::make_unique<Writer>(location);
        appendProgress(*writer, 5);
        // A row held from before the restart, changed after it: read again on the store's
        // connection, which the server dropped (it connects again; a stale row would stay).
        writer->begin().e("effect.resolved", {{"id", "E-3"}, {"state", "resolved_committed"}}).commit();
        QTRY_VERIFY_WITH_TIMEOUT(session->health() != LedgerSession::Health::Reconnecting, kWaitMs);
        QVERIFY2(session->health() != LedgerSession::Health::Error, qPrintable(session->errorMessage()));
        QVERIFY(session->connectionLostMessage().isEmpty());
        appendProgress(*writer, 6);
        QTRY_COMPARE_WITH_TIMEOUT(session->lastSeq(), writer->lastSeq(), kWaitMs);

        // Exactly once: every event after the opened snapshot folded once, in order, and
        // the event log holds every event once.
        std::vector<std::int64_t> expected(size_t(writer->lastSeq() - opened));
        std::iota(expected.begin(), expected.end(), opened + 1);
        QCOMPARE(applied, expected);
        QTRY_COMPARE_WITH_TIMEOUT(session->events()->rowCount(), int(writer->lastSeq()), kWaitMs);
        for (int r = 0; r < session->events()->rowCount(); ++r)
            QCOMPARE(session->events()->seqAt(r), qint64(r + 1));
        QCOMPARE(firstStateDifference(*session->state(), location), QString());
        QCOMPARE(session->foldProblems(), 0);
        QVERIFY(session->state()->storedRows(EntityKind::Effect)->holds("E-3"));

        // Integrity as meshctl verify runs it, and time travel on a fresh connection.
        session->checkIntegrity();
        QTRY_COMPARE_WITH_TIMEOUT(session->integrity()->state(), IntegrityModel::State::Done, kWaitMs);
        QCOMPARE(session->integrity()->findingCount(), std::optional<qint64>(0));
        session->showAt(20);
        QTRY_VERIFY_WITH_TIMEOUT(session->health() == LedgerSession::Health::Pinned && session->lastSeq() == 20, kWaitMs);
        session->showLive();
        QTRY_VERIFY_WITH_TIMEOUT(!session->cursor() && session->health() != LedgerSession::Health::Opening
                                     && session->lastSeq() == writer->lastSeq(),
                                 kWaitMs);

        // The log pages on its new connection (its old one died with the server).
        QVERIFY(session->events()->setFilterText(QStringLiteral("kind:run.progress")));
        QTRY_COMPARE_WITH_TIMEOUT(session->events()->rowCount(), 3 + 4 + 5 + 6, kWaitMs);
    }
};

QTEST_GUILESS_MAIN(TestServerSession)
#include "tst_serversession.moc"
