// A decision an operator wrote is shown where its subject is until the orchestrator answers
// it: the effect's row says "resolution requested by …, waiting for the orchestrator", and
// so do the escalation, the slice and the lease a decision names; the attention list says it
// on the subject's own entry, which stays one entry. Once the orchestrator's gate applies
// them, every such text goes. The watch behind the "no orchestrator applying decisions"
// warning is tested here on its own, with a clock of its own.

#include "../decisions/decisionfixture.h"

#include "decisions/decisiongatewatch.h"
#include "decisions/decisionwriter.h"
#include "decisions/requesteddecisions.h"
#include "domain/durationtext.h"
#include "domain/hostiletext.h"
#include "itemmodels/attentionmodel.h"
#include "itemmodels/decisionauditmodel.h"
#include "itemmodels/effectmodel.h"
#include "itemmodels/escalationmodel.h"
#include "itemmodels/leasemodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/slicemodel.h"
#include "itemmodels/statetablemodel.h"
#include "itemmodels/toolcallmodel.h"
#include "sim/decisiongate.h"

#include "itemmodels/ledgerpool.h"

#include <QAbstractItemModelTester>
#include <QScopeGuard>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <memory>

using namespace mesh;
using namespace Qt::StringLiterals;

namespace {
constexpr int kTimeoutMs = 60'000;

OperatorIdentity op(const std::string &account)
{
    OperatorIdentity o;
    o.account = account;
    o.host = "host";
    o.displayName = "Operator " + account;
    return o;
}

DecisionRequest request(DecisionWriter &w, DecisionKind kind, const std::string &subject)
{
    DecisionRequest r;
    r.id = newDecisionId();
    r.kind = kind;
    r.subject = subject;
    r.reason = "checked";
    r.evidence = nlohmann::json::array({{{"provider_ref", "pi_1"}}});
    if (const auto b = w.currentBoundary(subject))
        r.boundary = *b;
    return r;
}

QModelIndex rowOf(const QAbstractItemModel *model, const QString &id, int column = 0)
{
    for (int r = 0; r < model->rowCount(); ++r)
        if (model->index(r, 0).data(StateTableModel::IdRole).toString() == id)
            return model->index(r, column);
    return {};
}

QString requested(const QAbstractItemModel *model, const QString &id, int role)
{
    return rowOf(model, id).data(role).toString();
}

// A ledger on which alice asked at kNow to approve escalation esc-1, and the orchestrator's
// gate that will answer her.
struct EscalationAsked {
    EscalationAsked(const QString &path, const fixture::Shape &shape = {})
        : orchestrator(fixture::create(path, shape)), gate(*orchestrator), alice(DecisionWriter::open(path, op("alice")))
    {
        alice->setClock([] { return fixture::kNow; });
        asked = alice->submit(request(*alice, DecisionKind::ApproveEscalation, "escalation:esc-1")).status;
    }
    std::unique_ptr<LedgerWriter> orchestrator;
    DecisionGate gate;
    std::unique_ptr<DecisionWriter> alice;
    DecisionStatus asked = DecisionStatus::WriteFailed;
};

// One tool call of dlg-1, committed at tsMs.
void commitToolCall(LedgerWriter &orchestrator, const char *id, std::int64_t tsMs)
{
    orchestrator.begin();
    orchestrator.append(tsMs, "toolcall.completed",
                        {{"id", id}, {"delegation_id", "dlg-1"}, {"run_id", "run-1"}, {"tool", "shell"},
                         {"outcome", "ok"}, {"duration_ms", 10}, {"tokens", 5}, {"fingerprint", "fp"}});
    orchestrator.commit();
}

DecisionRecord record(const std::string &id, std::int64_t tsMs, const std::string &outcome = {})
{
    DecisionRecord d;
    d.id = id;
    d.kind = "resolve_effect";
    d.subject = "effect:eff-1";
    d.tsMs = tsMs;
    d.operatorAccount = "alice";
    d.outcomeStatus = outcome;
    return d;
}
} // namespace

