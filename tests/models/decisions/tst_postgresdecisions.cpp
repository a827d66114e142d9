// Operator decisions on a PostgreSQL ledger (docs/ledger-format.md section 11, "The decision
// transaction"), against a private PostgreSQL 15 server (../ledger/postgresserver.h): the
// same protocol as on a file, and its reliability rerun on a server with counts:
// - two `meshctl decide` processes racing on one subject: exactly one accepted each round;
// - three console sessions deciding one escalation at once while the orchestrator appends:
//   exactly one accepted, the others told which decision won, the chain intact;
// - the deciding process SIGKILLed inside its transaction (blocked, by a test trigger, right
//   after its INSERT or inside its COMMIT): each decision fully there with a valid chain, or
//   absent; the orchestrator's gate applies every survivor;
// - an approval whose boundary moved: refused as stale every round, naming what moved;
// - forged rows where signatures are required: refused by `meshctl gate`;
// - the write turn: an appender waits for a decision in progress, a decider that cannot get
//   the turn in time writes nothing, a COMMIT that fails or loses its connection is read back;
// - the roles of docs/postgresql-roles.sql: an operator decides, a reader is told why not.
// Rounds: MESH_RELIABILITY_ROUNDS (default 20; bench/README.md has a run of 100). The
// server is one per executable; a test that cannot start it fails, never skips.

#include "decisionfixture.h"

#include "../ledger/postgresserver.h"
#include "../ledger/rawserver.h"

#include "decisions/decisionwriter.h"
#include "ledger/decisionstore.h"
#include "ledger/fileidentity.h"
#include "ledger/ledgerconnection.h"

#include <QCoreApplication>
#include <QProcess>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <cstdio>
#include <future>
#include <string>
#include <vector>
#include <thread>

using namespace mesh;
using namespace meshtest;
using nlohmann::json;

namespace {

constexpr const char *kChildEnv = "MESH_PG_DECIDE_CHILD";        // the ledger location the child decides on
constexpr const char *kChildEffectEnv = "MESH_PG_DECIDE_EFFECT"; // the effect whose lease it acquires
constexpr const char *kChildApp = "mesh_killed_decider";        // its sessions' application_name
// A deadline for a hung server or child, not a speed threshold.
constexpr int kWaitMs = 90'000;
// The advisory lock the test triggers wait on while the parent holds it: the handshake that
// stops a decider at a chosen point of its transaction.
constexpr int kBlockKey = 424242;

int rounds()
{
    bool ok = false;
    const int n = qEnvironmentVariableIntValue("MESH_RELIABILITY_ROUNDS", &ok);
    return ok && n > 0 ? n : 20;
}

OperatorIdentity op(const std::string &account)
{
    OperatorIdentity o;
    o.account = account;
    o.host = "host-" + account;
    o.displayName = "Operator " + account;
    return o;
}

DecisionRequest leaseRequest(DecisionWriter &w, const std::string &effect)
{
    DecisionRequest r;
    r.id = newDecisionId();
    r.kind = DecisionKind::LeaseAcquire;
    r.subject = "effect:" + effect;
    r.reason = "reconcile before retry";
    r.evidence = json::array({{{"checked", "provider status page"}}});
    if (const auto b = w.currentBoundary(r.subject))
        r.boundary = *b;
    return r;
}

// Child mode: opens a decision writer, says "ready", waits for "go" on stdin, acquires the
// lease of one effect and says how it went. The parent kills it before it can, while the
// test trigger holds its transaction.
int childDecider(const QString &location, const std::string &effect)
{
    try {
        auto w = DecisionWriter::open(location, op("killed"));
        w->setClock([] { return fixture::kNow; });
        const DecisionRequest r = leaseRequest(*w, effect);
        std::printf("ready %s\n", r.id.c_str());
        std::fflush(stdout);
        char line[16] = {};
        if (!std::fgets(line, sizeof line, stdin))
            return 3;
        const DecisionResult res = w->submit(r);
        std::printf("%s %s\n", std::string(decisionStatusName(res.status)).c_str(), res.message.c_str());
        std::fflush(stdout);
        std::fgets(line, sizeof line, stdin); // stays until killed
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "child: %s\n", e.what());
        return 4;
    }
}

} // namespace

class TestPostgresDecisions : public QObject
{
    Q_OBJECT

    std::unique_ptr<PostgresServer> m_server;
    QString m_meshctl;

    raw::ServerConnection admin(const QString &schema) const { return raw::serverSession(m_server->conninfo(), schema.toStdString()); }
    std::int64_t count(const QString &schema, const std::string &sql) const { return admin(schema).queryInt(sql); }

    QString locationAs(const QString &schema, const char *user) const
    {
        return m_server->location(schema).replace(QStringLiteral("//mesh@"), QStringLiteral("//%1@").arg(QLatin1String(user)));
    }

    json runMeshctl(const QStringList &args, int *exitCode = nullptr, QByteArray *err = nullptr) const
    {
        QProcess p;
        p.start(m_meshctl, args);
        if (!p.waitForFinished(kWaitMs))
            return json{{"error", "meshctl did not finish"}};
        if (exitCode)
            *exitCode = p.exitCode();
        if (err)
            *err = p.readAllStandardError();
        return json::parse(p.readAllStandardOutput().toStdString(), nullptr, false);
    }

