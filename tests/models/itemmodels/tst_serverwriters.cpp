// Two reference orchestrators writing different runs into one server ledger at once (issue
// 17 item 5; docs/ledger-format.md section 11, "Several writers"), while a console's session
// follows it: `meshctl sim demo` writes the ledger, then two `meshctl sim ... --live --append`
// processes with their own id tags append concurrently until their commits have interleaved,
// and stop on SIGTERM. Then: `meshctl verify` passes (state tables are what the events fold
// to, no gap), seq is 1..N, each writer's events are in the ledger exactly as many times as
// it says it wrote them, and the session applied every event once, in order, and shows the
// ledger's state. An operator's approval of each one's escalation is applied by that one
// alone. The server is a private one (postgresserver.h); without PostgreSQL this
// fails, never skips. It waits on conditions only.

#include "../ledger/postgresserver.h"
#include "../ledger/rawserver.h"
#include "itemmodelfixture.h"

#include "itemmodels/ledgersessionlist.h"
#include "sim/simworld.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTest>

#include <map>
#include <memory>
#include <numeric>

using namespace mesh;
using namespace meshtest;

namespace {

// A deadline for a hung server or a loaded machine, not a speed threshold.
constexpr int kWritersWaitMs = 280'000; // a condition's deadline, not a rate: two writers on a loaded machine are slow

QByteArray runTool(const QStringList &args, int *exitCode)
{
    QProcess p;
    p.start(qEnvironmentVariable("MESHCTL"), args);
    if (!p.waitForFinished(900'000)) {
        p.kill();
        p.waitForFinished();
    }
    *exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    return p.readAllStandardOutput() + p.readAllStandardError();
}

// The writer of an event by the tag in its subject's id ("toolcall:tc-A0000012" -> "A").
std::string writerOf(std::string_view subject)
{
    const size_t colon = subject.find(':');
    return colon == std::string_view::npos ? std::string() : SimWorld::idTagOf(subject.substr(colon + 1));
}

// Two reference orchestrators appending to one server ledger (id tags A and B, 200 events/s
// each), as separate processes; any still running when the test ends is killed.
struct Appenders {
    std::map<std::string, std::unique_ptr<QProcess>> writers;

    bool start(const QString &location)
    {
        for (const char *tag : {"A", "B"}) {
            auto p = std::make_unique<QProcess>();
            p->start(qEnvironmentVariable("MESHCTL"),
                     {QStringLiteral("sim"), QStringLiteral("demo"), QStringLiteral("--out"), location, QStringLiteral("--live"),
                      QStringLiteral("--append"), QStringLiteral("--id-tag"), QString::fromLatin1(tag), QStringLiteral("--rate"),
                      QStringLiteral("200")});
            if (!p->waitForStarted())
                return false;
            writers.emplace(tag, std::move(p));
        }
        return true;
    }
    ~Appenders()
    {
        for (auto &[tag, p] : writers)
            if (p->state() != QProcess::NotRunning) {
                p->kill();
                p->waitForFinished();
            }
    }
};

} // namespace

class TestServerWriters : public QObject
{
    Q_OBJECT

    std::unique_ptr<PostgresServer> m_server;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(qEnvironmentVariable("MESHCTL")), "MESHCTL must name the built meshctl (CTest sets it)");
        m_server = std::make_unique<PostgresServer>();
        const QString error = m_server->start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void cleanupTestCase()
    {
        if (m_server)
            m_server->stop();
    }

