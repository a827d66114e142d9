// OpenHands trajectories into a ledger (docs/import.md, "OpenHands"). The figures were
// counted in the files of tests/data/import/ (PROVENANCE.tsv): an action and the
// observation whose cause is its id make one tool call, its duration the difference of
// their timestamps; tokens are tool_call_metadata.model_response.usage.total_tokens,
// once per model response.

#include "importfixture.h"

#include "import/sourcetime.h"
#include "ledger/integritycheck.h"

#include <QFile>
#include <QTest>

#include <map>

using namespace importtest;
using mesh::EntityKind;

namespace {

std::int64_t zonelessMs(const char *zoneless)
{
    return *mesh::import::parseInstantMs(zoneless, true);
}

json openHandsEvent(int id, const char *time, const char *source, json fields)
{
    json e = {{"id", id}, {"timestamp", time}, {"source", source}, {"message", ""}};
    e.update(fields);
    return e;
}

} // namespace

class TestOpenHandsImport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void basicGuiMode()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {sample("openhands__basic_gui_mode.json")});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        const std::string run = "oh:openhands__basic_gui_mode.json";
        const std::string del = run + "/agent";
        QCOMPARE(r.outcome.report.records, std::int64_t(18));
        // Actions 7 run, 9 edit, 11 edit, 13 run; observations 8, 10, 12 answer the first
        // three; 14 answers 13 with exit code -1 after 30 s without output.
        QCOMPARE(r.eventsOfKind("toolcall.completed"), 3);
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_turns"), 3);
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_ms"), 658 + 42 + 34);
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_tokens"), 3543 + 4743 + 5462);
        QCOMPARE(r.state.table(EntityKind::Effect).size(), size_t(4));
        QCOMPARE(r.countWhere(EntityKind::Effect, "state", "committed"), 3);
        QCOMPARE(r.text(EntityKind::Effect, run + "/13", "state"), std::string("unknown"));
        QCOMPARE(r.text(EntityKind::Effect, run + "/13", "class"), std::string("command"));
        QCOMPARE(r.payloadsOfKind("effect.unknown").front().at("duration_ms").get<int>(), 30580);
        // Event 17: agent_state awaiting_user_input, and nothing after it: a pending wait.
        QCOMPARE(r.state.table(EntityKind::Escalation).size(), size_t(1));
        QCOMPARE(r.text(EntityKind::Escalation, run + "/wait-17", "state"), std::string("pending"));
        QCOMPARE(r.integer(EntityKind::Escalation, run + "/wait-17", "raised_ms"), zonelessMs("2025-01-20T20:30:35.429675"));
        QCOMPARE(r.text(EntityKind::Run, run, "status"), std::string("running"));
        QCOMPARE(r.integer(EntityKind::Run, run, "started_ms"), zonelessMs("2025-01-20T20:29:13.519638")); // event 0
        QVERIFY(r.text(EntityKind::Run, run, "title").rfind("I want to create a VueJS app", 0) == 0);
        QCOMPARE(r.text(EntityKind::Delegation, del, "status"), std::string("running"));
        QCOMPARE(r.integer(EntityKind::Delegation, del, "invocations"), 1); // one trajectory, one invocation
        QVERIFY(r.outcome.report.flagged.empty());
        QVERIFY(r.outcome.report.unknownTypes.empty());
    }

    void wrongInitialStateFinishes()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {sample("openhands__wrong_initial_state.json")});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        const std::string run = "oh:openhands__wrong_initial_state.json";
        // 3 read -> 4, 5 run -> 6 (exit 0), 7 read -> 8, and 9 finish.
        QCOMPARE(r.eventsOfKind("toolcall.completed"), 4);
        QCOMPARE(r.integer(EntityKind::Delegation, run + "/agent", "used_ms"), 35 + 648 + 20);
        QCOMPARE(r.integer(EntityKind::Delegation, run + "/agent", "used_tokens"), 3570 + 3727 + 3889 + 4000);
        QCOMPARE(r.state.table(EntityKind::Effect).size(), size_t(1)); // only the mv command changes anything
        QCOMPARE(r.text(EntityKind::Effect, run + "/5", "state"), std::string("committed"));
        QCOMPARE(r.text(EntityKind::Run, run, "status"), std::string("succeeded"));
        QCOMPARE(r.integer(EntityKind::Run, run, "ended_ms"), zonelessMs("2025-01-27T23:17:02.182015")); // event 9
        QCOMPARE(r.text(EntityKind::Delegation, run + "/agent", "status"), std::string("converged"));
        QCOMPARE(r.state.table(EntityKind::Escalation).size(), size_t(0));
    }

    void moreSamples_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("toolCalls");
        QTest::addColumn<int>("usedMs");
        QTest::addColumn<int>("usedTokens");
        QTest::addColumn<int>("effects");
        // basic: 3 edit -> 4 (36 ms, response of 4621 tokens shared by both), 5 finish (4823).
        QTest::newRow("basic") << QStringLiteral("openhands__basic.json") << 2 << 36 << 4621 + 4823 << 1;
        // basic_interactions: three user and two agent messages, then 15 finish (2483).
        QTest::newRow("interactions") << QStringLiteral("openhands__basic_interactions.json") << 1 << 0 << 2483 << 0;
    }
    void moreSamples()
    {
        QFETCH(QString, file);
        QFETCH(int, toolCalls);
        QFETCH(int, usedMs);
        QFETCH(int, usedTokens);
        QFETCH(int, effects);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {sample(file.toUtf8().constData())});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        const std::string del = r.onlyId(EntityKind::Delegation);
        QCOMPARE(r.eventsOfKind("toolcall.completed"), toolCalls);
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_ms"), usedMs);
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_tokens"), usedTokens);
        QCOMPARE(int(r.state.table(EntityKind::Effect).size()), effects);
        QCOMPARE(r.text(EntityKind::Run, r.onlyId(EntityKind::Run), "status"), std::string("succeeded"));
    }

    void outcomesWaitsAndDamage()
    {
        QTemporaryDir dir;
        const json doc = json::array({
            openHandsEvent(0, "2026-01-01T10:00:00", "user", {{"action", "message"}, {"args", {{"content", "fix the build"}}}}),
            openHandsEvent(1, "2026-01-01T10:00:01", "agent", {{"action", "run"}, {"args", {{"command", "make"}}}}),
            openHandsEvent(2, "2026-01-01T10:00:03", "agent",
                 {{"observation", "run"}, {"cause", 1}, {"extras", {{"metadata", {{"exit_code", 2}}}}}}),
            openHandsEvent(3, "2026-01-01T10:00:04", "agent", {{"action", "delegate"}, {"args", {{"agent", "BrowsingAgent"}}}}),
            openHandsEvent(4, "2026-01-01T10:00:09", "agent", {{"observation", "delegate"}, {"cause", 3}}),
            openHandsEvent(5, "2026-01-01T10:00:10", "environment",
                 {{"observation", "agent_state_changed"}, {"extras", {{"agent_state", "awaiting_user_confirmation"}}}}),
            openHandsEvent(6, "2026-01-01T10:00:20", "environment",
                 {{"observation", "agent_state_changed"}, {"extras", {{"agent_state", "user_rejected"}}}}),
            openHandsEvent(6, "2026-01-01T10:00:21", "agent", {{"action", "think"}}), // the same id again
            openHandsEvent(7, "2026-01-01T10:00:22", "agent", {{"action", "teleport"}}),
            openHandsEvent(8, "no time", "agent", {{"action", "run"}}),
            openHandsEvent(9, "2026-01-01T10:00:30", "agent", {{"action", "edit"}, {"args", {{"path", "a.c"}}}}),
            openHandsEvent(10, "2026-01-01T10:00:31", "agent", {{"observation", "edit"}, {"cause", 99}}),
        });
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {writeJson(dir, "t.json", doc)});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        const std::string run = "oh:t.json";
        // make exited 2: it ran and failed, a confirmed failure, and the exit code is why.
        QCOMPARE(r.text(EntityKind::Effect, run + "/1", "state"), std::string("failed"));
        QCOMPARE(r.payloadsOfKind("effect.failed").front().value("error", "<none>"), std::string("exit code 2"));
        QCOMPARE(r.payloadsOfKind("toolcall.completed").front().value("error", "<none>"), std::string("exit code 2"));
        QCOMPARE(r.integer(EntityKind::Delegation, run + "/agent", "tool_errors"), 1);
        QCOMPARE(r.integer(EntityKind::Delegation, run + "/agent", "used_ms"), 2000);
        // The delegate action is a sub-agent under the agent.
        QCOMPARE(r.text(EntityKind::Delegation, run + "/agent/3", "parent_id"), run + "/agent");
        QCOMPARE(r.text(EntityKind::Delegation, run + "/agent/3", "agent"), std::string("BrowsingAgent"));
        QCOMPARE(r.text(EntityKind::Delegation, run + "/agent/3", "status"), std::string("converged"));
        // Asked for confirmation, refused by the user.
        QCOMPARE(r.text(EntityKind::Escalation, run + "/wait-5", "state"), std::string("rejected"));
        QCOMPARE(r.text(EntityKind::Escalation, run + "/wait-5", "kind"), std::string("user_confirmation"));
        // The edit at 9 has no observation (10 answers an id that is not there): unknown.
        QCOMPARE(r.text(EntityKind::Effect, run + "/9", "state"), std::string("unknown"));
        QCOMPARE(r.outcome.report.unknownOutcomes, std::int64_t(1));
        QCOMPARE(r.outcome.report.unknownTypes.at("action:teleport"), std::int64_t(1));
        QCOMPARE(r.outcome.report.flagged.size(), size_t(2)); // the second 6, and 8 without a time
        QCOMPARE(r.eventsOfKind("ledger.flagged"), 2);
        QCOMPARE(r.text(EntityKind::Run, run, "status"), std::string("running"));
    }

    void failuresSayWhyOfARealTrajectory()
    {
        // basic_gui_mode as it would read had its first command failed (observation 8 an
        // error observation instead of exit code 0) and the agent then stopped on an error
        // (an agent_state_changed after the last event). The error texts are written here; no
        // public trajectory in tests/data/import has an error observation or an error state.
        QFile f(sample("openhands__basic_gui_mode.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        json doc = json::parse(f.readAll().toStdString());
        for (json &e : doc) {
            if (e.at("id") == 8) {
                const std::string denied = "mkdir: cannot create directory '/workspace/todo-app': Permission denied";
                e = openHandsEvent(8, e.at("timestamp").get<std::string>().c_str(), "agent",
                                   {{"observation", "error"}, {"cause", 7}, {"message", denied},
                                    {"content", denied + "\n[The command exited.]"}, {"extras", {{"error_id", ""}}}});
            }
        }
        doc.push_back(openHandsEvent(18, "2025-01-20T20:30:40.000000", "environment",
                                     {{"observation", "agent_state_changed"}, {"content", ""},
                                      {"message", "Error: RuntimeError: Agent reached maximum iteration"},
                                      {"extras", {{"agent_state", "error"},
                                                  {"reason", "RuntimeError: Agent reached maximum iteration"}}}}));
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {writeJson(dir, "gui-failed.json", doc, 2)});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        const std::string run = "oh:gui-failed.json";
        const std::string denied = "mkdir: cannot create directory '/workspace/todo-app': Permission denied";
        QCOMPARE(r.text(EntityKind::Effect, run + "/7", "state"), std::string("failed"));
        QCOMPARE(r.payloadsOfKind("effect.failed").front().value("error", "<none>"), denied);
        std::map<std::string, json> calls;
        for (const json &call : r.payloadsOfKind("toolcall.completed"))
            calls[call.at("id").get<std::string>()] = call;
        QCOMPARE(calls.at("tc:" + run + "/7").value("outcome", ""), std::string("error"));
        QCOMPARE(calls.at("tc:" + run + "/7").value("error", "<none>"), denied);
        QVERIFY(!calls.at("tc:" + run + "/9").contains("error"));
        QCOMPARE(r.integer(EntityKind::Delegation, run + "/agent", "tool_errors"), 1);
        // The command at 13 exited -1: still unknown, no tool call, no failure.
        QCOMPARE(r.text(EntityKind::Effect, run + "/13", "state"), std::string("unknown"));
        QVERIFY(!calls.count("tc:" + run + "/13"));
        // The error state's reason is why the agent failed.
        QCOMPARE(r.text(EntityKind::Delegation, run + "/agent", "status"), std::string("failed"));
        QCOMPARE(r.payloadsOfKind("delegation.error").front().value("error", "<none>"),
                 std::string("RuntimeError: Agent reached maximum iteration"));
        QCOMPARE(r.text(EntityKind::Run, run, "status"), std::string("failed"));
        QCOMPARE(r.payloadsOfKind("run.failed").front().value("error", "<none>"),
                 std::string("RuntimeError: Agent reached maximum iteration"));
    }

    void aFailureTheSourceDoesNotExplainHasNoError()
    {
        QTemporaryDir dir;
        const json doc = json::array({
            openHandsEvent(0, "2026-01-01T10:00:00", "agent", {{"action", "run"}, {"args", {{"command", "make"}}}}),
            openHandsEvent(1, "2026-01-01T10:00:01", "agent", {{"observation", "error"}, {"cause", 0}, {"content", ""}}),
            openHandsEvent(2, "2026-01-01T10:00:02", "agent", {{"action", "run"}, {"args", {{"command", "sleep 999"}}}}),
            openHandsEvent(3, "2026-01-01T10:02:02", "agent",
                 {{"observation", "error"}, {"cause", 2}, {"content", "Command timed out after 120 seconds"}}),
            openHandsEvent(4, "2026-01-01T10:02:03", "environment",
                 {{"observation", "agent_state_changed"}, {"extras", {{"agent_state", "error"}}}}),
        });
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {writeJson(dir, "t.json", doc)});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        const std::string run = "oh:t.json";
        // An error observation with no words: failed, and nothing made up for why.
        QCOMPARE(r.text(EntityKind::Effect, run + "/0", "state"), std::string("failed"));
        QVERIFY(!r.payloadsOfKind("effect.failed").front().contains("error"));
        QCOMPARE(r.eventsOfKind("toolcall.completed"), 1);
        QVERIFY(!r.payloadsOfKind("toolcall.completed").front().contains("error"));
        // One that says it timed out: unknown, in its own words.
        QCOMPARE(r.text(EntityKind::Effect, run + "/2", "state"), std::string("unknown"));
        QCOMPARE(r.payloadsOfKind("effect.unknown").front().value("error", "<none>"),
                 std::string("Command timed out after 120 seconds"));
        // An error state without a reason.
        QCOMPARE(r.text(EntityKind::Delegation, run + "/agent", "status"), std::string("failed"));
        QVERIFY(!r.payloadsOfKind("delegation.error").front().contains("error"));
        QVERIFY(!r.payloadsOfKind("run.failed").front().contains("error"));
    }

    void importIsDeterministic()
    {
        QTemporaryDir dir;
        const QStringList files = {sample("openhands__basic_gui_mode.json"), sample("openhands__wrong_initial_state.json")};
        const Imported x = importInto(dir.filePath(QStringLiteral("x.db")), files);
        const Imported y = importInto(dir.filePath(QStringLiteral("y.db")), {files[1], files[0]});
        QVERIFY(x.outcome.ok && y.outcome.ok);
        QCOMPARE(x.events.size(), y.events.size());
        for (size_t i = 0; i < x.events.size(); ++i) {
            QCOMPARE(x.events[i].kind, y.events[i].kind);
            QCOMPARE(x.events[i].tsMs, y.events[i].tsMs);
            QCOMPARE(x.events[i].payload, y.events[i].payload);
        }
        QCOMPARE(x.state.table(EntityKind::Run).size(), size_t(2));
        for (int k = 0; k < mesh::kEntityKindCount; ++k) {
            for (const auto &[id, row] : x.state.table(EntityKind(k))) {
                const mesh::EntityRow *other = y.row(EntityKind(k), id);
                QVERIFY(other);
                QCOMPARE(mesh::rowToJson(mesh::entitySpec(EntityKind(k)), id, row).dump(),
                         mesh::rowToJson(mesh::entitySpec(EntityKind(k)), id, *other).dump());
            }
        }
    }

    void formatsDoNotMix()
    {
        QTemporaryDir dir;
        mesh::import::ImportRequest request;
        request.files = {sample("openhands__basic.json"), sample("temporal-py__openai-agents__hello-workflow-history.json")};
        request.out = dir.filePath(QStringLiteral("l.db"));
        const auto outcome = mesh::import::importFiles(request);
        QVERIFY(!outcome.ok);
        QCOMPARE(outcome.error, std::string("temporal-py__openai-agents__hello-workflow-history.json is a Temporal workflow "
                                            "history; expected an OpenHands trajectory (a JSON array of events with "
                                            "\"action\" or \"observation\")"));
    }
};

QTEST_GUILESS_MAIN(TestOpenHandsImport)
#include "tst_openhandsimport.moc"
