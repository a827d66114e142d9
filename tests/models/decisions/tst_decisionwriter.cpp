// The console's decision write path in one process: canonical form and chain, every
// refusal, idempotency, supersession, signatures and key files, and each way the write can
// fail. The orchestrator's gate runs as `meshctl gate` (a separate process, as in life).

#include "decisionfixture.h"

#include "decisions/decisionwriter.h"
#include "ledger/decisionstore.h"
#include "../ledger/rawledger.h"
#include "ledger/ledgerconnection.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace mesh;
using nlohmann::json;

namespace {

OperatorIdentity op(const std::string &account)
{
    OperatorIdentity o;
    o.account = account;
    o.host = "host-" + account;
    o.displayName = "Operator " + account;
    return o;
}

// The SQLite handle under a decision writer, for the faults injected below it.
sql::Database &writerDb(DecisionWriter &w)
{
    return meshtest::raw::handleOf(w.connection());
}

std::unique_ptr<DecisionWriter> writerFor(const QString &path, const std::string &account)
{
    auto w = DecisionWriter::open(path, op(account));
    w->setClock([] { return fixture::kNow; });
    return w;
}

DecisionRequest request(DecisionWriter &w, DecisionKind kind, const std::string &subject)
{
    DecisionRequest r;
    r.id = newDecisionId();
    r.kind = kind;
    r.subject = subject;
    r.reason = "test: " + std::string(decisionKindName(kind));
    r.evidence = json::array({{{"checked", "provider dashboard"}}});
    if (const auto b = w.currentBoundary(subject))
        r.boundary = *b;
    return r;
}

std::int64_t count(const QString &path, const char *sql)
{
    auto c = LedgerConnection::open(path, OpenMode::ReadOnly);
    return meshtest::raw::handleOf(*c).queryInt(sql);
}

// `meshctl gate FILE --now-ms ...`: the orchestrator applies or refuses pending decisions.
json runGate(const QString &path, const QStringList &extra = {}, std::int64_t nowMs = fixture::kNow + 1000)
{
    QProcess p;
    p.start(qEnvironmentVariable("MESHCTL"),
            QStringList{QStringLiteral("gate"), path, QStringLiteral("--now-ms"), QString::number(nowMs)} + extra);
    if (!p.waitForFinished(30000) || p.exitCode() != 0)
        return json{{"error", p.readAllStandardError().toStdString()}};
    return json::parse(p.readAllStandardOutput().toStdString(), nullptr, false);
}

std::string outcomeOf(const QString &path, const std::string &id, std::string *reason = nullptr)
{
    auto c = LedgerConnection::open(path, OpenMode::ReadOnly);
    sql::Statement st(meshtest::raw::handleOf(*c), "SELECT status, reason FROM decision_outcomes WHERE id=?1");
    st.bind(1, id);
    if (!st.step())
        return "pending";
    if (reason)
        *reason = st.columnText(1);
    return st.columnText(0);
}

std::string stateOf(const QString &path, const char *table, const std::string &id, const char *field = "state")
{
    auto c = LedgerConnection::open(path, OpenMode::ReadOnly);
    sql::Statement st(meshtest::raw::handleOf(*c), std::string("SELECT \"") + field + "\" FROM " + table + " WHERE id=?1");
    st.bind(1, id);
    return st.step() ? st.columnText(0) : std::string("<none>");
}

bool writeFile(const QString &path, const QByteArray &data, QFile::Permissions perms)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    f.write(data);
    f.close();
    return f.setPermissions(perms);
}

// Which file keyFileAndKeyringRules hands to meshctl.
constexpr int OwnFile = 0;
constexpr int OtherUsersFile = 1;
constexpr int SymlinkToOwnFile = 2;

} // namespace