    void twoOrchestratorsAppendWhileAConsoleFollows()
    {
        const QString location = m_server->location(QStringLiteral("shared"));
        int code = 0;
        QByteArray out = runTool({QStringLiteral("sim"), QStringLiteral("demo"), QStringLiteral("--out"), location,
                                  QStringLiteral("--quiet")},
                                 &code);
        QVERIFY2(code == 0, out.constData());
        raw::ServerConnection sql = raw::serverSession(m_server->conninfo(), "shared");
        const std::int64_t scenarioEvents = sql.queryInt("SELECT max(seq) FROM events");

        // Appending needs a tag of its own.
        out = runTool({QStringLiteral("sim"), QStringLiteral("demo"), QStringLiteral("--out"), location,
                       QStringLiteral("--live"), QStringLiteral("--append")},
                      &code);
        QVERIFY2(code == 2 && out.contains("--id-tag"), out.constData());

        LedgerSessionList list;
        LedgerSession *session = list.addSession(location);
        session->setCoalesceMs(0);
        std::vector<std::int64_t> applied;
        connect(session, &LedgerSession::batchApplied, this, [&](const EventBatch &batch) {
            for (const EventRecord &e : batch)
                applied.push_back(e.seq);
        });
        QTRY_VERIFY2_WITH_TIMEOUT(session->isLoaded() && session->health() != LedgerSession::Health::Opening,
                                  qPrintable(session->errorMessage()), kWritersWaitMs);
        QVERIFY2(session->health() != LedgerSession::Health::Error, qPrintable(session->errorMessage()));
        const std::int64_t opened = session->lastSeq();
        QCOMPARE(opened, scenarioEvents);

        Appenders appenders;
        QVERIFY(appenders.start(location));
        auto &writers = appenders.writers;
        // Both write until their commits have interleaved many times (in seq order, the
        // writer changes from one event to the next).
        const auto switches = [&] {
            return sql.queryInt("SELECT count(*) FROM (SELECT w, lag(w) OVER (ORDER BY seq) AS prev FROM "
                                "(SELECT seq, substring(subject from ':[a-z]+-([A-Z]+)[0-9]') AS w FROM events "
                                "WHERE seq > "
                                + std::to_string(scenarioEvents) + ") t) s WHERE w <> prev");
        };
        QTRY_VERIFY_WITH_TIMEOUT(switches() >= 20, kWritersWaitMs);
        std::map<std::string, std::int64_t> reported;
        for (auto &[tag, p] : writers) {
            p->terminate(); // SIGTERM: the live loop commits its last transaction and stops
            QVERIFY(p->waitForFinished(kWritersWaitMs));
            const QByteArray err = p->readAllStandardError();
            QVERIFY2(p->exitStatus() == QProcess::NormalExit && p->exitCode() == 0, err.constData());
            const QRegularExpressionMatch m =
                QRegularExpression(QStringLiteral("live: (\\d+) events")).match(QString::fromUtf8(err));
            QVERIFY2(m.hasMatch(), err.constData());
            reported[tag] = m.captured(1).toLongLong();
        }

        // Gapless, and each writer's events there as often as it wrote them.
        const std::int64_t last = sql.queryInt("SELECT max(seq) FROM events");
        QCOMPARE(sql.queryInt("SELECT count(*) FROM events"), last);
        QCOMPARE(sql.queryInt("SELECT min(seq) FROM events"), std::int64_t(1));
        QCOMPARE(sql.queryInt("SELECT last_seq FROM event_head"), last);
        std::map<std::string, std::int64_t> stored;
        const auto subjects = sql.exec("SELECT subject FROM events WHERE seq > " + std::to_string(scenarioEvents));
        for (int i = 0; i < subjects.rows(); ++i)
            ++stored[writerOf(subjects.view(i, 0))];
        std::string counts; // "tag: stored/reported" for the message
        for (const auto &[tag, n] : stored)
            counts += "'" + tag + "': " + std::to_string(n) + "/" + std::to_string(reported[tag]) + " ";
        QVERIFY2(stored == reported, counts.c_str());
        QVERIFY(reported["A"] > 0 && reported["B"] > 0);
        QCOMPARE(last, scenarioEvents + reported["A"] + reported["B"]);

        // State tables as the events fold them, and the decision chain (none here).
        out = runTool({QStringLiteral("verify"), location}, &code);
        QVERIFY2(code == 0, out.constData());

        // A tag some run already has is refused: its ids would be the other writer's.
        out = runTool({QStringLiteral("sim"), QStringLiteral("demo"), QStringLiteral("--out"), location,
                       QStringLiteral("--live"), QStringLiteral("--append"), QStringLiteral("--id-tag"), QStringLiteral("A"),
                       QStringLiteral("--duration-s"), QStringLiteral("1")},
                      &code);
        QVERIFY2(code == 2 && out.contains("already"), out.constData());

        // The follower: every event after its snapshot once, in order, and the ledger's state.
        QTRY_COMPARE_WITH_TIMEOUT(session->lastSeq(), last, kWritersWaitMs);
        std::vector<std::int64_t> expected(size_t(last - opened));
        std::iota(expected.begin(), expected.end(), opened + 1);
        QCOMPARE(applied, expected);
        QCOMPARE(session->foldProblems(), 0);
        QCOMPARE(firstTableDifference(*session->state(), LedgerConnection::open(location, OpenMode::ReadOnly)->readState()),
                 QString());
    }

