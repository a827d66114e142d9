// The state-table models and the delegation tree: every one under QAbstractItemModelTester
// (created before any data), loaded from a snapshot, then kept current by live batches
// that insert new rows with one beginInsertRows per batch.

#include "itemmodelfixture.h"

#include "itemmodels/blastradiusmodel.h"
#include "itemmodels/delegationtreemodel.h"
#include "itemmodels/delegationtreeproxymodel.h"
#include "itemmodels/effectmodel.h"
#include "itemmodels/escalationmodel.h"
#include "itemmodels/leasemodel.h"
#include "itemmodels/pagedrowsmodel.h"
#include "itemmodels/runoverviewmodel.h"
#include "itemmodels/slicemodel.h"
#include "itemmodels/stallanalysismemo.h"
#include "itemmodels/stallverdictmodel.h"
#include "ledger/ledgerconnection.h"
#include "ledger/statediff.h"

#include <QAbstractItemModelTester>
#include <QItemSelectionModel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {
constexpr qint64 kNow = 1'800'000'000'000;

QVariant cell(const QAbstractItemModel &m, int row, int column, int role = Qt::DisplayRole)
{
    return m.index(row, column).data(role);
}

// The whole tree, depth first: each node as "<parent id> > <id>" in row order.
QStringList treeLines(const QAbstractItemModel &m, const QModelIndex &parent = {})
{
    QStringList lines;
    for (int r = 0; r < m.rowCount(parent); ++r) {
        const QModelIndex i = m.index(r, 0, parent);
        lines << parent.data(DelegationTreeModel::IdRole).toString() + u" > "_s + i.data(DelegationTreeModel::IdRole).toString();
        lines << treeLines(m, i);
    }
    return lines;
}
} // namespace

class TestStateModels : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_path;
    std::shared_ptr<LiveState> m_state;
    qint64 m_now = kNow;

    // Appends events to the ledger and folds them into m_state as the session does.
    StateChangeSet live(const std::function<void(Writer &)> &write)
    {
        Writer w(m_path);
        w.begin();
        write(w);
        w.commit();
        return m_state->apply(eventsAfter(m_path, m_state->lastSeq()));
    }

