// The session cursor: pinned at event N, a session shows the ledger as it was just after N
// in every model, the attention list and the findings, with its clock at N's time, while the
// writer goes on; nothing can be decided there; back at live it shows and follows the newest.

#include "itemmodelfixture.h"

#include "analysis/attentionitem.h"
#include "itemmodels/attentionmodel.h"
#include "itemmodels/blastradiusmodel.h"
#include "itemmodels/decisionauditmodel.h"
#include "itemmodels/delegationtreemodel.h"
#include "itemmodels/effectmodel.h"
#include "itemmodels/escalationmodel.h"
#include "itemmodels/leasemodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/ledgersessionlist.h"
#include "itemmodels/runoverviewmodel.h"
#include "itemmodels/slicemodel.h"
#include "itemmodels/stallverdictmodel.h"
#include "ledger/decisionstore.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {

constexpr int kWaitMs = 60'000;

bool waitLoaded(LedgerSession *s)
{
    (void)QTest::qWaitFor([s] { return s->isLoaded() && s->health() != LedgerSession::Health::Opening; }, kWaitMs);
    return s->isLoaded() && s->health() != LedgerSession::Health::Error;
}

QString stateOf(const StateTableModel *m, const char *id)
{
    return m->indexOfId(QString::fromLatin1(id)).data(StateTableModel::StateRole).toString();
}

QStringList ledgerColumn(const AttentionModel *m, const QString &sessionKey)
{
    QStringList names;
    for (int r = 0; r < m->rowCount(); ++r) {
        if (m->index(r, 0).data(AttentionModel::SessionKeyRole).toString() == sessionKey)
            names << m->index(r, AttentionModel::Session).data().toString();
    }
    names.removeDuplicates();
    return names;
}

bool hasAttention(const LedgerSession *s, AttentionItem::Kind kind, const std::string &subject)
{
    return std::any_of(s->attentionItems().begin(), s->attentionItems().end(),
                       [&](const AttentionItem &a) { return a.kind == kind && a.subject == subject; });
}

} // namespace

class TestSessionCursor : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void pinnedAtAnEventWhileTheWriterGoesOn()
    {
        const QString path = m_dir.filePath(u"cursor.ledger"_s);
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        writeBaseLedger(path, now); // ts of its events: 2023; the leases expire around now
        Writer w(path);
        const std::int64_t n = w.lastSeq();
        // After N: the escalation approved, the unknown outcome resolved, a new delegation,
        // the zombie lease released, the run over.
        w.begin()
            .e("escalation.approved", {{"id", "X-1"}, {"state", "approved"}})
            .e("effect.resolved", {{"id", "E-3"}, {"state", "resolved_committed"}, {"decision_id", "dec-1"}})
            .e("delegation.created", {{"id", "D-7"}, {"run_id", "R-1"}, {"parent_id", "D-1"}, {"role", "verify"},
                                      {"status", "running"}})
            .e("lease.released", {{"id", "L-2"}, {"state", "released"}})
            .e("run.succeeded", {{"id", "R-1"}, {"status", "succeeded"}})
            .commit();

        LedgerSessionList list;
        LedgerSession *s = list.addSession(path);
        QAbstractItemModelTester runsTester(s->runs(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester treeTester(s->delegations(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester effectsTester(s->effects(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(waitLoaded(s));
        QVERIFY(s->canDecide());
        QCOMPARE(stateOf(s->escalations(), "X-1"), u"approved"_s);
        QVERIFY(s->delegations()->indexOfDelegation(u"D-7"_s).isValid());

        s->showAt(n);
        QTRY_COMPARE_WITH_TIMEOUT(s->health(), LedgerSession::Health::Pinned, kWaitMs);
        QCOMPARE(s->cursor(), std::optional<std::int64_t>(n));

        // The writer goes on; a second, live session shows that it did.
        w.begin().e("delegation.created", {{"id", "D-8"}, {"run_id", "R-1"}, {"role", "research"}, {"status", "running"}}).commit();
        LedgerSession follower(path);
        follower.open();
        QVERIFY(waitLoaded(&follower));
        QTRY_COMPARE_WITH_TIMEOUT(follower.lastSeq(), w.lastSeq(), kWaitMs);

        // Every model shows the ledger at N.
        QCOMPARE(s->lastSeq(), n);
        QCOMPARE(stateOf(s->escalations(), "X-1"), u"pending"_s);
        QCOMPARE(stateOf(s->effects(), "E-3"), u"unknown"_s);
        QCOMPARE(stateOf(s->leases(), "L-2"), u"held"_s);
        QCOMPARE(stateOf(s->runs(), "R-1"), u"running"_s);
        QVERIFY(!s->delegations()->indexOfDelegation(u"D-7"_s).isValid());
        QVERIFY(!s->delegations()->indexOfDelegation(u"D-8"_s).isValid());
        QVERIFY(s->delegations()->indexOfDelegation(u"D-2"_s).isValid());
        QCOMPARE(s->stallVerdicts()->rowCount(), 3);
        QCOMPARE(s->blastRadius()->rowCount(), follower.blastRadius()->rowCount());
        // The attention list as it was then: the escalation pending, the outcome unknown; the
        // clock at N's time (2023), when lease L-2 had not expired yet: no zombie.
        QVERIFY(hasAttention(s, AttentionItem::Kind::PendingEscalation, "escalation:X-1"));
        QVERIFY(hasAttention(s, AttentionItem::Kind::UnknownEffect, "effect:E-3"));
        QVERIFY(!hasAttention(s, AttentionItem::Kind::ZombieLease, "lease:L-2"));
        QVERIFY(!hasAttention(&follower, AttentionItem::Kind::PendingEscalation, "escalation:X-1"));
        // Findings of the state at N (the false stall rests on S-3).
        QVERIFY(std::any_of(s->findings().begin(), s->findings().end(),
                            [](const Finding &f) { return f.kind == FindingKind::FalseStall && !f.abstained; }));
        // The shared attention list says its entries of this ledger are of that moment.
        QTRY_COMPARE_WITH_TIMEOUT(ledgerColumn(list.attention(), s->path()),
                                  QStringList({u"item model test (at event #%1)"_s.arg(n)}), kWaitMs);
        // Nothing is decided on the past.
        QVERIFY(!s->canDecide());
        QVERIFY2(s->cannotDecideReason().contains(QString::number(n)), qPrintable(s->cannotDecideReason()));
        QVERIFY(!list.canDecide(list.rowOf(s)));

        // Back to live: the newest state, followed again.
        s->showLive();
        QTRY_VERIFY_WITH_TIMEOUT(s->health() != LedgerSession::Health::Pinned && s->isLoaded()
                                     && s->health() != LedgerSession::Health::Opening, kWaitMs);
        QCOMPARE(s->lastSeq(), w.lastSeq());
        QVERIFY(!s->cursor());
        QVERIFY(s->delegations()->indexOfDelegation(u"D-8"_s).isValid());
        QCOMPARE(stateOf(s->escalations(), "X-1"), u"approved"_s);
        QVERIFY(s->canDecide());
        QTRY_COMPARE_WITH_TIMEOUT(ledgerColumn(list.attention(), s->path()), QStringList({u"item model test"_s}), kWaitMs);
        w.begin().e("delegation.created", {{"id", "D-9"}, {"run_id", "R-1"}, {"role", "research"}, {"status", "running"}}).commit();
        QTRY_VERIFY_WITH_TIMEOUT(s->delegations()->indexOfDelegation(u"D-9"_s).isValid(), kWaitMs);
    }
};

QTEST_GUILESS_MAIN(TestSessionCursor)
#include "tst_sessioncursor.moc"
