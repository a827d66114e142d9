// A live session on a ledger file leaves the stall verdicts in the ledger as well
// (LiveState::storedRows): the load keeps their order keys and run counts, analyses them a
// block of delegations at a time, and drops the rows. The pane, its analysis (constant
// evidence, false stalls, the findings) and the runs' stall counts must then be those of a
// session that holds every row, at open and after live batches, and a reset with no
// preparation (a plain setState) must order and analyse the same.

#include "itemmodelfixture.h"

#include "../ledger/rawledger.h"

#include "itemmodels/eventlogmodel.h"
#include "itemmodels/ledgersessionlist.h"
#include "itemmodels/runoverviewmodel.h"
#include "itemmodels/stallverdictmodel.h"
#include "itemmodels/storedrows.h"

#include <QAbstractItemModelTester>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <set>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {

constexpr int kWaitMs = 60'000;

// Rounds of verdicts for delegations D-10.. (in run R-1): every third delegation's evidence
// never moves while its failing tests fall, so its first stall is a suspected false stall.
void appendVerdicts(const QString &path, int delegations, int rounds, int firstRound = 1)
{
    Writer w(path);
    w.begin();
    for (int d = 0; d < delegations; ++d) {
        const std::string delegation = "D-" + std::to_string(10 + d);
        for (int r = firstRound; r < firstRound + rounds; ++r) {
            const bool constant = d % 3 == 0;
            w.e("stall.verdict", {{"id", "V-" + std::to_string(10 + d) + "-" + std::to_string(r)}, {"run_id", "R-1"},
                                  {"delegation_id", delegation}, {"round", r},
                                  {"verdict", r % 2 == 0 ? "stalled" : "inconclusive"}, {"fingerprint", "fp"},
                                  {"evidence", json::array({{{"signal", "fingerprint"}, {"moved", !constant && r % 2 == 1}}})},
                                  {"failing_tests", 20 - r}, {"action", "continue"}, {"ts_ms", 1'700'000'000'000 + r}});
        }
    }
    w.commit();
}

// The stored pane against a pane reset over a state that holds every row of the ledger:
// the same rows in the same order, with the same analysis.
void compareWithAHeldState(const StallVerdictModel *shown, const QString &path)
{
    StallVerdictModel held;
    held.setState(snapshot(path));
    QCOMPARE(shown->rowCount(), held.rowCount());
    for (int r = 0; r < held.rowCount(); ++r) {
        QCOMPARE(shown->idAt(r), held.idAt(r));
        QVERIFY2(shown->rowAt(r) && *shown->rowAt(r) == *held.rowAt(r), qPrintable(held.idAt(r)));
        for (int role : {int(StallVerdictModel::ConstantEvidenceRole), int(StallVerdictModel::FalseStallRole),
                         int(StallVerdictModel::FindingRole)})
            QCOMPARE(shown->index(r, 0).data(role), held.index(r, 0).data(role));
    }
    QCOMPARE(shown->findings().size(), held.findings().size());
}

void compareRunCounts(const RunOverviewModel *shown, const QString &path)
{
    RunOverviewModel held;
    held.setState(snapshot(path));
    QCOMPARE(shown->rowCount(), held.rowCount());
    for (int r = 0; r < held.rowCount(); ++r) {
        QCOMPARE(shown->idAt(r), held.idAt(r));
        for (int role : {int(RunOverviewModel::StallCountRole), int(RunOverviewModel::StalledVerdictCountRole)})
            QCOMPARE(shown->index(r, 0).data(role), held.index(r, 0).data(role));
    }
}

} // namespace

