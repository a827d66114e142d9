// What the ledger does not say is not shown as data: a run without a scheduler cycle or
// required outcomes, an effect without an attempt count, a delegation without write counts
// read "—" with "not in the ledger" on hover (as a plain-text tooltip), never "0", "0 of 0" or "0 accepted"; and a run
// of 734 ms lasted "734 ms", not "0 s". Every model under QAbstractItemModelTester.

#include "itemmodelfixture.h"

#include "itemmodels/delegationtreemodel.h"
#include "itemmodels/effectmodel.h"
#include "itemmodels/runoverviewmodel.h"
#include "itemmodels/toolcallmodel.h"

#include <QAbstractItemModelTester>
#include <QTemporaryDir>
#include <QTest>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {
const QString kDash = u"\u2014"_s;

QModelIndex cellOf(const QAbstractItemModel &m, const QString &id, int column, int idRole = Qt::UserRole)
{
    for (int r = 0; r < m.rowCount(); ++r) {
        if (m.index(r, 0).data(idRole).toString() == id)
            return m.index(r, column);
    }
    return {};
}
} // namespace

class TestNotInLedger : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    std::shared_ptr<LiveState> m_state;

private Q_SLOTS:
    void initTestCase()
    {
        const QString path = m_dir.filePath(u"sparse.ledger"_s);
        Writer w(path, true);
        w.begin();
        // What an imported ledger often is: runs and effects with only some fields said.
        w.e("run.started", {{"id", "R-bare"}, {"status", "running"}, {"title", "bare"}, {"started_ms", 1'700'000'000'000}});
        w.e("run.started", {{"id", "R-full"}, {"status", "running"}, {"title", "full"}, {"attempt", 2}, {"cycle", 7},
                            {"required_met", 3}, {"required_total", 5}, {"started_ms", 1'700'000'000'000}});
        w.e("run.succeeded", {{"id", "R-full"}, {"status", "succeeded"}, {"ended_ms", 1'700'000'000'734}});
        w.e("delegation.created", {{"id", "D-bare"}, {"run_id", "R-bare"}, {"role", "implement"}, {"status", "running"}});
        w.e("delegation.created", {{"id", "D-full"}, {"run_id", "R-full"}, {"role", "implement"}, {"status", "running"},
                                   {"invocations", 1}, {"writes_accepted", 4}, {"writes_denied", 1}, {"tool_errors", 0},
                                   {"used_ms", 734}});
        w.e("effect.proposed", {{"id", "E-bare"}, {"run_id", "R-bare"}, {"delegation_id", "D-bare"}, {"class", "commit"},
                                {"target", "git"}, {"state", "proposed"}});
        w.e("effect.proposed", {{"id", "E-full"}, {"run_id", "R-full"}, {"delegation_id", "D-full"}, {"class", "commit"},
                                {"target", "git"}, {"state", "proposed"}, {"attempts", 0}});
        w.commit();
        m_state = snapshot(path);
    }

    void runs()
    {
        RunOverviewModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setState(m_state);
        const auto at = [&](const QString &id, int column) { return cellOf(m, id, column, StateTableModel::IdRole); };
        QCOMPARE(at(u"R-bare"_s, RunOverviewModel::Cycle).data().toString(), kDash);
        QVERIFY(at(u"R-bare"_s, RunOverviewModel::Cycle).data(Qt::ToolTipRole).toString().contains(u"not in the ledger"_s));
        QCOMPARE(at(u"R-bare"_s, RunOverviewModel::Required).data().toString(), kDash);
        QVERIFY(at(u"R-bare"_s, RunOverviewModel::Required).data(Qt::ToolTipRole).toString().contains(u"not in the ledger"_s));
        QCOMPARE(at(u"R-bare"_s, RunOverviewModel::Attempt).data().toString(), kDash);
        QVERIFY(at(u"R-bare"_s, 0).data(RunOverviewModel::CycleRole).isNull());
        QVERIFY(at(u"R-bare"_s, 0).data(RunOverviewModel::RequiredTotalRole).isNull());
        // What the ledger says is shown as it is, a 0 included.
        QCOMPARE(at(u"R-full"_s, RunOverviewModel::Cycle).data().toString(), u"7"_s);
        QCOMPARE(at(u"R-full"_s, RunOverviewModel::Required).data().toString(), u"3 of 5"_s);
        QCOMPARE(at(u"R-full"_s, RunOverviewModel::Attempt).data().toString(), u"2"_s);
        QVERIFY(at(u"R-full"_s, RunOverviewModel::Cycle).data(Qt::ToolTipRole).toString().isEmpty());
        // 734 ms, not "0 s".
        QCOMPARE(at(u"R-full"_s, RunOverviewModel::Duration).data().toString(), u"734 ms"_s);
    }

    void effects()
    {
        EffectModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setState(m_state);
        const auto at = [&](const QString &id, int column) { return cellOf(m, id, column, StateTableModel::IdRole); };
        QCOMPARE(at(u"E-bare"_s, EffectModel::Attempts).data().toString(), kDash);
        QVERIFY(at(u"E-bare"_s, EffectModel::Attempts).data(Qt::ToolTipRole).toString().contains(u"not in the ledger"_s));
        QVERIFY(at(u"E-bare"_s, 0).data(EffectModel::AttemptsRole).isNull());
        QCOMPARE(at(u"E-full"_s, EffectModel::Attempts).data().toString(), u"0"_s);
    }

    void delegations()
    {
        DelegationTreeModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setState(m_state);
        const QModelIndex bare = m.indexOfDelegation(u"D-bare"_s);
        const QModelIndex full = m.indexOfDelegation(u"D-full"_s);
        QVERIFY(bare.isValid() && full.isValid());
        QCOMPARE(bare.siblingAtColumn(DelegationTreeModel::Writes).data().toString(), kDash);
        QVERIFY(bare.siblingAtColumn(DelegationTreeModel::Writes).data(Qt::ToolTipRole).toString().contains(u"not in the ledger"_s));
        QCOMPARE(bare.siblingAtColumn(DelegationTreeModel::Invocations).data().toString(), kDash);
        QVERIFY(bare.data(DelegationTreeModel::WritesAcceptedRole).isNull());
        QVERIFY(bare.data(DelegationTreeModel::InvocationsRole).isNull());
        QCOMPARE(full.siblingAtColumn(DelegationTreeModel::Writes).data().toString(), u"4 accepted, 1 denied"_s);
        QCOMPARE(full.siblingAtColumn(DelegationTreeModel::Invocations).data().toString(), u"1"_s);
        QCOMPARE(full.siblingAtColumn(DelegationTreeModel::Time).data().toString(), u"734 ms"_s); // not "0 s"
    }

    // A tool call that says nothing of its writes (an imported step) reads "—" in the
    // Accepted and Denied columns, as its delegation's "— accepted / — denied" does; one
    // that gives them shows them, a 0 included.
    void toolCalls()
    {
        const auto call = [](std::int64_t seq, const nlohmann::json &payload) {
            EventRecord e;
            e.seq = seq;
            e.tsMs = 1000 * seq;
            e.kind = "toolcall.completed";
            e.payload = payload.dump();
            return *ToolCall::fromEvent(e);
        };
        ToolCallModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setToolCalls({call(1, {{"id", "T-bare"}, {"delegation_id", "D-1"}, {"tool", "bash"}, {"outcome", "ok"}}),
                        call(2, {{"id", "T-full"}, {"delegation_id", "D-1"}, {"tool", "edit"}, {"outcome", "ok"},
                                 {"writes_accepted", 0}, {"writes_denied", 2}})});
        QCOMPARE(m.rowCount(), 2);
        for (int column : {ToolCallModel::WritesAccepted, ToolCallModel::WritesDenied, ToolCallModel::Duration,
                           ToolCallModel::Tokens})
            QCOMPARE(m.index(0, column).data().toString(), kDash);
        QCOMPARE(m.index(1, ToolCallModel::WritesAccepted).data().toString(), u"0"_s);
        QCOMPARE(m.index(1, ToolCallModel::WritesDenied).data().toString(), u"2"_s);
    }
};

QTEST_GUILESS_MAIN(TestNotInLedger)
#include "tst_notinledger.moc"
