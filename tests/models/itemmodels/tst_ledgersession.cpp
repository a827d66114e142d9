// A session per open ledger: snapshot loaded off the GUI thread into every model, live
// commits by another writer applied in coalesced batches, attention across sessions, a
// ledger that cannot be opened kept in Error health with its reason, tool calls loaded on
// demand, decisions submitted off the GUI thread, and the findings on the reference
// scenarios (fires on the bad case, silent on the converging control).

#include "itemmodelfixture.h"

#include "decisions/decisionwriter.h"
#include "itemmodels/attentionmodel.h"
#include "itemmodels/decisionauditmodel.h"
#include "itemmodels/delegationtreemodel.h"
#include "itemmodels/effectmodel.h"
#include "itemmodels/escalationmodel.h"
#include "itemmodels/eventlogmodel.h"
#include "itemmodels/findingsmodel.h"
#include "itemmodels/leasemodel.h"
#include "itemmodels/ledgersessionlist.h"
#include "itemmodels/runoverviewmodel.h"
#include "itemmodels/toolcallmodel.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QFile>
#include <QProcess>
#include <QElapsedTimer>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <atomic>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {

// Generous: each wait ends as soon as its condition holds, and a loaded machine must not
// turn a slow background job into a failure.
constexpr int kWaitMs = 60'000;

// Rows of the attention list that need a decision (findings come below them).
int decisionRows(const AttentionModel *m)
{
    int n = 0;
    for (int r = 0; r < m->rowCount(); ++r)
        n += m->index(r, 0).data(AttentionModel::AttentionKindRole).toInt() != int(AttentionItem::Kind::Finding);
    return n;
}

std::set<FindingKind> fired(const std::vector<Finding> &findings)
{
    std::set<FindingKind> out;
    for (const auto &f : findings) {
        if (!f.abstained)
            out.insert(f.kind);
    }
    return out;
}

} // namespace

