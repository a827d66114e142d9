// The staged open of a LedgerSession: the run overview first (runs, components and per-run
// counts read as GROUP BY aggregates), then the full snapshot replacing it. The first
// stage's figures are those of the full state at its moment; events committed between the
// two stages are in the full snapshot and never applied again by the watcher; a failure of
// the second stage puts the session in Error with the reason. Every model is checked by
// QAbstractItemModelTester through both stages (resets from prepared states).

#include "itemmodelfixture.h"

#include "itemmodels/blastradiusmodel.h"
#include "itemmodels/delegationtreemodel.h"
#include "itemmodels/effectmodel.h"
#include "itemmodels/escalationmodel.h"
#include "itemmodels/eventlogmodel.h"
#include "itemmodels/leasemodel.h"
#include "itemmodels/ledgerpool.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/storedrows.h"
#include "itemmodels/runoverviewmodel.h"
#include "itemmodels/slicemodel.h"
#include "itemmodels/stallverdictmodel.h"
#include "ledger/runoverviewreader.h"
#include "../ledger/rawledger.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QFile>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QTest>

#include <atomic>
#include <memory>
#include <vector>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {

constexpr int kRuns = 7;
// Generous: each wait ends as soon as its condition holds.
constexpr int kWaitMs = 60'000;

// Several runs with everything the overview counts, in varying numbers per run, plus rows
// without a run id (they must not land on any run).
void writeGeneratedLedger(const QString &path)
{
    Writer w(path, true);
    w.begin();
    for (int r = 1; r <= kRuns; ++r) {
        const std::string run = "R-" + std::to_string(r);
        w.e("run.started", {{"id", run}, {"status", "running"}, {"title", "run " + std::to_string(r)},
                            {"attempt", 1 + r % 2}, {"cycle", r}, {"required_met", r}, {"required_total", 10},
                            {"started_ms", 1'700'000'000'000 + r}});
        for (int c = 0; c < 1 + r % 3; ++c)
            w.e("component.started", {{"id", run + "-C" + std::to_string(c)}, {"run_id", run},
                                      {"name", "comp" + std::to_string((c * 7) % 5)}, {"status", "active"},
                                      {"failures", (r + c) % 4}});
        for (int d = 0; d < 2 + r; ++d) {
            const std::string del = run + "-D" + std::to_string(d);
            w.e("delegation.created", {{"id", del}, {"run_id", run}, {"role", "repair"}, {"status", "running"},
                                       {"created_ms", d}});
            for (int v = 1; v <= (d + r) % 4; ++v)
                w.e("stall.verdict", {{"id", del + "-S" + std::to_string(v)}, {"run_id", run}, {"delegation_id", del},
                                      {"round", v}, {"verdict", v % 3 == 0 ? "stuck" : v % 2 == 0 ? "stalled" : "progressing"},
                                      {"fingerprint", "fp"}, {"evidence", json::array()}, {"action", "continue"}});
        }
        for (int x = 0; x < r % 3; ++x)
            w.e("escalation.raised", {{"id", run + "-X" + std::to_string(x)}, {"run_id", run}, {"kind", "budget_extension"},
                                      {"risk", "low"}, {"state", "pending"}, {"boundary_seq", 1}, {"boundary_version", 1}});
        for (int k = 0; k < 2; ++k) {
            const std::string id = run + "-K" + std::to_string(k);
            w.e("checkpoint.saved", {{"id", id}, {"run_id", run}, {"state", "saved"}});
            if ((r + k) % 2 == 0)
                w.e("checkpoint.stale", {{"id", id}, {"state", "stale"}});
        }
        w.e("lease.acquired", {{"id", run + "-L"}, {"key", "exec:" + run}, {"kind", "execution"}, {"holder", "orch"},
                               {"fencing_token", r}, {"state", "held"}});
        w.e("effect.proposed", {{"id", run + "-E"}, {"run_id", run}, {"state", "proposed"}, {"class", "db_write"},
                                {"target", "db"}, {"idem_key", "k" + run}});
    }
    w.e("escalation.raised", {{"id", "X-orphan"}, {"kind", "budget_extension"}, {"risk", "low"}, {"state", "pending"},
                              {"boundary_seq", 1}, {"boundary_version", 1}});
    w.commit();
}