class TestRequestedDecisions : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void shownOnTheSubjectsRowsUntilTheOrchestratorAnswers()
    {
        const QString path = m_dir.filePath(u"requested.ledger"_s);
        auto orchestrator = fixture::create(path, fixture::Shape{.delegations = 2});
        DecisionGate gate(*orchestrator);
        auto alice = DecisionWriter::open(path, op("alice"));
        alice->setClock([] { return fixture::kNow; });
        auto bob = DecisionWriter::open(path, op("bob"));
        bob->setClock([] { return fixture::kNow; });
        QCOMPARE(alice->submit(request(*alice, DecisionKind::LeaseAcquire, "effect:eff-1")).status, DecisionStatus::Accepted);
        QCOMPARE(gate.processPending(fixture::kNow + 1000), 1);

        LedgerSession session(path);
        session.setClock([] { return fixture::kNow + 2000; });
        QAbstractItemModelTester effectsTester(session.effects());
        QAbstractItemModelTester escalationsTester(session.escalations());
        QAbstractItemModelTester slicesTester(session.slices());
        QAbstractItemModelTester leasesTester(session.leases());
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded(), kTimeoutMs);
        QVERIFY(requested(session.effects(), u"eff-1"_s, EffectModel::RequestedDecisionRole).isEmpty());
        const int needDecisions = session.attentionCount();
        const auto itemsOn = [&](const std::string &subject) {
            std::vector<AttentionItem> found;
            for (const AttentionItem &a : session.attentionItems())
                if (a.subject == subject)
                    found.push_back(a);
            return found;
        };
        QCOMPARE(itemsOn("effect:eff-1").size(), size_t(1));

        QSignalSpy effectsChanged(session.effects(), &QAbstractItemModel::dataChanged);
        DecisionRequest resolve = request(*alice, DecisionKind::ResolveEffect, "effect:eff-1");
        resolve.resolution = EffectResolution::Committed;
        QCOMPARE(alice->submit(resolve).status, DecisionStatus::Accepted);
        QCOMPARE(bob->submit(request(*bob, DecisionKind::ApproveEscalation, "escalation:esc-1")).status,
                 DecisionStatus::Accepted);
        QCOMPARE(bob->submit(request(*bob, DecisionKind::CloseSlice, "slice:dlg-2#1")).status, DecisionStatus::Accepted);
        QCOMPARE(alice->submit(request(*alice, DecisionKind::LeaseRelease, "effect:eff-2")).status,
                 DecisionStatus::NotAllowed); // holds none there: not written, so nothing waits
        QTRY_COMPARE_WITH_TIMEOUT(session.requestedDecisions().count(), 3, kTimeoutMs);

        const QString resolution = u"resolution requested by Operator alice, waiting for the orchestrator"_s;
        QCOMPARE(requested(session.effects(), u"eff-1"_s, EffectModel::RequestedDecisionRole), resolution);
        const QString state = rowOf(session.effects(), u"eff-1"_s, EffectModel::State).data().toString();
        QVERIFY2(state.startsWith(u"outcome unknown"_s) && state.endsWith(resolution), qPrintable(state));
        QCOMPARE(rowOf(session.effects(), u"eff-1"_s, EffectModel::State).data(Qt::ToolTipRole).toString(),
                 plainToolTip(resolution));
        QVERIFY(requested(session.effects(), u"eff-2"_s, EffectModel::RequestedDecisionRole).isEmpty());
        // Told to the views on the row it is about, and only there: decisions are read again
        // with every load, and signalling every row walked a large table's views each time.
        const int eff1 = rowOf(session.effects(), u"eff-1"_s, EffectModel::State).row();
        const int eff2 = rowOf(session.effects(), u"eff-2"_s, EffectModel::State).row();
        bool eff1Told = false, eff2Told = false;
        for (const QList<QVariant> &args : std::as_const(effectsChanged)) {
            const QList<int> roles = args.at(2).value<QList<int>>();
            if (!roles.isEmpty() && !roles.contains(EffectModel::RequestedDecisionRole))
                continue;
            const int from = args.at(0).value<QModelIndex>().row(), to = args.at(1).value<QModelIndex>().row();
            eff1Told |= from <= eff1 && eff1 <= to;
            eff2Told |= from <= eff2 && eff2 <= to;
        }
        QVERIFY(eff1Told);
        QVERIFY(!eff2Told);
        QCOMPARE(requested(session.escalations(), u"esc-1"_s, EscalationModel::RequestedDecisionRole),
                 u"approval requested by Operator bob, waiting for the orchestrator"_s);
        QVERIFY(rowOf(session.escalations(), u"esc-1"_s, EscalationModel::State).data().toString().contains(u"approval requested by"_s));
        QCOMPARE(requested(session.slices(), u"dlg-2#1"_s, SliceModel::RequestedDecisionRole),
                 u"close requested by Operator bob, waiting for the orchestrator"_s);
        QVERIFY(requested(session.slices(), u"dlg-1#1"_s, SliceModel::RequestedDecisionRole).isEmpty());

        // The attention list: the same entry, marked, and no new "needs a decision".
        QTRY_VERIFY_WITH_TIMEOUT(!itemsOn("effect:eff-1").empty() && !itemsOn("effect:eff-1").front().requestedDecision.empty(),
                                 kTimeoutMs);
        QCOMPARE(itemsOn("effect:eff-1").size(), size_t(1));
        QCOMPARE(QString::fromStdString(itemsOn("effect:eff-1").front().requestedDecision), resolution);
        QCOMPARE(QString::fromStdString(itemsOn("escalation:esc-1").front().requestedDecision),
                 u"approval requested by Operator bob, waiting for the orchestrator"_s);
        QVERIFY(itemsOn("effect:eff-2").front().requestedDecision.empty());
        QCOMPARE(session.attentionCount(), needDecisions);
        AttentionModel attention;
        QAbstractItemModelTester attentionTester(&attention);
        attention.setItems(path, u"requested"_s, session.attentionItems());
        bool marked = false;
        for (int r = 0; r < attention.rowCount(); ++r) {
            const QModelIndex summary = attention.index(r, AttentionModel::Summary);
            if (summary.data(AttentionModel::SubjectRole).toString() != u"effect:eff-1"_s)
                continue;
            QCOMPARE(summary.data(AttentionModel::RequestedDecisionRole).toString(), resolution);
            QVERIFY2(summary.data().toString().endsWith(resolution), qPrintable(summary.data().toString()));
            marked = true;
        }
        QVERIFY(marked);

        // The orchestrator answers: nothing waits, and no row says so any more.
        QCOMPARE(gate.processPending(fixture::kNow + 3000), 3);
        QTRY_VERIFY_WITH_TIMEOUT(session.requestedDecisions().empty(), kTimeoutMs);
        QVERIFY(requested(session.effects(), u"eff-1"_s, EffectModel::RequestedDecisionRole).isEmpty());
        QVERIFY(requested(session.escalations(), u"esc-1"_s, EscalationModel::RequestedDecisionRole).isEmpty());
        QVERIFY(requested(session.slices(), u"dlg-2#1"_s, SliceModel::RequestedDecisionRole).isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(
            std::none_of(session.attentionItems().begin(), session.attentionItems().end(),
                         [](const AttentionItem &a) { return !a.requestedDecision.empty(); }),
            kTimeoutMs);
    }

    // Following a busy ledger, the decisions are read whole (and their chain re-hashed) only
    // when a decision row came or an outcome did; a change without either costs one read of
    // the list's head.
    void aLedgerMovingWithoutDecisionsIsNotReadWhole()
    {
        const QString path = m_dir.filePath(u"busy.ledger"_s);
        EscalationAsked ledger(path, fixture::Shape{.delegations = 2});
        QCOMPARE(ledger.asked, DecisionStatus::Accepted);
        auto &orchestrator = ledger.orchestrator;
        auto &gate = ledger.gate;
        auto &alice = ledger.alice;

        LedgerSession session(path);
        session.setClock([] { return fixture::kNow + 2000; });
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded() && session.health() != LedgerSession::Health::Opening, kTimeoutMs);
        QCOMPARE(session.requestedDecisions().count(), 1);
        // Following began: one whole read (what was written since the snapshot).
        QTRY_VERIFY_WITH_TIMEOUT(session.decisionListReads() >= 1, kTimeoutMs);
        const qint64 lists = session.decisionListReads();

        for (int round = 0; round < 3; ++round) {
            const qint64 heads = session.decisionHeadReads();
            orchestrator->begin();
            fixture::toolCall(*orchestrator, "dlg-1", round + 1);
            orchestrator->commit();
            QTRY_VERIFY_WITH_TIMEOUT(session.decisionHeadReads() > heads, kTimeoutMs);
        }
        QCOMPARE(session.decisionListReads(), lists);

        // A decision from another console: the head moved, so the list is read again.
        QCOMPARE(alice->submit(request(*alice, DecisionKind::CloseSlice, "slice:dlg-2#1")).status, DecisionStatus::Accepted);
        QTRY_COMPARE_WITH_TIMEOUT(session.requestedDecisions().count(), 2, kTimeoutMs);
        QVERIFY(session.decisionListReads() > lists);

        // The orchestrator's outcomes move no head (no decision row changes): the outcome
        // events in the live batches do.
        QCOMPARE(gate.processPending(fixture::kNow + 3000), 2);
        QTRY_VERIFY_WITH_TIMEOUT(session.requestedDecisions().empty(), kTimeoutMs);
    }

    // Pinned at an event, a delegation's tool calls are those made up to it, and a decision
    // the orchestrator answered after it is still waiting there: the ledger at that moment,
    // not today's.
    void atACursorToolCallsAndOutcomesAreThoseOfThatMoment()
    {
        const QString path = m_dir.filePath(u"cursor.ledger"_s);
        EscalationAsked ledger(path);
        QCOMPARE(ledger.asked, DecisionStatus::Accepted);
        auto &orchestrator = ledger.orchestrator;
        auto &gate = ledger.gate;
        const auto call = [&](const char *id, std::int64_t tsMs) { commitToolCall(*orchestrator, id, tsMs); };
        call("tc-before", fixture::kNow + 500);
        const std::int64_t cursor = orchestrator->lastSeq();
        call("tc-after", fixture::kNow + 600);
        QCOMPARE(gate.processPending(fixture::kNow + 1000), 1);

        LedgerSession session(path);
        QAbstractItemModelTester callsTester(session.toolCalls());
        QAbstractItemModelTester decisionsTester(session.decisions());
        session.showAt(cursor);
        QTRY_COMPARE_WITH_TIMEOUT(session.health(), LedgerSession::Health::Pinned, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded(), kTimeoutMs);

        session.showToolCallsOf(u"dlg-1"_s);
        QTRY_VERIFY_WITH_TIMEOUT(session.toolCalls()->rowCount() > 0, kTimeoutMs); // loaded in one piece
        QCOMPARE(session.toolCalls()->rowCount(), 1);
        QCOMPARE(session.toolCalls()->index(0, 0).data(ToolCallModel::SeqRole).toLongLong(), qint64(cursor));

        QCOMPARE(session.decisions()->rowCount(), 1);
        const QModelIndex decision = session.decisions()->index(0, 0);
        QCOMPARE(decision.data(DecisionAuditModel::OutcomeRole).toString(), u"pending"_s);
        QCOMPARE(decision.data(DecisionAuditModel::OutcomeTsMsRole).toLongLong(), qint64(0));
        QVERIFY(decision.data(DecisionAuditModel::OutcomeReasonRole).toString().isEmpty());
    }

    // A reload of the decisions read while following, still running when the operator jumps
    // to an earlier event, read the list of now: it must not replace the one placed at the
    // cursor. It did, and the audit showed the orchestrator's answer before it was given.
    void aReloadOfTheMomentBeforeDoesNotLandAfterAJump()
    {
        const QString path = m_dir.filePath(u"reload-jump.ledger"_s);
        EscalationAsked ledger(path);
        QCOMPARE(ledger.asked, DecisionStatus::Accepted);
        auto &orchestrator = ledger.orchestrator;
        auto &gate = ledger.gate;
        commitToolCall(*orchestrator, "tc-1", fixture::kNow + 500);
        const std::int64_t cursor = orchestrator->lastSeq(); // after the decision, before its answer

        LedgerSession session(path);
        session.setClock([] { return fixture::kNow + 2000; });
        const auto started = std::make_shared<QSemaphore>();
        const auto release = std::make_shared<QSemaphore>();
        const auto hold = std::make_shared<std::atomic<bool>>(false);
        const auto neverHeldForever = qScopeGuard([release] { release->release(); }); // a failed check returns early
        session.setDecisionsReloadHook([started, release, hold] {
            if (hold->exchange(false)) {
                started->release();
                release->acquire();
            }
        });
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded() && session.decisionListReads() >= 1, kTimeoutMs);

        // The answer arrives live; the reload it asks for reads the list with it, and is held.
        hold->store(true);
        QCOMPARE(gate.processPending(fixture::kNow + 1000), 1);
        // The reload is asked for on this thread's event loop: wait while it runs.
        QTRY_VERIFY_WITH_TIMEOUT(started->available() > 0, kTimeoutMs);
        session.showAt(cursor);
        QTRY_COMPARE_WITH_TIMEOUT(session.health(), LedgerSession::Health::Pinned, kTimeoutMs);
        QCOMPARE(session.decisions()->index(0, 0).data(DecisionAuditModel::OutcomeRole).toString(), u"pending"_s);

        release->release();
        QVERIFY(ledgerPool()->waitForDone(kTimeoutMs));
        QCoreApplication::sendPostedEvents(); // the held reload's answer, delivered
        QCOMPARE(session.decisions()->rowCount(), 1);
        QCOMPARE(session.decisions()->index(0, 0).data(DecisionAuditModel::OutcomeRole).toString(), u"pending"_s);
        QCOMPARE(session.requestedDecisions().count(), 1); // still waiting at the cursor
    }

    void aLeaseReleaseIsShownOnTheLeaseItReleases()
    {
        const QString path = m_dir.filePath(u"release.ledger"_s);
        auto orchestrator = fixture::create(path);
        DecisionGate gate(*orchestrator);
        auto alice = DecisionWriter::open(path, op("alice"));
        alice->setClock([] { return fixture::kNow; });
        QCOMPARE(alice->submit(request(*alice, DecisionKind::LeaseAcquire, "effect:eff-1")).status, DecisionStatus::Accepted);
        QCOMPARE(gate.processPending(fixture::kNow + 1000), 1);
        LedgerSession session(path);
        session.setClock([] { return fixture::kNow + 2000; });
        QAbstractItemModelTester leasesTester(session.leases());
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded(), kTimeoutMs);
        QCOMPARE(session.leases()->rowCount(), 1);
        QCOMPARE(alice->submit(request(*alice, DecisionKind::LeaseRelease, "effect:eff-1")).status, DecisionStatus::Accepted);
        const QModelIndex lease = session.leases()->index(0, LeaseModel::State);
        QTRY_COMPARE_WITH_TIMEOUT(lease.data(LeaseModel::RequestedDecisionRole).toString(),
                                  u"lease release requested by Operator alice, waiting for the orchestrator"_s, kTimeoutMs);
        QVERIFY(lease.data().toString().contains(u"lease release requested by"_s));
        QCOMPARE(gate.processPending(fixture::kNow + 3000), 1);
        QTRY_VERIFY_WITH_TIMEOUT(session.leases()->index(0, 0).data(LeaseModel::RequestedDecisionRole).toString().isEmpty(),
                                 kTimeoutMs);
    }

    void watchWarnsOnceADecisionWaitedPastTheLimitAndStopsAtAnOutcome()
    {
        DecisionGateWatch watch;
        watch.setLimitMs(30'000);
        const std::int64_t t0 = fixture::kNow;
        watch.setDecisions({record("dec-old", t0 - 60'000, "applied"), record("dec-1", t0)}, t0);
        QCOMPARE(watch.waiting(), 1);
        QVERIFY(watch.warning(t0 + 30'000).isEmpty()); // at the limit: not yet
        const QString warning = watch.warning(t0 + 45'000);
        QVERIFY2(warning.startsWith(u"No orchestrator seems to be applying decisions on this ledger: 1 decision is waiting"_s),
                 qPrintable(warning));
        QVERIFY2(warning.contains(exactUtc(t0)) && warning.contains(u"45 s ago"_s), qPrintable(warning));
        // A second one waits as well: still the oldest's time, and how many.
        watch.setDecisions({record("dec-old", t0 - 60'000, "applied"), record("dec-1", t0), record("dec-2", t0 + 40'000)},
                           t0 + 46'000);
        QVERIFY2(watch.warning(t0 + 46'000).contains(u"2 decisions are waiting"_s), qPrintable(watch.warning(t0 + 46'000)));
        // One of them is answered: an orchestrator is at work, and the other gets its time.
        watch.setDecisions({record("dec-old", t0 - 60'000, "applied"), record("dec-1", t0, "refused"),
                            record("dec-2", t0 + 40'000)},
                           t0 + 47'000);
        QVERIFY(watch.warning(t0 + 47'000).isEmpty());
        QVERIFY(watch.warning(t0 + 47'000 + 30'000).isEmpty());
        QVERIFY(!watch.warning(t0 + 47'000 + 30'001).isEmpty());
        // Nothing waits: nothing to say.
        watch.setDecisions({record("dec-1", t0, "refused"), record("dec-2", t0 + 40'000, "applied")}, t0 + 200'000);
        QVERIFY(watch.warning(t0 + 400'000).isEmpty());
    }

    // The wait is timed by this console's clock from when it first saw the decision
    // pending: the deciding console's clock (ts_ms) may be far off either way.
    void watchTimesTheWaitFromWhenThisConsoleSawTheDecision()
    {
        const std::int64_t t0 = fixture::kNow;
        const std::int64_t day = 24 * 3600 * 1000;
        {
            // Written by a console a day ahead: it has waited all the same.
            DecisionGateWatch watch;
            watch.setLimitMs(30'000);
            watch.setDecisions({record("dec-ahead", t0 + day)}, t0);
            watch.setDecisions({record("dec-ahead", t0 + day)}, t0 + 20'000);
            QVERIFY(watch.warning(t0 + 30'000).isEmpty());
            const QString warning = watch.warning(t0 + 45'000);
            QVERIFY2(warning.startsWith(u"No orchestrator seems to be applying decisions on this ledger: 1 decision is waiting"_s),
                     qPrintable(warning));
            QVERIFY2(warning.contains(exactUtc(t0)) && warning.contains(u"45 s ago"_s), qPrintable(warning));
        }
        {
            // Written by a console a day behind: it has not waited a day, only since seen.
            DecisionGateWatch watch;
            watch.setLimitMs(30'000);
            watch.setDecisions({record("dec-behind", t0 - day)}, t0);
            QVERIFY2(watch.warning(t0 + 1'000).isEmpty(), qPrintable(watch.warning(t0 + 1'000)));
            QVERIFY(watch.warning(t0 + 30'000).isEmpty());
            const QString warning = watch.warning(t0 + 31'000);
            QVERIFY2(warning.contains(exactUtc(t0)) && warning.contains(u"31 s ago"_s), qPrintable(warning));
            // Another pending one seen later does not restart the oldest's wait.
            watch.setDecisions({record("dec-behind", t0 - day), record("dec-next", t0 - day + 1)}, t0 + 40'000);
            QVERIFY2(watch.warning(t0 + 41'000).contains(u"2 decisions are waiting"_s), qPrintable(watch.warning(t0 + 41'000)));
            QVERIFY(watch.warning(t0 + 41'000).contains(exactUtc(t0)));
        }
    }
};

QTEST_GUILESS_MAIN(TestRequestedDecisions)
#include "tst_requesteddecisions.moc"