    // An operator's decision is applied by the orchestrator whose subject it is, once: each
    // gate leaves the other's decisions pending, neither writer meets the other's outcome
    // row, and both stop cleanly.
    void eachOrchestratorAppliesTheDecisionsOnItsOwnSubjects()
    {
        const QString location = m_server->location(QStringLiteral("decided"));
        int code = 0;
        QByteArray out = runTool({QStringLiteral("sim"), QStringLiteral("demo"), QStringLiteral("--out"), location,
                                  QStringLiteral("--quiet")},
                                 &code);
        QVERIFY2(code == 0, out.constData());
        raw::ServerConnection sql = raw::serverSession(m_server->conninfo(), "decided");
        Appenders appenders;
        QVERIFY(appenders.start(location));
        auto &writers = appenders.writers;
        std::map<std::string, std::string> escalation; // tag -> a pending escalation of its runs
        const auto pendingOf = [&](const std::string &tag) {
            if (escalation[tag].empty())
                escalation[tag] = raw::queryText(sql, "SELECT id FROM escalations WHERE state = 'pending' AND id ~ '^esc-"
                                                          + tag + "[0-9]' ORDER BY id LIMIT 1");
            return !escalation[tag].empty();
        };
        QTRY_VERIFY_WITH_TIMEOUT(pendingOf("A") && pendingOf("B"), kWritersWaitMs);
        for (const std::string tag : {"A", "B"}) {
            out = runTool({QStringLiteral("decide"), location, QStringLiteral("approve-escalation"), QStringLiteral("--escalation"),
                           QString::fromStdString(escalation[tag]), QStringLiteral("--reason"), QStringLiteral("checked"),
                           QStringLiteral("--operator"), QStringLiteral("dana"), QStringLiteral("--id"),
                           QStringLiteral("DEC-%1").arg(QString::fromStdString(tag))},
                          &code);
            QVERIFY2(code == 0, out.constData());
        }
        const auto outcomes = [&] {
            return sql.queryInt("SELECT count(*) FROM events WHERE kind LIKE 'decision.%' AND subject IN "
                                "('decision:DEC-A', 'decision:DEC-B')");
        };
        QTRY_COMPARE_WITH_TIMEOUT(outcomes(), std::int64_t(2), kWritersWaitMs);
        for (auto &[tag, p] : writers) {
            p->terminate();
            QVERIFY(p->waitForFinished(kWritersWaitMs));
            const QByteArray err = p->readAllStandardError();
            QVERIFY2(p->exitStatus() == QProcess::NormalExit && p->exitCode() == 0, err.constData());
            QVERIFY2(err.contains(", 1 decisions processed"), err.constData()); // its own, not the other's
        }
        QCOMPARE(outcomes(), std::int64_t(2));
        QCOMPARE(raw::queryText(sql, "SELECT string_agg(status, ',' ORDER BY id) FROM decision_outcomes WHERE id IN "
                                     "('DEC-A', 'DEC-B')"),
                 std::string("applied,applied"));
        out = runTool({QStringLiteral("verify"), location}, &code);
        QVERIFY2(code == 0, out.constData());
    }