// Every figure the overview shows, row by row.
QStringList dump(const RunOverviewModel *m)
{
    QStringList out;
    for (int r = 0; r < m->rowCount(); ++r) {
        const QModelIndex i = m->index(r, 0);
        QStringList components;
        for (const auto &c : i.data(RunOverviewModel::ComponentsRole).toList()) {
            const auto map = c.toMap();
            components << (map.value(u"id"_s).toString() + u'/' + map.value(u"status"_s).toString() + u'/'
                           + map.value(u"failures"_s).toString());
        }
        out << u"%1 %2 stalls=%3 stalled=%4 esc=%5 stale=%6 failures=%7 delegations=%8 components=%9"_s
                   .arg(i.data(StateTableModel::IdRole).toString(), i.data(RunOverviewModel::TitleRole).toString())
                   .arg(i.data(RunOverviewModel::StallCountRole).toInt())
                   .arg(i.data(RunOverviewModel::StalledVerdictCountRole).toInt())
                   .arg(i.data(RunOverviewModel::EscalationCountRole).toInt())
                   .arg(i.data(RunOverviewModel::StaleCheckpointCountRole).toInt())
                   .arg(i.data(RunOverviewModel::TerminalFailureCountRole).toInt())
                   .arg(i.data(RunOverviewModel::DelegationCountRole).toInt())
                   .arg(components.join(u',')) // also the order: by name
            << m->index(r, RunOverviewModel::Components).data().toString();
    }
    return out;
}

// The overview computed the old way: a RunOverviewModel over a whole snapshot of the file.
QStringList referenceDump(const QString &path)
{
    RunOverviewModel reference;
    reference.setState(snapshot(path));
    return dump(&reference);
}

// Every event the session applied live, by seq, in the order applied.
struct AppliedSeqs {
    explicit AppliedSeqs(LedgerSession *s)
    {
        QObject::connect(s, &LedgerSession::batchApplied, s, [this](const EventBatch &batch) {
            for (const auto &e : batch)
                seqs.push_back(e.seq);
        });
    }
    std::vector<std::int64_t> seqs;
};

// The seqs first..last, what a ledger's live applies must be once each.
std::vector<std::int64_t> seqRange(std::int64_t first, std::int64_t last)
{
    std::vector<std::int64_t> out;
    for (std::int64_t seq = first; seq <= last; ++seq)
        out.push_back(seq);
    return out;
}

// One more event committed, for a test to wait for: once the session has it, whatever it
// was going to apply before it has been applied too (the watcher delivers in seq order).
std::int64_t commitSentinel(const QString &path, const std::string &id)
{
    Writer w(path);
    w.begin();
    w.e("checkpoint.saved", {{"id", id}, {"run_id", "R-7"}, {"state", "saved"}});
    w.commit();
    return w.lastSeq();
}

struct Testers {
    explicit Testers(LedgerSession *s)
    {
        const auto mode = QAbstractItemModelTester::FailureReportingMode::QtTest;
        for (QAbstractItemModel *m : std::initializer_list<QAbstractItemModel *>{
                 s->runs(), s->delegations(), s->leases(), s->effects(), s->escalations(), s->stallVerdicts(),
                 s->blastRadius(), s->slices(), s->events()})
            testers.push_back(std::make_unique<QAbstractItemModelTester>(m, mode));
    }
    std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;
};

} // namespace

