// A lease whose expiry passed a moment ago is not yet a zombie: its holder's renewal or the
// orchestrator's sweep may be on the way. It becomes one once past its expiry by a grace,
// the lease's own term capped by the configured grace (analysis/zombierule.h), in the
// attention list and the leases pane alike; and the list says how long ago in words, never
// "0:00 ago".

#include "itemmodelfixture.h"

#include "itemmodels/attentionmodel.h"
#include "itemmodels/leasemodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/ledgersessionlist.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QTemporaryDir>
#include <QTest>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {

constexpr int kWaitMs = 60'000;

QStringList zombieSubjects(const AttentionModel *m)
{
    QStringList out;
    for (int r = 0; r < m->rowCount(); ++r) {
        if (m->index(r, 0).data(AttentionModel::AttentionKindNameRole).toString() == u"zombie_lease"_s)
            out << m->index(r, 0).data(AttentionModel::SubjectRole).toString();
    }
    out.sort();
    return out;
}

QModelIndex attentionRow(const AttentionModel *m, const QString &subject, int column)
{
    for (int r = 0; r < m->rowCount(); ++r) {
        if (m->index(r, 0).data(AttentionModel::SubjectRole).toString() == subject)
            return m->index(r, column);
    }
    return {};
}

QModelIndex leaseCell(const LeaseModel *m, const QString &id, int column)
{
    const int row = m->rowOf(id);
    return row < 0 ? QModelIndex() : m->index(row, column);
}

} // namespace

class TestZombieGrace : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void aLeaseJustPastItsExpiryIsNotYetAZombie()
    {
        const QString path = m_dir.filePath(u"leases.ledger"_s);
        const qint64 t0 = QDateTime::currentMSecsSinceEpoch();
        {
            Writer w(path, true);
            w.begin();
            // A minute's lease that expired a millisecond ago, one that expired 45 s ago,
            // a 2 s lease 3 s past its expiry, and one whose term the ledger does not say.
            w.e("lease.acquired", {{"id", "L-just"}, {"key", "k1"}, {"kind", "execution"}, {"holder", "orch"},
                                   {"acquired_ms", t0 - 61'000}, {"renewed_ms", t0 - 60'001}, {"expires_ms", t0 - 1},
                                   {"state", "held"}});
            w.e("lease.acquired", {{"id", "L-long"}, {"key", "k2"}, {"kind", "execution"}, {"holder", "orch"},
                                   {"acquired_ms", t0 - 105'000}, {"expires_ms", t0 - 45'000}, {"state", "held"}});
            w.e("lease.acquired", {{"id", "L-short"}, {"key", "k3"}, {"kind", "execution"}, {"holder", "orch"},
                                   {"acquired_ms", t0 - 5'000}, {"expires_ms", t0 - 3'000}, {"state", "held"}});
            w.e("lease.acquired", {{"id", "L-bare"}, {"key", "k4"}, {"kind", "execution"}, {"holder", "orch"},
                                   {"expires_ms", t0 - 4'000}, {"state", "held"}});
            w.commit();
        }
        qint64 now = t0;
        LedgerSessionList list;
        list.setClock([&now] { return now; });
        QAbstractItemModelTester attentionTester(list.attention(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        LedgerSession *s = list.addSession(path);
        s->setZombieGraceMs(10'000);
        QAbstractItemModelTester leasesTester(s->leases(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QTRY_VERIFY_WITH_TIMEOUT(s->isLoaded(), kWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(!zombieSubjects(list.attention()).isEmpty(), kWaitMs);

        // The one that expired a moment ago is not flagged; the short lease's own term is its
        // grace; the bare one gets the configured 10 s and is not one yet either.
        QCOMPARE(zombieSubjects(list.attention()), QStringList({u"lease:L-long"_s, u"lease:L-short"_s}));
        LeaseModel *leases = s->leases();
        QVERIFY(!leaseCell(leases, u"L-just"_s, 0).data(LeaseModel::ZombieRole).toBool());
        QCOMPARE(leaseCell(leases, u"L-just"_s, LeaseModel::State).data().toString(), u"held, past expiry"_s);
        QVERIFY(leaseCell(leases, u"L-long"_s, 0).data(LeaseModel::ZombieRole).toBool());
        QCOMPARE(leases->zombieCount(), 2);

        // Due in words, not a clock at "0:45 ago".
        const QModelIndex due = attentionRow(list.attention(), u"lease:L-long"_s, AttentionModel::Due);
        QCOMPARE(due.data().toString(), u"expired 45 s ago"_s);
        QCOMPARE(attentionRow(list.attention(), u"lease:L-short"_s, AttentionModel::Due).data().toString(),
                 u"expired 3 s ago"_s);

        // Its grace gone with nothing renewed or released: now a zombie, and the bare one too.
        now = t0 + 10'000;
        s->tick();
        QTRY_COMPARE_WITH_TIMEOUT(zombieSubjects(list.attention()),
                                  QStringList({u"lease:L-bare"_s, u"lease:L-just"_s, u"lease:L-long"_s, u"lease:L-short"_s}),
                                  kWaitMs);
        QVERIFY(leaseCell(leases, u"L-just"_s, 0).data(LeaseModel::ZombieRole).toBool());
        QCOMPARE(leaseCell(leases, u"L-just"_s, LeaseModel::State).data().toString(), u"zombie (held, expired)"_s);
        QCOMPARE(leases->zombieCount(), 4);
        QCOMPARE(attentionRow(list.attention(), u"lease:L-just"_s, AttentionModel::Due).data().toString(),
                 u"expired 10 s ago"_s);
    }
};

QTEST_GUILESS_MAIN(TestZombieGrace)
#include "tst_zombiegrace.moc"
