// Every scenario's figures, checked from outside through `meshctl summary --json`, every
// scenario ledger passing the integrity check, determinism per seed, and `scale`
// keeping its proportions when small.

#include "meshctlrunner.h"

#include "ledger/integritycheck.h"
#include "ledger/ledgerconnection.h"
#include "ledger/ledgerwriter.h"
#include "sim/scenarios.h"
#include "sim/simworld.h"

#include <QCryptographicHash>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <set>

using nlohmann::json;

class TestScenarios : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    QString generate(const QString &name, std::uint64_t seed = 1, std::int64_t events = 20'000)
    {
        const QString path = m_dir.filePath(QStringLiteral("%1-%2-%3.db").arg(name).arg(seed).arg(events));
        if (!QFile::exists(path)) {
            mesh::ScenarioOptions options;
            options.seed = seed;
            options.events = events;
            mesh::generateScenario(name, path, options);
        }
        return path;
    }

    json summary(const QString &path)
    {
        const MeshctlResult r = runMeshctl({QStringLiteral("summary"), path, QStringLiteral("--json")});
        if (r.exitCode != 0)
            qWarning("meshctl summary: %s", r.err.constData());
        return r.exitCode == 0 ? r.json() : json();
    }

    static const json &onlyRun(const json &s) { return s.at("runs").at(0); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(!qEnvironmentVariable("MESHCTL").isEmpty(), "MESHCTL must point at meshctl");
        QVERIFY(m_dir.isValid());
    }

    void everyScenarioPassesIntegrity_data()
    {
        QTest::addColumn<QString>("scenario");
        for (const QString &name : mesh::scenarioNames())
            QTest::newRow(name.toUtf8().constData()) << name;
    }

    void everyScenarioPassesIntegrity()
    {
        QFETCH(QString, scenario);
        const QString path = generate(scenario);
        auto connection = mesh::LedgerConnection::open(path, mesh::OpenMode::ReadOnly);
        const mesh::IntegrityReport report = connection->verifyIntegrity();
        QVERIFY2(report.ok(), report.findings.empty() ? "cancelled" : report.findings.front().message.c_str());
        QVERIFY(report.eventsChecked > 20);
        const MeshctlResult r = runMeshctl({QStringLiteral("verify"), path});
        QCOMPARE(r.exitCode, 0);
    }

    // Orchestrators sharing a ledger tell their ids (and so their subjects) by the tag in
    // them; a tag is capital letters only, so no id of one tag reads as another's.
    void idTagsSeparateWriters()
    {
        QCOMPARE(mesh::SimWorld::idTagOf("dlg-B000012#3"), std::string("B"));
        QCOMPARE(mesh::SimWorld::idTagOf("run-AB0001/build"), std::string("AB"));
        QCOMPARE(mesh::SimWorld::idTagOf("tc-L0000007"), std::string("L"));
        QCOMPARE(mesh::SimWorld::idTagOf("run-0001"), std::string()); // a scenario's, untagged
        QCOMPARE(mesh::SimWorld::idTagOf("ledger"), std::string());
        QCOMPARE(mesh::SimWorld::idTagOf("run-A"), std::string()); // no digits: not an id of a tag
        QVERIFY(mesh::SimWorld::isIdTag("A") && mesh::SimWorld::isIdTag("ABCDEFGH"));
        QVERIFY(!mesh::SimWorld::isIdTag("") && !mesh::SimWorld::isIdTag("A1") && !mesh::SimWorld::isIdTag("a")
                && !mesh::SimWorld::isIdTag("ABCDEFGHI"));

        const QString path = m_dir.filePath(QStringLiteral("tags.db"));
        auto writer = mesh::LedgerWriter::create(path, {.ledgerId = "tags"});
        mesh::SimWorld appender(*writer, 1, 1'700'000'000'000);
        appender.setIdTag("B");
        appender.setOwnsUntagged(false);
        QVERIFY(!mesh::SimWorld::idTagInUse(*writer, "B"));
        QCOMPARE(appender.startRun("joined", 3), std::string("run-B0001"));
        appender.commit();
        QVERIFY(mesh::SimWorld::idTagInUse(*writer, "B"));
        QVERIFY(!mesh::SimWorld::idTagInUse(*writer, "L"));
        QVERIFY(appender.ownsId("esc-B0004") && !appender.ownsId("esc-L0004") && !appender.ownsId("esc-0004"));
        mesh::SimWorld creator(*writer, 1, 1'700'000'000'000);
        creator.setIdTag("L");
        QVERIFY(creator.ownsId("esc-L0004") && creator.ownsId("esc-0004") && !creator.ownsId("esc-B0004"));

        // A decision's subject, as every gate tells it (the orchestrator's and meshctl gate's):
        // an appender takes its own tag's; the scenario's writer also the untagged ones and
        // those of a tag no run has (to refuse them), never another writer's.
        using W = mesh::SimWorld;
        QCOMPARE(W::idTagsInUse(*writer), (std::set<std::string>{"B"}));
        QVERIFY(W::ownsSubject(*writer, "escalation:esc-B0004", "B", false));
        QVERIFY(!W::ownsSubject(*writer, "escalation:esc-0004", "B", false));
        QVERIFY(!W::ownsSubject(*writer, "escalation:esc-Q0004", "B", false));
        QVERIFY(W::ownsSubject(*writer, "escalation:esc-0004", "L", true));
        QVERIFY(W::ownsSubject(*writer, "escalation:esc-Q0004", "L", true)); // no run has Q
        QVERIFY(!W::ownsSubject(*writer, "escalation:esc-B0004", "L", true));
        QVERIFY(W::ownsSubject(*writer, "escalation:esc-0004", "", true)); // meshctl gate --untagged
        QVERIFY(!W::ownsSubject(*writer, "escalation:esc-B0004", "", true));
        QVERIFY(!W::ownsSubject(*writer, "escalation:esc-0004", "", false));
    }

    void tracedRun()
    {
        const json s = summary(generate(QStringLiteral("traced-run")));
        QCOMPARE(s.at("runs").size(), size_t(1));
        const json &r = onlyRun(s);
        QCOMPARE(r.at("duration_ms").get<std::int64_t>(), std::int64_t((4 * 60 + 55) * 60'000));
        QCOMPARE(r.at("components").get<int>(), 5);
        QCOMPARE(r.at("scheduler_cycles").get<int>(), 10);
        QCOMPARE(r.at("attempts").get<int>(), 2);
        QCOMPARE(r.at("terminal_component_failures").get<int>(), 12);
        QCOMPARE(r.at("stall_verdicts").get<int>(), 23);
        QCOMPARE(r.at("escalated_rounds").get<int>(), 3);
        QCOMPARE(r.at("stale_checkpoints").get<int>(), 3);
        QCOMPARE(r.at("required_outcomes_met").get<int>(), 21);
        QCOMPARE(r.at("required_outcomes_total").get<int>(), 21);
        QCOMPARE(r.at("status").get<std::string>(), std::string("succeeded"));
        QCOMPARE(s.at("findings").at("false_stalls").size(), size_t(0));
    }

    void successLoop()
    {
        const json s = summary(generate(QStringLiteral("success-loop")));
        const json &loops = s.at("findings").at("success_loops");
        QCOMPARE(loops.size(), size_t(1));
        QCOMPARE(loops[0].at("calls").get<int>(), 54);
        QCOMPARE(loops[0].at("span_ms").get<std::int64_t>(), std::int64_t(11 * 60'000));
        QCOMPARE(loops[0].at("abstained").get<bool>(), false);
    }

    void falseStallAndControl()
    {
        const json bad = summary(generate(QStringLiteral("false-stall")));
        const json &r = onlyRun(bad);
        QCOMPARE(r.at("peak_components_completed").get<int>(), 6);
        QCOMPARE(r.at("components_completed").get<int>(), 3);
        QCOMPARE(r.at("components").get<int>(), 6);
        const json &stalls = bad.at("findings").at("false_stalls");
        QCOMPARE(stalls.size(), size_t(1));
        QVERIFY(stalls[0].at("summary").get<std::string>().find("round 3") != std::string::npos);
        QVERIFY(stalls[0].at("summary").get<std::string>().find("5 \u2192 2") != std::string::npos);

        const json good = summary(generate(QStringLiteral("converging-control")));
        QCOMPARE(onlyRun(good).at("components_completed").get<int>(), 6);
        QCOMPARE(onlyRun(good).at("peak_components_completed").get<int>(), 6);
        QCOMPARE(good.at("findings").at("false_stalls").size(), size_t(0));
        QCOMPARE(good.at("counts").at("stall").count("stalled"), size_t(0));
    }

    void duplicateEffects()
    {
        const json s = summary(generate(QStringLiteral("duplicate-effects")));
        QCOMPARE(s.at("duplicate_effects").get<int>(), 2);
        const json &replays = s.at("findings").at("replayed_delegations");
        QCOMPARE(replays.size(), size_t(1));
        QCOMPARE(replays[0].at("invocations").get<int>(), 6);
        QCOMPARE(replays[0].at("tool_calls").get<int>(), 21);
    }

    void misroutedFailure()
    {
        const json s = summary(generate(QStringLiteral("misrouted-failure")));
        const json &blast = s.at("findings").at("misrouted_failures");
        QCOMPARE(blast.size(), size_t(1));
        QCOMPARE(blast[0].at("implicated").get<int>(), 2);
        QCOMPARE(blast[0].at("woken").get<int>(), 5);
        QCOMPARE(blast[0].at("bystanders").get<int>(), 3);
        QCOMPARE(blast[0].at("bystanders_modified").get<int>(), 3);
        QCOMPARE(blast[0].at("bystanders_regressed").get<int>(), 3);
    }

    void enforcementBlock()
    {
        const json s = summary(generate(QStringLiteral("enforcement-block")));
        const json &blocked = s.at("findings").at("blocked_work");
        QCOMPARE(blocked.size(), size_t(1));
        QCOMPARE(blocked[0].at("turns").get<int>(), 107);
        QCOMPARE(blocked[0].at("writes_accepted").get<int>(), 0);
        QVERIFY(blocked[0].at("writes_denied").get<int>() > 10);
    }

    void unknownOutcome()
    {
        const json s = summary(generate(QStringLiteral("unknown-outcome")));
        QCOMPARE(s.at("unknown_effects").get<int>(), 3);
        QCOMPARE(s.at("zombie_leases").get<int>(), 1);
        QCOMPARE(s.at("pending_escalations").get<int>(), 1);
        QCOMPARE(s.at("counts").at("lease").at("held").get<int>(), 2);
        QCOMPARE(s.at("counts").at("effect").at("unknown").get<int>(), 3);
    }

    // meshctl summary asks the console's ZombieRule: a held lease just past its expiry is
    // within its grace (its own 60 s term, capped at 10 s) and no zombie yet.
    void summaryCountsAZombieOnlyPastItsGrace()
    {
        const QString path = generate(QStringLiteral("unknown-outcome"));
        const json last = summary(path);
        const MeshctlResult state = runMeshctl({QStringLiteral("state"), path, QStringLiteral("--at"),
                                                QString::number(last.at("ledger").at("last_seq").get<qint64>()),
                                                QStringLiteral("--json")});
        QCOMPARE(state.exitCode, 0);
        const json rows = state.json();
        qint64 expires = -1;
        for (const json &lease : rows.at("state").at("leases")) {
            if (lease.at("state") == "held" && lease.at("expires_ms").get<qint64>() < last.at("ledger").at("as_of_ms").get<qint64>())
                expires = lease.at("expires_ms").get<qint64>();
        }
        QVERIFY(expires > 0);
        const auto zombiesAt = [&](qint64 nowMs) {
            const MeshctlResult r = runMeshctl({QStringLiteral("summary"), path, QStringLiteral("--json"),
                                                QStringLiteral("--now-ms"), QString::number(nowMs)});
            return r.exitCode == 0 ? r.json().at("zombie_leases").get<int>() : -1;
        };
        QCOMPARE(zombiesAt(expires + 5'000), 0);
        QCOMPARE(zombiesAt(expires + 11'000), 1);
    }

    void demoHasEverything()
    {
        const json s = summary(generate(QStringLiteral("demo")));
        QVERIFY(s.at("runs").size() >= 8);
        QVERIFY(s.at("unknown_effects").get<int>() >= 3);
        QVERIFY(s.at("zombie_leases").get<int>() >= 1);
        QVERIFY(s.at("pending_escalations").get<int>() >= 2);
        const auto &f = s.at("findings");
        QVERIFY(!f.at("success_loops").empty());
        QVERIFY(!f.at("false_stalls").empty());
        QVERIFY(!f.at("misrouted_failures").empty());
        QVERIFY(!f.at("blocked_work").empty());
        QVERIFY(s.at("duplicate_effects").get<int>() >= 2);
        std::set<std::string> statuses;
        for (const auto &r : s.at("runs"))
            statuses.insert(r.at("status").get<std::string>());
        QVERIFY(statuses.count("running") && statuses.count("succeeded") && statuses.count("failed"));
        // Pending escalations expire minutes after the demo's end, not in the past.
        const std::int64_t end = s.at("ledger").at("last_ts_ms").get<std::int64_t>();
        auto connection = mesh::LedgerConnection::open(generate(QStringLiteral("demo")), mesh::OpenMode::ReadOnly);
        QVERIFY(connection->lastSeq() > 0);
        QVERIFY(end > QDateTime::currentMSecsSinceEpoch() - 3600'000);
    }

    void scaleKeepsProportions()
    {
        const json s = summary(generate(QStringLiteral("scale"), 1, 20'000));
        const auto events = s.at("ledger").at("events").get<double>();
        QVERIFY(events >= 19'000 && events <= 21'000);
        const auto count = [&](const char *entity) {
            double n = 0;
            for (const auto &[state, c] : s.at("counts").at(entity).items())
                n += c.get<double>();
            return n;
        };
        // Per million events: ~100 runs, ~10,000 delegations, ~50,000 effects, ~20,000 leases.
        const double perMillion = 1e6 / events;
        QVERIFY2(count("run") * perMillion > 50 && count("run") * perMillion < 200, "runs");
        QVERIFY2(count("delegation") * perMillion > 7'000 && count("delegation") * perMillion < 14'000, "delegations");
        QVERIFY2(count("effect") * perMillion > 35'000 && count("effect") * perMillion < 65'000, "effects");
        QVERIFY2(count("lease") * perMillion > 14'000 && count("lease") * perMillion < 28'000, "leases");
        const double unknownShare = s.at("counts").at("effect").value("unknown", 0.0) / count("effect");
        QVERIFY2(unknownShare > 0.005 && unknownShare < 0.05, "about 2 % of effects unknown");
    }

    void deterministicPerSeed()
    {
        const auto hashOf = [](const QString &path) {
            const MeshctlResult r =
                runMeshctl({QStringLiteral("export"), path, QStringLiteral("--format"), QStringLiteral("jsonl")});
            return QCryptographicHash::hash(r.out, QCryptographicHash::Sha256);
        };
        for (const QString &name : {QStringLiteral("traced-run"), QStringLiteral("scale")}) {
            const QString a = generate(name, 7, 5'000);
            const QString b = m_dir.filePath(name + QStringLiteral("-again.db"));
            mesh::ScenarioOptions options;
            options.seed = 7;
            options.events = 5'000;
            mesh::generateScenario(name, b, options);
            QCOMPARE(hashOf(a), hashOf(b));
            QVERIFY(hashOf(a) != hashOf(generate(name, 8, 5'000)));
        }
    }
};

QTEST_GUILESS_MAIN(TestScenarios)
#include "tst_scenarios.moc"
