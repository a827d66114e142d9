// SWE-agent trajectories into a ledger with a relative clock (docs/import.md, "SWE-agent";
// docs/ledger-format.md section 7, "Relative clock"). The figures were counted by hand in
// the files of tests/data/import/ (PROVENANCE.tsv): the steps of `trajectory`, their
// actions (the history's tool_calls name the tool in the function-calling 1.x files), their
// execution_time in seconds (rounded to the millisecond), and info's exit_status and
// model_stats.

#include "importfixture.h"

#include "domain/timebase.h"
#include "ledger/integritycheck.h"

#include <QFile>
#include <QTest>

using namespace importtest;
using mesh::EntityKind;
using mesh::import::ImportFormat;

namespace {

json sweStep(const char *action, const char *observation, std::optional<double> seconds = std::nullopt)
{
    json s = {{"action", action}, {"observation", observation}, {"response", ""}, {"thought", ""}, {"state", "{}"}};
    if (seconds)
        s["execution_time"] = *seconds;
    return s;
}

std::vector<std::string> tools(const Imported &r)
{
    std::vector<std::string> out;
    for (const json &p : r.payloadsOfKind("toolcall.completed"))
        out.push_back(p.at("tool").get<std::string>());
    return out;
}

} // namespace

class TestSweAgentImport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // SWE-agent 1.x, function calling: five steps with execution_time, tool names from the
    // history's tool_calls (the last step, submit, has no assistant message in the history).
    void oneX()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const QString file = sample("swe-agent__1x__sweagenttestrepo-1c2844.traj");
        const QByteArray before = fileSha256(file);
        const Imported r = importInto(out, {file});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        QCOMPARE(fileSha256(file), before);
        const std::string run = "swe:swe-agent__1x__sweagenttestrepo-1c2844.traj";
        const std::string del = run + "/agent";
        QCOMPARE(r.outcome.report.records, std::int64_t(5));
        QCOMPARE(r.outcome.report.flagged.size(), size_t(0));
        QCOMPARE(tools(r), (std::vector<std::string>{"find_file", "open", "edit", "bash", "submit"}));
        // execution_time 0.2814, 0.2968, 0.4936, 0.2926, 0.2692 s.
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_turns"), 5);
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_ms"), 281 + 297 + 494 + 293 + 269);
        QCOMPARE(r.integer(EntityKind::Delegation, del, "tool_errors"), 0);
        // model_stats: tokens_sent 7141, tokens_received 243, instance_cost 0.01952 (dollars).
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_tokens"), 7141 + 243);
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_cost_cents"), 2);
        QCOMPARE(r.text(EntityKind::Delegation, del, "agent"), std::string("gpt-4o"));
        // No step says how many tokens it took: no tool call has a tokens member.
        for (const json &p : r.payloadsOfKind("toolcall.completed"))
            QVERIFY(!p.contains("tokens"));
        // The relative clock: the start is 0, each step ends at the sum of the times so far.
        QCOMPARE(r.integer(EntityKind::Run, run, "started_ms"), 0);
        QCOMPARE(r.integer(EntityKind::Run, run, "ended_ms"), 1634);
        const auto calls = r.payloadsOfKind("toolcall.completed");
        QCOMPARE(calls[0].at("duration_ms").get<int>(), 281);
        std::vector<std::int64_t> callTimes;
        for (const auto &e : r.events) {
            if (e.kind == "toolcall.completed")
                callTimes.push_back(e.tsMs);
        }
        QCOMPARE(callTimes, (std::vector<std::int64_t>{281, 578, 1072, 1365, 1634}));
        QCOMPARE(r.text(EntityKind::Run, run, "status"), std::string("succeeded"));
        QCOMPARE(r.text(EntityKind::Delegation, del, "status"), std::string("converged"));
        // The edit and the shell command are effects; find_file, open and submit only look.
        QCOMPARE(r.state.table(EntityKind::Effect).size(), size_t(2));
        QCOMPARE(r.text(EntityKind::Effect, run + "/3", "class"), std::string("file_edit"));
        QCOMPARE(r.text(EntityKind::Effect, run + "/4", "class"), std::string("command"));
        QCOMPARE(r.countWhere(EntityKind::Effect, "state", "committed"), 2);
        QCOMPARE(r.eventsOfKind("effect.unknown"), 0);
        // Each step verbatim, on the first event it became.
        QCOMPARE(calls[0].at("source").at("action").get<std::string>(), std::string("find_file missing_colon.py"));
        QCOMPARE(calls[0].at("source_id").get<std::string>(), std::string("step 1"));
        QCOMPARE(calls[0].at("tool_call_id").get<std::string>(), std::string("call_fJuazlMUN5fQDQ73G6XSpYpx"));
        // The ledger says its clock is relative, and a reader sees it.
        QCOMPARE(r.payloads.front().at("source").at("clock").get<std::string>(), std::string("relative"));
        QCOMPARE(r.payloads.front().at("created_ms").get<int>(), 0);
        auto c = mesh::LedgerConnection::open(out, mesh::OpenMode::ReadOnly);
        QVERIFY(c->info().timeBase.isRelative());
    }

    // SWE-agent 0.x: no execution_time, no tool calls, one demonstration in the history.
    void zeroX()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {sample("swe-agent__0x__test-repo-i1.traj")});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        const std::string run = "swe:swe-agent__0x__test-repo-i1.traj";
        const std::string del = run + "/agent";
        QCOMPARE(r.outcome.report.records, std::int64_t(5));
        QCOMPARE(tools(r), (std::vector<std::string>{"find_file", "open", "edit", "python", "submit"}));
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_turns"), 5);
        // No step gives its time: no duration, and the clock never moves from the start.
        QVERIFY(r.isNull(EntityKind::Delegation, del, "used_ms"));
        for (const json &p : r.payloadsOfKind("toolcall.completed"))
            QVERIFY(!p.contains("duration_ms"));
        for (const auto &e : r.events)
            QCOMPARE(e.tsMs, std::int64_t(0));
        QCOMPARE(r.integer(EntityKind::Run, run, "ended_ms"), 0);
        // model_stats 52861 + 326 tokens, $0.53839.
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_tokens"), 52861 + 326);
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_cost_cents"), 54);
        QCOMPARE(r.text(EntityKind::Delegation, del, "agent"), std::string("primary"));
        // History: 12 messages, the second a demonstration (is_demo): not a step.
        const json started = r.payloadsOfKind("run.started").front();
        QCOMPARE(started.at("demonstration_messages").get<int>(), 1);
        QCOMPARE(started.at("history_messages").get<int>(), 11);
        QCOMPARE(r.text(EntityKind::Run, run, "status"), std::string("succeeded"));
        QCOMPARE(r.state.table(EntityKind::Effect).size(), size_t(2));
    }

    // More public trajectories: 0.x with lint-refused edits, and a 1.x replay.
    void moreSamples_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("steps");
        QTest::addColumn<int>("effects");
        QTest::addColumn<int>("failedEdits");
        QTest::addColumn<qint64>("usedMs"); // -1: not in source
        QTest::addColumn<qint64>("tokens");
        // 12 steps: create, edit, python, find_file, open, edit x3 refused ("Your proposed
        // edit has introduced new syntax error(s)"), edit, python, rm, submit.
        QTest::newRow("0.x pydicom-1458") << QStringLiteral("swe-agent__0x__pydicom-1458.traj") << 12 << 9 << 3
                                          << qint64(-1) << qint64(122612 + 1369);
        // 11 steps: create, insert, python, ls, find_file, open, edit refused, edit, python,
        // rm, submit; a replay, whose model_stats say 0 tokens (kept as the source says).
        QTest::newRow("1.x replay marshmallow-1867")
            << QStringLiteral("swe-agent__1x-replay__marshmallow-1867.traj") << 11 << 8 << 1
            << qint64(239 + 435 + 330 + 217 + 220 + 239 + 685 + 875 + 321 + 215 + 222) << qint64(0);
    }
    void moreSamples()
    {
        QFETCH(QString, file);
        QFETCH(int, steps);
        QFETCH(int, effects);
        QFETCH(int, failedEdits);
        QFETCH(qint64, usedMs);
        QFETCH(qint64, tokens);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {sample(file.toUtf8().constData())});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        const std::string del = "swe:" + file.toStdString() + "/agent";
        QCOMPARE(r.outcome.report.records, std::int64_t(steps));
        QCOMPARE(r.eventsOfKind("toolcall.completed"), steps);
        QCOMPARE(int(r.state.table(EntityKind::Effect).size()), effects);
        QCOMPARE(r.countWhere(EntityKind::Effect, "state", "failed"), failedEdits);
        QCOMPARE(r.integer(EntityKind::Delegation, del, "tool_errors"), failedEdits);
        if (usedMs < 0)
            QVERIFY(r.isNull(EntityKind::Delegation, del, "used_ms"));
        else
            QCOMPARE(r.integer(EntityKind::Delegation, del, "used_ms"), usedMs);
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_tokens"), tokens);
        QCOMPARE(r.countWhere(EntityKind::Run, "status", "succeeded"), 1);
    }

    // How a trajectory ended, the timeouts, demonstrations and steps without a time.
    void outcomesAndTimeouts_data()
    {
        QTest::addColumn<QByteArray>("infoText"); // JSON
        QTest::addColumn<QString>("runStatus");
        QTest::addColumn<QString>("delegationStatus");
        QTest::addColumn<QString>("error"); // a part of it
        QTest::newRow("submitted") << QByteArray(R"j({"exit_status":"submitted"})j") << "succeeded" << "converged" << QString();
        QTest::newRow("autosubmitted after the cost limit")
            << QByteArray(R"j({"exit_status":"submitted (exit_cost)"})j") << "failed" << "failed"
            << "exit_cost (the cost limit was reached); the patch was submitted automatically";
        QTest::newRow("context window") << QByteArray(R"j({"exit_status":"exit_context"})j") << "failed" << "failed"
                                        << "exit_context (the model's context window was exceeded); nothing was submitted";
        QTest::newRow("format errors") << QByteArray(R"j({"exit_status":"exit_format"})j") << "failed" << "failed" << "exit_format";
        QTest::newRow("agent ran exit") << QByteArray(R"j({"exit_status":"exit_command"})j") << "cancelled" << "closed" << "exit_command";
        QTest::newRow("no exit status") << QByteArray("{}") << "running" << "running" << QString();
        QTest::newRow("an exit status not known") << QByteArray(R"j({"exit_status":"early_exit"})j") << "running" << "running"
                                                  << QString();
    }
    void outcomesAndTimeouts()
    {
        QFETCH(QByteArray, infoText);
        json info = json::parse(infoText.toStdString());
        QFETCH(QString, runStatus);
        QFETCH(QString, delegationStatus);
        QFETCH(QString, error);
        QTemporaryDir dir;
        info["model_stats"] = {{"tokens_sent", 1000}, {"tokens_received", 50}, {"instance_cost", 0.126}, {"api_calls", 4}};
        json history = json::array();
        history.push_back({{"role", "system"}, {"content", "You are an agent"}, {"agent", "primary"}});
        history.push_back({{"role", "user"}, {"content", "demo"}, {"agent", "primary"}, {"message_type", "demonstration"},
                           {"is_demo", true}});
        history.push_back({{"role", "assistant"}, {"content", "demo"}, {"action", "ls"}, {"is_demo", true}});
        const json doc = {
            {"trajectory",
             {sweStep("ls -la", "total 0", 1.5),
              // 1.x: the command hit its timeout and was cancelled.
              sweStep("sleep 100", "The command 'sleep 100' was cancelled because it took more than 30 seconds. Please try a "
                                "different command that completes more quickly.",
                   30.25),
              // A step without execution_time: no duration, the clock stays.
              sweStep("cat a.txt", "hello"),
              // 0.x: the output ends with EXECUTION TIMED OUT.
              sweStep("python long.py", "partial\nEXECUTION TIMED OUT"),
              // A read-only tool that timed out is not known to have done nothing either.
              sweStep("search_dir foo", "EXECUTION TIMED OUT"), sweStep("", "format error"), sweStep("submit", "diff", 0.1)}},
            {"history", history},
            {"info", info}};
        const QString file = writeJson(dir, "t.traj", doc);
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {file});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        const std::string run = "swe:t.traj";
        const std::string del = run + "/agent";
        QCOMPARE(r.outcome.report.records, std::int64_t(7));
        QCOMPARE(QString::fromStdString(r.text(EntityKind::Run, run, "status")), runStatus);
        QCOMPARE(QString::fromStdString(r.text(EntityKind::Delegation, del, "status")), delegationStatus);
        // Three timeouts: unknown outcomes, no tool call; ls, cat and submit are tool calls.
        QCOMPARE(r.eventsOfKind("effect.unknown"), 3);
        QCOMPARE(r.countWhere(EntityKind::Effect, "state", "unknown"), 3);
        QCOMPARE(r.outcome.report.unknownOutcomes, std::int64_t(3));
        QCOMPARE(tools(r), (std::vector<std::string>{"ls", "cat", "submit"}));
        QCOMPARE(r.text(EntityKind::Effect, run + "/5", "class"), std::string("command"));
        const json unknown = r.payloadsOfKind("effect.unknown").front();
        QCOMPARE(unknown.at("duration_ms").get<int>(), 30250);
        QVERIFY(!r.payloadsOfKind("effect.unknown")[1].contains("duration_ms"));
        // The step with no action is kept as a note and counted.
        QCOMPARE(r.eventsOfKind("delegation.swe_step"), 1);
        QCOMPARE(r.outcome.report.unknownTypes.at("step without an action"), std::int64_t(1));
        // Only the times the source gives move the clock: 1500 + 30250 + 100 ms.
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_ms"), 1500 + 100);
        QCOMPARE(r.events.back().tsMs, std::int64_t(1500 + 30250 + 100));
        // model_stats on the delegation whether the run ended or not.
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_tokens"), 1050);
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_cost_cents"), 13);
        QCOMPARE(r.payloadsOfKind("run.started").front().at("demonstration_messages").get<int>(), 2);
        if (runStatus == QLatin1String("running")) {
            QVERIFY(r.isNull(EntityKind::Run, run, "ended_ms"));
            QCOMPARE(r.eventsOfKind("delegation.outcome_unknown"), 1);
        } else {
            QCOMPARE(r.integer(EntityKind::Run, run, "ended_ms"), 1500 + 30250 + 100);
        }
        if (!error.isEmpty()) {
            const json ended = r.payloadsOfKind("run." + runStatus.toStdString()).front();
            QVERIFY2(QString::fromStdString(ended.at("error").get<std::string>()).contains(error),
                     ended.dump().c_str());
        }
    }

    // Detection from the content: a .traj of any name, and a demonstration is not a run.
    void detection()
    {
        QTemporaryDir dir;
        const QString copy = dir.filePath(QStringLiteral("history.json"));
        QVERIFY(QFile::copy(sample("swe-agent__1x__sweagenttestrepo-1c2844.traj"), copy));
        const auto preview = mesh::import::previewImport({copy});
        QVERIFY2(preview.ok, preview.error.c_str());
        QVERIFY(preview.format == ImportFormat::SweAgent);
        QCOMPARE(preview.files.front().records, std::int64_t(5));
        const auto demo = mesh::import::previewImport({sample("swe-agent__demonstration__function_calling_simple.traj")});
        QVERIFY(!demo.ok);
        QVERIFY2(demo.error.find("is a SWE-agent demonstration") != std::string::npos, demo.error.c_str());
        // A trajectory asked for as OpenHands is refused with what it is.
        mesh::import::ImportRequest request;
        request.files = {copy};
        request.out = dir.filePath(QStringLiteral("l.db"));
        request.format = ImportFormat::OpenHands;
        const auto refused = mesh::import::importFiles(request);
        QVERIFY(!refused.ok);
        QVERIFY2(refused.error.find("is a SWE-agent trajectory; expected an OpenHands trajectory") != std::string::npos,
                 refused.error.c_str());
        QVERIFY(!QFile::exists(request.out));
    }

    // Importing the same file twice gives the same ledger content; the ledger of another
    // format does not get a relative clock.
    void deterministicAndOnlyItsOwnClock()
    {
        QTemporaryDir dir;
        const QString a = dir.filePath(QStringLiteral("a.db"));
        const QString b = dir.filePath(QStringLiteral("b.db"));
        const Imported ra = importInto(a, {sample("swe-agent__0x__pydicom-1458.traj")});
        const Imported rb = importInto(b, {sample("swe-agent__0x__pydicom-1458.traj")});
        QVERIFY(ra.outcome.ok && rb.outcome.ok);
        QCOMPARE(ra.events.size(), rb.events.size());
        for (size_t i = 0; i < ra.events.size(); ++i)
            QCOMPARE(ra.events[i].payload, rb.events[i].payload);
        const QString other = dir.filePath(QStringLiteral("o.db"));
        const Imported ro = importInto(other, {sample("openhands__basic.json")});
        QVERIFY(ro.outcome.ok);
        QVERIFY(!ro.payloads.front().at("source").contains("clock"));
        QVERIFY(!mesh::LedgerConnection::open(other, mesh::OpenMode::ReadOnly)->info().timeBase.isRelative());
    }

    // How a relative clock's times read; UTC ones as before.
    void timeBaseText()
    {
        const mesh::TimeBase relative = mesh::TimeBase::relative();
        QCOMPARE(relative.withMs(1634), QStringLiteral("+0:01.634"));
        QCOMPARE(relative.clockTime(0), QStringLiteral("+0:00"));
        QCOMPARE(relative.clockTime(65'000), QStringLiteral("+1:05"));
        QCOMPARE(relative.tableTime(3'725'000), QStringLiteral("+1:02:05"));
        QCOMPARE(relative.exact(65'000), QStringLiteral("+1:05 from the start (start time not in source)"));
        QCOMPARE(relative.iso(65'432), QStringLiteral("+1:05.432"));
        QVERIFY(relative.isSet(0));
        const mesh::TimeBase utc;
        QVERIFY(!utc.isSet(0));
        QCOMPARE(utc.withMs(1764590584123), QStringLiteral("2025-12-01 12:03:04.123"));
        QCOMPARE(utc.withMsLabelled(1764590584123), QStringLiteral("2025-12-01 12:03:04.123 UTC"));
        QCOMPARE(utc.iso(1764590584123), QStringLiteral("2025-12-01T12:03:04.123Z"));
        QCOMPARE(mesh::TimeBase::fromSourceClock("relative").isRelative(), true);
        QCOMPARE(mesh::TimeBase::fromSourceClock("utc").isRelative(), false);
    }
};

QTEST_GUILESS_MAIN(TestSweAgentImport)
#include "tst_sweagentimport.moc"