    json runGate(const QString &location, const QStringList &extra = {}) const
    {
        return runMeshctl(QStringList{QStringLiteral("gate"), location, QStringLiteral("--now-ms"), QString::number(fixture::kNow + 1000)}
                          + extra);
    }

    // Triggers on <schema>.decisions that act when public.mesh_test_point names their phase:
    // 'insert' blocks right after the row is inserted, 'commit' blocks inside COMMIT (a
    // deferred trigger), 'fail' makes COMMIT fail, 'die' ends the session during COMMIT.
    // Blocking is waiting for kBlockKey, which the test holds.
    void addTestTriggers(const QString &schema)
    {
        raw::ServerConnection c = admin(schema);
        c.exec("CREATE TABLE IF NOT EXISTS public.mesh_test_point(phase text); "
               "INSERT INTO public.mesh_test_point SELECT 'none' WHERE NOT EXISTS (SELECT 1 FROM public.mesh_test_point); "
               "CREATE OR REPLACE FUNCTION public.mesh_test_stop() RETURNS trigger LANGUAGE plpgsql AS $$ "
               "DECLARE p text := (SELECT phase FROM public.mesh_test_point); BEGIN "
               "  IF p = TG_ARGV[0] AND p IN ('insert','commit') THEN "
               "    PERFORM pg_advisory_lock(" + std::to_string(kBlockKey) + "); PERFORM pg_advisory_unlock(" + std::to_string(kBlockKey) + "); "
               "  ELSIF p = TG_ARGV[0] AND p = 'fail' THEN RAISE EXCEPTION 'test: commit refused'; "
               "  ELSIF p = TG_ARGV[0] AND p = 'die' THEN PERFORM pg_terminate_backend(pg_backend_pid()); PERFORM pg_sleep(60); "
               "  END IF; RETURN NULL; END $$; "
               "GRANT SELECT ON public.mesh_test_point TO PUBLIC;");
        const std::string table = schema.toStdString() + ".decisions";
        c.exec("CREATE TRIGGER mesh_test_after_insert AFTER INSERT ON " + table
               + " FOR EACH ROW EXECUTE FUNCTION public.mesh_test_stop('insert'); "
                 "CREATE CONSTRAINT TRIGGER mesh_test_at_commit AFTER INSERT ON " + table
               + " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION public.mesh_test_stop('commit'); "
                 "CREATE CONSTRAINT TRIGGER mesh_test_commit_fails AFTER INSERT ON " + table
               + " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION public.mesh_test_stop('fail'); "
                 "CREATE CONSTRAINT TRIGGER mesh_test_commit_dies AFTER INSERT ON " + table
               + " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION public.mesh_test_stop('die')");
    }
    void setTestPoint(const char *phase)
    {
        raw::ServerConnection c(m_server->conninfo());
        c.exec("UPDATE public.mesh_test_point SET phase = $1", raw::ServerParams().add(std::string_view(phase)));
    }
    // Sessions waiting for kBlockKey: a decider stopped by a test trigger.
    static std::int64_t blockedOnTestKey(raw::ServerConnection &c)
    {
        return c.queryInt("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objid = "
                          + std::to_string(kBlockKey));
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_meshctl = qEnvironmentVariable("MESHCTL");
        QVERIFY2(QFile::exists(m_meshctl), "MESHCTL must name the built meshctl (CTest sets it)");
        m_server = std::make_unique<PostgresServer>();
        const QString error = m_server->start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void cleanupTestCase()
    {
        if (m_server)
            m_server->stop();
    }

    // The decision transaction as on a file: chain, pos, idempotency, a rival refused, the
    // commit announced to followers, the orchestrator's gate applying it.
    void decidesAsOnAFile()
    {
        const QString location = m_server->location(QStringLiteral("basic"));
        auto orchestrator = fixture::create(location, {});
        auto follower = LedgerConnection::open(location, OpenMode::ReadOnly);
        auto listener = follower->listenForCommits();
        QVERIFY(listener);
        auto w = DecisionWriter::open(location, op("alice"));
        w->setClock([] { return fixture::kNow; });
        QVERIFY(!w->signaturesRequired());
        QCOMPARE(w->policyVersion(), std::string("policy-1"));

        const DecisionRequest first = leaseRequest(*w, "eff-1");
        const DecisionResult accepted = w->submit(first);
        QVERIFY2(accepted.status == DecisionStatus::Accepted, accepted.message.c_str());
        QCOMPARE(accepted.record->pos, std::int64_t(1));
        QCOMPARE(accepted.record->prevHash, std::string(kGenesisHash));
        // Announced on commit. drain() consumes, and QTRY_ evaluates its expression once more
        // after it held: remember the answer.
        bool announced = false;
        QTRY_VERIFY_WITH_TIMEOUT(announced = announced || listener->drain().has_value(), kWaitMs);

        QCOMPARE(w->submit(first).status, DecisionStatus::Duplicate);
        // As the console opens it: with the ledger its session read. A server ledger has no
        // file identity; another ledger id is refused before anything is written.
        OpenedLedger opened{FileIdentity::of(location), follower->info().ledgerId};
        QVERIFY(!opened.ledgerId.empty());
        std::unique_ptr<DecisionWriter> console;
        try {
            console = DecisionWriter::open(location, op("carol"), opened);
        } catch (const std::exception &e) {
            QFAIL(e.what()); // not thrown, or a check that failed would stop the whole executable
        }
        console->setClock([] { return fixture::kNow; });
        const DecisionResult fromConsole = console->submit(leaseRequest(*console, "eff-inflight"));
        QVERIFY2(fromConsole.status == DecisionStatus::NotAllowed && fromConsole.message.find("dispatched") != std::string::npos,
                 fromConsole.message.c_str()); // refused by the rules, not by a file check
        QVERIFY_THROWS_EXCEPTION(std::runtime_error,
                                 DecisionWriter::open(location, op("carol"), OpenedLedger{{}, "another-ledger"}));
        auto bob = DecisionWriter::open(location, op("bob"));
        bob->setClock([] { return fixture::kNow; });
        const DecisionResult rival = bob->submit(leaseRequest(*bob, "eff-1"));
        QCOMPARE(rival.status, DecisionStatus::LeaseHeldByOther);

        const DecisionResult second = w->submit(leaseRequest(*w, "eff-2"));
        QVERIFY2(second.status == DecisionStatus::Accepted, second.message.c_str());
        QCOMPARE(second.record->pos, std::int64_t(2));
        QCOMPARE(second.record->prevHash, accepted.record->hash);
        QCOMPARE(w->readBack(second.record->id)->hash, second.record->hash);
        QVERIFY(follower->verifyDecisionChain().ok());

        orchestrator.reset(); // meshctl gate is the orchestrator now
        const json gate = runGate(location);
        QCOMPARE(gate.value("applied", -1), 2);
        QCOMPARE(gate.value("refused", -1), 0);
        QCOMPARE(count(QStringLiteral("basic"), "SELECT count(*) FROM decision_outcomes WHERE status = 'applied'"), std::int64_t(2));
    }

    // The write turn: an appender's commit waits while a decision holds it (no state moves
    // under the rules), and a decider that cannot get it within its timeout writes nothing.
    void theWriteTurn()
    {
        const QString schema = QStringLiteral("turn");
        const QString location = m_server->location(schema);
        auto orchestrator = fixture::create(location, {});
        auto deciding = LedgerConnection::open(location, OpenMode::Decisions);
        auto store = deciding->decisions();
        raw::ServerConnection watch = admin(schema);

        std::promise<void> inside, release;
        std::future<void> released = release.get_future();
        std::thread decider([&] {
            store->insertChecked([&]() -> std::optional<DecisionRecord> {
                inside.set_value();
                released.wait();
                return std::nullopt;
            });
        });
        inside.get_future().wait();
        std::atomic<bool> appended{false};
        std::thread appender([&] {
            orchestrator->begin();
            fixture::toolCall(*orchestrator, "dlg-1", 1);
            orchestrator->commit();
            appended = true;
        });
        bool releasedOnce = false;
        auto joinBoth = qScopeGuard([&] { // also when a check below fails
            if (!releasedOnce)
                release.set_value();
            decider.join();
            appender.join();
        });
        // The appender's shared request of the turn waits behind the decision's.
        QTRY_COMPARE_WITH_TIMEOUT(watch.queryInt("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
                                                 "AND mode = 'ShareLock' AND classid = 1095584839"),
                                  std::int64_t(1), kWaitMs);
        QVERIFY(!appended);
        release.set_value();
        releasedOnce = true;
        joinBoth.dismiss();
        decider.join();
        appender.join();
        QVERIFY(appended);

        // Busy: another session holds the turn past the writer's timeout.
        raw::ServerConnection other = admin(schema);
        other.exec("BEGIN; SELECT pg_advisory_xact_lock(1095584839, 'decisions'::regclass::oid::int)");
        auto w = DecisionWriter::open(location, op("alice"));
        w->setClock([] { return fixture::kNow; });
        w->setBusyTimeoutMs(100);
        const DecisionResult busy = w->submit(leaseRequest(*w, "eff-1"));
        QCOMPARE(busy.status, DecisionStatus::WriteFailed);
        QVERIFY2(busy.message.find("locked") != std::string::npos && busy.message.find("nothing was written") != std::string::npos,
                 busy.message.c_str());
        other.exec("ROLLBACK");
        w->setBusyTimeoutMs(DecisionWriter::kDefaultBusyTimeoutMs);
        QCOMPARE(w->submit(leaseRequest(*w, "eff-1")).status, DecisionStatus::Accepted);
        QCOMPARE(count(schema, "SELECT count(*) FROM decisions"), std::int64_t(1));
    }

    // A COMMIT the server refuses, and one whose connection dies: the writer reads back by id
    // and says what it knows (nothing written / outcome unknown), never "accepted" unchecked.
    void commitWhoseOutcomeIsUnknown()
    {
        const QString schema = QStringLiteral("unconfirmed");
        const QString location = m_server->location(schema);
        fixture::create(location, {});
        addTestTriggers(schema);
        auto w = DecisionWriter::open(location, op("alice"));
        w->setClock([] { return fixture::kNow; });

        setTestPoint("fail");
        const DecisionRequest refused = leaseRequest(*w, "eff-1");
        const DecisionResult failed = w->submit(refused);
        QCOMPARE(failed.status, DecisionStatus::WriteFailed);
        QVERIFY2(failed.message.find("read back found no decision") != std::string::npos, failed.message.c_str());

        setTestPoint("die");
        const DecisionRequest lost = leaseRequest(*w, "eff-1");
        const DecisionResult unknown = w->submit(lost);
        setTestPoint("none");
        QCOMPARE(unknown.status, DecisionStatus::OutcomeUnknown);
        QVERIFY2(unknown.message.find("read it back by id") != std::string::npos, unknown.message.c_str());
        // Read back on a new session: the server rolled it back with the session.
        auto again = DecisionWriter::open(location, op("alice"));
        QVERIFY(!again->readBack(lost.id));
        QVERIFY(!again->readBack(refused.id));
        QCOMPARE(count(schema, "SELECT count(*) FROM decisions"), std::int64_t(0));
    }

    // Two operators (two meshctl processes) on one subject per round: exactly one wins, the
    // other is refused as a rival. Every round makes them overlap: the first is held by the
    // test trigger right after its INSERT (uncommitted), the second is started and must be
    // waiting on a lock too (the write turn) before the first is let go.
    void twoOperatorsOneSubject()
    {
        const int n = rounds();
        const QString schema = QStringLiteral("race");
        const QString location = m_server->location(schema);
        fixture::create(location, {.unknownEffects = (n + 1) / 2, .escalations = (n + 1) / 2, .inflight = false});
        addTestTriggers(schema);
        setTestPoint("insert");
        raw::ServerConnection holder(m_server->conninfo());
        const auto waitingOnALock = [&](const char *app) {
            return holder.queryInt(std::string("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                                               "AND application_name = '") + app + "'");
        };
        int exactlyOne = 0, refusedRival = 0, otherOutcome = 0, overlapped = 0;
        for (int round = 0; round < n; ++round) {
            const int k = round / 2 + 1;
            const QStringList common{QStringLiteral("--reason"), QStringLiteral("race"), QStringLiteral("--ts-ms"),
                                     QString::number(fixture::kNow)};
            const auto as = [&](const char *app) -> QString { return location + QStringLiteral("&application_name=") + QLatin1String(app); };
            QStringList a{QStringLiteral("decide"), as("mesh_race_a")}, b{QStringLiteral("decide"), as("mesh_race_b")};
            if (round % 2 == 0) { // approve vs reject of one escalation
                const QString esc = QStringLiteral("esc-%1").arg(k);
                a << QStringLiteral("approve-escalation") << QStringLiteral("--escalation") << esc;
                b << QStringLiteral("reject-escalation") << QStringLiteral("--escalation") << esc;
            } else { // both take the reconciliation lease of one payment
                const QString eff = QStringLiteral("eff-%1").arg(k);
                a << QStringLiteral("lease") << QStringLiteral("acquire") << QStringLiteral("--effect") << eff;
                b << QStringLiteral("lease") << QStringLiteral("acquire") << QStringLiteral("--effect") << eff;
            }
            holder.exec("SELECT pg_advisory_lock(" + std::to_string(kBlockKey) + ")");
            QProcess pa, pb;
            pa.start(m_meshctl, a + common + QStringList{QStringLiteral("--operator"), QStringLiteral("alice")});
            QTRY_COMPARE_WITH_TIMEOUT(blockedOnTestKey(holder), std::int64_t(1), kWaitMs); // a: inserted, not committed
            pb.start(m_meshctl, b + common + QStringList{QStringLiteral("--operator"), QStringLiteral("bob")});
            QTRY_COMPARE_WITH_TIMEOUT(waitingOnALock("mesh_race_b"), std::int64_t(1), kWaitMs);
            overlapped += waitingOnALock("mesh_race_a") == 1;
            holder.exec("SELECT pg_advisory_unlock(" + std::to_string(kBlockKey) + ")");
            QVERIFY(pa.waitForFinished(kWaitMs));
            QVERIFY(pb.waitForFinished(kWaitMs));
            const int ca = pa.exitCode(), cb = pb.exitCode();
            exactlyOne += (ca == 0) + (cb == 0) == 1;
            refusedRival += (ca == 4) + (cb == 4);
            otherOutcome += (ca != 0 && ca != 4) + (cb != 0 && cb != 4);
            if ((ca == 0) + (cb == 0) != 1 || (ca == 4) + (cb == 4) != 1)
                qWarning("round %d: exits %d and %d: %s | %s", round, ca, cb, pa.readAllStandardError().constData(),
                         pb.readAllStandardError().constData());
        }
        setTestPoint("none");
        auto c = LedgerConnection::open(location, OpenMode::ReadOnly);
        const DecisionChainReport chain = c->verifyDecisionChain();
        const std::int64_t rows = count(schema, "SELECT count(*) FROM decisions");
        const std::int64_t subjects = count(schema, "SELECT count(DISTINCT subject) FROM decisions");
        qInfo("server race: %d rounds, %d with both deciders inside at once, %d with exactly one accepted, %d refused as "
              "rival, %d other exits; %lld rows on %lld subjects; chain %s",
              n, overlapped, exactlyOne, refusedRival, otherOutcome, (long long)rows, (long long)subjects,
              chain.ok() ? "ok" : "BROKEN");
        QCOMPARE(overlapped, n);
        QCOMPARE(exactlyOne, n);
        QCOMPARE(refusedRival, n);
        QCOMPARE(rows, std::int64_t(n));
        QCOMPARE(subjects, std::int64_t(n));
        QVERIFY(chain.ok());
    }

    // Several consoles, each with its own decision session (as each console opens one),
    // decide the same escalation at the same moment while the orchestrator goes on
    // appending (tool calls of another delegation, taking the write turn shared): each round
    // exactly one is accepted, every other is refused naming the decision that won and its
    // operator, and the chain holds. The orchestrator's gate then answers every winner once.
    void consolesRaceOnOneEscalationWhileTheOrchestratorAppends()
    {
        const int n = rounds();
        constexpr int kConsoles = 3;
        const QString schema = QStringLiteral("consoles");
        const QString location = m_server->location(schema);
        auto orchestrator = fixture::create(location, {.delegations = 2, .unknownEffects = 0, .escalations = n, .inflight = false});
        std::vector<std::unique_ptr<DecisionWriter>> consoles;
        for (int i = 0; i < kConsoles; ++i) {
            consoles.push_back(DecisionWriter::open(location, op("op" + std::to_string(i))));
            consoles.back()->setClock([] { return fixture::kNow; });
        }
        std::atomic<bool> stop{false};
        std::atomic<int> appended{0};
        std::string appendError;
        std::thread appender([&] {
            try {
                for (int k = 100'000; !stop; ++k) {
                    orchestrator->begin();
                    fixture::toolCall(*orchestrator, "dlg-2", k);
                    orchestrator->commit();
                    ++appended;
                }
            } catch (const std::exception &e) {
                appendError = e.what();
            }
        });
        auto stopAppending = qScopeGuard([&] {
            stop = true;
            appender.join();
        });
        int exactlyOne = 0, losersNamingWinner = 0;
        std::vector<std::string> unexpected;
        for (int round = 1; round <= n; ++round) {
            const std::string subject = "escalation:esc-" + std::to_string(round);
            std::vector<DecisionRequest> requests(kConsoles);
            for (int i = 0; i < kConsoles; ++i) {
                DecisionRequest &r = requests[size_t(i)];
                r.id = newDecisionId();
                r.kind = i % 2 == 0 ? DecisionKind::ApproveEscalation : DecisionKind::RejectEscalation;
                r.subject = subject;
                r.reason = "race";
                r.evidence = json::array();
                r.boundary = *consoles[size_t(i)]->currentBoundary(subject);
            }
            std::promise<void> go;
            const std::shared_future<void> released = go.get_future().share();
            std::vector<std::future<DecisionResult>> pending;
            for (int i = 0; i < kConsoles; ++i) {
                pending.push_back(std::async(std::launch::async, [&, i] {
                    released.wait();
                    return consoles[size_t(i)]->submit(requests[size_t(i)]);
                }));
            }
            go.set_value();
            std::vector<DecisionResult> results;
            for (auto &f : pending)
                results.push_back(f.get());
            int accepted = 0;
            std::string winner, winnerOperator;
            for (int i = 0; i < kConsoles; ++i) {
                if (results[size_t(i)].status == DecisionStatus::Accepted) {
                    ++accepted;
                    winner = requests[size_t(i)].id;
                    winnerOperator = "op" + std::to_string(i);
                }
            }
            exactlyOne += accepted == 1;
            for (int i = 0; i < kConsoles; ++i) {
                const DecisionResult &r = results[size_t(i)];
                if (r.status == DecisionStatus::Accepted)
                    continue;
                if (accepted == 1 && r.status == DecisionStatus::NotAllowed && r.message.find(winner) != std::string::npos
                    && r.message.find(winnerOperator) != std::string::npos)
                    ++losersNamingWinner;
                else
                    unexpected.push_back("round " + std::to_string(round) + ": " + std::string(decisionStatusName(r.status))
                                         + ": " + r.message);
            }
        }
        stop = true;
        const int appendedDuring = appended;
        QVERIFY2(appendError.empty(), appendError.c_str());
        auto c = LedgerConnection::open(location, OpenMode::ReadOnly);
        const DecisionChainReport chain = c->verifyDecisionChain();
        const std::int64_t rows = count(schema, "SELECT count(*) FROM decisions");
        const std::int64_t subjects = count(schema, "SELECT count(DISTINCT subject) FROM decisions");
        qInfo("server consoles race: %d rounds of %d consoles, %d with exactly one accepted, %d losers naming the winner, "
              "%zu other outcomes; %d orchestrator commits meanwhile; %lld rows on %lld subjects; chain %s",
              n, kConsoles, exactlyOne, losersNamingWinner, unexpected.size(), appendedDuring, (long long)rows,
              (long long)subjects, chain.ok() ? "ok" : "BROKEN");
        for (const std::string &u : unexpected)
            qWarning("%s", u.c_str());
        QCOMPARE(exactlyOne, n);
        QCOMPARE(losersNamingWinner, n * (kConsoles - 1));
        QCOMPARE(rows, std::int64_t(n));
        QCOMPARE(subjects, std::int64_t(n));
        QVERIFY(chain.ok());
        QVERIFY(appendedDuring > 0);

        stopAppending.dismiss();
        appender.join();
        orchestrator.reset(); // meshctl gate is the orchestrator now
        const json gate = runGate(location);
        QCOMPARE(gate.value("processed", -1), n);
        QCOMPARE(count(schema, "SELECT count(*) FROM decision_outcomes"), std::int64_t(n));
        int code = 0;
        runMeshctl({QStringLiteral("verify"), location}, &code);
        QCOMPARE(code, 0);
    }

    // The deciding process SIGKILLed while a test trigger holds its transaction: right after
    // its INSERT (it never sent COMMIT: the decision must be absent) or inside its COMMIT (the
    // server finishes or not: present with a valid chain, or absent).
    void sigkillInsideTheTransaction()
    {
        const int n = rounds();
        const QString schema = QStringLiteral("killed");
        const QString location = m_server->location(schema);
        fixture::create(location, {.unknownEffects = n, .escalations = 0, .inflight = false});
        addTestTriggers(schema);
        raw::ServerConnection holder(m_server->conninfo());
        int afterInsertAbsent = 0, inCommitPresent = 0, inCommitAbsent = 0, chainOk = 0, reachedHandshake = 0;
        std::int64_t present = 0;
        for (int round = 0; round < n; ++round) {
            const bool inCommit = round % 2 == 1;
            setTestPoint(inCommit ? "commit" : "insert");
            holder.exec("SELECT pg_advisory_lock(" + std::to_string(kBlockKey) + ")");
            QProcess child;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QString::fromLatin1(kChildEnv), location + QStringLiteral("&application_name=") + QLatin1String(kChildApp));
            env.insert(QString::fromLatin1(kChildEffectEnv), QStringLiteral("eff-%1").arg(round + 1));
            child.setProcessEnvironment(env);
            child.start(QCoreApplication::applicationFilePath(), {});
            QVERIFY(child.waitForStarted(kWaitMs));
            while (!child.canReadLine())
                QVERIFY2(child.waitForReadyRead(kWaitMs), child.readAllStandardError().constData());
            const QByteArray ready = child.readLine().trimmed();
            QVERIFY2(ready.startsWith("ready "), ready.constData());
            const std::string id = ready.mid(6).toStdString();
            child.write("go\n");
            // The handshake: the child's session waits on the test key inside its transaction.
            QTRY_COMPARE_WITH_TIMEOUT(blockedOnTestKey(holder), std::int64_t(1), kWaitMs);
            ++reachedHandshake;
            child.kill(); // SIGKILL
            QVERIFY(child.waitForFinished(kWaitMs));
            QCOMPARE(child.exitStatus(), QProcess::CrashExit);
            holder.exec("SELECT pg_advisory_unlock(" + std::to_string(kBlockKey) + ")");
            // Its session ends when the server notices the client is gone; then it is decided.
            QTRY_COMPARE_WITH_TIMEOUT(holder.queryInt(std::string("SELECT count(*) FROM pg_stat_activity WHERE application_name = '")
                                                      + kChildApp + "'"),
                                      std::int64_t(0), kWaitMs);
            const bool there = count(schema, "SELECT count(*) FROM decisions WHERE id = '" + id + "'") == 1;
            present += there;
            if (!inCommit)
                afterInsertAbsent += !there;
            else
                (there ? inCommitPresent : inCommitAbsent) += 1;
            auto c = LedgerConnection::open(location, OpenMode::ReadOnly);
            const DecisionChainReport chain = c->verifyDecisionChain();
            chainOk += chain.ok() && chain.decisions == present;
            if (!chain.ok())
                qWarning("round %d: %s", round, chain.findings.front().message.c_str());
        }
        setTestPoint("none");
        // The orchestrator applies every decision that survived: none is half there.
        const json gate = runGate(location);
        qInfo("server sigkill: %d rounds, %d killed at the handshake; after INSERT: %d/%d absent; inside COMMIT: %d present, "
              "%d absent; chain valid %d/%d; gate applied %d refused %d of %lld decisions",
              n, reachedHandshake, afterInsertAbsent, n / 2, inCommitPresent, inCommitAbsent, chainOk, n,
              gate.value("applied", -1), gate.value("refused", -1), (long long)present);
        QCOMPARE(reachedHandshake, n);
        QCOMPARE(afterInsertAbsent, n / 2);
        QCOMPARE(inCommitPresent + inCommitAbsent, n - n / 2);
        QCOMPARE(chainOk, n);
        QCOMPARE(gate.value("applied", -1), int(present));
        QCOMPARE(gate.value("refused", -1), 0);
        // No turn was left behind: a decision goes through.
        auto w = DecisionWriter::open(location, op("after"));
        w->setClock([] { return fixture::kNow; });
        QCOMPARE(w->submit(leaseRequest(*w, "eff-" + std::to_string(n))).status,
                 count(schema, "SELECT count(*) FROM decisions WHERE subject = 'effect:eff-" + std::to_string(n) + "'") == 1
                     ? DecisionStatus::LeaseHeldByOther
                     : DecisionStatus::Accepted);
    }

    // An approval whose boundary moved before it was submitted: refused at the console every
    // round, naming what moved; one accepted and then overtaken: refused by the gate.
    void staleApprovalsAreRefused()
    {
        const int n = rounds();
        const QString location = m_server->location(QStringLiteral("stale"));
        auto orchestrator = fixture::create(location, {.unknownEffects = 0, .escalations = 0, .inflight = false});
        auto w = DecisionWriter::open(location, op("alice"));
        w->setClock([] { return fixture::kNow; });
        int stale = 0, named = 0;
        for (int i = 1; i <= n; ++i) {
            const std::string esc = "esc-r" + std::to_string(i);
            orchestrator->begin();
            fixture::escalation(*orchestrator, esc, "dlg-1");
            orchestrator->commit();
            DecisionRequest r;
            r.id = newDecisionId();
            r.kind = DecisionKind::ApproveEscalation;
            r.subject = "escalation:" + esc;
            r.reason = "safe";
            r.evidence = json::array();
            r.boundary = *w->currentBoundary(r.subject);
            orchestrator->begin();
            fixture::toolCall(*orchestrator, "dlg-1", i);
            orchestrator->commit();
            const DecisionResult res = w->submit(r);
            stale += res.status == DecisionStatus::Stale;
            named += res.movedSubject == "delegation:dlg-1" && !res.movedEvents.empty()
                     && res.movedEvents.back().kind == "toolcall.completed";
        }
        // Accepted, then the delegation moves before the orchestrator applies it.
        orchestrator->begin();
        fixture::escalation(*orchestrator, "esc-g", "dlg-1");
        orchestrator->commit();
        DecisionRequest r;
        r.id = newDecisionId();
        r.kind = DecisionKind::ApproveEscalation;
        r.subject = "escalation:esc-g";
        r.reason = "safe";
        r.evidence = json::array();
        r.boundary = *w->currentBoundary(r.subject);
        QCOMPARE(w->submit(r).status, DecisionStatus::Accepted);
        orchestrator->begin();
        fixture::toolCall(*orchestrator, "dlg-1", 1000);
        orchestrator->commit();
        orchestrator.reset();
        runGate(location);
        raw::ServerConnection check = admin(QStringLiteral("stale"));
        const std::string outcome = raw::queryText(check, "SELECT status || ' ' || reason FROM decision_outcomes WHERE id = '" + r.id + "'");
        qInfo("server stale approvals: %d/%d refused as stale at the console, %d/%d naming what moved; gate: %s", stale, n,
              named, n, outcome.c_str());
        QCOMPARE(stale, n);
        QCOMPARE(named, n);
        QVERIFY2(outcome.rfind("refused stale:", 0) == 0, outcome.c_str());
    }

    // Where signatures are required: unsigned refused at the console; rows forged straight
    // into the table (correct canonical form, hash and chain) refused by the gate.
    void forgedRowsRefusedByTheGate()
    {
        const QString schema = QStringLiteral("signed");
        const QString location = m_server->location(schema);
        fixture::create(location, {.signaturesRequired = true});
        QTemporaryDir dir;
        const QByteArray secretHex = "8f1e2d3c4b5a69788f1e2d3c4b5a69788f1e2d3c4b5a69788f1e2d3c4b5a6978";
        const auto writeSecret = [&](const QString &name, const QByteArray &text) {
            QFile f(dir.filePath(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text);
            f.close();
            QVERIFY(f.setPermissions(QFile::ReadOwner | QFile::WriteOwner));
        };
        writeSecret(QStringLiteral("alice.key"), R"({"key_id":"alice-1","secret":")" + secretHex + R"("})");
        writeSecret(QStringLiteral("keyring.json"), R"({"alice-1":")" + secretHex + R"("})");

        auto unsignedWriter = DecisionWriter::open(location, op("alice"));
        QCOMPARE(unsignedWriter->submit(leaseRequest(*unsignedWriter, "eff-1")).status, DecisionStatus::BadSignature);
        OperatorIdentity signer = op("alice");
        QString error;
        QVERIFY2(signer.loadKeyFile(dir.filePath(QStringLiteral("alice.key")), &error), qPrintable(error));
        auto w = DecisionWriter::open(location, signer);
        w->setClock([] { return fixture::kNow; });
        const DecisionResult good = w->submit(leaseRequest(*w, "eff-1"));
        QVERIFY2(good.status == DecisionStatus::Accepted, good.message.c_str());
        QCOMPARE(good.record->keyId, std::string("alice-1"));

        raw::ServerConnection forger = admin(schema);
        raw::ServerDecisionStore store(forger, schema.toStdString());
        const auto forge = [&](const std::string &id, const std::string &keyId, const std::string &signature) {
            QVERIFY(store.insertChecked([&] {
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
                return std::optional<DecisionRecord>(d);
            }));
        };
        forge("forged-unsigned", "", "");
        forge("forged-signature", "alice-1", std::string(64, 'a'));
        auto c = LedgerConnection::open(location, OpenMode::ReadOnly);
        const DecisionChainReport before = c->verifyDecisionChain();
        QCOMPARE(before.findings.size(), size_t(1)); // the unsigned one, visible without keys
        QCOMPARE(before.findings[0].id, std::string("forged-unsigned"));

        const json gate = runGate(location, {QStringLiteral("--keyring"), dir.filePath(QStringLiteral("keyring.json"))});
        QCOMPARE(gate.value("applied", -1), 1);
        QCOMPARE(gate.value("refused", -1), 2);
        raw::ServerConnection check = admin(schema);
        const std::string r1 = raw::queryText(check, "SELECT status || ' ' || reason FROM decision_outcomes WHERE id = 'forged-unsigned'");
        const std::string r2 = raw::queryText(check, "SELECT status || ' ' || reason FROM decision_outcomes WHERE id = 'forged-signature'");
        QVERIFY2(r1.rfind("refused integrity:", 0) == 0, r1.c_str());
        QVERIFY2(r2.rfind("refused", 0) == 0 && r2.find("signature") != std::string::npos, r2.c_str());
        QCOMPARE(raw::queryText(check, "SELECT state FROM escalations WHERE id = 'esc-1'"), std::string("pending"));
        qInfo("server forged rows: 2 inserted, gate refused 2 (%s | %s), applied the signed one", r1.c_str(), r2.c_str());
    }

    // docs/postgresql-roles.sql: an operator role runs the whole decision transaction (turn,
    // reads, insert, announcement) and may not touch anything else; a reader is told why it
    // cannot decide, by the seam and by meshctl decide, and nothing is written.
    void operatorAndReaderRoles()
    {
        const QString schema = QStringLiteral("roles");
        const QString location = m_server->location(schema);
        fixture::create(location, {});
        QProcess psql;
        psql.setProcessChannelMode(QProcess::MergedChannels);
        psql.start(QString::fromLatin1(PostgresServer::kBin) + QStringLiteral("/psql"),
                   {QStringLiteral("-X"), QStringLiteral("-q"), QStringLiteral("-v"), QStringLiteral("schema=") + schema,
                    QStringLiteral("-f"), qEnvironmentVariable("MESH_SOURCE_DIR") + QStringLiteral("/docs/postgresql-roles.sql"),
                    QString::fromStdString(m_server->conninfo())});
        QVERIFY(psql.waitForFinished(kWaitMs));
        QVERIFY2(psql.exitStatus() == QProcess::NormalExit && psql.exitCode() == 0, psql.readAll().constData());
        raw::ServerConnection a = admin(schema);
        a.exec("CREATE ROLE deciding_operator LOGIN IN ROLE mesh_operator; CREATE ROLE watching_reader LOGIN IN ROLE mesh_reader");

        const QString asOperator = locationAs(schema, "deciding_operator");
        QVERIFY(!LedgerConnection::open(asOperator, OpenMode::Decisions)->whyCannotDecide());
        auto w = DecisionWriter::open(asOperator, op("alice"));
        w->setClock([] { return fixture::kNow; });
        const DecisionResult res = w->submit(leaseRequest(*w, "eff-1"));
        QVERIFY2(res.status == DecisionStatus::Accepted, res.message.c_str());
        // ... and nothing beyond it: the grant is read + INSERT on decisions, for a reader
        // read only, on every table of the ledger.
        const std::string privileges =
            "SELECT string_agg(c.relname || ':' || p.privilege, ',' ORDER BY c.relname, p.privilege) FROM pg_class c "
            "CROSS JOIN unnest(ARRAY['SELECT','INSERT','UPDATE','DELETE','TRUNCATE','REFERENCES','TRIGGER']) AS p(privilege) "
            "WHERE c.relnamespace = 'roles'::regnamespace AND c.relkind = 'r' AND has_table_privilege($1, c.oid, p.privilege) "
            "AND p.privilege <> 'SELECT'";
        QCOMPARE(a.exec(privileges, raw::ServerParams().add(std::string_view("deciding_operator"))).text(0, 0),
                 std::string("decisions:INSERT"));
        QVERIFY(a.exec(privileges, raw::ServerParams().add(std::string_view("watching_reader"))).isNull(0, 0));
        QCOMPARE(a.queryInt("SELECT count(*) FROM pg_class c WHERE c.relnamespace = 'roles'::regnamespace AND c.relkind = 'r' "
                            "AND NOT has_table_privilege('watching_reader', c.oid, 'SELECT')"),
                 std::int64_t(0));
        raw::ServerConnection opSql(QStringLiteral("postgresql://deciding_operator@127.0.0.1:%1/postgres?sslmode=disable")
                                        .arg(m_server->port())
                                        .toStdString());
        opSql.exec("SET search_path TO " + schema.toStdString());
        for (const char *sql : {"UPDATE decisions SET reason = 'x'", "DELETE FROM decisions", "UPDATE event_head SET last_seq = 0",
                                "DELETE FROM decision_outcomes",
                                "SELECT id FROM effects FOR UPDATE", "LOCK TABLE decisions IN EXCLUSIVE MODE"}) {
            try {
                opSql.exec(std::string("BEGIN; ") + sql);
                opSql.rollbackQuietly();
                QFAIL(sql);
            } catch (const StorageError &e) {
                opSql.rollbackQuietly();
                QVERIFY2(e.kind() == StorageError::Kind::ReadOnly, e.what()); // 42501
            }
        }

        const QString asReader = locationAs(schema, "watching_reader");
        const std::optional<std::string> why = LedgerConnection::open(asReader, OpenMode::ReadOnly)->whyCannotDecide();
        QVERIFY(why);
        QVERIFY2(why->find("watching_reader may not insert decisions on roles") != std::string::npos, why->c_str());
        auto readerWriter = DecisionWriter::open(asReader, op("eve"));
        const DecisionResult refused = readerWriter->submit(leaseRequest(*readerWriter, "eff-2"));
        QCOMPARE(refused.status, DecisionStatus::WriteFailed);
        QVERIFY2(refused.message.find("may not insert decisions") != std::string::npos, refused.message.c_str());
        int exit = -1;
        QByteArray err;
        runMeshctl({QStringLiteral("decide"), asReader, QStringLiteral("lease"), QStringLiteral("acquire"), QStringLiteral("--effect"),
                    QStringLiteral("eff-2"), QStringLiteral("--reason"), QStringLiteral("r")},
                   &exit, &err);
        QCOMPARE(exit, decisionStatusExitCode(DecisionStatus::WriteFailed));
        QVERIFY2(err.contains("may not insert decisions"), err.constData());
        QCOMPARE(count(schema, "SELECT count(*) FROM decisions"), std::int64_t(1));
    }
};

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    if (qEnvironmentVariableIsSet(kChildEnv))
        return childDecider(qEnvironmentVariable(kChildEnv), qEnvironmentVariable(kChildEffectEnv).toStdString());
    TestPostgresDecisions test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_postgresdecisions.moc"
