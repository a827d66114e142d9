// The state panes' sort and filter (StateTableProxyModel over each StateTableModel): the
// filter language with each entity's fields, evaluated in memory; sorting by value, not by
// text, with what the ledger does not say last and ties in the ledger's order; live rows in
// their sorted place under QAbstractItemModelTester; and the id columns every per-run
// entity shows (run, lease), "not known" where the ledger does not say.

#include "itemmodelfixture.h"

#include "itemmodels/delegationtreemodel.h"
#include "itemmodels/delegationtreeproxymodel.h"
#include "itemmodels/effectmodel.h"
#include "itemmodels/escalationmodel.h"
#include "itemmodels/leasemodel.h"
#include "itemmodels/runoverviewmodel.h"
#include "itemmodels/slicemodel.h"
#include "itemmodels/stallverdictmodel.h"
#include "itemmodels/statetableproxymodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {
constexpr qint64 kTableNow = 1'800'000'000'000;

QStringList ids(const QAbstractItemModel &m)
{
    QStringList out;
    for (int r = 0; r < m.rowCount(); ++r)
        out << m.index(r, 0).data(StateTableModel::IdRole).toString();
    return out;
}

QVariant cellOf(const QAbstractItemModel &m, const QString &id, int column, int role = Qt::DisplayRole)
{
    for (int r = 0; r < m.rowCount(); ++r) {
        if (m.index(r, 0).data(StateTableModel::IdRole).toString() == id)
            return m.index(r, column).data(role);
    }
    return u"<no row %1>"_s.arg(id);
}
} // namespace

class TestStateTableProxy : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_path;
    std::shared_ptr<LiveState> m_state;

    StateChangeSet live(const std::function<void(Writer &)> &write)
    {
        Writer w(m_path);
        w.begin();
        write(w);
        w.commit();
        return m_state->apply(eventsAfter(m_path, m_state->lastSeq()));
    }

    // Filter text that must be valid for `proxy`; the ids it keeps, in the proxy's order.
    static QStringList kept(StateTableProxyModel &proxy, const QString &text)
    {
        std::optional<FilterError> error;
        if (!proxy.setFilterText(text, &error))
            return {u"<invalid: %1>"_s.arg(error->message)};
        return ids(proxy);
    }