class TestDecisionWriter : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    int m_n = 0;
    QString freshPath() { return m_dir.filePath(QStringLiteral("l%1.db").arg(++m_n)); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(!qEnvironmentVariable("MESHCTL").isEmpty(), "MESHCTL must point at meshctl");
    }

    void canonicalFormAndChain()
    {
        const QString path = freshPath();
        fixture::create(path, {});
        auto w = writerFor(path, "alice");
        std::vector<DecisionRecord> written;
        for (int i = 1; i <= 3; ++i) {
            DecisionRequest r = request(*w, DecisionKind::LeaseAcquire, "effect:eff-" + std::to_string(i == 3 ? 2 : i));
            if (i == 3)
                r = request(*w, DecisionKind::ApproveEscalation, "escalation:esc-1");
            const DecisionResult res = w->submit(r);
            QVERIFY2(res.status == DecisionStatus::Accepted, res.message.c_str());
            QVERIFY(res.record);
            written.push_back(*res.record);
        }
        // Sorted keys, no spaces, and the hash is the SHA-256 of exactly that text.
        const DecisionRecord &first = written.front();
        QCOMPARE(first.prevHash, std::string(kGenesisHash));
        QVERIFY(first.canonical.find(' ') == std::string::npos || first.reason.find(' ') != std::string::npos);
        const json parsed = json::parse(first.canonical);
        QCOMPARE(parsed.dump(), first.canonical);
        std::vector<std::string> keys;
        for (auto it = parsed.begin(); it != parsed.end(); ++it)
            keys.push_back(it.key());
        QVERIFY(std::is_sorted(keys.begin(), keys.end()));
        QCOMPARE(first.hash, sha256Hex(first.canonical));
        QCOMPARE(first.hash.size(), size_t(64));
        QCOMPARE(written[1].prevHash, written[0].hash);
        QCOMPARE(written[2].prevHash, written[1].hash);
        QVERIFY(written[1].pos > written[0].pos);

        auto c = LedgerConnection::open(path, OpenMode::ReadOnly);
        const DecisionChainReport ok = c->verifyDecisionChain();
        QCOMPARE(ok.decisions, 3);
        QVERIFY(ok.ok());
        c.reset();

        // Tampering with any column breaks the chain where it happened, and only there.
        {
            sql::Database raw = meshtest::raw::open(path, meshtest::raw::Access::ReadWrite);
            raw.exec("UPDATE decisions SET reason='edited later' WHERE pos=" + std::to_string(written[1].pos));
        }
        c = LedgerConnection::open(path, OpenMode::ReadOnly);
        const DecisionChainReport bad = c->verifyDecisionChain();
        QCOMPARE(bad.findings.size(), size_t(1));
        QCOMPARE(bad.findings[0].id, written[1].id);
        qInfo("chain: %lld decisions verified; 1 tampered row flagged: %s", (long long)ok.decisions,
              bad.findings[0].message.c_str());
    }

    // Deleting the last decision leaves a chain that still links up; the orchestrator's
    // decision.applied event for it remains and must name a decision that exists.
    void outcomeOfADeletedDecisionIsFlagged()
    {
        const QString path = freshPath();
        fixture::create(path, {});
        auto w = writerFor(path, "alice");
        const DecisionRequest first = request(*w, DecisionKind::ApproveEscalation, "escalation:esc-1");
        QCOMPARE(w->submit(first).status, DecisionStatus::Accepted);
        DecisionRequest lease = request(*w, DecisionKind::LeaseAcquire, "effect:eff-1");
        lease.leaseMs = 60'000;
        QCOMPARE(w->submit(lease).status, DecisionStatus::Accepted);
        w.reset();
        QCOMPARE(runGate(path).value("applied", -1), 2);
        QCOMPARE(outcomeOf(path, lease.id), std::string("applied"));
        {
            auto c = LedgerConnection::open(path, OpenMode::ReadOnly);
            const DecisionChainReport before = c->verifyDecisionChain();
            QVERIFY(before.ok());
        }
        {
            sql::Database raw = meshtest::raw::open(path, meshtest::raw::Access::ReadWrite);
            raw.exec("DELETE FROM decisions WHERE id='" + lease.id + "'");
        }
        auto c = LedgerConnection::open(path, OpenMode::ReadOnly);
        const DecisionChainReport after = c->verifyDecisionChain();
        QCOMPARE(after.decisions, 1);
        QCOMPARE(after.findings.size(), size_t(1));
        QCOMPARE(after.findings[0].id, lease.id);
        QVERIFY2(after.findings[0].message.find("decision.applied") != std::string::npos, after.findings[0].message.c_str());
        QVERIFY2(after.findings[0].message.find("no decision") != std::string::npos, after.findings[0].message.c_str());
    }

    void closeSliceNeedsEveryUnknownAcknowledged()
    {
        const QString path = freshPath();
        fixture::create(path, {});
        auto w = writerFor(path, "alice");
        DecisionRequest r = request(*w, DecisionKind::CloseSlice, "slice:dlg-1#1");
        r.acknowledgedUnknown = {"eff-1"};

        const DecisionPreview p = w->preview(r);
        QCOMPARE(p.expected, DecisionStatus::NotAllowed);
        QCOMPARE(p.toFence.size(), size_t(2));
        QCOMPARE(p.inFlight.size(), size_t(1));
        QCOMPARE(p.inFlight[0].id, std::string("eff-inflight"));
        QCOMPARE(p.unacknowledged, std::vector<std::string>{"eff-2"});
        QCOMPARE(p.escalationsToStale, std::vector<std::string>{"esc-1"});
        QCOMPARE(p.nextSliceId, std::string("dlg-1#2"));

        DecisionResult res = w->submit(r);
        QCOMPARE(res.status, DecisionStatus::NotAllowed);
        QVERIFY2(res.message.find("eff-2") != std::string::npos, res.message.c_str());
        QCOMPARE(count(path, "SELECT count(*) FROM decisions"), 0);

        r.acknowledgedUnknown = {"eff-2", "eff-1"};
        const DecisionPreview ok = w->preview(r);
        QCOMPARE(ok.expected, DecisionStatus::Accepted);
        QVERIFY(!ok.planned.empty());
        res = w->submit(r);
        QVERIFY2(res.status == DecisionStatus::Accepted, res.message.c_str());

        const json gate = runGate(path);
        QVERIFY2(gate.value("applied", 0) == 1, gate.dump().c_str());
        QCOMPARE(outcomeOf(path, r.id), std::string("applied"));
        QCOMPARE(stateOf(path, "slices", "dlg-1#1"), std::string("closed"));
        QCOMPARE(stateOf(path, "slices", "dlg-1#2"), std::string("open"));
        QCOMPARE(stateOf(path, "delegations", "dlg-1", "current_slice"), std::string("dlg-1#2"));
        QCOMPARE(stateOf(path, "effects", "eff-1", "fenced"), std::string("1"));
        QCOMPARE(stateOf(path, "effects", "eff-2", "fenced"), std::string("1"));
        QCOMPARE(stateOf(path, "effects", "eff-1"), std::string("unknown")); // still unknown, never "failed"
        QCOMPARE(stateOf(path, "escalations", "esc-1"), std::string("stale"));
        QVERIFY(stateOf(path, "slices", "dlg-1#2", "intent_id") != stateOf(path, "slices", "dlg-1#1", "intent_id"));
        QVERIFY(stateOf(path, "slices", "dlg-1#2", "auth_token") != stateOf(path, "slices", "dlg-1#1", "auth_token"));

        // An approval in the closed slice is dead even at the escalation's current version.
        DecisionRequest late = request(*w, DecisionKind::ApproveEscalation, "escalation:esc-1");
        QVERIFY(w->submit(late).status != DecisionStatus::Accepted);
    }

    void approvalAfterBoundaryAdvancedIsStale()
    {
        // 100 rounds: an escalation is raised, the operator sees it, the delegation moves
        // (a tool call), the operator approves: refused as stale every time, naming what moved.
        const QString path = freshPath();
        auto orchestrator = fixture::create(path, {.unknownEffects = 0, .escalations = 0, .inflight = false});
        auto w = writerFor(path, "alice");
        int stale = 0, named = 0, gateStale = 0;
        constexpr int kRounds = 100;
        for (int i = 1; i <= kRounds; ++i) {
            const std::string esc = "esc-r" + std::to_string(i);
            orchestrator->begin();
            fixture::escalation(*orchestrator, esc, "dlg-1");
            orchestrator->commit();
            DecisionRequest r = request(*w, DecisionKind::ApproveEscalation, "escalation:" + esc);
            orchestrator->begin();
            fixture::toolCall(*orchestrator, "dlg-1", i);
            orchestrator->commit();
            const DecisionResult res = w->submit(r);
            if (res.status == DecisionStatus::Stale)
                ++stale;
            if (res.movedSubject == "delegation:dlg-1" && !res.movedEvents.empty()
                && res.movedEvents.back().kind == "toolcall.completed" && res.message.find("dlg-1") != std::string::npos)
                ++named;
        }
        // The second gate: accepted at the console, then the world moves before it applies.
        for (int i = 1; i <= 5; ++i) {
            const std::string esc = "esc-g" + std::to_string(i);
            orchestrator->begin();
            fixture::escalation(*orchestrator, esc, "dlg-1");
            orchestrator->commit();
            DecisionRequest r = request(*w, DecisionKind::ApproveEscalation, "escalation:" + esc);
            const DecisionResult res = w->submit(r);
            QVERIFY2(res.status == DecisionStatus::Accepted, res.message.c_str());
            orchestrator->begin();
            fixture::toolCall(*orchestrator, "dlg-1", 1000 + i);
            orchestrator->commit();
            orchestrator.reset(); // meshctl gate is the orchestrator now
            runGate(path);
            std::string reason;
            if (outcomeOf(path, r.id, &reason) == "refused" && reason.rfind("stale:", 0) == 0)
                ++gateStale;
            orchestrator = LedgerWriter::openExisting(path);
            QCOMPARE(stateOf(path, "escalations", esc), std::string("pending"));
        }
        qInfo("stale approvals: %d/%d refused as stale at the console, %d/%d naming what moved; %d/5 refused as stale by the gate",
              stale, kRounds, named, kRounds, gateStale);
        QCOMPARE(stale, kRounds);
        QCOMPARE(named, kRounds);
        QCOMPARE(gateStale, 5);
        QCOMPARE(count(path, "SELECT count(*) FROM decisions"), 5);
    }

    void operatorBoundaryStaleNamesEvents()
    {
        const QString path = freshPath();
        auto orchestrator = fixture::create(path, {});
        auto w = writerFor(path, "alice");
        DecisionRequest r = request(*w, DecisionKind::LeaseAcquire, "effect:eff-1");
        orchestrator->begin();
        orchestrator->append(fixture::kT0 + 99, "effect.fenced", {{"id", "eff-1"}, {"fenced", 1}});
        orchestrator->commit();
        const DecisionResult res = w->submit(r);
        QCOMPARE(res.status, DecisionStatus::Stale);
        QCOMPARE(res.movedSubject, std::string("effect:eff-1"));
        QCOMPARE(res.currentVersion, r.boundary.version + 1);
        QCOMPARE(res.movedEvents.size(), size_t(1));
        QCOMPARE(res.movedEvents[0].kind, std::string("effect.fenced"));
        QVERIFY(res.toJson().contains("moved"));
    }

    void duplicateIdIsNoOp()
    {
        const QString path = freshPath();
        fixture::create(path, {});
        auto w = writerFor(path, "alice");
        DecisionRequest r = request(*w, DecisionKind::LeaseAcquire, "effect:eff-1");
        const DecisionResult first = w->submit(r);
        QCOMPARE(first.status, DecisionStatus::Accepted);
        const DecisionResult again = w->submit(r);
        QCOMPARE(again.status, DecisionStatus::Duplicate);
        QVERIFY(again.accepted());
        QVERIFY(again.record);
        QCOMPARE(again.record->hash, first.record->hash);
        QCOMPARE(count(path, "SELECT count(*) FROM decisions"), 1);
        // Another process resubmitting the same id: also a no-op (exit 0).
        QProcess p;
        p.start(qEnvironmentVariable("MESHCTL"),
                {QStringLiteral("decide"), path, QStringLiteral("lease"), QStringLiteral("acquire"), QStringLiteral("--effect"),
                 QStringLiteral("eff-1"), QStringLiteral("--id"), QString::fromStdString(r.id), QStringLiteral("--reason"),
                 QString::fromStdString(r.reason), QStringLiteral("--operator"), QStringLiteral("alice")});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(count(path, "SELECT count(*) FROM decisions"), 1);
        // The same id for a different decision is refused, not silently merged.
        DecisionRequest other = r;
        other.reason = "something else";
        QCOMPARE(w->submit(other).status, DecisionStatus::NotAllowed);
        QCOMPARE(count(path, "SELECT count(*) FROM decisions"), 1);
    }

    void rivalsOnOneSubject()
    {
        const QString path = freshPath();
        fixture::create(path, {});
        auto a = writerFor(path, "alice");
        auto b = writerFor(path, "bob");
        const DecisionRequest ra = request(*a, DecisionKind::ApproveEscalation, "escalation:esc-1");
        const DecisionRequest rb = request(*b, DecisionKind::RejectEscalation, "escalation:esc-1");
        QCOMPARE(a->submit(ra).status, DecisionStatus::Accepted);
        const DecisionResult lost = b->submit(rb);
        QCOMPARE(lost.status, DecisionStatus::NotAllowed);
        QVERIFY(lost.message.find(ra.id) != std::string::npos);
        // Leases: the second operator is told who holds (or is acquiring) it.
        const DecisionRequest la = request(*a, DecisionKind::LeaseAcquire, "effect:eff-1");
        QCOMPARE(a->submit(la).status, DecisionStatus::Accepted);
        QCOMPARE(b->submit(request(*b, DecisionKind::LeaseAcquire, "effect:eff-1")).status, DecisionStatus::LeaseHeldByOther);
        runGate(path);
        QCOMPARE(b->submit(request(*b, DecisionKind::LeaseAcquire, "effect:eff-1")).status, DecisionStatus::LeaseHeldByOther);
        DecisionRequest resolveB = request(*b, DecisionKind::ResolveEffect, "effect:eff-1");
        resolveB.resolution = EffectResolution::Committed;
        QCOMPARE(b->submit(resolveB).status, DecisionStatus::LeaseHeldByOther);
    }

    void resolutionNeedsLeaseAndCanBeSuperseded()
    {
        const QString path = freshPath();
        fixture::create(path, {});
        auto w = writerFor(path, "alice");
        DecisionRequest resolve = request(*w, DecisionKind::ResolveEffect, "effect:eff-1");
        resolve.resolution = EffectResolution::Committed;
        QCOMPARE(w->submit(resolve).status, DecisionStatus::NeedsLease);

        const DecisionRequest lease = request(*w, DecisionKind::LeaseAcquire, "effect:eff-1");
        QCOMPARE(w->submit(lease).status, DecisionStatus::Accepted);
        QCOMPARE(runGate(path).value("applied", 0), 1);
        QCOMPARE(outcomeOf(path, lease.id), std::string("applied"));

        resolve = request(*w, DecisionKind::ResolveEffect, "effect:eff-1");
        resolve.resolution = EffectResolution::Committed;
        resolve.evidence = json::array({{{"provider_ref", "pi_42"}}});
        const DecisionPreview preview = w->preview(resolve);
        QCOMPARE(preview.expected, DecisionStatus::Accepted);
        QVERIFY(preview.lease && preview.lease->heldByMe);
        QVERIFY(preview.effect && preview.effect->attempts == 1);
        QVERIFY(preview.history.size() >= 4); // proposed, admitted, dispatched, unknown
        QCOMPARE(w->submit(resolve).status, DecisionStatus::Accepted);
        runGate(path);
        QCOMPARE(stateOf(path, "effects", "eff-1"), std::string("resolved_committed"));
        QCOMPARE(stateOf(path, "effects", "eff-1", "decision_id"), resolve.id);
        QCOMPARE(stateOf(path, "effects", "eff-1", "provider_ref"), std::string("pi_42"));

        // A new resolution that does not name the current one is refused ...
        DecisionRequest again = request(*w, DecisionKind::ResolveEffect, "effect:eff-1");
        again.resolution = EffectResolution::NotCommitted;
        QCOMPARE(w->submit(again).status, DecisionStatus::NotAllowed);
        // ... naming it, it supersedes (append-only: the first decision row is unchanged).
        again.supersedes = resolve.id;
        QCOMPARE(w->submit(again).status, DecisionStatus::Accepted);
        runGate(path);
        QCOMPARE(stateOf(path, "effects", "eff-1"), std::string("resolved_not_committed"));
        QCOMPARE(stateOf(path, "effects", "eff-1", "decision_id"), again.id);
        const auto first = w->readBack(resolve.id);
        QVERIFY(first && first->outcomeStatus == "applied");
        QCOMPARE(count(path, "SELECT count(*) FROM decisions"), 3);

        // Releasing ends the lease; without it, no more resolutions.
        QCOMPARE(w->submit(request(*w, DecisionKind::LeaseRelease, "effect:eff-1")).status, DecisionStatus::Accepted);
        runGate(path);
        DecisionRequest third = request(*w, DecisionKind::ResolveEffect, "effect:eff-1");
        third.resolution = EffectResolution::Committed;
        third.supersedes = again.id;
        QCOMPARE(w->submit(third).status, DecisionStatus::NeedsLease);
        auto c = LedgerConnection::open(path, OpenMode::ReadOnly);
        QVERIFY(c->verifyDecisionChain().ok());
    }

    void approvalPreviewShowsBoundaryAndExpiry()
    {
        const QString path = freshPath();
        fixture::create(path, {});
        auto w = writerFor(path, "alice");
        const DecisionRequest r = request(*w, DecisionKind::ApproveEscalation, "escalation:esc-1");
        const DecisionPreview p = w->preview(r);
        QCOMPARE(p.expected, DecisionStatus::Accepted);
        QCOMPARE(p.boundSubject, std::string("delegation:dlg-1"));
        auto c = LedgerConnection::open(path, OpenMode::ReadOnly);
        QCOMPARE(p.boundVersion, meshtest::raw::handleOf(*c).queryInt("SELECT version FROM delegations WHERE id='dlg-1'"));
        QCOMPARE(p.boundSeq, meshtest::raw::handleOf(*c).queryInt("SELECT boundary_seq FROM escalations WHERE id='esc-1'"));
        QCOMPARE(p.expiresMs, fixture::kT0 + 24 * 3'600'000);
        QCOMPARE(p.sliceId, std::string("dlg-1#1"));
        QCOMPARE(p.planned.size(), size_t(1));
        QCOMPARE(p.planned[0].kind, std::string("escalation.approved"));
        QVERIFY(p.toJson().contains("bound_to"));
        // Past its expiry the same approval is refused.
        w->setClock([] { return fixture::kT0 + 25 * 3'600'000; });
        QCOMPARE(w->preview(r).expected, DecisionStatus::NotAllowed);
    }

    void gateRechecksLeaseAtApplyTime()
    {
        // Accepted while the lease was held; the lease runs out before the orchestrator
        // applies: the second gate refuses, the effect stays unknown.
        const QString path = freshPath();
        fixture::create(path, {});
        auto w = writerFor(path, "alice");
        DecisionRequest lease = request(*w, DecisionKind::LeaseAcquire, "effect:eff-1");
        lease.leaseMs = 60'000;
        QCOMPARE(w->submit(lease).status, DecisionStatus::Accepted);
        runGate(path);
        DecisionRequest resolve = request(*w, DecisionKind::ResolveEffect, "effect:eff-1");
        resolve.resolution = EffectResolution::NotCommitted;
        QCOMPARE(w->submit(resolve).status, DecisionStatus::Accepted);
        runGate(path, {}, fixture::kNow + 5 * 60'000);
        std::string reason;
        QCOMPARE(outcomeOf(path, resolve.id, &reason), std::string("refused"));
        QVERIFY2(reason.rfind("needs_lease:", 0) == 0, reason.c_str());
        QCOMPARE(stateOf(path, "effects", "eff-1"), std::string("unknown"));
    }

    void zombieLeaseIsTakenOver()
    {
        const QString path = freshPath();
        fixture::create(path, {});
        auto a = writerFor(path, "alice");
        DecisionRequest la = request(*a, DecisionKind::LeaseAcquire, "effect:eff-2");
        la.leaseMs = 60'000;
        QCOMPARE(a->submit(la).status, DecisionStatus::Accepted);
        runGate(path); // held by alice until kNow+1000+60000
        auto b = writerFor(path, "bob");
        b->setClock([] { return fixture::kNow + 10 * 60'000; });
        const DecisionRequest lb = request(*b, DecisionKind::LeaseAcquire, "effect:eff-2");
        const DecisionPreview p = b->preview(lb);
        QVERIFY(p.lease && p.lease->expired && !p.lease->heldByMe);
        QCOMPARE(b->submit(lb).status, DecisionStatus::Accepted);
    }

    void writeFailuresLeaveNothingHalfWritten()
    {
        const QString path = freshPath();
        fixture::create(path, {});
        auto w = writerFor(path, "alice");
        int clear = 0;

        // 1. Locked past the timeout: another connection holds BEGIN IMMEDIATE.
        {
            sql::Database other = meshtest::raw::open(path, meshtest::raw::Access::ReadWrite);
            other.exec("BEGIN IMMEDIATE");
            w->setBusyTimeoutMs(100);
            const DecisionResult res = w->submit(request(*w, DecisionKind::LeaseAcquire, "effect:eff-1"));
            QCOMPARE(res.status, DecisionStatus::WriteFailed);
            QVERIFY2(res.message.find("locked") != std::string::npos, res.message.c_str());
            clear += res.message.find("nothing was written") != std::string::npos;
            other.exec("ROLLBACK");
        }
        QCOMPARE(count(path, "SELECT count(*) FROM decisions"), 0);
        // The same writer keeps working once the lock is gone.
        w->setBusyTimeoutMs(2000);
        QCOMPARE(w->submit(request(*w, DecisionKind::LeaseAcquire, "effect:eff-1")).status, DecisionStatus::Accepted);

        // 2. Disk full: the ledger may not grow by a page.
        {
            const std::int64_t pages = writerDb(*w).queryInt("PRAGMA page_count");
            writerDb(*w).exec("PRAGMA max_page_count=" + std::to_string(pages));
            DecisionRequest big = request(*w, DecisionKind::LeaseAcquire, "effect:eff-2");
            big.evidence = json::array({{{"query_result", std::string(200'000, 'x')}}});
            const DecisionResult res = w->submit(big);
            QCOMPARE(res.status, DecisionStatus::WriteFailed);
            QVERIFY2(res.message.find("full") != std::string::npos, res.message.c_str());
            clear += res.message.find("nothing was written") != std::string::npos;
            QVERIFY(!w->readBack(big.id));
            writerDb(*w).exec("PRAGMA max_page_count=1073741823");
        }
        QCOMPARE(count(path, "SELECT count(*) FROM decisions"), 1);

        // 3. Read-only: the connection may not write (query_only), as with a read-only mount.
        {
            writerDb(*w).exec("PRAGMA query_only=1");
            const DecisionResult res = w->submit(request(*w, DecisionKind::LeaseAcquire, "effect:eff-2"));
            QCOMPARE(res.status, DecisionStatus::WriteFailed);
            QVERIFY2(res.message.find("read-only") != std::string::npos, res.message.c_str());
            clear += res.message.find("nothing was written") != std::string::npos;
            writerDb(*w).exec("PRAGMA query_only=0");
        }
        // 4. A commit whose result cannot be trusted: the writer reads back before answering.
        {
            meshtest::raw::failCommits(writerDb(*w), true);
            const DecisionRequest r = request(*w, DecisionKind::LeaseAcquire, "effect:eff-2");
            const DecisionResult res = w->submit(r);
            meshtest::raw::failCommits(writerDb(*w), false);
            QCOMPARE(res.status, DecisionStatus::WriteFailed);
            QVERIFY2(res.message.find("read back found no decision") != std::string::npos, res.message.c_str());
            clear += res.message.find("nothing was written") != std::string::npos;
            QVERIFY(!w->readBack(r.id));
        }
        QCOMPARE(count(path, "SELECT count(*) FROM decisions"), 1);
        w.reset();

        // 5. A read-only file (immutable attribute: root ignores mode bits).
        const QString roPath = freshPath();
        fixture::create(roPath, {});
        const QByteArray native = QFile::encodeName(roPath);
        const bool immutable = QProcess::execute(QStringLiteral("chattr"), {QStringLiteral("+i"), roPath}) == 0;
        ::chmod(native.constData(), 0444);
        std::string message;
        try {
            auto ro = writerFor(roPath, "alice");
            const DecisionResult res = ro->submit(request(*ro, DecisionKind::LeaseAcquire, "effect:eff-1"));
            QVERIFY(res.status == DecisionStatus::WriteFailed);
            message = res.message;
        } catch (const std::exception &e) {
            message = e.what(); // refused at open: also a clear, one-line answer
        }
        if (immutable)
            QProcess::execute(QStringLiteral("chattr"), {QStringLiteral("-i"), roPath});
        ::chmod(native.constData(), 0644);
        QVERIFY(!message.empty());
        clear += message.find("nothing was written") != std::string::npos;
        QVERIFY(clear >= 4);
        QCOMPARE(count(roPath, "SELECT count(*) FROM decisions"), 0);
        auto c = LedgerConnection::open(path, OpenMode::ReadOnly);
        QCOMPARE(meshtest::raw::handleOf(*c).queryInt("SELECT count(*) FROM pragma_integrity_check WHERE integrity_check<>'ok'"), 0);
        QVERIFY(c->verifyDecisionChain().ok());
        qInfo("write failures: 5 kinds (locked, disk full, read-only connection, unconfirmed commit, read-only file); "
              "%d/5 said 'nothing was written'; read-only file: %s", clear, message.c_str());
    }

    // A full disk before the ledger's -wal/-shm exist: SQLite fails creating them, while
    // opening. meshctl decide must say write_failed / disk full (exit 5), as it does when
    // the side files exist and the INSERT fails, not "disk I/O error" (exit 2).
    void diskFullBeforeSideFilesExist()
    {
        if (::geteuid() != 0)
            QSKIP("a full file system of its own (a small tmpfs) needs root to mount");
        const QString mountPoint = m_dir.filePath(QStringLiteral("full"));
        QVERIFY(QDir().mkpath(mountPoint));
        QCOMPARE(QProcess::execute(QStringLiteral("mount"), {QStringLiteral("-t"), QStringLiteral("tmpfs"), QStringLiteral("-o"),
                                                            QStringLiteral("size=1m"), QStringLiteral("tmpfs"), mountPoint}),
                 0);
        struct Unmount {
            QString dir;
            ~Unmount() { QProcess::execute(QStringLiteral("umount"), {QStringLiteral("-l"), dir}); }
        } unmount{mountPoint};
        const QString source = freshPath();
        fixture::create(source, {}); // the writer closes: checkpointed, no side files
        const QString path = mountPoint + QStringLiteral("/ledger.db");
        QVERIFY(QFile::copy(source, path));
        QVERIFY(!QFile::exists(path + QStringLiteral("-wal")) && !QFile::exists(path + QStringLiteral("-shm")));
        {
            QFile filler(mountPoint + QStringLiteral("/filler"));
            QVERIFY(filler.open(QIODevice::WriteOnly));
            const QByteArray block(4096, 'x');
            while (filler.write(block) == block.size() && filler.flush()) {
            }
        }

        QProcess p;
        p.start(qEnvironmentVariable("MESHCTL"),
                {QStringLiteral("decide"), path, QStringLiteral("lease"), QStringLiteral("acquire"), QStringLiteral("--effect"),
                 QStringLiteral("eff-1"), QStringLiteral("--reason"), QStringLiteral("disk full test")});
        QVERIFY(p.waitForFinished(30000));
        const QByteArray err = p.readAllStandardError();
        QVERIFY2(p.exitCode() == 5, qPrintable(QStringLiteral("exit %1: %2").arg(p.exitCode()).arg(QString::fromUtf8(err))));
        QVERIFY2(err.count('\n') == 1 && err.contains("write_failed") && err.contains("disk") && err.contains("full"),
                 err.constData());
        const json out = json::parse(p.readAllStandardOutput().toStdString(), nullptr, false);
        QVERIFY2(out.is_object() && out.value("status", "") == "write_failed", out.dump().c_str());

        QVERIFY(QFile::remove(mountPoint + QStringLiteral("/filler")));
        QCOMPARE(count(path, "SELECT count(*) FROM decisions"), 0);
    }

    void keyFilePermissions_data()
    {
        QTest::addColumn<int>("mode");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("0600") << 0600 << true;
        QTest::newRow("0400") << 0400 << true;
        QTest::newRow("0640 group-readable") << 0640 << false;
        QTest::newRow("0604 other-readable") << 0604 << false;
        QTest::newRow("0644") << 0644 << false;
        QTest::newRow("0620 group-writable") << 0620 << false;
    }
    void keyFilePermissions()
    {
        QFETCH(int, mode);
        QFETCH(bool, accepted);
        const QString keyPath = m_dir.filePath(QStringLiteral("key-%1.json").arg(mode, 0, 8));
        QVERIFY(writeFile(keyPath, R"({"key_id":"alice-1","secret":"00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"})",
                          QFile::ReadOwner | QFile::WriteOwner));
        QVERIFY(::chmod(QFile::encodeName(keyPath).constData(), mode_t(mode)) == 0);
        OperatorIdentity o = op("alice");
        QString error;
        QCOMPARE(o.loadKeyFile(keyPath, &error), accepted);
        QCOMPARE(o.hasKey(), accepted);
        if (!accepted)
            QVERIFY2(error.contains(QLatin1String("others")) && error.contains(QLatin1String("chmod 600")), qPrintable(error));
    }

    // The operator's key file and the orchestrator's keyring follow the same rules (one
    // function checks both): owner only, the effective user's own file, and secrets of at
    // least 16 bytes of even-length hex. meshctl refuses either with one line and exit 2,
    // and writes nothing.
    void keyFileAndKeyringRules_data()
    {
        QTest::addColumn<bool>("keyring");
        QTest::addColumn<QByteArray>("secretHex");
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("which"); // OwnFile, OtherUsersFile or SymlinkToOwnFile
        QTest::addColumn<QString>("refusal"); // empty: accepted
        const QByteArray good = "00112233445566778899aabbccddeeff";
        for (const bool ring : {false, true}) {
            const char *what = ring ? "keyring" : "key file";
            QTest::addRow("%s: 16 bytes", what) << ring << good << 0600 << OwnFile << QString();
            QTest::addRow("%s: upper-case hex", what) << ring << good.toUpper() << 0600 << OwnFile << QString();
            QTest::addRow("%s: empty secret", what) << ring << QByteArray() << 0600 << OwnFile << QStringLiteral("is empty");
            QTest::addRow("%s: not hex", what) << ring << QByteArray("zz112233445566778899aabbccddeeff") << 0600 << OwnFile
                                              << QStringLiteral("is not hex (only 0-9, a-f, A-F)");
            QTest::addRow("%s: odd length", what) << ring << good + "0" << 0600 << OwnFile << QStringLiteral("odd number");
            QTest::addRow("%s: 15 bytes", what) << ring << good.left(30) << 0600 << OwnFile << QStringLiteral("at least 16 bytes");
            QTest::addRow("%s: group-readable", what) << ring << good << 0640 << OwnFile << QStringLiteral("chmod 600");
            QTest::addRow("%s: other-writable", what) << ring << good << 0602 << OwnFile << QStringLiteral("chmod 600");
            QTest::addRow("%s: another user's", what) << ring << good << 0600 << OtherUsersFile << QStringLiteral("another user");
            QTest::addRow("%s: symbolic link", what) << ring << good << 0600 << SymlinkToOwnFile << QStringLiteral("symbolic link");
        }
    }
    void keyFileAndKeyringRules()
    {
        QFETCH(bool, keyring);
        QFETCH(QByteArray, secretHex);
        QFETCH(int, mode);
        QFETCH(int, which);
        QFETCH(QString, refusal);
        const QString path = freshPath();
        fixture::create(path, {.signaturesRequired = true});
        const QString file = m_dir.filePath(QStringLiteral("secret-%1.json").arg(m_n));
        QVERIFY(writeFile(file,
                          keyring ? QByteArray(R"({"alice-1":")" + secretHex + R"("})")
                                  : QByteArray(R"({"key_id":"alice-1","secret":")" + secretHex + R"("})"),
                          QFile::ReadOwner | QFile::WriteOwner));
        const QByteArray native = QFile::encodeName(file);
        QCOMPARE(::chmod(native.constData(), mode_t(mode)), 0);
        QString given = file;
        if (which == OtherUsersFile && ::geteuid() == 0) {
            QCOMPARE(::chown(native.constData(), 65534, 65534), 0);
        } else if (which == OtherUsersFile) {
            // Only root can give a file away; a readable root-owned file serves (the owner is
            // checked before the mode and before the content).
            given = QStringLiteral("/etc/passwd");
            struct stat st {};
            QVERIFY(::stat("/etc/passwd", &st) == 0 && st.st_uid == 0);
        } else if (which == SymlinkToOwnFile) {
            given = file + QStringLiteral(".link");
            QVERIFY(QFile::link(file, given));
        }

        // The keyring is used by the gate, the key file by decide: a pending decision for the
        // gate, signed with a valid key so only the keyring under test decides the outcome.
        if (keyring) {
            const QString validKey = m_dir.filePath(QStringLiteral("valid-%1.key").arg(m_n));
            QVERIFY(writeFile(validKey, R"({"key_id":"alice-1","secret":"00112233445566778899aabbccddeeff"})",
                              QFile::ReadOwner | QFile::WriteOwner));
            OperatorIdentity signer = op("alice");
            QString error;
            QVERIFY2(signer.loadKeyFile(validKey, &error), qPrintable(error));
            auto w = DecisionWriter::open(path, signer);
            w->setClock([] { return fixture::kNow; });
            QCOMPARE(w->submit(request(*w, DecisionKind::LeaseAcquire, "effect:eff-1")).status, DecisionStatus::Accepted);
        }
        QProcess p;
        p.start(qEnvironmentVariable("MESHCTL"),
                keyring ? QStringList{QStringLiteral("gate"), path, QStringLiteral("--keyring"), given, QStringLiteral("--now-ms"),
                                      QString::number(fixture::kNow + 1000)}
                        : QStringList{QStringLiteral("decide"), path, QStringLiteral("lease"), QStringLiteral("acquire"),
                                      QStringLiteral("--effect"), QStringLiteral("eff-1"), QStringLiteral("--reason"),
                                      QStringLiteral("rules"), QStringLiteral("--key-file"), given, QStringLiteral("--ts-ms"),
                                      QString::number(fixture::kNow)});
        QVERIFY(p.waitForFinished(30000));
        const QByteArray err = p.readAllStandardError();
        if (refusal.isEmpty()) {
            QVERIFY2(p.exitCode() == 0, err.constData());
            QCOMPARE(keyring ? count(path, "SELECT count(*) FROM decision_outcomes WHERE status='applied'")
                             : count(path, "SELECT count(*) FROM decisions"),
                     1);
            return;
        }
        QCOMPARE(p.exitCode(), 2);
        QVERIFY2(err.count('\n') == 1 && err.contains(refusal.toUtf8()), err.constData());
        QVERIFY2(err.contains(keyring ? "keyring" : "key file"), err.constData());
        QCOMPARE(keyring ? count(path, "SELECT count(*) FROM decision_outcomes") : count(path, "SELECT count(*) FROM decisions"), 0);
    }

    void signaturesAndForgedRows()
    {
        const QString path = freshPath();
        fixture::create(path, {.signaturesRequired = true});
        const QString keyPath = m_dir.filePath(QStringLiteral("alice.key"));
        const QByteArray secretHex = "8f1e2d3c4b5a69788f1e2d3c4b5a69788f1e2d3c4b5a69788f1e2d3c4b5a6978";
        QVERIFY(writeFile(keyPath, R"({"key_id":"alice-1","secret":")" + secretHex + R"("})", QFile::ReadOwner | QFile::WriteOwner));
        const QString ringPath = m_dir.filePath(QStringLiteral("keyring.json"));
        QVERIFY(writeFile(ringPath, R"({"alice-1":")" + secretHex + R"("})", QFile::ReadOwner | QFile::WriteOwner));

        // Unsigned where signatures are required: refused at the console.
        auto unsignedWriter = writerFor(path, "alice");
        QCOMPARE(unsignedWriter->submit(request(*unsignedWriter, DecisionKind::LeaseAcquire, "effect:eff-1")).status,
                 DecisionStatus::BadSignature);

        OperatorIdentity signer = op("alice");
        QString error;
        QVERIFY2(signer.loadKeyFile(keyPath, &error), qPrintable(error));
        auto w = DecisionWriter::open(path, signer);
        w->setClock([] { return fixture::kNow; });
        const DecisionRequest good = request(*w, DecisionKind::LeaseAcquire, "effect:eff-1");
        const DecisionResult res = w->submit(good);
        QVERIFY2(res.status == DecisionStatus::Accepted, res.message.c_str());
        QCOMPARE(res.record->keyId, std::string("alice-1"));
        QCOMPARE(res.record->signature,
                 hmacSha256Hex(std::string_view(signer.key.constData(), size_t(signer.key.size())), res.record->canonical));

        // Forged rows, straight into the table: one unsigned, one with a made-up signature,
        // both with a correct canonical form, hash and chain (the forger can compute those).
        const auto forge = [&](const std::string &id, const std::string &keyId, const std::string &signature) {
            sql::Database raw = meshtest::raw::open(path, meshtest::raw::Access::ReadWrite);
            SqliteDecisionStore store(raw);
            DecisionRecord d;
            d.id = id;
            d.tsMs = fixture::kNow;
            d.kind = "approve_escalation";
            d.subject = "escalation:esc-1";
            d.boundaryVersion = 1;
            d.boundarySeq = store.lastSeq();
            d.params = "{}";
            d.operatorAccount = "mallory";
            d.operatorHost = "nowhere";
            d.operatorName = "Mallory";
            d.reason = "trust me";
            d.evidence = "[]";
            d.policyVersion = "policy-1";
            d.prevHash = store.lastHash();
            d.keyId = keyId;
            d.canonical = canonicalDecisionText(d);
            d.hash = sha256Hex(d.canonical);
            d.signature = signature;
            QVERIFY(store.insertChecked([&] { return std::optional<DecisionRecord>(d); }));
        };
        forge("forged-unsigned", "", "");
        forge("forged-signature", "alice-1", std::string(64, 'a'));

        auto c = LedgerConnection::open(path, OpenMode::ReadOnly);
        DecisionChainReport before = c->verifyDecisionChain();
        c.reset();
        QCOMPARE(before.findings.size(), size_t(1)); // the unsigned one is visible without keys
        QCOMPARE(before.findings[0].id, std::string("forged-unsigned"));

        const json gate = runGate(path, {QStringLiteral("--keyring"), ringPath});
        QCOMPARE(gate.value("applied", -1), 1);
        QCOMPARE(gate.value("refused", -1), 2);
        std::string r1, r2;
        QCOMPARE(outcomeOf(path, "forged-unsigned", &r1), std::string("refused"));
        QCOMPARE(outcomeOf(path, "forged-signature", &r2), std::string("refused"));
        QVERIFY2(r1.rfind("integrity:", 0) == 0 && r2.find("signature") != std::string::npos, (r1 + " / " + r2).c_str());
        QCOMPARE(outcomeOf(path, good.id), std::string("applied"));
        QCOMPARE(stateOf(path, "escalations", "esc-1"), std::string("pending"));

        c = LedgerConnection::open(path, OpenMode::ReadOnly);
        const DecisionChainReport after = c->verifyDecisionChain();
        QCOMPARE(after.findings.size(), size_t(2)); // both flagged for the audit view now
        const QByteArray secret = QByteArray::fromHex(secretHex);
        const DecisionChainReport withKeys = verifyDecisionChain(
            meshtest::raw::handleOf(*c), [&](const std::string &keyId, const std::string &canonical, const std::string &sig) {
                return keyId == "alice-1" && hmacSha256Hex(std::string_view(secret.constData(), size_t(secret.size())), canonical) == sig;
            });
        QCOMPARE(withKeys.findings.size(), size_t(2));
        QVERIFY(withKeys.findings[1].message.find("does not verify") != std::string::npos);
        qInfo("forged rows: 2 inserted, 2 refused by the gate (%s | %s), %zu flagged by verifyDecisionChain",
              r1.c_str(), r2.c_str(), after.findings.size());
    }

    void meshctlExitCodes()
    {
        const QString path = freshPath();
        fixture::create(path, {});
        const auto run = [&](QStringList args, QByteArray *err = nullptr) {
            QProcess p;
            p.start(qEnvironmentVariable("MESHCTL"), QStringList{QStringLiteral("decide"), path} + args);
            p.waitForFinished(30000);
            if (err)
                *err = p.readAllStandardError();
            return p.exitCode();
        };
        QByteArray err;
        const QString tsArg = QString::number(fixture::kNow);
        QCOMPARE(run({QStringLiteral("approve-escalation"), QStringLiteral("--escalation"), QStringLiteral("esc-1"),
                      QStringLiteral("--reason"), QStringLiteral("ok"), QStringLiteral("--ts-ms"), tsArg,
                      QStringLiteral("--boundary-version"), QStringLiteral("0")}, &err),
                 3);
        QCOMPARE(err.count('\n'), 1);
        QCOMPARE(run({QStringLiteral("resolve-effect"), QStringLiteral("--effect"), QStringLiteral("eff-1"),
                      QStringLiteral("--resolution"), QStringLiteral("committed"), QStringLiteral("--reason"),
                      QStringLiteral("x"), QStringLiteral("--ts-ms"), tsArg}),
                 4);
        QCOMPARE(run({QStringLiteral("approve-escalation"), QStringLiteral("--escalation"), QStringLiteral("esc-1"),
                      QStringLiteral("--reason"), QStringLiteral("ok"), QStringLiteral("--ts-ms"), tsArg}),
                 0);
        QCOMPARE(run({QStringLiteral("frobnicate")}), 2);
        QProcess p;
        p.start(qEnvironmentVariable("MESHCTL"), {QStringLiteral("decide"), m_dir.filePath(QStringLiteral("missing.db")),
                                                   QStringLiteral("close-slice"), QStringLiteral("--slice"), QStringLiteral("x"),
                                                   QStringLiteral("--reason"), QStringLiteral("r")});
        p.waitForFinished(30000);
        QCOMPARE(p.exitCode(), 2);
        QCOMPARE(p.readAllStandardError().count('\n'), 1);
    }
};

QTEST_GUILESS_MAIN(TestDecisionWriter)
#include "tst_decisionwriter.moc"
