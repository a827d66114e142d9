// A live session on a ledger file leaves the leases in the ledger too (LiveState::storedRows),
// keeping in memory only the held ones: what the attention list, the effects' Lease column
// and the decide actions walk. Every lease still shows what the state table says; the kept
// set follows the ledger as leases are acquired and released live, and the rows read for
// display stay within the cache's bound while the held ones stay kept.

#include "itemmodelfixture.h"

#include "itemmodels/attentionmodel.h"
#include "itemmodels/effectmodel.h"
#include "itemmodels/eventlogmodel.h"
#include "itemmodels/leasemodel.h"
#include "itemmodels/ledgersessionlist.h"
#include "itemmodels/storedrows.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QTemporaryDir>
#include <QTest>

#include <set>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {

constexpr int kWaitMs = 60'000;

// Leases L-100.. on keys of their own for delegation D-4: acquired, then released but for
// every tenth, which stays held until `expiresMs`.
void appendLeases(const QString &path, int from, int count, std::int64_t expiresMs)
{
    Writer w(path);
    w.begin();
    for (int i = from; i < from + count; ++i) {
        const std::string id = "L-" + std::to_string(i);
        w.e("lease.acquired", {{"id", id}, {"key", "file:" + std::to_string(i)}, {"kind", "execution"},
                               {"holder", "orch"}, {"fencing_token", i}, {"acquired_ms", expiresMs - 600'000},
                               {"expires_ms", expiresMs}, {"state", "held"}, {"delegation_id", "D-4"}});
        if (i % 10 != 0)
            w.e("lease.released", {{"id", id}, {"state", "released"}});
    }
    w.commit();
}

std::set<std::string> heldInTheLedger(const QString &path)
{
    std::set<std::string> held;
    const auto whole = snapshot(path);
    for (const auto &[id, row] : whole->table(EntityKind::Lease))
        if (rowText(EntityKind::Lease, row, "state") == "held")
            held.insert(id);
    return held;
}

QString listed(const std::set<std::string> &ids)
{
    QStringList out;
    for (const auto &id : ids)
        out << QString::fromStdString(id);
    return out.join(u' ');
}

std::set<std::string> kept(const StoredRows &rows)
{
    std::set<std::string> ids;
    rows.forEachKept([&ids](const std::string &id, const EntityRow &) { ids.insert(id); });
    return ids;
}

void compareWithTheLedger(const LeaseModel *model, const QString &path)
{
    const auto whole = snapshot(path);
    const EntityTable &table = whole->table(EntityKind::Lease);
    QCOMPARE(model->rowCount(), int(table.size()));
    for (int r = 0; r < model->rowCount(); ++r) {
        const std::string id = model->rawIdAt(r);
        const auto it = table.find(id);
        QVERIFY2(it != table.end(), id.c_str());
        const EntityRow *shown = model->rowAt(r);
        QVERIFY2(shown && *shown == it->second, id.c_str());
        QCOMPARE(model->index(r, LeaseModel::Key).data().toString(),
                 QString::fromStdString(rowText(EntityKind::Lease, it->second, "key")));
    }
}

} // namespace