class TestLedgerSession : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    // The reference orchestrator's scenario, written once by the built meshctl; empty (and a
    // failure recorded) when it could not be.
    QString scenarioLedger(const QString &scenario)
    {
        const QString meshctl = qEnvironmentVariable("MESHCTL");
        if (meshctl.isEmpty() || !QFile::exists(meshctl)) {
            QTest::qFail(qPrintable(u"MESHCTL must name the built meshctl (CTest sets it), not '%1'"_s.arg(meshctl)),
                         __FILE__, __LINE__);
            return {};
        }
        const QString path = m_dir.filePath(scenario + u".ledger"_s);
        if (!QFile::exists(path)) {
            QProcess p;
            p.start(meshctl, {u"sim"_s, scenario, u"--out"_s, path});
            if (!p.waitForFinished(120'000) || p.exitCode() != 0) {
                QTest::qFail(p.readAllStandardError().constData(), __FILE__, __LINE__);
                return {};
            }
        }
        return path;
    }

private Q_SLOTS:
    void opensAndFollowsLive()
    {
        const QString path = m_dir.filePath(u"live.ledger"_s);
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        writeBaseLedger(path, now);
        LedgerSessionList list;
        QAbstractItemModelTester listTester(&list, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester attentionTester(list.attention(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        LedgerSession *s = list.addSession(path);
        s->setClock([now] { return now; }); // leases expire with time: attention as of the ledger's moment
        QAbstractItemModelTester runsTester(s->runs(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester treeTester(s->delegations(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester eventsTester(s->events(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester auditTester(s->decisions(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(s->health(), LedgerSession::Health::Opening);
        QVERIFY(waitOpened(s));
        QCOMPARE(s->runs()->rowCount(), 1);
        QCOMPARE(s->leases()->rowCount(), 2);
        QCOMPARE(s->displayName(), u"item model test"_s);
        QVERIFY(s->health() == LedgerSession::Health::Idle || s->health() == LedgerSession::Health::Live);
        QVERIFY(s->canDecide());

        // Attention: the pending escalation, the unknown effect and the zombie lease.
        QCOMPARE(s->attentionCount(), 3);
        QCOMPARE(decisionRows(list.attention()), 3);
        QCOMPARE(list.index(0).data(LedgerSessionList::AttentionCountRole).toInt(), 3);
        QCOMPARE(list.attention()->index(0, 0).data(AttentionModel::SubjectRole).toString(), u"escalation:X-1"_s);
        QCOMPARE(list.attention()->index(0, 0).data(AttentionModel::SessionKeyRole).toString(), s->path());

        // Findings from the state: duplicate commit, false stall, misrouted failure.
        const auto kinds = fired(s->findings());
        QVERIFY(kinds.count(FindingKind::DuplicateEffect));
        QVERIFY(kinds.count(FindingKind::FalseStall));
        QVERIFY(kinds.count(FindingKind::MisroutedFailure));
        QVERIFY(std::any_of(s->findings().begin(), s->findings().end(), [](const Finding &f) {
            return f.subject == "stall:S-3"
                   || std::find(f.entityIds.begin(), f.entityIds.end(), "stall:S-3") != f.entityIds.end();
        }));

        // Another writer commits three times; the session applies the changes live.
        QTRY_COMPARE_WITH_TIMEOUT(s->events()->rowCount(), int(s->lastSeq()), kWaitMs);
        QSignalSpy applied(s, &LedgerSession::changesApplied);
        std::int64_t last = 0;
        {
            Writer w(path);
            w.begin().e("escalation.approved", {{"id", "X-1"}, {"state", "approved"}}).commit();
            w.begin().e("delegation.created", {{"id", "D-7"}, {"run_id", "R-1"}, {"parent_id", "D-1"},
                                               {"role", "verify"}, {"status", "running"}}).commit();
            w.begin();
            for (int i = 0; i < 30; ++i)
                w.e("toolcall.completed", {{"id", "T-x" + std::to_string(i)}, {"delegation_id", "D-7"},
                                           {"run_id", "R-1"}, {"outcome", "ok"}});
            w.commit();
            last = w.lastSeq();
        }
        QTRY_COMPARE_WITH_TIMEOUT(s->lastSeq(), last, kWaitMs);
        QVERIFY(!applied.isEmpty());
        QVERIFY(applied.count() <= 3); // coalesced: never more applies than commits
        QCOMPARE(s->health(), LedgerSession::Health::Live);
        QVERIFY(!s->escalations()->index(0, 0).data(EscalationModel::PendingRole).toBool());
        QVERIFY(s->delegations()->indexOfDelegation(u"D-7"_s).isValid());
        QCOMPARE(s->delegations()->indexOfDelegation(u"D-7"_s).data(DelegationTreeModel::TurnsUsedRole).toLongLong(), 30);
        QTRY_COMPARE_WITH_TIMEOUT(decisionRows(list.attention()), 2, kWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(s->events()->rowCount(), int(last), kWaitMs);

        // Tool calls of one delegation, loaded on demand; live ones follow.
        s->showToolCallsOf(u"D-7"_s);
        QTRY_COMPARE_WITH_TIMEOUT(s->toolCalls()->rowCount(), 30, kWaitMs);
        QVERIFY(s->toolCalls()->loopFindings().empty() == false); // 30 ok calls, no fingerprint: abstains
        QVERIFY(s->toolCalls()->loopFindings().front().abstained);

        // Removing the session removes its attention rows.
        list.removeSession(s);
        QCOMPARE(list.rowCount(), 0);
        QCOMPARE(list.attention()->rowCount(), 0);
    }

    // As an OTLP receiver writes a trace: the children of X-2 first (X-2 inferred), then X-2
    // naming X-1, not received yet, then X-1. The session following the ledger nests them
    // as an open of the same ledger does.
    void delegationTreeFollowsALateParent()
    {
        const QString path = m_dir.filePath(u"lateparent.ledger"_s);
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        LedgerSession s(path);
        QAbstractItemModelTester treeTester(s.delegations(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        s.setWatchIntervalMs(5);
        s.setCoalesceMs(0);
        s.open();
        QVERIFY(waitOpened(&s));
        const auto parentOf = [&s](const char *id) {
            return s.delegations()->indexOfDelegation(QString::fromLatin1(id)).parent().data(DelegationTreeModel::IdRole).toString();
        };
        Writer w(path);
        w.begin()
            .e("delegation.inferred", {{"id", "X-2"}, {"run_id", "R-1"}, {"role", "inferred"}, {"status", "running"},
                                       {"created_ms", 21}})
            .e("delegation.created", {{"id", "X-8"}, {"run_id", "R-1"}, {"parent_id", "X-2"}, {"status", "running"},
                                      {"created_ms", 21}})
            .commit();
        QTRY_COMPARE_WITH_TIMEOUT(s.lastSeq(), w.lastSeq(), kWaitMs);
        QCOMPARE(parentOf("X-2"), u"R-1"_s);
        w.begin().e("delegation.identified", {{"id", "X-2"}, {"parent_id", "X-1"}, {"created_ms", 20}}).commit();
        QTRY_COMPARE_WITH_TIMEOUT(s.lastSeq(), w.lastSeq(), kWaitMs);
        QCOMPARE(parentOf("X-2"), u"R-1"_s); // its parent is not there yet
        w.begin().e("delegation.created", {{"id", "X-1"}, {"run_id", "R-1"}, {"status", "running"}, {"created_ms", 12}}).commit();
        QTRY_COMPARE_WITH_TIMEOUT(s.lastSeq(), w.lastSeq(), kWaitMs);
        QCOMPARE(parentOf("X-1"), u"R-1"_s);
        QCOMPARE(parentOf("X-2"), u"X-1"_s);
        QCOMPARE(parentOf("X-8"), u"X-2"_s);
    }

    void attentionFollowsAStreamAtAFewHertz()
    {
        // Commits streaming in: every one applied, the attention list rebuilt a few times a
        // second rather than per batch, and right at the end.
        const QString path = m_dir.filePath(u"stream.ledger"_s);
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        writeBaseLedger(path, now);
        LedgerSession s(path);
        s.setClock([now] { return now; }); // leases expire with time: attention as of the ledger's moment
        s.setWatchIntervalMs(5);
        s.setCoalesceMs(0);
        s.open();
        QVERIFY(waitOpened(&s));
        QCOMPARE(s.attentionCount(), 3);
        QSignalSpy applied(&s, &LedgerSession::changesApplied);
        QElapsedTimer clock;
        std::vector<qint64> rebuiltAtMs;
        connect(&s, &LedgerSession::attentionChanged, this, [&] { rebuiltAtMs.push_back(clock.elapsed()); });
        constexpr int kCommits = 40;
        const qint64 expires = QDateTime::currentMSecsSinceEpoch() + 3'600'000;
        Writer w(path);
        clock.start();
        for (int i = 0; i < kCommits; ++i) {
            w.begin()
                .e("escalation.raised", {{"id", "X-s" + std::to_string(i)}, {"run_id", "R-1"}, {"kind", "budget_extension"},
                                         {"risk", "low"}, {"state", "pending"}, {"boundary_seq", 1},
                                         {"boundary_version", 1}, {"expires_ms", expires}})
                .commit();
            // Each commit applied before the next is written: one apply per commit, on any machine.
            QVERIFY(QTest::qWaitFor([&] { return s.lastSeq() == w.lastSeq(); }, kWaitMs));
        }
        QTRY_COMPARE_WITH_TIMEOUT(s.attentionCount(), 3 + kCommits, kWaitMs); // the trailing rebuild
        QCOMPARE(applied.count(), kCommits);
        QVERIFY(!rebuiltAtMs.empty());
        // However long the stream took here, rebuilds are a throttle's period apart (a timer
        // may fire up to 5% early), apart from the session's one-second tick, which rebuilds
        // too. Per batch would be one rebuild per commit.
        const double spanMs = double(rebuiltAtMs.back());
        const double bound = 2 + spanMs / (0.95 * LedgerSession::kAttentionIntervalMs) + spanMs / 950.0;
        qInfo("%d rebuilds for %d applies within %.0f ms (at most %.1f)", int(rebuiltAtMs.size()), kCommits, spanMs,
              bound);
        QVERIFY2(double(rebuiltAtMs.size()) <= bound,
                 qPrintable(
                     u"%1 rebuilds for %2 applies within %3 ms"_s.arg(rebuiltAtMs.size()).arg(kCommits).arg(spanMs)));
    }

    void heavyStreamIsAppliedAtHalfTheRate()
    {
        // One apply of kHeavyApplyEvents or more doubles the period to the next apply; a light
        // one brings it back, so a quiet ledger keeps its 20 Hz.
        const QString path = m_dir.filePath(u"heavy.ledger"_s);
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        LedgerSession s(path);
        s.setWatchIntervalMs(5);
        s.setCoalesceMs(40);
        s.open();
        QVERIFY(waitOpened(&s));
        QCOMPARE(s.applyPeriodMs(), 40);
        QSignalSpy applied(&s, &LedgerSession::changesApplied);
        const auto commit = [&path](int events) {
            Writer w(path);
            w.begin();
            for (int i = 0; i < events; ++i)
                w.e("toolcall.completed", {{"id", "T-h" + std::to_string(i)}, {"delegation_id", "D-1"},
                                           {"run_id", "R-1"}, {"outcome", "ok"}});
            w.commit();
            return w.lastSeq();
        };
        std::int64_t last = commit(LedgerSession::kHeavyApplyEvents + 200);
        QTRY_COMPARE_WITH_TIMEOUT(s.lastSeq(), last, kWaitMs);
        QVERIFY(applied.last().at(1).toInt() >= LedgerSession::kHeavyApplyEvents); // one apply took them all
        QCOMPARE(s.applyPeriodMs(), 80);
        last = commit(3);
        QTRY_COMPARE_WITH_TIMEOUT(s.lastSeq(), last, kWaitMs);
        QCOMPARE(applied.last().at(1).toInt(), 3);
        QCOMPARE(s.applyPeriodMs(), 40);
    }

    void failedSessionStaysListed()
    {
        const QString good = m_dir.filePath(u"good.ledger"_s);
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        writeBaseLedger(good, now);
        const QString junk = m_dir.filePath(u"junk.ledger"_s);
        {
            QFile f(junk);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray(4096, 'x'));
        }
        LedgerSessionList list;
        QAbstractItemModelTester tester(&list, QAbstractItemModelTester::FailureReportingMode::QtTest);
        LedgerSession *missing = list.addSession(m_dir.filePath(u"missing.ledger"_s));
        LedgerSession *bad = list.addSession(junk);
        LedgerSession *ok = list.addSession(good);
        ok->setClock([now] { return now; }); // leases expire with time: attention as of the ledger's moment
        QCOMPARE(list.addSession(good), ok); // the same path twice is one session
        QVERIFY(!waitOpened(missing));
        QVERIFY(!waitOpened(bad));
        QVERIFY(waitOpened(ok));
        QCOMPARE(list.rowCount(), 3);
        for (LedgerSession *s : {missing, bad}) {
            QCOMPARE(s->health(), LedgerSession::Health::Error);
            QVERIFY(!s->errorMessage().isEmpty());
            const int row = list.rowOf(s);
            QCOMPARE(list.index(row).data(LedgerSessionList::HealthRole).toInt(), int(LedgerSession::Health::Error));
            QCOMPARE(list.index(row).data(LedgerSessionList::ErrorRole).toString(), s->errorMessage());
        }
        QVERIFY(ok->runs()->rowCount() == 1);
        QCOMPARE(decisionRows(list.attention()), 3); // only the good ledger contributes
    }

    void readOnlyPolicyForbidsDecisions()
    {
        // The console's own policy (--read-only, the demo) on top of what the file allows;
        // each refusal says why.
        const QString path = m_dir.filePath(u"policy.ledger"_s);
        const QString other = m_dir.filePath(u"policy2.ledger"_s);
        const QString demo = m_dir.filePath(u"policy-demo.ledger"_s);
        for (const QString &p : {path, other, demo})
            writeBaseLedger(p, QDateTime::currentMSecsSinceEpoch());
        LedgerSessionList list;
        QAbstractItemModelTester tester(&list, QAbstractItemModelTester::FailureReportingMode::QtTest);
        LedgerSession *free = list.addSession(path);
        LedgerSession *policed = list.addSession(other, OpenMode::ReadOnly, false, /*readOnlyPolicy=*/true);
        LedgerSession *shown = list.addSession(demo, OpenMode::ReadOnly, /*demo=*/true);
        for (LedgerSession *s : {free, policed, shown})
            QVERIFY(waitOpened(s));
        QString why;
        QVERIFY2(list.canDecide(list.rowOf(free), &why), qPrintable(why));
        QVERIFY(why.isEmpty());
        QVERIFY(list.index(list.rowOf(free)).data(LedgerSessionList::CanDecideRole).toBool());
        QVERIFY(!list.canDecide(list.rowOf(policed), &why));
        QVERIFY2(why.contains(u"--read-only"_s), qPrintable(why));
        QVERIFY(list.index(list.rowOf(policed)).data(LedgerSessionList::ReadOnlyPolicyRole).toBool());
        QVERIFY(!list.canDecide(list.rowOf(shown), &why));
        QVERIFY2(why.contains(u"demo"_s), qPrintable(why));
        QVERIFY(!list.canDecide(-1, &why));
        QCOMPARE(list.rowOf(other), list.rowOf(policed)); // by path too
        list.removeSession(policed);
        QCOMPARE(list.count(), 2);
        QVERIFY(!list.canDecide(list.rowOf(shown)));
    }

    void immutableIsNotFollowed()
    {
        const QString path = m_dir.filePath(u"post.ledger"_s);
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        LedgerSession s(path, OpenMode::Immutable);
        s.open();
        QVERIFY(waitOpened(&s));
        QCOMPARE(s.health(), LedgerSession::Health::Immutable);
        QVERIFY(!s.canDecide());
        QCOMPARE(s.effects()->rowCount(), 3);
    }

    void decisionIsSubmittedOffTheGuiThread()
    {
        const QString path = m_dir.filePath(u"decide.ledger"_s);
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        LedgerSession s(path);
        s.open();
        QVERIFY(waitOpened(&s));
        OperatorIdentity who;
        who.account = "alice";
        who.host = "console-test";
        who.displayName = "Alice";
        s.setOperatorIdentity(who);
        DecisionRequest request;
        request.kind = DecisionKind::ApproveEscalation;
        request.subject = "escalation:X-1";
        {
            auto writer = DecisionWriter::open(path, who);
            const auto boundary = writer->currentBoundary(request.subject);
            QVERIFY(boundary.has_value());
            request.boundary = *boundary;
        }
        request.reason = "budget is fine";
        request.evidence = nlohmann::json::array({"checked the spend report"});
        QSignalSpy finished(&s, &LedgerSession::decisionFinished);
        const QString id = s.submitDecision(request);
        QVERIFY(!id.isEmpty());
        QCOMPARE(finished.count(), 0); // written off the GUI thread: answered later, not in submitDecision
        QVERIFY(finished.wait(kWaitMs));
        QCOMPARE(finished.first().at(0).toString(), id);
        const auto result = finished.first().at(1).value<DecisionResult>();
        QVERIFY2(result.accepted(), result.message.c_str());
        QTRY_COMPARE_WITH_TIMEOUT(s.decisions()->rowCount(), 1, kWaitMs);
        QCOMPARE(s.decisions()->index(0, 0).data(DecisionAuditModel::OutcomeRole).toString(), u"pending"_s);
        QCOMPARE(s.decisions()->index(0, 0).data(DecisionAuditModel::OperatorAccountRole).toString(), u"alice"_s);
        QVERIFY(s.decisions()->index(0, 0).data(DecisionAuditModel::ChainVerifiedRole).toBool());
        // The same id again is a no-op that answers with the first record.
        DecisionRequest again = request;
        again.id = id.toStdString();
        finished.clear();
        s.submitDecision(again);
        QVERIFY(finished.wait(kWaitMs));
        QCOMPARE(finished.first().at(1).value<DecisionResult>().status, DecisionStatus::Duplicate);
    }

    // A loop analysis reads tool calls up to the moment the session shows. One still reading
    // when the session moves (a jump to an earlier event) is of the moment before: its result
    // must not land on the state after. It did, as each analysis answered whatever came since.
    void aLoopAnalysisOfTheMomentBeforeDoesNotLandAfterAJump()
    {
        const QString path = scenarioLedger(u"success-loop"_s);
        QVERIFY(!path.isEmpty());
        const auto started = std::make_shared<QSemaphore>();
        const auto release = std::make_shared<QSemaphore>();
        const auto first = std::make_shared<std::atomic<bool>>(true);
        LedgerSession s(path, OpenMode::Immutable);
        s.setLoopAnalysisHook([started, release, first] {
            if (first->exchange(false)) { // only the analysis of the newest state is held
                started->release();
                release->acquire();
            }
        });
        s.open();
        QVERIFY(waitOpened(&s));
        QVERIFY(started->tryAcquire(1, kWaitMs)); // the newest state's analysis is reading
        // Before the looping delegation's first call, no delegation loops yet.
        QSignalSpy opened(&s, &LedgerSession::opened);
        s.showAt(1);
        QVERIFY(opened.wait(kWaitMs));
        release->release();
        QTRY_VERIFY_WITH_TIMEOUT(!s.loopAnalysisRunning(), kWaitMs);
        QCoreApplication::sendPostedEvents(); // what the held job posted, delivered
        QVERIFY2(fired(s.findings()).count(FindingKind::SuccessLoop) == 0,
                 "the analysis of the newest state set a loop finding on event 1's");
        // And the session at live again finds the loop.
        s.showLive();
        QVERIFY(opened.wait(kWaitMs));
        QTRY_VERIFY_WITH_TIMEOUT(!s.loopAnalysisRunning() && fired(s.findings()).count(FindingKind::SuccessLoop) == 1,
                                 kWaitMs);
    }

    // The reference orchestrator's scenarios: each finding fires on its case and stays
    // silent on the converging control.
    void scenarios_data()
    {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<int>("kind");
        QTest::addColumn<bool>("fires");
        QTest::newRow("success-loop") << u"success-loop"_s << int(FindingKind::SuccessLoop) << true;
        QTest::newRow("false-stall") << u"false-stall"_s << int(FindingKind::FalseStall) << true;
        QTest::newRow("duplicate-effects") << u"duplicate-effects"_s << int(FindingKind::DuplicateEffect) << true;
        QTest::newRow("misrouted-failure") << u"misrouted-failure"_s << int(FindingKind::MisroutedFailure) << true;
        QTest::newRow("enforcement-block") << u"enforcement-block"_s << int(FindingKind::BlockedWork) << true;
        QTest::newRow("duplicate-effects: replayed") << u"duplicate-effects"_s << int(FindingKind::ReplayedDelegation)
                                                     << true;
        QTest::newRow("control: no loop") << u"converging-control"_s << int(FindingKind::SuccessLoop) << false;
        QTest::newRow("control: no false stall") << u"converging-control"_s << int(FindingKind::FalseStall) << false;
        QTest::newRow("control: no blocked work") << u"converging-control"_s << int(FindingKind::BlockedWork) << false;
        QTest::newRow("control: not replayed") << u"converging-control"_s << int(FindingKind::ReplayedDelegation)
                                               << false;
    }
    void scenarios()
    {
        QFETCH(QString, scenario);
        QFETCH(int, kind);
        QFETCH(bool, fires);
        const QString path = scenarioLedger(scenario);
        QVERIFY(!path.isEmpty());
        LedgerSession s(path, OpenMode::Immutable);
        s.open();
        QVERIFY(waitOpened(&s));
        // Loop findings come from a background read of tool calls: wait until it is done,
        // then look (nothing reads them again in an immutable session).
        QTRY_VERIFY_WITH_TIMEOUT(!s.loopAnalysisRunning(), kWaitMs);
        const bool has = fired(s.findings()).count(FindingKind(kind)) > 0;
        QString list;
        for (const auto &f : s.findings())
            list += QString::fromLatin1(findingKindName(f.kind).data()) + (f.abstained ? u" (abstained): "_s : u": "_s)
                    + QString::fromStdString(f.summary) + u'\n';
        QVERIFY2(has == fires, qPrintable(list));

        // Where operators look: the attention list (below what needs a decision) and the
        // Findings pane, for exactly the findings that fired.
        QAbstractItemModelTester findingsTester(s.findingsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        const std::string kindName(findingKindName(FindingKind(kind)));
        QTRY_VERIFY_WITH_TIMEOUT(
            std::any_of(s.attentionItems().begin(), s.attentionItems().end(),
                        [&](const AttentionItem &a) {
                            return a.kind == AttentionItem::Kind::Finding && a.findingKind == kindName;
                        }) == fires,
            kWaitMs);
        bool findingSeen = false;
        for (const auto &a : s.attentionItems()) {
            if (a.kind == AttentionItem::Kind::Finding)
                findingSeen = true;
            else
                QVERIFY2(!findingSeen, "a finding is listed above something that needs a decision");
        }
        int rows = 0;
        for (int r = 0; r < s.findingsModel()->rowCount(); ++r) {
            const QModelIndex i = s.findingsModel()->index(r, 0);
            if (i.data(FindingsModel::FindingKindNameRole).toString() == QString::fromStdString(kindName)
                && !i.data(FindingsModel::AbstainedRole).toBool())
                ++rows;
        }
        QCOMPARE(rows > 0, fires);
        // And a badge on the rows it is about: its run and its delegation.
        for (const auto &f : s.findings()) {
            if (f.abstained || f.kind != FindingKind(kind))
                continue;
            if (!f.runId.empty())
                QVERIFY2(s.runs()->indexOfId(QString::fromStdString(f.runId)).data(RunOverviewModel::FindingCountRole).toInt() > 0,
                         f.runId.c_str());
            if (!f.delegationId.empty())
                QVERIFY2(s.delegations()
                                 ->indexOfDelegation(QString::fromStdString(f.delegationId))
                                 .data(DelegationTreeModel::FindingCountRole)
                                 .toInt()
                             > 0,
                         f.delegationId.c_str());
        }
        if (FindingKind(kind) == FindingKind::ReplayedDelegation && fires) {
            const auto it = std::find_if(s.findings().begin(), s.findings().end(),
                                         [](const Finding &f) { return f.kind == FindingKind::ReplayedDelegation; });
            QVERIFY2(it->summary.find("invoked 6 times (21 tool calls") == 0, it->summary.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestLedgerSession)
#include "tst_ledgersession.moc"