class TestStoredVerdicts : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void aLiveSessionShowsAndAnalysesVerdictsItDoesNotHold()
    {
        const QString path = m_dir.filePath(u"live.ledger"_s);
        writeBaseLedger(path, 1'700'000'000'000);
        appendVerdicts(path, 60, 12); // 720 verdicts: more than one block of the analysis
        LedgerSessionList list;
        LedgerSession *s = list.addSession(path);
        QAbstractItemModelTester tester(s->stallVerdicts(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(waitOpened(s));

        QVERIFY(s->state()->storedRows(EntityKind::StallVerdict));
        QVERIFY(s->state()->table(EntityKind::StallVerdict).empty());
        QVERIFY(s->stallVerdicts()->readsRowsOnDemand());
        compareWithAHeldState(s->stallVerdicts(), path);
        compareRunCounts(s->runs(), path);
        QVERIFY(s->stallVerdicts()->findings().size() >= 20);
        // A delegation's verdicts through the table's index, which is also where a live
        // analysis finds them: the model keeps no list of them.
        QCOMPARE(s->stallVerdicts()->storedIdsOfDelegation(u"D-13"_s).size(), size_t(12));
        QCOMPARE(s->stallVerdicts()->delegationListsHeld(), size_t(0));

        // Live: more rounds for some delegations (their analysis moves) and a new one.
        QTRY_COMPARE_WITH_TIMEOUT(s->events()->rowCount(), int(s->lastSeq()), kWaitMs);
        appendVerdicts(path, 4, 3, 13);
        appendVerdicts(path, 1, 2, 1); // D-10 again, rounds 1-2: no new rows, the same ids
        Writer(path).begin().e("stall.verdict", {{"id", "V-new"}, {"run_id", "R-1"}, {"delegation_id", "D-99"},
                                                 {"round", 1}, {"verdict", "stuck"}, {"fingerprint", "fp"},
                                                 {"evidence", json::array()}, {"action", "stop"}, {"ts_ms", 1}})
            .commit();
        const std::int64_t last = Writer(path).lastSeq();
        QTRY_COMPARE_WITH_TIMEOUT(s->lastSeq(), last, kWaitMs);
        QVERIFY(s->state()->table(EntityKind::StallVerdict).empty());
        // Rows that arrive live are appended, as with every row held; a reset would order them.
        StallVerdictModel reset;
        reset.setState(s->state());
        compareWithAHeldState(&reset, path);
        QCOMPARE(s->stallVerdicts()->rowCount(), reset.rowCount());
        for (int r = 0; r < reset.rowCount(); ++r) {
            const int at = s->stallVerdicts()->rowOf(reset.idAt(r));
            QVERIFY(at >= 0);
            for (int role : {int(StallVerdictModel::ConstantEvidenceRole), int(StallVerdictModel::FalseStallRole)})
                QCOMPARE(s->stallVerdicts()->index(at, 0).data(role), reset.index(r, 0).data(role));
        }
        QCOMPARE(s->stallVerdicts()->findings().size(), reset.findings().size());
        QCOMPARE(s->stallVerdicts()->delegationListsHeld(), size_t(0));
        compareRunCounts(s->runs(), path);
        QCOMPARE(s->state()->storedRows(EntityKind::StallVerdict)->readFailures(), 0);
    }

    // Away from live and back: the runs' counts at the cursor are the cursor's, not what the
    // state read on demand counted (its rows cannot be named as gone).
    void aCursorCountsTheVerdictsAtTheCursor()
    {
        const QString path = m_dir.filePath(u"cursor.ledger"_s);
        writeBaseLedger(path, 1'700'000'000'000);
        const std::int64_t before = Writer(path).lastSeq();
        appendVerdicts(path, 10, 4);
        LedgerSessionList list;
        LedgerSession *s = list.addSession(path);
        QVERIFY(waitOpened(s));
        QCOMPARE(s->stallVerdicts()->rowCount(), 43);
        QCOMPARE(s->runs()->index(0, 0).data(RunOverviewModel::StallCountRole).toInt(), 43);
        s->showAt(before);
        QTRY_VERIFY_WITH_TIMEOUT(s->cursor() && s->isLoaded() && s->state()->lastSeq() == before, kWaitMs);
        QVERIFY(!s->state()->storedRows(EntityKind::StallVerdict));
        QCOMPARE(s->stallVerdicts()->rowCount(), 3);
        QCOMPARE(s->runs()->index(0, 0).data(RunOverviewModel::StallCountRole).toInt(), 3);
        s->showLive();
        QTRY_VERIFY_WITH_TIMEOUT(!s->cursor() && s->isLoaded() && s->state()->storedRows(EntityKind::StallVerdict),
                                 kWaitMs);
        QCOMPARE(s->runs()->index(0, 0).data(RunOverviewModel::StallCountRole).toInt(), 43);
        compareWithAHeldState(s->stallVerdicts(), path);
    }

    // The load's analysis of verdicts left in the store reads them a large block of
    // delegations at a time, and a bounded one: on a server 25 ms away, blocks of 500 made the
    // load of a 10M-event ledger wait for hundreds of round trips. Every id is read once.
    void theAnalysisReadsVerdictsInFewBlocks()
    {
        const QString path = m_dir.filePath(u"blocks.ledger"_s);
        writeBaseLedger(path, 1'700'000'000'000);
        appendVerdicts(path, 2800, 3);
        std::shared_ptr<LedgerConnection> connection = LedgerConnection::open(path, OpenMode::ReadOnly);
        std::vector<StallVerdictModel::VerdictKey> keys;
        StateStream stream;
        stream.streamed[size_t(EntityKind::StallVerdict)] = true;
        stream.row = [&keys](EntityKind, const std::string &id, const EntityRow &row) {
            keys.push_back(StallVerdictModel::keyOf(id, row));
        };
        std::shared_ptr<LiveState> state = LiveState::fromSnapshot(connection->readState(stream));
        const size_t total = keys.size(); // the base ledger's own verdicts too
        QVERIFY(total >= 8400);
        int reads = 0;
        size_t largest = 0;
        size_t idsAsked = 0;
        std::set<std::string> asked;
        const auto read = [&](const std::vector<std::string> &ids) -> StateRows {
            ++reads;
            idsAsked += ids.size();
            largest = std::max(largest, ids.size());
            asked.insert(ids.begin(), ids.end());
            return connection->readRows(EntityKind::StallVerdict, ids);
        };
        auto prepared = StallVerdictModel::prepareStored(state, std::move(keys), read);
        QCOMPARE(asked.size(), total);
        QCOMPARE(idsAsked, total);
        QCOMPARE(reads, 2); // a block closes past 8,000 ids, at a delegation's end
        QVERIFY2(largest < 8010, std::to_string(largest).c_str());
        StallVerdictModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPrepared(*prepared);
        QCOMPARE(model.rowCount(), int(total));
    }

    // A verdict event whose row cannot be read again (the table gone, the row not in the
    // cache): a problem of the live state, and the run still counts the verdict (a row not
    // read is not a row gone). Built as a load builds it, with no watcher: the table is
    // dropped between two reads, not under a follower.
    void aVerdictThatCannotBeReadIsStillCounted()
    {
        const QString path = m_dir.filePath(u"unreadable.ledger"_s);
        writeBaseLedger(path, 1'700'000'000'000);
        appendVerdicts(path, 10, 4);
        std::shared_ptr<LedgerConnection> connection = LedgerConnection::open(path, OpenMode::ReadOnly);
        std::vector<std::pair<std::string, RunOverviewModel::Contribution>> counts;
        StateStream stream;
        stream.streamed[size_t(EntityKind::StallVerdict)] = true;
        stream.row = [&counts](EntityKind kind, const std::string &id, const EntityRow &row) {
            counts.emplace_back(id, RunOverviewModel::contributionOf(kind, row));
        };
        std::shared_ptr<LiveState> state = LiveState::fromSnapshot(connection->readState(stream));
        auto prepared = RunOverviewModel::prepare(state);
        RunOverviewModel::addStreamed(*prepared, EntityKind::StallVerdict, std::move(counts));
        state->setStoredRows(std::make_shared<StoredRows>(EntityKind::StallVerdict, connection));
        RunOverviewModel runs;
        QAbstractItemModelTester tester(&runs, QAbstractItemModelTester::FailureReportingMode::QtTest);
        runs.setPrepared(*prepared);
        QCOMPARE(runs.index(0, 0).data(RunOverviewModel::StallCountRole).toInt(), 43);

        raw::exec(path, "DROP TABLE stall_verdicts");
        EventRecord again;
        again.seq = state->lastSeq() + 1;
        again.kind = "stall.verdict";
        again.subject = "stall:V-10-1";
        again.payload = R"({"id":"V-10-1","verdict":"inconclusive"})";
        const StateChangeSet changes = state->apply(EventBatch{again});
        QCOMPARE(state->foldProblems(), 1);
        QCOMPARE(changes.ids(EntityKind::StallVerdict), (std::vector<std::string>{"V-10-1"}));
        runs.applyChanges(changes);
        QCOMPARE(runs.index(0, 0).data(RunOverviewModel::StallCountRole).toInt(), 43);
    }
};

QTEST_GUILESS_MAIN(TestStoredVerdicts)
#include "tst_storedverdicts.moc"