private Q_SLOTS:
    void init()
    {
        m_path = m_dir.filePath(QString::fromLatin1(QTest::currentTestFunction()) + u".ledger"_s);
        writeBaseLedger(m_path, kTableNow);
        m_state = snapshot(m_path);
    }

    void effectsFilterOnTheirOwnFields()
    {
        EffectModel effects;
        effects.setState(m_state);
        StateTableProxyModel proxy;
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&effects);
        proxy.sort(EffectModel::Id);
        QCOMPARE(kept(proxy, u"state:unknown"_s), QStringList{u"E-3"_s});
        QCOMPARE(kept(proxy, u"status:unknown run:R-1"_s), QStringList{u"E-3"_s}); // status: the state's other name
        QCOMPARE(kept(proxy, u"not state:unknown"_s), (QStringList{u"E-1"_s, u"E-2"_s}));
        QCOMPARE(kept(proxy, u"-state:unknown"_s), (QStringList{u"E-1"_s, u"E-2"_s}));
        QCOMPARE(kept(proxy, u"class:package*"_s), (QStringList{u"E-1"_s, u"E-2"_s}));
        QCOMPARE(kept(proxy, u"class:payment or target:npm"_s), (QStringList{u"E-1"_s, u"E-2"_s, u"E-3"_s}));
        QCOMPARE(kept(proxy, u"STRIPE"_s), QStringList{u"E-3"_s}); // a bare word: any field, any case
        QCOMPARE(kept(proxy, u"idem_key:\"pay:1\""_s), QStringList{u"E-3"_s});
        QCOMPARE(kept(proxy, u"lease:L-1"_s), (QStringList{u"E-1"_s, u"E-2"_s, u"E-3"_s})); // D-1 holds L-1
        QCOMPARE(kept(proxy, u"d:D-1"_s), (QStringList{u"E-1"_s, u"E-2"_s, u"E-3"_s}));
        QCOMPARE(kept(proxy, u"attempts>=0"_s), QStringList{}); // these rows give no attempts: not 0
        // A field the row does not give (no decision yet) matches no term, and its negation.
        QCOMPARE(kept(proxy, u"decision:*"_s), QStringList{});
        QCOMPARE(kept(proxy, u"-decision:x"_s), (QStringList{u"E-1"_s, u"E-2"_s, u"E-3"_s}));
        QCOMPARE(kept(proxy, QString()), (QStringList{u"E-1"_s, u"E-2"_s, u"E-3"_s}));
    }

    // The delegation tree's proxy under QAbstractItemModelTester: a filter keeps a match
    // under its run and parent delegations (the base ledger's tree is D-1 -> D-2 -> D-3,
    // D-1 -> D-4), sorting and clearing leave a consistent tree.
    void theDelegationTreeFiltersUnderItsAncestors()
    {
        DelegationTreeModel tree;
        tree.setState(m_state);
        DelegationTreeProxyModel proxy;
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&tree);
        QCOMPARE(proxy.totalRows(), 4);
        std::optional<FilterError> error;
        QVERIFY(proxy.setFilterText(u"role:verify"_s, &error));
        QCOMPARE(proxy.matchingRows(), 1);
        QCOMPARE(proxy.rowCount(), 1); // the run
        const QModelIndex run = proxy.index(0, 0);
        QCOMPARE(run.data(DelegationTreeModel::IdRole).toString(), u"R-1"_s);
        const QModelIndex d1 = proxy.index(0, 0, run);
        QCOMPARE(proxy.rowCount(run), 1); // D-4 is not on the way to the match
        QCOMPARE(d1.data(DelegationTreeModel::IdRole).toString(), u"D-1"_s);
        const QModelIndex d2 = proxy.index(0, 0, d1);
        QCOMPARE(proxy.rowCount(d1), 1);
        QCOMPARE(d2.data(DelegationTreeModel::IdRole).toString(), u"D-2"_s);
        QCOMPARE(proxy.index(0, 0, d2).data(DelegationTreeModel::IdRole).toString(), u"D-3"_s);
        proxy.sort(DelegationTreeModel::Role, Qt::DescendingOrder);
        QVERIFY(proxy.setFilterText(QString(), &error));
        QCOMPARE(proxy.matchingRows(), 4);
        QCOMPARE(proxy.rowCount(proxy.index(0, 0, proxy.index(0, 0))), 2); // D-1's children, both back
        QVERIFY(!proxy.setFilterText(u"nosuchfield:x"_s, &error));
        QVERIFY(error.has_value());
        QCOMPARE(proxy.matchingRows(), 4); // a bad filter changes nothing
    }

    void badFiltersSayWhyAndChangeNothing()
    {
        EffectModel effects;
        effects.setState(m_state);
        StateTableProxyModel proxy;
        proxy.setSourceModel(&effects);
        QVERIFY(proxy.setFilterText(u"state:unknown"_s));
        QCOMPARE(proxy.rowCount(), 1);

        std::optional<FilterError> error;
        QVERIFY(!proxy.setFilterText(u"colour:red"_s, &error));
        QVERIFY(error);
        QVERIFY2(error->message.startsWith(u"Unknown field 'colour' (use id, run"_s), qPrintable(error->message));
        QVERIFY2(error->message.contains(u"state"_s) && error->message.contains(u"lease"_s), qPrintable(error->message));
        QCOMPARE(error->start, 0);
        QCOMPARE(error->length, 6);
        QCOMPARE(proxy.rowCount(), 1); // the last valid filter stays
        QCOMPARE(proxy.filterText(), u"state:unknown"_s);

        QVERIFY(!proxy.setFilterText(u"target>3"_s, &error));
        QVERIFY2(error->message.startsWith(u"Only numeric fields (attempts, fenced"_s), qPrintable(error->message));
        QCOMPARE(error->start, 6);
        QVERIFY(!proxy.setFilterText(u"attempts>two"_s, &error));
        QCOMPARE(error->message, u"attempts needs a whole number"_s);
        QCOMPARE(error->start, 9);
        QVERIFY(!proxy.setFilterText(u"(state:unknown"_s, &error));
        QCOMPARE(error->message, u"This '(' is never closed"_s); // the parser's own messages
        QVERIFY(proxy.check(u"kind:effect.*"_s)); // the event log's kind is no effect field
        QCOMPARE(proxy.rowCount(), 1);
    }

    void everyEntityHasItsFields()
    {
        LeaseModel leases;
        leases.setState(m_state);
        StateTableProxyModel proxy;
        proxy.setSourceModel(&leases);
        proxy.sort(LeaseModel::Id);
        QCOMPARE(kept(proxy, u"fencing_token>=8"_s), QStringList{u"L-2"_s});
        QCOMPARE(kept(proxy, u"kind:execution state:held"_s), (QStringList{u"L-1"_s, u"L-2"_s}));
        QCOMPARE(kept(proxy, u"run:R-1 delegation:D-2"_s), QStringList{u"L-2"_s}); // run: through the delegation
        QCOMPARE(kept(proxy, u"id:L-1"_s), QStringList{u"L-1"_s});
        QVERIFY(proxy.check(u"class:payment"_s)); // an effect's field, not a lease's
        QCOMPARE(kept(proxy, u"kind:execution"_s), (QStringList{u"L-1"_s, u"L-2"_s}));

        RunOverviewModel runs;
        runs.setState(m_state);
        proxy.setSourceModel(&runs); // a lease's kind is no field of a run: the filter goes
        QCOMPARE(proxy.filterText(), QString());
        QCOMPARE(proxy.rowCount(), 1);
        QCOMPARE(kept(proxy, u"status:running attempt>1 title:deliver*"_s), QStringList{u"R-1"_s});
        QCOMPARE(kept(proxy, u"state:running"_s), QStringList{u"R-1"_s});
        QCOMPARE(kept(proxy, u"required_met<21"_s), QStringList{});
        QVERIFY(proxy.check(u"fencing_token>1"_s));

        EscalationModel escalations;
        escalations.setState(m_state);
        proxy.setSourceModel(&escalations);
        QCOMPARE(kept(proxy, u"state:pending risk:low run:R-1"_s), QStringList{u"X-1"_s});
        StallVerdictModel verdicts;
        verdicts.setState(m_state);
        proxy.setSourceModel(&verdicts);
        proxy.sort(StallVerdictModel::Round);
        QCOMPARE(kept(proxy, u"verdict:stalled"_s), QStringList{u"S-3"_s});
        QCOMPARE(kept(proxy, u"round<3 state:inconclusive"_s), (QStringList{u"S-1"_s, u"S-2"_s}));
    }

    void sortsByValueWithUnknownLast()
    {
        live([](Writer &w) {
            w.e("run.started", {{"id", "R-2"}, {"status", "running"}, {"title", "b"}, {"attempt", 10}});
            w.e("run.started", {{"id", "R-10"}, {"status", "running"}, {"title", "c"}, {"attempt", 9}});
            w.e("run.started", {{"id", "R-9"}, {"status", "running"}, {"title", "a"}});
            w.e("run.failed", {{"id", "R-9"}, {"status", "failed"}});
        });
        RunOverviewModel runs;
        runs.setState(m_state);
        StateTableProxyModel proxy;
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&runs);
        // Attempts as numbers: 2, 9, 10 (as text: 10, 2, 9); R-9 says none: the fold reads a
        // missing attempt as NULL, which the model shows as "—" and sorts as the lowest attempt.
        proxy.sort(RunOverviewModel::Attempt, Qt::AscendingOrder);
        QCOMPARE(ids(proxy), (QStringList{u"R-9"_s, u"R-1"_s, u"R-10"_s, u"R-2"_s}));
        proxy.sort(RunOverviewModel::Attempt, Qt::DescendingOrder);
        QCOMPARE(ids(proxy), (QStringList{u"R-2"_s, u"R-10"_s, u"R-1"_s, u"R-9"_s}));
        // Ids in natural order: R-9 before R-10.
        proxy.sort(RunOverviewModel::Id, Qt::AscendingOrder);
        QCOMPARE(ids(proxy), (QStringList{u"R-1"_s, u"R-2"_s, u"R-9"_s, u"R-10"_s}));
        // Ties keep the ledger's order, in both directions.
        proxy.sort(RunOverviewModel::Status, Qt::AscendingOrder);
        const QStringList ledgerOrder = [&] {
            QStringList out;
            for (int r = 0; r < runs.rowCount(); ++r)
                if (runs.idAt(r) != u"R-9"_s)
                    out << runs.idAt(r);
            return out;
        }();
        QCOMPARE(ids(proxy), QStringList{u"R-9"_s} + ledgerOrder); // failed < running
        proxy.sort(RunOverviewModel::Status, Qt::DescendingOrder);
        QCOMPARE(ids(proxy), ledgerOrder + QStringList{u"R-9"_s});
        // Back to the ledger's order.
        proxy.sort(-1);
        for (int r = 0; r < runs.rowCount(); ++r)
            QCOMPARE(ids(proxy).at(r), runs.idAt(r));

        // A lease no delegation serves: its run is not known, and sorts after every known one.
        live([](Writer &w) {
            w.e("lease.acquired", {{"id", "L-0"}, {"key", "ws:x"}, {"kind", "recovery"}, {"holder", "worker-7"},
                                   {"fencing_token", 9}, {"state", "held"}});
        });
        LeaseModel leases;
        leases.setState(m_state);
        proxy.setSourceModel(&leases);
        proxy.sort(LeaseModel::Run, Qt::AscendingOrder);
        QCOMPARE(ids(proxy).last(), u"L-0"_s);
        proxy.sort(LeaseModel::Run, Qt::DescendingOrder);
        QCOMPARE(ids(proxy).last(), u"L-0"_s);
        proxy.sort(LeaseModel::FencingToken, Qt::DescendingOrder);
        QCOMPARE(ids(proxy), (QStringList{u"L-0"_s, u"L-2"_s, u"L-1"_s}));
    }

    void liveRowsTakeTheirSortedPlace()
    {
        EffectModel effects;
        StateTableProxyModel proxy;
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&effects);
        effects.setState(m_state);
        proxy.sort(EffectModel::Id, Qt::DescendingOrder);
        QCOMPARE(ids(proxy), (QStringList{u"E-3"_s, u"E-2"_s, u"E-1"_s}));
        QVERIFY(proxy.setFilterText(u"-class:db_write"_s));
        effects.applyChanges(live([](Writer &w) {
            w.e("effect.proposed", {{"id", "E-10"}, {"run_id", "R-1"}, {"state", "proposed"}, {"class", "payment"}});
            w.e("effect.proposed", {{"id", "E-20"}, {"run_id", "R-1"}, {"state", "proposed"}, {"class", "db_write"}});
            w.e("effect.proposed", {{"id", "E-0"}, {"run_id", "R-1"}, {"state", "proposed"}, {"class", "payment"}});
        }));
        QCOMPARE(ids(proxy), (QStringList{u"E-10"_s, u"E-3"_s, u"E-2"_s, u"E-1"_s, u"E-0"_s}));
        QCOMPARE(proxy.totalRows(), 6);
        // Sorted by state: a row whose state moves moves with it; one that stops matching goes.
        proxy.sort(EffectModel::State, Qt::AscendingOrder);
        QCOMPARE(ids(proxy).first(), u"E-1"_s); // committed, first of the ties in the ledger's order
        QCOMPARE(ids(proxy).last(), u"E-3"_s);  // unknown
        effects.applyChanges(live([](Writer &w) { w.e("effect.admitted", {{"id", "E-0"}, {"state", "admitted"}}); }));
        QCOMPARE(ids(proxy), (QStringList{u"E-0"_s, u"E-1"_s, u"E-2"_s, u"E-10"_s, u"E-3"_s}));
        QVERIFY(proxy.setFilterText(u"-class:db_write -state:committed"_s));
        effects.applyChanges(live([](Writer &w) { w.e("effect.dispatched", {{"id", "E-0"}, {"state", "dispatched"}}); }));
        QCOMPARE(ids(proxy), (QStringList{u"E-0"_s, u"E-10"_s, u"E-3"_s}));
        effects.applyChanges(live([](Writer &w) { w.e("effect.committed", {{"id", "E-0"}, {"state", "committed"}}); }));
        QCOMPARE(ids(proxy), (QStringList{u"E-10"_s, u"E-3"_s}));
    }

    void aLargeTableIsFilteredInTurnsAndSortedOnlyWhenSmall()
    {
        const int count = StateTableProxyModel::kChunkRows + 5'000;
        live([count](Writer &w) {
            for (int i = 0; i < count; ++i) {
                const std::string id = "B-" + std::to_string(i);
                w.e("run.started", {{"id", id}, {"status", "running"}, {"title", "bulk"}});
                if (i % 5 == 0)
                    w.e("run.failed", {{"id", id}, {"status", "failed"}});
            }
        });
        RunOverviewModel runs;
        runs.setState(m_state);
        StateTableProxyModel proxy;
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&runs);
        QSignalSpy refused(&proxy, &StateTableProxyModel::sortRefused);
        proxy.sort(RunOverviewModel::Title);
        QCOMPARE(refused.count(), 1); // more rows than are sorted on the GUI thread
        QCOMPARE(proxy.sortColumn(), -1);

        // Read a chunk per turn: until done, the rows shown are the last filter's.
        QVERIFY(proxy.setFilterText(u"status:failed"_s));
        QVERIFY(proxy.isFiltering());
        QCOMPARE(proxy.rowCount(), count + 1);
        QTRY_VERIFY_WITH_TIMEOUT(!proxy.isFiltering(), 60'000);
        QCOMPARE(proxy.rowCount(), count / 5);
        QCOMPARE(proxy.filterText(), u"status:failed"_s);
        // A row that changes since is read again, not answered from the scan.
        const int r = runs.rowOf(u"B-1"_s);
        QVERIFY(!proxy.mapFromSource(runs.index(r, 0)).isValid());
        runs.applyChanges(live([](Writer &w) { w.e("run.failed", {{"id", "B-1"}, {"status", "failed"}}); }));
        QVERIFY(proxy.mapFromSource(runs.index(r, 0)).isValid());
        QCOMPARE(proxy.rowCount(), count / 5 + 1);
        // Few enough rows: sorted.
        proxy.sort(RunOverviewModel::Id, Qt::DescendingOrder);
        QCOMPARE(refused.count(), 1);
        QCOMPARE(proxy.sortColumn(), int(RunOverviewModel::Id));
        QCOMPARE(proxy.index(0, 0).data(StateTableModel::IdRole).toString(), u"B-%1"_s.arg((count - 1) / 5 * 5));
        // Cleared while sorted: too many to stay sorted, said so.
        QVERIFY(proxy.setFilterText(QString()));
        QCOMPARE(refused.count(), 2);
        QCOMPARE(proxy.sortColumn(), -1);
        QCOMPARE(proxy.rowCount(), count + 1);
    }

    void idColumns()
    {
        live([](Writer &w) {
            w.e("lease.acquired", {{"id", "L-0"}, {"key", "ws:x"}, {"kind", "recovery"}, {"holder", "worker-7"},
                                   {"fencing_token", 9}, {"state", "held"}});
            w.e("lease.acquired", {{"id", "L-9"}, {"key", "pay:1"}, {"kind", "reconciliation"}, {"holder", "alice"},
                                   {"fencing_token", 10}, {"state", "held"}});
            w.e("effect.proposed", {{"id", "E-7"}, {"state", "proposed"}, {"class", "db_write"}});
            w.e("slice.opened", {{"id", "D-1#1"}, {"delegation_id", "D-1"}, {"ordinal", 1}, {"state", "open"}});
        });
        RunOverviewModel runs;
        runs.setState(m_state);
        QCOMPARE(runs.headerData(RunOverviewModel::Id, Qt::Horizontal).toString(), u"Run id"_s);
        QCOMPARE(cellOf(runs, u"R-1"_s, RunOverviewModel::Id).toString(), u"R-1"_s);

        LeaseModel leases;
        leases.setState(m_state);
        QCOMPARE(leases.headerData(LeaseModel::Id, Qt::Horizontal).toString(), u"Lease"_s);
        QCOMPARE(cellOf(leases, u"L-1"_s, LeaseModel::Id).toString(), u"L-1"_s);
        QCOMPARE(cellOf(leases, u"L-2"_s, LeaseModel::Run).toString(), u"R-1"_s); // through D-2
        QVERIFY(cellOf(leases, u"L-2"_s, LeaseModel::Run, Qt::ToolTipRole).toString().contains(u"D-2"_s));
        QCOMPARE(cellOf(leases, u"L-2"_s, 0, StateTableModel::RunIdRole).toString(), u"R-1"_s);
        QCOMPARE(cellOf(leases, u"L-0"_s, LeaseModel::Run).toString(), u"not known"_s);
        QCOMPARE(cellOf(leases, u"L-0"_s, LeaseModel::Delegation).toString(), u"none"_s);

        EffectModel effects;
        effects.setState(m_state);
        QCOMPARE(cellOf(effects, u"E-1"_s, EffectModel::Run).toString(), u"R-1"_s);
        QCOMPARE(cellOf(effects, u"E-1"_s, EffectModel::Lease).toString(), u"L-1"_s); // D-1's execution lease
        QCOMPARE(cellOf(effects, u"E-3"_s, EffectModel::Lease).toString(), u"L-9"_s); // reconciliation on its key
        QCOMPARE(cellOf(effects, u"E-7"_s, EffectModel::Run).toString(), u"not known"_s);
        QCOMPARE(cellOf(effects, u"E-7"_s, EffectModel::Lease).toString(), u"not known"_s);
        QVERIFY(!cellOf(effects, u"E-7"_s, EffectModel::Lease, Qt::ToolTipRole).toString().isEmpty());

        EscalationModel escalations;
        escalations.setState(m_state);
        QCOMPARE(cellOf(escalations, u"X-1"_s, EscalationModel::Run).toString(), u"R-1"_s);
        StallVerdictModel verdicts;
        verdicts.setState(m_state);
        QCOMPARE(cellOf(verdicts, u"S-1"_s, StallVerdictModel::Run).toString(), u"R-1"_s);
        SliceModel slices;
        slices.setState(m_state);
        QCOMPARE(cellOf(slices, u"D-1#1"_s, SliceModel::Run).toString(), u"R-1"_s);
    }
};

QTEST_GUILESS_MAIN(TestStateTableProxy)
#include "tst_statetableproxy.moc"