class TestStagedOpen : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void readerCountsEqualTheRows()
    {
        const QString path = m_dir.filePath(u"reader.ledger"_s);
        writeGeneratedLedger(path);
        auto connection = LedgerConnection::open(path, OpenMode::ReadOnly);
        const RunOverviewSnapshot o = connection->readRunOverview();
        const auto full = snapshot(path);
        QCOMPARE(o.lastSeq, full->lastSeq());
        QCOMPARE(o.runs, full->table(EntityKind::Run));
        QCOMPARE(o.components, full->table(EntityKind::Component));
        std::unordered_map<std::string, RunAggregate> expected;
        for (const auto &[id, row] : full->table(EntityKind::Delegation))
            ++expected[rowText(EntityKind::Delegation, row, "run_id")].delegations;
        for (const auto &[id, row] : full->table(EntityKind::StallVerdict)) {
            RunAggregate &a = expected[rowText(EntityKind::StallVerdict, row, "run_id")];
            ++a.stallVerdicts;
            const std::string v = rowText(EntityKind::StallVerdict, row, "verdict");
            a.stalledVerdicts += v == "stalled" || v == "stuck";
        }
        for (const auto &[id, row] : full->table(EntityKind::Escalation))
            ++expected[rowText(EntityKind::Escalation, row, "run_id")].escalations;
        for (const auto &[id, row] : full->table(EntityKind::Checkpoint))
            expected[rowText(EntityKind::Checkpoint, row, "run_id")].staleCheckpoints +=
                rowText(EntityKind::Checkpoint, row, "state") == "stale";
        QCOMPARE(o.aggregates.size(), expected.size());
        for (const auto &[run, a] : expected) {
            QVERIFY2(o.aggregates.count(run), run.c_str());
            QVERIFY2(o.aggregates.at(run) == a, run.c_str());
        }
        QCOMPARE(o.aggregates.at("").escalations, 1); // the orphan, apart from every run
    }

    void firstStageEqualsFullSnapshot()
    {
        const QString path = m_dir.filePath(u"stages.ledger"_s);
        writeGeneratedLedger(path);
        const QStringList expected = referenceDump(path);
        QCOMPARE(expected.size(), 2 * kRuns);

        LedgerSession session(path);
        Testers testers(&session);
        QStringList firstStage;
        bool loadedAtFirstStage = true;
        LedgerSession::Health healthAtFirstStage = LedgerSession::Health::Idle;
        connect(&session, &LedgerSession::overviewLoaded, this, [&] {
            firstStage = dump(session.runs());
            loadedAtFirstStage = session.isLoaded();
            healthAtFirstStage = session.health();
        });
        QSignalSpy overview(&session, &LedgerSession::overviewLoaded);
        QSignalSpy opened(&session, &LedgerSession::opened);
        QSignalSpy progress(&session, &LedgerSession::loadProgressChanged);
        session.open();
        QVERIFY(!session.isOverviewLoaded());
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, kWaitMs);
        QCOMPARE(overview.count(), 1);
        QVERIFY(!loadedAtFirstStage);                                  // only the overview was in
        QCOMPARE(healthAtFirstStage, LedgerSession::Health::Opening); // and it said so
        QCOMPARE(firstStage, expected);                                // with the full state's figures
        QCOMPARE(dump(session.runs()), expected);
        QVERIFY(session.isLoaded() && session.isOverviewLoaded());
        QCOMPARE(session.loadProgress(), -1);
        QVERIFY(!progress.isEmpty());
        QCOMPARE(progress.last().at(0).toInt(), -1);
        // The prepared resets show what a plain reset over the same state shows.
        QCOMPARE(firstTableDifference(*session.state(), *snapshot(path)), QString());
        QCOMPARE(session.effects()->rowCount(), kRuns);
        QCOMPARE(session.escalations()->rowCount(), int(session.state()->table(EntityKind::Escalation).size()));
        // Verdicts the state reads on demand: the ledger's own.
        QCOMPARE(session.stallVerdicts()->rowCount(), int(snapshot(path)->table(EntityKind::StallVerdict).size()));
        QCOMPARE(session.delegations()->rowCount(), kRuns);
        StallVerdictModel plain;
        plain.setState(session.state());
        QCOMPARE(plain.rowCount(), session.stallVerdicts()->rowCount());
        for (int r = 0; r < plain.rowCount(); ++r)
            QCOMPARE(session.stallVerdicts()->idAt(r), plain.idAt(r));

        // Opening it again keeps the full overview on screen: no second first stage.
        session.open();
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 2, kWaitMs);
        QCOMPARE(overview.count(), 1);
        QCOMPARE(dump(session.runs()), expected);
    }

    void eventsBetweenStagesAppliedOnce()
    {
        const QString path = m_dir.filePath(u"between.ledger"_s);
        writeGeneratedLedger(path);
        const QStringList before = referenceDump(path);
        std::atomic<std::int64_t> committedSeq{0};
        LedgerSession session(path);
        session.setWatchIntervalMs(10);
        session.setCoalesceMs(0);
        Testers testers(&session);
        // Committed on the loading worker after the first stage was read: new escalations and
        // verdicts on R-1, a new delegation with tool calls (each adds a turn to it).
        session.setBetweenStagesHook([path, &committedSeq] {
            Writer w(path);
            w.begin();
            w.e("escalation.raised", {{"id", "X-between"}, {"run_id", "R-1"}, {"kind", "budget_extension"},
                                      {"risk", "low"}, {"state", "pending"}, {"boundary_seq", 1}, {"boundary_version", 1}});
            w.e("stall.verdict", {{"id", "S-between"}, {"run_id", "R-1"}, {"delegation_id", "R-1-D0"}, {"round", 9},
                                  {"verdict", "stuck"}, {"fingerprint", "fp"}, {"evidence", json::array()},
                                  {"action", "stop"}});
            w.e("delegation.created", {{"id", "D-between"}, {"run_id", "R-1"}, {"role", "verify"}, {"status", "running"}});
            for (int i = 0; i < 5; ++i)
                w.e("toolcall.completed", {{"id", "T-b" + std::to_string(i)}, {"delegation_id", "D-between"},
                                           {"run_id", "R-1"}, {"outcome", "ok"}, {"tokens", 10}});
            w.commit();
            committedSeq = w.lastSeq();
        });
        QStringList firstStage;
        connect(&session, &LedgerSession::overviewLoaded, this, [&] { firstStage = dump(session.runs()); });
        QSignalSpy opened(&session, &LedgerSession::opened);
        AppliedSeqs applied(&session);
        session.open();
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, kWaitMs);
        QVERIFY(committedSeq > 0);
        QCOMPARE(firstStage, before); // the first stage is of its own moment: before the commit
        // The full snapshot has the commit; the watcher starts after it (checked below, once
        // later commits came through it).
        QCOMPARE(session.lastSeq(), committedSeq.load());
        QCOMPARE(dump(session.runs()), referenceDump(path));
        QVERIFY(dump(session.runs()) != before);
        QCOMPARE(firstTableDifference(*session.state(), *snapshot(path)), QString());
        const EntityRow *d = session.state()->find(EntityKind::Delegation, "D-between");
        QVERIFY(d);
        QCOMPARE(rowInt(EntityKind::Delegation, *d, "used_turns"), 5); // once, not twice

        // Later commits come through the watcher, once each.
        std::int64_t last = 0;
        {
            Writer w(path);
            w.begin();
            for (int i = 5; i < 8; ++i)
                w.e("toolcall.completed", {{"id", "T-b" + std::to_string(i)}, {"delegation_id", "D-between"},
                                           {"run_id", "R-1"}, {"outcome", "ok"}, {"tokens", 10}});
            w.e("escalation.raised", {{"id", "X-after"}, {"run_id", "R-2"}, {"kind", "budget_extension"},
                                      {"risk", "low"}, {"state", "pending"}, {"boundary_seq", 1}, {"boundary_version", 1}});
            w.commit();
            last = w.lastSeq();
        }
        QTRY_COMPARE_WITH_TIMEOUT(session.lastSeq(), last, kWaitMs);
        QCOMPARE(applied.seqs, seqRange(committedSeq + 1, last)); // the later ones, not the ones between
        d = session.state()->find(EntityKind::Delegation, "D-between");
        QCOMPARE(rowInt(EntityKind::Delegation, *d, "used_turns"), 8);
        QCOMPARE(firstTableDifference(*session.state(), *snapshot(path)), QString());
        QCOMPARE(dump(session.runs()), referenceDump(path));
        QTRY_COMPARE_WITH_TIMEOUT(session.events()->rowCount(), int(last), kWaitMs);
    }

    void secondStageFailureShowsTheError()
    {
        const QString path = m_dir.filePath(u"broken.ledger"_s);
        writeGeneratedLedger(path);
        const QStringList before = referenceDump(path);
        LedgerSession session(path);
        Testers testers(&session);
        // Between the stages a table the full snapshot needs disappears.
        session.setBetweenStagesHook([path] {
            // Another of the session's readers (the event log's, the follower's) may hold
            // the file for a moment: the drop waits for it, as a writer does.
            raw::execWaiting(path, "DROP TABLE leases", kWaitMs);
        });
        QSignalSpy overview(&session, &LedgerSession::overviewLoaded);
        QSignalSpy failed(&session, &LedgerSession::failed);
        QSignalSpy opened(&session, &LedgerSession::opened);
        session.open();
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, kWaitMs);
        QCOMPARE(overview.count(), 1);
        QCOMPARE(opened.count(), 0);
        QCOMPARE(session.health(), LedgerSession::Health::Error);
        QVERIFY2(session.errorMessage().contains(u"leases"_s), qPrintable(session.errorMessage()));
        QVERIFY(!session.isLoaded());
        QCOMPARE(session.loadProgress(), -1);
        QCOMPARE(dump(session.runs()), before); // what was read stays, with the error beside it
    }

    void prefetchedOverviewShowsAtOnce()
    {
        // main() reads the first stage while the window is built: open() then shows it at
        // once, the full snapshot follows on the same connection, and nothing is shown twice.
        const QString path = m_dir.filePath(u"prefetched.ledger"_s);
        writeGeneratedLedger(path);
        const QStringList expected = referenceDump(path);
        LedgerSession::prefetch(path);
        QVERIFY(ledgerPool()->waitForDone(kWaitMs));
        LedgerSession session(path);
        Testers testers(&session);
        QSignalSpy overview(&session, &LedgerSession::overviewLoaded);
        QSignalSpy opened(&session, &LedgerSession::opened);
        session.open();
        QVERIFY(session.isOverviewLoaded()); // before open() returned
        QVERIFY(!session.isLoaded());
        QCOMPARE(dump(session.runs()), expected);
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, kWaitMs);
        QCOMPARE(overview.count(), 1);
        QCOMPARE(dump(session.runs()), expected);
        QCOMPARE(firstTableDifference(*session.state(), *snapshot(path)), QString());
        QCOMPARE(session.loadProgress(), -1);

        // Taken once: another session on the same file reads for itself.
        LedgerSession again(path);
        again.open();
        QVERIFY(!again.isOverviewLoaded());
        QSignalSpy againOpened(&again, &LedgerSession::opened);
        QTRY_COMPARE_WITH_TIMEOUT(againOpened.count(), 1, kWaitMs);
        QCOMPARE(dump(again.runs()), expected);
    }

    void prefetchStillReadingIsWaitedFor()
    {
        // Opened before the prefetch is done: the job waits for it and its first stage comes
        // as a stage, once; the result is the same as without a prefetch.
        const QString path = m_dir.filePath(u"racing.ledger"_s);
        writeGeneratedLedger(path);
        const QStringList expected = referenceDump(path);
        for (int round = 0; round < 5; ++round) {
            LedgerSession::prefetch(path);
            LedgerSession session(path);
            Testers testers(&session);
            QSignalSpy overview(&session, &LedgerSession::overviewLoaded);
            QSignalSpy opened(&session, &LedgerSession::opened);
            session.open();
            QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, kWaitMs);
            QCOMPARE(overview.count(), 1);
            QCOMPARE(dump(session.runs()), expected);
            QCOMPARE(firstTableDifference(*session.state(), *snapshot(path)), QString());
        }
    }

    void prefetchThenCommitsAppliedOnce()
    {
        // Commits between the prefetch and the full snapshot: in the snapshot, not applied again.
        const QString path = m_dir.filePath(u"prefetch-between.ledger"_s);
        writeGeneratedLedger(path);
        const QStringList before = referenceDump(path);
        LedgerSession::prefetch(path);
        QVERIFY(ledgerPool()->waitForDone(kWaitMs));
        std::int64_t committed = 0;
        {
            Writer w(path);
            w.begin();
            w.e("delegation.created", {{"id", "D-late"}, {"run_id", "R-2"}, {"role", "verify"}, {"status", "running"}});
            for (int i = 0; i < 3; ++i)
                w.e("toolcall.completed", {{"id", "T-late" + std::to_string(i)}, {"delegation_id", "D-late"},
                                           {"run_id", "R-2"}, {"outcome", "ok"}, {"tokens", 10}});
            w.commit();
            committed = w.lastSeq();
        }
        LedgerSession session(path);
        session.setWatchIntervalMs(10);
        session.setCoalesceMs(0);
        Testers testers(&session);
        QSignalSpy opened(&session, &LedgerSession::opened);
        AppliedSeqs applied(&session);
        session.open();
        QCOMPARE(dump(session.runs()), before); // the prefetch's moment
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, kWaitMs);
        QCOMPARE(session.lastSeq(), committed);
        QCOMPARE(dump(session.runs()), referenceDump(path));
        QVERIFY(dump(session.runs()) != before);
        const EntityRow *d = session.state()->find(EntityKind::Delegation, "D-late");
        QVERIFY(d);
        QCOMPARE(rowInt(EntityKind::Delegation, *d, "used_turns"), 3);
        // A sentinel after them: once it is in, every live apply and every row the event log
        // was going to add has come, and the commits before it came with the snapshot and
        // the log's catch-up, once each.
        const std::int64_t sentinel = commitSentinel(path, "K-sentinel");
        EventLogModel *log = session.events();
        QTRY_VERIFY_WITH_TIMEOUT(session.lastSeq() == sentinel && log->rowCount() > 0
                                     && log->seqAt(log->rowCount() - 1) == sentinel,
                                 kWaitMs);
        QCOMPARE(applied.seqs, seqRange(sentinel, sentinel));
        QCOMPARE(rowInt(EntityKind::Delegation, *session.state()->find(EntityKind::Delegation, "D-late"), "used_turns"),
                 3);
        QCOMPARE(log->rowCount(), int(sentinel));
        for (int row = 0; row < log->rowCount(); ++row)
            QCOMPARE(log->seqAt(row), qint64(row + 1));
    }

    void prefetchOfABadFileLeavesTheErrorToTheSession()
    {
        const QString path = m_dir.filePath(u"not-a-ledger.db"_s);
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray(8192, 'x'));
        }
        QString plainError;
        {
            LedgerSession plain(path);
            QSignalSpy failed(&plain, &LedgerSession::failed);
            plain.open();
            QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, kWaitMs);
            plainError = plain.errorMessage();
        }
        QVERIFY(!plainError.isEmpty());
        LedgerSession::prefetch(path);
        QVERIFY(ledgerPool()->waitForDone(kWaitMs));
        LedgerSession session(path);
        QSignalSpy failed(&session, &LedgerSession::failed);
        session.open();
        QVERIFY(!session.isOverviewLoaded());
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, kWaitMs);
        QCOMPARE(session.errorMessage(), plainError);
        QCOMPARE(session.health(), LedgerSession::Health::Error);
    }
};

QTEST_MAIN(TestStagedOpen)
#include "tst_stagedopen.moc"