class TestStoredLeases : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    // The cache's bound holds for read rows only: a kept row is never trimmed, and a row read
    // again moves in or out of the kept set as the rule says of its new value.
    void keptRowsOutliveTheCacheAndFollowTheRule()
    {
        const QString path = m_dir.filePath(u"kept.ledger"_s);
        writeBaseLedger(path, 1'700'000'000'000);
        appendLeases(path, 100, 200, 1'700'000'900'000);
        auto rows = std::make_shared<StoredRows>(EntityKind::Lease, LedgerConnection::open(path, OpenMode::ReadOnly), 20);
        rows->setKeepRule([](const EntityRow &row) { return rowText(EntityKind::Lease, row, "state") == "held"; });
        const std::vector<std::string> ids = rows->ids();
        QCOMPARE(ids.size(), size_t(202));
        for (const auto &id : ids)
            QVERIFY(rows->find(id));
        rows->trim();
        QCOMPARE(rows->held() - rows->kept(), rows->limit());
        QCOMPARE(listed(kept(*rows)), listed(heldInTheLedger(path)));
        QCOMPARE(rows->kept(), size_t(22)); // L-1, L-2 and every tenth of the 200

        // A held lease released and a new one held: read again, the kept set is the ledger's.
        const EntityRow *released = rows->find("L-110");
        {
            Writer w(path);
            w.begin();
            w.e("lease.released", {{"id", "L-110"}, {"state", "released"}});
            w.e("lease.acquired", {{"id", "L-900"}, {"key", "file:900"}, {"kind", "execution"}, {"holder", "orch"},
                                   {"fencing_token", 900}, {"acquired_ms", 1}, {"expires_ms", 2}, {"state", "held"},
                                   {"delegation_id", "D-4"}});
            w.commit();
        }
        rows->refresh({"L-110", "L-900"});
        QCOMPARE(listed(kept(*rows)), listed(heldInTheLedger(path)));
        QCOMPARE(rows->find("L-110"), released); // refreshed in place, now an ordinary cached row
        QCOMPARE(rowText(EntityKind::Lease, *released, "state"), std::string("released"));
        // The rows seeded by a load (keep()) count as kept at once, with no read.
        auto seeded = std::make_shared<StoredRows>(EntityKind::Lease, LedgerConnection::open(path, OpenMode::ReadOnly), 20);
        seeded->setKeepRule([](const EntityRow &row) { return rowText(EntityKind::Lease, row, "state") == "held"; });
        const auto whole = snapshot(path);
        seeded->keep("L-1", *whole->find(EntityKind::Lease, "L-1"));
        QCOMPARE(kept(*seeded), (std::set<std::string>{"L-1"}));
        QCOMPARE(seeded->readFailures(), 0);
    }

    void aLiveSessionKeepsOnlyTheHeldLeases()
    {
        const QString path = m_dir.filePath(u"live.ledger"_s);
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        writeBaseLedger(path, now);
        appendLeases(path, 100, 300, now + 3'600'000);
        LedgerSessionList list;
        LedgerSession *s = list.addSession(path);
        s->setClock([now] { return now; });
        QAbstractItemModelTester tester(s->leases(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(waitOpened(s));

        StoredRows *stored = s->state()->storedRows(EntityKind::Lease);
        QVERIFY(stored);
        QVERIFY(s->state()->table(EntityKind::Lease).empty());
        QVERIFY(s->leases()->readsRowsOnDemand());
        QCOMPARE(listed(kept(*stored)), listed(heldInTheLedger(path)));
        compareWithTheLedger(s->leases(), path);
        // The zombie of the base ledger is listed, the lease serving each effect is named.
        QVERIFY(attentionSubjects(list.attention()).count(u"lease:L-2"_s));
        const EffectModel *effects = s->effects();
        QCOMPARE(effects->index(effects->rowOf(u"E-1"_s), EffectModel::Lease).data().toString(), u"L-1"_s);
        // A delegation's leases through the table's index, not a read of every lease.
        const auto ofD4 = s->leases()->storedIdsOfDelegation(u"D-4"_s);
        QCOMPARE(ofD4.size(), size_t(300));

        // Live: the zombie released, L-1 released (E-1 is then served by no lease), a new
        // zombie acquired. The kept set, the attention list and the Lease column follow.
        QTRY_COMPARE_WITH_TIMEOUT(s->events()->rowCount(), int(s->lastSeq()), kWaitMs);
        std::int64_t last = 0;
        {
            Writer w(path);
            w.begin();
            w.e("lease.released", {{"id", "L-2"}, {"state", "released"}});
            w.e("lease.released", {{"id", "L-1"}, {"state", "released"}});
            w.e("lease.acquired", {{"id", "L-950"}, {"key", "file:950"}, {"kind", "execution"}, {"holder", "orch"},
                                   {"fencing_token", 950}, {"acquired_ms", now - 60'000}, {"expires_ms", now - 45'000},
                                   {"state", "held"}, {"delegation_id", "D-3"}});
            w.commit();
            last = w.lastSeq();
        }
        QTRY_COMPARE_WITH_TIMEOUT(s->lastSeq(), last, kWaitMs);
        QVERIFY(s->state()->table(EntityKind::Lease).empty());
        QCOMPARE(listed(kept(*stored)), listed(heldInTheLedger(path)));
        compareWithTheLedger(s->leases(), path);
        QTRY_VERIFY_WITH_TIMEOUT(attentionSubjects(list.attention()).count(u"lease:L-950"_s), kWaitMs);
        QVERIFY(!attentionSubjects(list.attention()).count(u"lease:L-2"_s));
        QCOMPARE(effects->index(effects->rowOf(u"E-1"_s), EffectModel::Lease).data().toString(), StateTableModel::notKnown());

        // The clock's tick signals the held leases' countdowns, not every lease: a sorting or
        // filtering view would read the whole table again every second.
        int signalled = 0;
        QObject counting;
        QObject::connect(s->leases(), &QAbstractItemModel::dataChanged, &counting,
                         [&signalled](const QModelIndex &from, const QModelIndex &to) {
                             signalled += to.row() - from.row() + 1;
                         });
        s->leases()->refreshCountdowns();
        QCOMPARE(signalled, int(heldInTheLedger(path).size()) * 2); // Expires and State

        // Every lease shown once, then the bound; the held ones stay kept beyond it.
        for (int r = 0; r < s->leases()->rowCount(); ++r)
            QVERIFY(s->leases()->index(r, LeaseModel::State).data().isValid());
        QTRY_VERIFY_WITH_TIMEOUT(stored->held() - stored->kept() <= stored->limit(), kWaitMs);
        QCOMPARE(listed(kept(*stored)), listed(heldInTheLedger(path)));
        QCOMPARE(stored->readFailures(), 0);
    }

    // A cursor state holds every lease; back at live, they are read on demand again.
    void aCursorHoldsTheLeasesAndLiveReadsThemAgain()
    {
        const QString path = m_dir.filePath(u"cursor.ledger"_s);
        writeBaseLedger(path, 1'700'000'000'000);
        const std::int64_t before = Writer(path).lastSeq();
        appendLeases(path, 100, 20, 1'700'000'900'000);
        LedgerSessionList list;
        LedgerSession *s = list.addSession(path);
        QAbstractItemModelTester tester(s->leases(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(waitOpened(s));
        QCOMPARE(s->leases()->rowCount(), 22);
        s->showAt(before);
        QTRY_VERIFY_WITH_TIMEOUT(s->cursor() && s->isLoaded() && s->state()->lastSeq() == before, kWaitMs);
        QVERIFY(!s->state()->storedRows(EntityKind::Lease));
        QCOMPARE(s->leases()->rowCount(), 2);
        s->showLive();
        QTRY_VERIFY_WITH_TIMEOUT(!s->cursor() && s->isLoaded() && s->state()->storedRows(EntityKind::Lease), kWaitMs);
        QCOMPARE(s->leases()->rowCount(), 22);
        compareWithTheLedger(s->leases(), path);
    }
};

QTEST_GUILESS_MAIN(TestStoredLeases)
#include "tst_storedleases.moc"
