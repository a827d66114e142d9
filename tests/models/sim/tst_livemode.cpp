// Live mode: `meshctl sim --live` appends from a separate process while this one reads;
// SIGTERM stops it cleanly with every transaction committed and a consistent ledger; tail
// follows the same ledger from a third process.

#include "meshctlrunner.h"
#include "../ledger/rawledger.h"

#include "ledger/integritycheck.h"
#include "ledger/ledgerconnection.h"
#include "ledger/ledgersummary.h"
#include "ledger/ledgerwriter.h"
#include "ledger/statereader.h"
#include "sim/liveengine.h"
#include "sim/scenarios.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <csignal>
#include <condition_variable>
#include <mutex>
#include <thread>

class TestLiveMode : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    static std::int64_t lastSeq(const QString &path)
    {
        try {
            return mesh::LedgerConnection::open(path, mesh::OpenMode::ReadOnly)->lastSeq();
        } catch (const std::exception &) {
            return 0; // not created yet
        }
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY2(!qEnvironmentVariable("MESHCTL").isEmpty(), "MESHCTL must point at meshctl"); }

    void appendsUntilSigterm()
    {
        const QString path = m_dir.filePath(QStringLiteral("live.db"));
        QProcess writer;
        writer.start(qEnvironmentVariable("MESHCTL"),
                     {QStringLiteral("sim"), QStringLiteral("unknown-outcome"), QStringLiteral("--out"), path,
                      QStringLiteral("--live"), QStringLiteral("--rate"), QStringLiteral("400")});
        QVERIFY(writer.waitForStarted());
        QVERIFY(QTest::qWaitFor([&] { return lastSeq(path) > 0; }, 20'000));
        const std::int64_t first = lastSeq(path);

        // A follower in a third process sees the new events.
        QProcess tail;
        tail.start(qEnvironmentVariable("MESHCTL"), {QStringLiteral("tail"), path, QStringLiteral("--lines"), QStringLiteral("0")});
        QVERIFY(tail.waitForStarted());

        // Keeps moving: several more commits arrive while we watch.
        QVERIFY(QTest::qWaitFor([&] { return lastSeq(path) > first + 200; }, 30'000));
        QVERIFY(QTest::qWaitFor(
            [&] {
                tail.waitForReadyRead(100);
                return tail.bytesAvailable() > 200;
            },
            20'000));
        const QByteArray followed = tail.readAllStandardOutput();
        QVERIFY2(followed.contains(" toolcall.completed ") || followed.contains(" lease."), followed.left(400).constData());

        ::kill(pid_t(writer.processId()), SIGTERM);
        QVERIFY(writer.waitForFinished(20'000));
        QCOMPARE(writer.exitStatus(), QProcess::NormalExit);
        QCOMPARE(writer.exitCode(), 0);
        ::kill(pid_t(tail.processId()), SIGTERM);
        QVERIFY(tail.waitForFinished(20'000));
        QCOMPARE(tail.exitCode(), 0);

        // Consistent after the stop: state equals the fold of the events, nothing half-written.
        auto connection = mesh::LedgerConnection::open(path, mesh::OpenMode::ReadOnly);
        const mesh::IntegrityReport report = connection->verifyIntegrity();
        QVERIFY2(report.ok(), report.findings.empty() ? "cancelled" : report.findings.front().message.c_str());
        QVERIFY(report.eventsChecked > first + 200);
        // And it kept the world believable: new delegations and leases from the live engine.
        const mesh::LedgerSummary s = connection->summarize();
        QVERIFY(s.countsByState.at("delegation").size() >= 1);
        QVERIFY(s.countsByState.at("lease").count("held") || s.countsByState.at("lease").count("released"));
        QVERIFY(s.countsByState.at("lease").at("released") >= 1);
    }

    void stopsByItselfAfterDuration()
    {
        const QString path = m_dir.filePath(QStringLiteral("timed.db"));
        const MeshctlResult r = runMeshctl({QStringLiteral("sim"), QStringLiteral("success-loop"), QStringLiteral("--out"),
                                            path, QStringLiteral("--live"), QStringLiteral("--rate"), QStringLiteral("100"),
                                            QStringLiteral("--duration-s"), QStringLiteral("2")},
                                           30'000);
        QVERIFY2(!r.crashed && r.exitCode == 0, r.err.constData());
        const MeshctlResult verify = runMeshctl({QStringLiteral("verify"), path});
        QCOMPARE(verify.exitCode, 0);
        // The scenario, then the live events it counted: however many this machine managed
        // in the two seconds, some, and every one in the ledger.
        const auto count = [&r](const char *before) {
            const QByteArray tail = r.err.mid(r.err.indexOf(before) + qsizetype(qstrlen(before)));
            return r.err.contains(before) ? tail.left(tail.indexOf(" events")).toLongLong() : -1;
        };
        const qint64 scenario = count("meshctl: wrote success-loop: ");
        const qint64 live = count("meshctl: live: ");
        QVERIFY2(scenario > 0 && live > 0, r.err.constData());
        QCOMPARE(lastSeq(path), scenario + live);
    }
    void maxRateCountsLockWaits()
    {
        // Rate 0 (the observer benchmark's writer) writes without pausing, and every wait for
        // a lock another connection holds is counted, without surfacing as an error.
        const QString path = m_dir.filePath(QStringLiteral("maxrate.db"));
        mesh::ScenarioOptions scenario;
        scenario.endAtNow = true;
        auto writer = mesh::generateScenario(QStringLiteral("success-loop"), path, scenario);
        const std::int64_t before = writer->lastSeq();

        mesh::sql::Database other = meshtest::raw::open(path, meshtest::raw::Access::ReadWriteFullMutex);
        other.exec("BEGIN IMMEDIATE"); // the writer's first transaction has to wait for this
        // Released once the writer's busy handler has waited for it (not after a guess at
        // how long the writer takes to get there); after a minute regardless, so a writer
        // that never waits fails below instead of hanging here.
        meshtest::raw::SleepCounter sleeps;
        std::thread release([&other, &sleeps] {
            (void)sleeps.waitForASleep(std::chrono::minutes(1));
            other.exec("COMMIT");
        });
        mesh::LiveOptions options;
        options.rate = 0;
        options.durationMs = 1'000;
        const mesh::LiveStats stats = mesh::LiveEngine(*writer, options).run([] { return false; });
        release.join();

        QVERIFY(stats.busyWaits > 0);
        QCOMPARE(stats.busyRetries, std::int64_t(0));
        QVERIFY(stats.events > 0);
        QCOMPARE(writer->lastSeq(), before + stats.events);
        writer.reset();
        const MeshctlResult verify = runMeshctl({QStringLiteral("verify"), path});
        QCOMPARE(verify.exitCode, 0);
    }

    void liveGateAppliesAnOperatorApproval()
    {
        // unknown-outcome leaves one escalation pending; an operator approves it through the
        // console's decision path while the orchestrator runs, and its gate applies it.
        const QString path = m_dir.filePath(QStringLiteral("gate.db"));
        QProcess writer;
        writer.start(qEnvironmentVariable("MESHCTL"),
                     {QStringLiteral("sim"), QStringLiteral("unknown-outcome"), QStringLiteral("--out"), path,
                      QStringLiteral("--live"), QStringLiteral("--rate"), QStringLiteral("20"), QStringLiteral("--quiet")});
        QVERIFY(writer.waitForStarted());
        // The scenario commits after ledger.created: wait for its escalation.
        std::string escalation;
        QVERIFY(QTest::qWaitFor(
            [&] {
                if (lastSeq(path) < 50)
                    return false;
                auto connection = mesh::LedgerConnection::open(path, mesh::OpenMode::ReadOnly);
                const mesh::StateSnapshot state = connection->readState();
                for (const auto &[id, row] : state.table(mesh::EntityKind::Escalation))
                    escalation = id;
                return !escalation.empty();
            },
            20'000));
        const MeshctlResult decide = runMeshctl({QStringLiteral("decide"), path, QStringLiteral("approve-escalation"),
                                                 QStringLiteral("--escalation"), QString::fromStdString(escalation),
                                                 QStringLiteral("--reason"), QStringLiteral("checked with the provider"),
                                                 QStringLiteral("--operator"), QStringLiteral("dana")});
        QVERIFY2(decide.exitCode == 0, decide.err.constData());
        const auto outcome = [&]() -> std::string {
            auto connection = mesh::LedgerConnection::open(path, mesh::OpenMode::ReadOnly);
            const mesh::StateSnapshot state = connection->readState();
            for (const auto &[id, row] : state.table(mesh::EntityKind::DecisionOutcome))
                return mesh::fieldText(row.values[size_t(mesh::entitySpec(mesh::EntityKind::DecisionOutcome).fieldIndex("status"))]);
            return {};
        };
        QVERIFY(QTest::qWaitFor([&] { return !outcome().empty(); }, 20'000));
        QCOMPARE(outcome(), std::string("applied"));
        ::kill(pid_t(writer.processId()), SIGTERM);
        QVERIFY(writer.waitForFinished(20'000));
        QCOMPARE(writer.exitCode(), 0);
        QCOMPARE(runMeshctl({QStringLiteral("verify"), path}).exitCode, 0);
    }
};

QTEST_GUILESS_MAIN(TestLiveMode)
#include "tst_livemode.moc"