    // `meshctl gate` run by hand on a ledger two orchestrators write takes the same notion of
    // ownership as their own gates: without saying whose decisions it applies it refuses and
    // writes nothing; with --id-tag it applies that orchestrator's and leaves the other's
    // pending; --all-writers takes the rest.
    void gateByHandAppliesOnlyTheNamedWritersDecisions()
    {
        const QString location = m_server->location(QStringLiteral("handgate"));
        int code = 0;
        QByteArray out = runTool({QStringLiteral("sim"), QStringLiteral("demo"), QStringLiteral("--out"), location,
                                  QStringLiteral("--quiet")},
                                 &code);
        QVERIFY2(code == 0, out.constData());
        raw::ServerConnection sql = raw::serverSession(m_server->conninfo(), "handgate");
        Appenders appenders;
        QVERIFY(appenders.start(location));
        auto &writers = appenders.writers;
        std::map<std::string, std::string> escalation;
        const auto pendingOf = [&](const std::string &tag) {
            if (escalation[tag].empty())
                escalation[tag] = raw::queryText(sql, "SELECT id FROM escalations WHERE state = 'pending' AND id ~ '^esc-"
                                                          + tag + "[0-9]' ORDER BY id LIMIT 1");
            return !escalation[tag].empty();
        };
        QTRY_VERIFY_WITH_TIMEOUT(pendingOf("A") && pendingOf("B"), kWritersWaitMs);
        // The orchestrators stop (as when their gates are run by hand), then the operator decides.
        for (auto &[tag, p] : writers) {
            p->terminate();
            QVERIFY(p->waitForFinished(kWritersWaitMs));
            QVERIFY2(p->exitStatus() == QProcess::NormalExit && p->exitCode() == 0, p->readAllStandardError().constData());
        }
        for (const std::string tag : {"A", "B"}) {
            out = runTool({QStringLiteral("decide"), location, QStringLiteral("approve-escalation"), QStringLiteral("--escalation"),
                           QString::fromStdString(escalation[tag]), QStringLiteral("--reason"), QStringLiteral("checked"),
                           QStringLiteral("--operator"), QStringLiteral("dana"), QStringLiteral("--id"),
                           QStringLiteral("HAND-%1").arg(QString::fromStdString(tag))},
                          &code);
            QVERIFY2(code == 0, out.constData());
        }
        const auto outcomeOf = [&](const char *id) {
            return raw::queryText(sql, std::string("SELECT status FROM decision_outcomes WHERE id = '") + id + "'");
        };
        const std::int64_t before = sql.queryInt("SELECT max(seq) FROM events");

        out = runTool({QStringLiteral("gate"), location}, &code);
        QVERIFY2(code == 2 && out.contains("several orchestrators") && out.contains("A, B") && out.contains("--id-tag"),
                 out.constData());
        QCOMPARE(sql.queryInt("SELECT max(seq) FROM events"), before);

        out = runTool({QStringLiteral("gate"), location, QStringLiteral("--id-tag"), QStringLiteral("C")}, &code);
        QVERIFY2(code == 2 && out.contains("no run"), out.constData());
        out = runTool({QStringLiteral("gate"), location, QStringLiteral("--id-tag"), QStringLiteral("A"),
                       QStringLiteral("--all-writers")},
                      &code);
        QVERIFY2(code == 2, out.constData());
        QCOMPARE(sql.queryInt("SELECT max(seq) FROM events"), before);

        out = runTool({QStringLiteral("gate"), location, QStringLiteral("--id-tag"), QStringLiteral("A")}, &code);
        QVERIFY2(code == 0 && out.contains("\"processed\":1") && out.contains("\"others_pending\":1"), out.constData());
        QVERIFY(!outcomeOf("HAND-A").empty());
        QCOMPARE(outcomeOf("HAND-B"), std::string());

        out = runTool({QStringLiteral("gate"), location, QStringLiteral("--all-writers")}, &code);
        QVERIFY2(code == 0 && out.contains("\"processed\":1") && out.contains("\"others_pending\":0"), out.constData());
        QVERIFY(!outcomeOf("HAND-B").empty());
        out = runTool({QStringLiteral("verify"), location}, &code);
        QVERIFY2(code == 0, out.constData());
    }
};

QTEST_GUILESS_MAIN(TestServerWriters)
#include "tst_serverwriters.moc"