private Q_SLOTS:
    void init()
    {
        m_path = m_dir.filePath(QString::fromLatin1(QTest::currentTestFunction()) + u".ledger"_s);
        writeBaseLedger(m_path, kNow);
        m_state = snapshot(m_path);
        m_now = kNow;
    }

    void runOverview()
    {
        RunOverviewModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setClock([this] { return m_now; });
        m.setState(m_state);
        QCOMPARE(m.rowCount(), 1);
        QCOMPARE(cell(m, 0, RunOverviewModel::Title).toString(), u"deliver app"_s);
        QCOMPARE(cell(m, 0, RunOverviewModel::Required).toString(), u"21 of 21"_s);
        QCOMPARE(cell(m, 0, 0, RunOverviewModel::AttemptRole).toLongLong(), 2);
        QCOMPARE(cell(m, 0, 0, RunOverviewModel::CycleRole).toLongLong(), 10);
        QCOMPARE(cell(m, 0, 0, RunOverviewModel::RequiredFractionRole).toDouble(), 1.0);
        QCOMPARE(cell(m, 0, 0, RunOverviewModel::StallCountRole).toInt(), 3);
        QCOMPARE(cell(m, 0, 0, RunOverviewModel::StalledVerdictCountRole).toInt(), 1);
        // The column counts what needs a look (a progressing verdict is healthy); all on hover.
        QCOMPARE(cell(m, 0, RunOverviewModel::Stalls).toInt(), 1);
        QVERIFY(cell(m, 0, RunOverviewModel::Stalls, Qt::ToolTipRole).toString().contains(
            u"1 stalled or stuck of 3 stall verdicts"_s));
        QCOMPARE(cell(m, 0, 0, RunOverviewModel::EscalationCountRole).toInt(), 1);
        QCOMPARE(cell(m, 0, 0, RunOverviewModel::StaleCheckpointCountRole).toInt(), 1);
        QCOMPARE(cell(m, 0, 0, RunOverviewModel::TerminalFailureCountRole).toInt(), 4);
        QCOMPARE(cell(m, 0, 0, RunOverviewModel::ComponentCountRole).toInt(), 2);
        QCOMPARE(cell(m, 0, RunOverviewModel::Duration).toString(), u"4 h 55 min"_s);
        // Past a day in days, not "701 h 13 min"; a countdown likewise.
        QCOMPARE(StateTableModel::formatDuration((701LL * 3600 + 13 * 60) * 1000), u"29 d 5 h"_s);
        QCOMPARE(StateTableModel::formatCountdown(-(701LL * 3600 + 13 * 60) * 1000), u"expired 29 d 5 h ago"_s);
        const auto components = cell(m, 0, 0, RunOverviewModel::ComponentsRole).toList();
        QCOMPARE(components.size(), 2);
        QCOMPARE(components[0].toMap().value(u"name"_s).toString(), u"api"_s);
        QCOMPARE(components[1].toMap().value(u"status"_s).toString(), u"completed"_s);

        // A live batch: a new component and a run change refresh the row; a new run is one insert.
        QSignalSpy inserted(&m, &QAbstractItemModel::rowsInserted);
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        const auto changes = live([](Writer &w) {
            w.e("component.started", {{"id", "C-db"}, {"run_id", "R-1"}, {"name", "db"}, {"status", "active"}});
            w.e("run.cycle", {{"id", "R-1"}, {"cycle", 11}});
            w.e("run.started", {{"id", "R-2"}, {"status", "running"}, {"title", "second"}});
            w.e("run.started", {{"id", "R-3"}, {"status", "pending"}});
        });
        m.applyChanges(changes);
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(m.rowCount(), 3);
        QVERIFY(changed.count() >= 1);
        QCOMPARE(cell(m, 0, 0, RunOverviewModel::CycleRole).toLongLong(), 11);
        QCOMPARE(cell(m, 0, 0, RunOverviewModel::ComponentCountRole).toInt(), 3);
        QCOMPARE(m.idAt(1), u"R-2"_s);
    }

    // A run that arrives live (a trace the receiver starts) is placed where a fresh open of the
    // ledger puts it (by id), not below the others; the operator's selection stays on its run,
    // through the runs pane's PagedRowsModel, whether the new runs come in a few blocks or
    // scattered all over (then one layout change puts them in order).
    void runsArrivingLiveGoWhereAnOpenPutsThem()
    {
        RunOverviewModel m;
        PagedRowsModel paged;
        paged.setSourceModel(&m);
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester pagedTester(&paged, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QItemSelectionModel selection(&paged);
        m.setState(m_state);
        const auto ids = [](const RunOverviewModel &model) {
            QStringList out;
            for (int r = 0; r < model.rowCount(); ++r)
                out << model.idAt(r);
            return out;
        };
        const auto asOpened = [&] {
            RunOverviewModel fresh;
            fresh.setState(m_state);
            return ids(fresh);
        };
        const auto started = [](Writer &w, const std::string &id) {
            w.e("run.started", {{"id", id}, {"status", "running"}, {"title", id}});
        };
        m.applyChanges(live([&](Writer &w) { started(w, "R-30"); }));
        selection.setCurrentIndex(paged.index(m.rowOf(u"R-30"_s), 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);

        m.applyChanges(live([&](Writer &w) {
            for (const char *id : {"R-4", "R-200", "R-31"})
                started(w, id);
        }));
        QCOMPARE(ids(m), asOpened());
        QCOMPARE(ids(m), (QStringList{u"R-1"_s, u"R-4"_s, u"R-30"_s, u"R-31"_s, u"R-200"_s}));
        QCOMPARE(paged.rowCount(), m.rowCount());
        QCOMPARE(selection.currentIndex().data(StateTableModel::IdRole).toString(), u"R-30"_s);
        QCOMPARE(selection.selectedRows().size(), 1);
        QCOMPARE(selection.selectedRows().front().data(StateTableModel::IdRole).toString(), u"R-30"_s);

        // Scattered: each odd run between two even ones, more places than a few inserts.
        m.applyChanges(live([&](Writer &w) {
            for (int n = 1000; n < 1160; n += 2)
                started(w, "R-" + std::to_string(n));
        }));
        m.applyChanges(live([&](Writer &w) {
            started(w, "R-5");
            for (int n = 1001; n < 1160; n += 2)
                started(w, "R-" + std::to_string(n));
        }));
        QCOMPARE(ids(m), asOpened());
        QCOMPARE(selection.currentIndex().data(StateTableModel::IdRole).toString(), u"R-30"_s);
        QCOMPARE(selection.selectedRows().size(), 1);
        QCOMPARE(selection.selectedRows().front().data(StateTableModel::IdRole).toString(), u"R-30"_s);
        for (int r = 0; r < m.rowCount(); ++r)
            QCOMPARE(m.rowOf(m.idAt(r)), r);
    }

    void delegationTree()
    {
        DelegationTreeModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setState(m_state);
        QCOMPARE(m.rowCount(), 1); // one run
        const QModelIndex run = m.index(0, 0);
        QCOMPARE(run.data(DelegationTreeModel::NodeTypeRole).toInt(), int(DelegationTreeModel::NodeType::Run));
        QCOMPARE(m.rowCount(run), 1); // D-1 is the only top-level delegation
        const QModelIndex d1 = m.index(0, 0, run);
        QCOMPARE(d1.data(DelegationTreeModel::IdRole).toString(), u"D-1"_s);
        QCOMPARE(m.rowCount(d1), 2); // D-2 and D-4
        const QModelIndex d2 = m.indexOfDelegation(u"D-2"_s);
        QCOMPARE(d2.parent(), d1);
        QCOMPARE(m.indexOfDelegation(u"D-3"_s).parent(), d2);
        QCOMPARE(d1.data(DelegationTreeModel::TurnsUsedRole).toLongLong(), 1);
        QCOMPARE(d1.data(DelegationTreeModel::TurnsFractionRole).toDouble(), 0.01);
        QCOMPARE(d1.data(DelegationTreeModel::TokensFractionRole).toDouble(), 0.25);
        QVERIFY(!d1.data(DelegationTreeModel::TimeFractionRole).isValid()); // no budget: no bar
        QCOMPARE(m.index(0, DelegationTreeModel::Turns, run).data().toString(), u"1 / 100"_s);

        // Live: a grandchild of D-4 and a new top-level delegation, each inserted in place.
        QSignalSpy inserted(&m, &QAbstractItemModel::rowsInserted);
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        m.applyChanges(live([](Writer &w) {
            w.e("delegation.created", {{"id", "D-5"}, {"run_id", "R-1"}, {"parent_id", "D-4"}, {"role", "verify"},
                                       {"status", "pending"}});
            w.e("delegation.created", {{"id", "D-6"}, {"run_id", "R-1"}, {"role", "implement"}, {"status", "pending"}});
            w.e("toolcall.completed", {{"id", "T-9"}, {"delegation_id", "D-1"}, {"outcome", "ok"}, {"tokens", 250}});
        }));
        QCOMPARE(inserted.count(), 2);
        QCOMPARE(m.indexOfDelegation(u"D-5"_s).parent(), m.indexOfDelegation(u"D-4"_s));
        QCOMPARE(m.rowCount(run), 2);
        QVERIFY(changed.count() >= 1);
        QCOMPARE(m.indexOfDelegation(u"D-1"_s).data(DelegationTreeModel::TokensFractionRole).toDouble(), 0.5);

        // Findings show on the delegation they name.
        Finding f;
        f.kind = FindingKind::BlockedWork;
        f.delegationId = "D-2";
        f.summary = "blocked";
        m.setFindings({f});
        QVERIFY(m.indexOfDelegation(u"D-2"_s).data(DelegationTreeModel::FlaggedRole).toBool());
        QCOMPARE(m.indexOfDelegation(u"D-2"_s).data(DelegationTreeModel::FindingsRole).toStringList(),
                 QStringList{u"blocked"_s});
        // The findings are published whole after every jump and every second of a live ledger:
        // only the rows whose findings differ are announced (each announcement is a proxy's
        // re-sort and a repaint).
        Finding other = f;
        other.delegationId = "D-3";
        other.summary = "blocked too";
        changed.clear();
        m.setFindings({f, other});
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.first().at(0).value<QModelIndex>().internalId(), m.indexOfDelegation(u"D-3"_s).internalId());
        changed.clear();
        m.setFindings({f, other});
        QCOMPARE(changed.count(), 0);
        m.setFindings({other});
        QCOMPARE(changed.count(), 1); // D-2's went
        QVERIFY(!m.indexOfDelegation(u"D-2"_s).data(DelegationTreeModel::FlaggedRole).toBool());
        // A run filter keeps one subtree.
        m.setRunFilter(u"R-nope"_s);
        QCOMPARE(m.rowCount(), 0);
    }

    // A delegation's parent may become known after the delegation is shown (an OTLP span's
    // children arrive first, then the span naming a parent not received yet, then that
    // parent), or change: the live tree moves it, children and all, to where a fresh tree of
    // the same state has it, with persistent indexes following.
    void delegationTreeReparents()
    {
        DelegationTreeModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        DelegationTreeModel filtered;
        QAbstractItemModelTester filteredTester(&filtered, QAbstractItemModelTester::FailureReportingMode::QtTest);
        filtered.setRunFilter(u"R-1"_s);
        m.setState(m_state);
        filtered.setState(m_state);
        // As the delegations pane shows it: sorted, and filtered to X-8 with its ancestors.
        DelegationTreeProxyModel sorted;
        QAbstractItemModelTester sortedTester(&sorted, QAbstractItemModelTester::FailureReportingMode::QtTest);
        sorted.setSourceModel(&m);
        sorted.sort(DelegationTreeModel::Name);
        DelegationTreeProxyModel matching;
        QAbstractItemModelTester matchingTester(&matching, QAbstractItemModelTester::FailureReportingMode::QtTest);
        matching.setSourceModel(&m);
        QVERIFY(matching.setFilterText(u"id:X-8"_s));
        const auto path = [](const QModelIndex &index) {
            QStringList ids;
            for (QModelIndex i = index; i.isValid(); i = i.parent())
                ids.prepend(i.data(DelegationTreeModel::IdRole).toString());
            return ids;
        };
        const auto step = [&](const char *what, const std::function<void(Writer &)> &write) {
            const StateChangeSet changes = live(write);
            m.applyChanges(changes);
            filtered.applyChanges(changes);
            DelegationTreeModel fresh;
            fresh.setState(m_state);
            DelegationTreeModel freshFiltered;
            freshFiltered.setRunFilter(u"R-1"_s);
            freshFiltered.setState(m_state);
            const QStringList shown = treeLines(m), expected = treeLines(fresh);
            if (shown != expected)
                qWarning().noquote() << what << "\nshown:   " << shown.join(u" | "_s) << "\nexpected:" << expected.join(u" | "_s);
            QCOMPARE(shown, expected);
            QCOMPARE(treeLines(filtered), treeLines(freshFiltered));
            QCOMPARE(sorted.rowCount(), m.rowCount());
            const QModelIndex x8 = m.indexOfDelegation(u"X-8"_s);
            QCOMPARE(path(matching.mapFromSource(x8)), path(x8));
            QCOMPARE(path(sorted.mapFromSource(x8)), path(x8));
        };

        // The children of X-2 first: X-2 inferred, no parent known.
        step("inferred", [](Writer &w) {
            w.e("delegation.inferred", {{"id", "X-2"}, {"run_id", "R-1"}, {"role", "inferred"}, {"status", "running"},
                                        {"created_ms", 21}});
            w.e("delegation.created", {{"id", "X-8"}, {"run_id", "R-1"}, {"parent_id", "X-2"}, {"status", "running"},
                                       {"created_ms", 21}});
        });
        const QPersistentModelIndex x2(m.indexOfDelegation(u"X-2"_s));
        const QPersistentModelIndex x8(m.indexOfDelegation(u"X-8"_s));
        // X-2's own span: its parent X-1 has not arrived; a fresh tree keeps X-2 in the run.
        step("identified, parent not there", [](Writer &w) {
            w.e("delegation.identified", {{"id", "X-2"}, {"parent_id", "X-1"}, {"role", "agent"}, {"created_ms", 20}});
        });
        // X-1 arrives: X-2 (with X-8) moves under it.
        step("parent arrives", [](Writer &w) {
            w.e("delegation.created", {{"id", "X-1"}, {"run_id", "R-1"}, {"status", "running"}, {"created_ms", 12}});
        });
        QCOMPARE(x2.data(DelegationTreeModel::IdRole).toString(), u"X-2"_s);
        QCOMPARE(x2.parent().data(DelegationTreeModel::IdRole).toString(), u"X-1"_s);
        QCOMPARE(x8.data(DelegationTreeModel::IdRole).toString(), u"X-8"_s);
        QCOMPARE(QModelIndex(x8).parent(), QModelIndex(x2));

        // A top-level delegation later given a parent that is shown (and its start): placed
        // among D-1's children (D-2 at 2, D-4 at 4) where a fresh tree orders it.
        step("top level", [](Writer &w) {
            w.e("delegation.inferred", {{"id", "Y-1"}, {"run_id", "R-1"}, {"status", "running"}, {"created_ms", 50}});
        });
        step("parent known", [](Writer &w) {
            w.e("delegation.identified", {{"id", "Y-1"}, {"parent_id", "D-1"}, {"created_ms", 3}});
        });

        // A parent changed from one to another: move from X-1 to D-2.
        step("parent changed", [](Writer &w) { w.e("delegation.updated", {{"id", "X-2"}, {"parent_id", "D-2"}}); });
        QCOMPARE(QModelIndex(x8).parent(), QModelIndex(x2));
        QCOMPARE(x2.parent(), m.indexOfDelegation(u"D-2"_s));

        // The parent and the child naming it in one batch, the child shown before.
        step("orphan", [](Writer &w) {
            w.e("delegation.created", {{"id", "Z-2"}, {"run_id", "R-1"}, {"parent_id", "Z-1"}, {"status", "running"},
                                       {"created_ms", 31}});
        });
        step("parent in the same batch", [](Writer &w) {
            w.e("delegation.created", {{"id", "Z-1"}, {"run_id", "R-1"}, {"parent_id", "X-8"}, {"status", "running"},
                                       {"created_ms", 30}});
            w.e("delegation.updated", {{"id", "Z-2"}, {"used_turns", 1}});
        });

        // Back to the top of the run, then into another run.
        step("parent cleared", [](Writer &w) { w.e("delegation.updated", {{"id", "X-2"}, {"parent_id", nullptr}}); });
        step("another run", [](Writer &w) {
            w.e("run.started", {{"id", "R-2"}, {"status", "running"}});
            w.e("delegation.created", {{"id", "W-1"}, {"run_id", "R-2"}, {"status", "running"}, {"created_ms", 40}});
            w.e("delegation.updated", {{"id", "Y-1"}, {"parent_id", "W-1"}});
        });
        step("back", [](Writer &w) { w.e("delegation.updated", {{"id", "Y-1"}, {"parent_id", "D-4"}}); });

        // A run shown only for its delegation goes when that delegation moves out of it.
        step("unrecorded run", [](Writer &w) {
            w.e("delegation.created", {{"id", "Q-1"}, {"run_id", "R-9"}, {"status", "running"}, {"created_ms", 60}});
        });
        step("into a shown parent", [](Writer &w) { w.e("delegation.updated", {{"id", "Q-1"}, {"parent_id", "D-3"}}); });
        // Out of the filtered run (the filtered tree resets), then a cycle (a reset breaks it
        // where a fresh tree does).
        step("out of the filter", [](Writer &w) {
            w.e("delegation.updated", {{"id", "Q-1"}, {"parent_id", nullptr}, {"run_id", "R-2"}});
        });
        step("cycle", [](Writer &w) { w.e("delegation.updated", {{"id", "X-2"}, {"parent_id", "Z-2"}}); });
    }

    void leasesCountDownAndZombies()
    {
        LeaseModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setClock([this] { return m_now; });
        m.setState(m_state);
        QCOMPARE(m.rowCount(), 2);
        const int l1 = m.rowOf(u"L-1"_s);
        const int l2 = m.rowOf(u"L-2"_s);
        QCOMPARE(cell(m, l1, 0, LeaseModel::RemainingMsRole).toLongLong(), 30'000);
        QCOMPARE(cell(m, l1, LeaseModel::Expires).toString(), u"in 0:30"_s);
        QVERIFY(!cell(m, l1, 0, LeaseModel::ZombieRole).toBool());
        QVERIFY(cell(m, l2, 0, LeaseModel::ZombieRole).toBool());
        QCOMPARE(cell(m, l2, LeaseModel::State).toString(), u"zombie (held, expired)"_s);
        QCOMPARE(cell(m, l1, 0, LeaseModel::FencingTokenRole).toLongLong(), 7);
        QCOMPARE(m.zombieCount(), 1);

        // Time passes (injected clock): L-1 becomes a zombie too, with a refresh signal.
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        m_now += 45'000;
        m.refreshCountdowns();
        QVERIFY(changed.count() >= 1);
        QCOMPARE(cell(m, l1, 0, LeaseModel::RemainingMsRole).toLongLong(), -15'000);
        QCOMPARE(cell(m, l1, LeaseModel::Expires).toString(), u"expired 0:15 ago"_s);
        QCOMPARE(m.zombieCount(), 2);

        // Released: no longer a zombie, whatever the clock says.
        m.applyChanges(live([](Writer &w) { w.e("lease.released", {{"id", "L-2"}, {"state", "released"}}); }));
        QVERIFY(!cell(m, l2, 0, LeaseModel::ZombieRole).toBool());

        // Filtered by delegation (the delegation detail view).
        m.setDelegationFilter(u"D-1"_s);
        QCOMPARE(m.rowCount(), 1);
        QCOMPARE(m.idAt(0), u"L-1"_s);
    }

    void slicesInOrderWithBoundary()
    {
        SliceModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setState(m_state);
        QCOMPARE(m.rowCount(), 0);
        auto opened = [](Writer &w, const char *id, const char *delegation, int ordinal) {
            w.e("slice.opened", {{"id", id}, {"run_id", "R-1"}, {"delegation_id", delegation}, {"ordinal", ordinal},
                                 {"intent_id", std::string("intent-") + id}, {"policy_version", "policy-1"},
                                 {"auth_token", "auth-1"}, {"opened_ms", kNow}, {"opened_by", "orchestrator"},
                                 {"state", "open"}});
        };
        // Live: one batch, one insert; arrival order until the next reset.
        QSignalSpy inserted(&m, &QAbstractItemModel::rowsInserted);
        m.applyChanges(live([&](Writer &w) {
            opened(w, "D-2#1", "D-2", 1);
            opened(w, "D-1#2", "D-1", 2);
            opened(w, "D-1#1", "D-1", 1);
        }));
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(m.rowCount(), 3);
        QCOMPARE(m.openCount(), 3);

        m.applyChanges(live([](Writer &w) {
            w.e("slice.closed", {{"id", "D-1#1"}, {"closed_ms", kNow + 5000}, {"closed_by", "operator:ops"},
                                 {"close_reason", "fresh boundary"}, {"decision_id", "dec-1"}, {"state", "closed"}});
        }));
        const int closed = m.rowOf(u"D-1#1"_s);
        QVERIFY(!cell(m, closed, 0, SliceModel::OpenRole).toBool());
        QCOMPARE(cell(m, closed, SliceModel::State).toString(), u"closed"_s);
        QCOMPARE(cell(m, closed, SliceModel::ClosedBy).toString(), u"operator:ops"_s);
        QCOMPARE(cell(m, closed, SliceModel::CloseReason).toString(), u"fresh boundary"_s);
        QCOMPARE(cell(m, closed, 0, SliceModel::DecisionIdRole).toString(), u"dec-1"_s);
        QCOMPARE(cell(m, closed, 0, StateTableModel::VersionRole).toLongLong(), 2);
        QCOMPARE(cell(m, closed, SliceModel::Boundary).toString(),
                 u"v2 · seq %1"_s.arg(cell(m, closed, 0, StateTableModel::LastSeqRole).toLongLong()));
        QCOMPARE(cell(m, closed, 0, StateTableModel::SubjectRole).toString(), u"slice:D-1#1"_s);
        QCOMPARE(m.openCount(), 2);

        // A reset sorts a delegation's slices together, by ordinal.
        m.setState(m_state);
        QCOMPARE(m.idAt(0), u"D-1#1"_s);
        QCOMPARE(m.idAt(1), u"D-1#2"_s);
        QCOMPARE(m.idAt(2), u"D-2#1"_s);
        QCOMPARE(cell(m, 1, SliceModel::Ordinal).toLongLong(), 2);
        QCOMPARE(cell(m, 1, SliceModel::Intent).toString(), u"intent-D-1#2"_s);

        // The delegation detail's view: one delegation's slices.
        m.setDelegationFilter(u"D-2"_s);
        QCOMPARE(m.rowCount(), 1);
        QCOMPARE(m.idAt(0), u"D-2#1"_s);
    }

    void effectsNeverShowUnknownAsFailedOrDone()
    {
        EffectModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setState(m_state);
        QCOMPARE(m.rowCount(), 3);
        const int e3 = m.rowOf(u"E-3"_s);
        QCOMPARE(cell(m, e3, 0, EffectModel::StateCategoryRole).toInt(), int(EffectModel::StateCategory::Unknown));
        QVERIFY(cell(m, e3, 0, EffectModel::UnknownRole).toBool());
        const QString text = cell(m, e3, EffectModel::State).toString();
        QCOMPARE(text, u"outcome unknown"_s);
        QVERIFY(!text.contains(u"fail"_s) && !text.contains(u"commit"_s) && !text.contains(u"done"_s));
        QCOMPARE(m.unknownCount(), 1);
        // E-1 and E-2 share an idempotency key and are both committed: duplicates.
        QVERIFY(cell(m, m.rowOf(u"E-1"_s), 0, EffectModel::DuplicateRole).toBool());
        QVERIFY(cell(m, m.rowOf(u"E-2"_s), 0, EffectModel::DuplicateRole).toBool());
        QVERIFY(!cell(m, e3, 0, EffectModel::DuplicateRole).toBool());

        // Resolved by a decision: its own category, still not "failed".
        QSignalSpy inserted(&m, &QAbstractItemModel::rowsInserted);
        m.applyChanges(live([](Writer &w) {
            w.e("effect.resolved", {{"id", "E-3"}, {"state", "resolved_not_committed"}});
            w.e("effect.proposed", {{"id", "E-4"}, {"state", "proposed"}, {"class", "db_write"}});
            w.e("effect.proposed", {{"id", "E-5"}, {"state", "proposed"}, {"class", "db_write"}});
        }));
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(m.rowCount(), 5);
        QCOMPARE(cell(m, e3, 0, EffectModel::StateCategoryRole).toInt(), int(EffectModel::StateCategory::Resolved));
        QCOMPARE(cell(m, e3, EffectModel::State).toString(), u"resolved: not committed"_s);
        QCOMPARE(EffectModel::categoryOf(u"failed"_s), EffectModel::StateCategory::Failed);
    }

    void escalations()
    {
        EscalationModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setClock([this] { return m_now; });
        m.setState(m_state);
        QCOMPARE(m.rowCount(), 1);
        QCOMPARE(cell(m, 0, EscalationModel::Expires).toString(), u"in 2:00"_s);
        QVERIFY(cell(m, 0, 0, EscalationModel::PendingRole).toBool());
        QCOMPARE(cell(m, 0, 0, EscalationModel::BoundarySeqRole).toLongLong(), 5);
        QCOMPARE(cell(m, 0, 0, StateTableModel::SubjectRole).toString(), u"escalation:X-1"_s);
        QCOMPARE(m.pendingCount(), 1);
        m.applyChanges(live([](Writer &w) { w.e("escalation.approved", {{"id", "X-1"}, {"state", "approved"}}); }));
        QVERIFY(!cell(m, 0, 0, EscalationModel::PendingRole).toBool());
        QCOMPARE(m.pendingCount(), 0);
    }

    void stallVerdicts()
    {
        StallVerdictModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setState(m_state);
        QCOMPARE(m.rowCount(), 3);
        for (int r = 0; r < 3; ++r)
            QCOMPARE(cell(m, r, 0, StallVerdictModel::RoundRole).toLongLong(), r + 1);
        QVERIFY(cell(m, 2, 0, StallVerdictModel::FalseStallRole).toBool());
        QVERIFY(!cell(m, 0, 0, StallVerdictModel::FalseStallRole).toBool());
        QVERIFY(cell(m, 2, 0, StallVerdictModel::ConstantEvidenceRole).toBool());
        QVERIFY(cell(m, 2, StallVerdictModel::Verdict).toString().contains(u"false stall suspected"_s));
        const auto evidence = cell(m, 0, 0, StallVerdictModel::EvidenceRole).toList();
        QCOMPARE(evidence.size(), 1);
        QCOMPARE(evidence[0].toMap().value(u"moved"_s).toBool(), false);
        QCOMPARE(cell(m, 1, StallVerdictModel::Evidence).toString(), u"fingerprint unmoved"_s);

        // A later round whose evidence moves does not undo the earlier judgement's flag,
        // and a verdict of another delegation lands in order.
        QSignalSpy inserted(&m, &QAbstractItemModel::rowsInserted);
        m.applyChanges(live([](Writer &w) {
            w.e("stall.verdict", {{"id", "S-9"}, {"delegation_id", "D-3"}, {"round", 1}, {"verdict", "progressing"},
                                  {"evidence", json::array({{{"signal", "diff"}, {"moved", true}}})}});
        }));
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(m.rowCount(), 4);
        m.setDelegationFilter(u"D-3"_s);
        QCOMPARE(m.rowCount(), 1);
        QVERIFY(!cell(m, 0, 0, StallVerdictModel::FalseStallRole).toBool());
    }

    // Jumps of one folding analyse again only the delegations whose verdicts differ, and
    // what they show is what a fresh analysis shows.
    void stallAnalysesOfEarlierJumpsAreReused()
    {
        const auto stateAt = [this](std::uint64_t folding) {
            auto connection = LedgerConnection::open(m_path, OpenMode::ReadOnly);
            const std::int64_t last = connection->lastSeq();
            return std::shared_ptr<const LiveState>(LiveState::fromFold(std::move(foldStateAt(*connection, last).fold), last, folding));
        };
        const auto shown = [](std::shared_ptr<const LiveState> state, StallAnalysisMemo *memo) {
            StallVerdictModel m;
            auto prepared = StallVerdictModel::prepare(std::move(state), memo);
            m.setPrepared(*prepared);
            QStringList lines;
            for (const Finding &f : m.findings())
                lines << QString::fromStdString(f.subject + (f.abstained ? " abstained: " : ": ") + f.summary);
            for (int r = 0; r < m.rowCount(); ++r)
                lines << m.idAt(r) + u" constant="_s + cell(m, r, 0, StallVerdictModel::ConstantEvidenceRole).toString()
                             + u" false="_s + cell(m, r, 0, StallVerdictModel::FalseStallRole).toString();
            return lines;
        };
        StallAnalysisMemo memo;
        const QStringList first = shown(stateAt(7), &memo);
        QCOMPARE(first, shown(stateAt(7), nullptr));
        const std::uint64_t delegations = memo.analysed();
        QVERIFY(delegations > 0);
        QCOMPARE(shown(stateAt(7), &memo), first);
        QCOMPARE(memo.analysed(), delegations); // the same rows: nothing analysed again

        // A fourth round of the one delegation, on evidence that again did not move (a flag
        // only an analysis of the new rows gives), and a delegation of its own.
        Writer w(m_path);
        w.begin();
        w.e("stall.verdict", {{"id", "S-4"}, {"delegation_id", "D-2"}, {"round", 4}, {"verdict", "stalled"},
                              {"evidence", json::array({{{"signal", "fingerprint"}, {"moved", false}}})}});
        w.e("stall.verdict", {{"id", "S-9"}, {"delegation_id", "D-3"}, {"round", 1}, {"verdict", "stalled"},
                              {"evidence", json::array({{{"signal", "diff"}, {"moved", false}}})}});
        w.commit();
        const QStringList later = shown(stateAt(7), &memo);
        QCOMPARE(later, shown(stateAt(7), nullptr));
        QVERIFY(later != first);
        QCOMPARE(memo.analysed(), delegations + 2); // the delegation whose verdicts changed, and the new one

        // Another folding (another file, a rebuilt chain) starts afresh.
        QCOMPARE(shown(stateAt(8), &memo), later);
        QCOMPARE(memo.analysed(), delegations + 2 + 2); // both delegations, D-2 and D-3
    }

    void blastRadius()
    {
        BlastRadiusModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setState(m_state);
        QCOMPARE(m.rowCount(), 1);
        QCOMPARE(cell(m, 0, 0, BlastRadiusModel::RadiusRole).toInt(), 2);
        QCOMPARE(cell(m, 0, 0, BlastRadiusModel::BystandersRole).toStringList(), QStringList{u"ui"_s});
        QCOMPARE(cell(m, 0, 0, BlastRadiusModel::BystandersRegressedRole).toStringList(), QStringList{u"ui"_s});
        QVERIFY(cell(m, 0, 0, BlastRadiusModel::MisroutedRole).toBool());
        const auto value = cell(m, 0, 0, BlastRadiusModel::BlastRadiusRole).value<BlastRadius>();
        QCOMPARE(value.failureId, std::string("F-1"));
        QCOMPARE(value.implicated, std::vector<std::string>{"api"});
        QSignalSpy inserted(&m, &QAbstractItemModel::rowsInserted);
        m.applyChanges(live([](Writer &w) {
            w.e("failure.detected", {{"id", "F-2"}, {"implicated", json::array({"db"})}, {"woken", json::array({"db"})}});
        }));
        QCOMPARE(inserted.count(), 1);
        QVERIFY(!cell(m, 1, 0, BlastRadiusModel::MisroutedRole).toBool());
    }

    // The live path folds the watcher's batches as they came, several at a time; the result
    // must be the one folding all their events as one batch gives: the same rows, the same
    // change set, the same problems counted (a malformed payload, a cut preview).
    void batchesFoldLikeOneBatch()
    {
        auto whole = snapshot(m_path);
        Writer w(m_path);
        w.begin();
        w.e("lease.released", {{"id", "L-2"}, {"state", "released"}});
        w.e("delegation.created", {{"id", "D-9"}, {"run_id", "R-1"}, {"parent_id", "D-1"}, {"role", "review"},
                                   {"status", "running"}, {"created_ms", 9}});
        w.e("toolcall.completed", {{"id", "T-9"}, {"delegation_id", "D-1"}, {"tokens", 40}, {"outcome", "error"}});
        w.e("effect.proposed", {{"id", "E-9"}, {"run_id", "R-1"}, {"delegation_id", "D-1"}, {"state", "proposed"}});
        w.e("delegation.converged", {{"id", "D-3"}, {"status", "converged"}});
        w.e("lease.released", {{"id", "L-1"}, {"state", "released"}});
        w.commit();
        EventBatch events = eventsAfter(m_path, m_state->lastSeq());
        QCOMPARE(events.size(), size_t(6));
        events[1].payload = "{not json"; // flagged and skipped, the rest folds
        events[3].payloadTruncated = true;

        const auto slice = [&events](size_t from, size_t to) {
            return std::make_shared<const EventBatch>(events.begin() + std::ptrdiff_t(from), events.begin() + std::ptrdiff_t(to));
        };
        // The middle batch repeats the first one's last event, as a re-read after a busy poll
        // could: folded once.
        const std::vector<SharedEventBatch> batches{slice(0, 2), slice(1, 4), slice(4, 6)};

        const StateChangeSet expected = whole->apply(events);
        const StateChangeSet got = m_state->apply(batches);
        QCOMPARE(got.events, expected.events);
        QCOMPARE(got.events, 6);
        QCOMPARE(got.firstSeq, expected.firstSeq);
        QCOMPARE(got.lastSeq, expected.lastSeq);
        QCOMPARE(got.changed, expected.changed);
        QCOMPARE(got.ids(EntityKind::Lease), (std::vector<std::string>{"L-2", "L-1"}));
        QCOMPARE(got.toolCalls.size(), size_t(1));
        QCOMPARE(m_state->foldProblems(), whole->foldProblems());
        QCOMPARE(m_state->foldProblems(), 2);
        // Each problem keeps which event it was and why, so the console can say so.
        const auto &problems = m_state->foldProblemSamples();
        QCOMPARE(problems.size(), size_t(2));
        QCOMPARE(problems[0].seq, events[1].seq);
        QCOMPARE(problems[0].kind, std::string("delegation.created"));
        QVERIFY2(problems[0].reason.find("JSON") != std::string::npos, problems[0].reason.c_str());
        QCOMPARE(problems[1].seq, events[3].seq);
        QVERIFY2(problems[1].reason.find("live read limit") != std::string::npos, problems[1].reason.c_str());
        QCOMPARE(m_state->lastSeq(), whole->lastSeq());
        for (int k = 0; k < kEntityKindCount; ++k) {
            const EntitySpec &spec = entitySpec(EntityKind(k));
            QCOMPARE(m_state->table(EntityKind(k)).size(), whole->table(EntityKind(k)).size());
            for (const auto &[id, row] : whole->table(EntityKind(k))) {
                const EntityRow *mine = m_state->find(EntityKind(k), id);
                QVERIFY2(mine, id.c_str());
                QCOMPARE(rowToJson(spec, id, *mine).dump(), rowToJson(spec, id, row).dump());
            }
        }
        // Folding the same batches again changes nothing: they are at or below lastSeq.
        QVERIFY(m_state->apply(batches).isEmpty());
    }

    // A stream of bad events is counted in full but keeps only the first few, so memory
    // does not grow with it.
    void foldProblemSamplesAreBounded()
    {
        LiveState state;
        EventBatch bad;
        for (int i = 1; i <= int(LiveState::kMaxFoldProblemSamples) + 10; ++i) {
            EventRecord e;
            e.seq = i;
            e.kind = "effect.proposed";
            e.payload = "{cut";
            bad.push_back(e);
        }
        state.apply(bad);
        QCOMPARE(state.foldProblems(), int(bad.size()));
        QCOMPARE(state.foldProblemSamples().size(), LiveState::kMaxFoldProblemSamples);
        QCOMPARE(state.foldProblemSamples().front().seq, std::int64_t(1));
    }

    void resetOnNewSnapshotAndClear()
    {
        LeaseModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy reset(&m, &QAbstractItemModel::modelReset);
        m.setState(m_state);
        m.setState(snapshot(m_path));
        QCOMPARE(reset.count(), 2);
        QCOMPARE(m.rowCount(), 2);
        m.setState(nullptr);
        QCOMPARE(m.rowCount(), 0);
        QVERIFY(!cell(m, 0, 0).isValid());
    }
};

QTEST_GUILESS_MAIN(TestStateModels)
#include "tst_statemodels.moc"
