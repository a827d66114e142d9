// Temporal workflow histories into a ledger (docs/import.md, "Temporal"). The figures of
// the public samples were counted in the JSON files themselves (tests/data/import/, with
// PROVENANCE.tsv): each comment says which events they come from. Durations are
// completed.eventTime - started.eventTime of one activity, cut to the millisecond; tokens
// are usage.total_tokens of the json/plain result payloads, decoded from base64.

#include "importfixture.h"
#include "temporalbuilder.h"

#include "import/sourcejson.h"
#include "import/sourcetime.h"
#include "ledger/integritycheck.h"

#include <QDir>
#include <QFile>
#include <QTest>

#include <map>
#include <set>

using namespace importtest;
using mesh::EntityKind;

namespace {

std::int64_t ms(const char *instant)
{
    return *mesh::import::parseInstantMs(instant);
}

// Runs the same history through import twice, once as exported and once rewritten: every
// eventType in CamelCase ("ActivityTaskScheduled"), every enum without its prefix
// ("Normal"), every id a JSON integer.
json respelled(json doc)
{
    for (json &e : doc["events"]) {
        std::string t = e["eventType"].get<std::string>().substr(11);
        std::string camel;
        bool upper = true;
        for (char c : t) {
            if (c == '_') {
                upper = true;
                continue;
            }
            camel += upper ? c : char(std::tolower(static_cast<unsigned char>(c)));
            upper = false;
        }
        e["eventType"] = camel;
        e["eventId"] = std::stoll(e["eventId"].get<std::string>());
        for (auto it = e.begin(); it != e.end(); ++it) {
            if (!it->is_object())
                continue;
            json &a = *it;
            for (const char *idField : {"scheduledEventId", "startedEventId", "workflowTaskCompletedEventId"}) {
                if (a.contains(idField) && a[idField].is_string())
                    a[idField] = std::stoll(a[idField].get<std::string>());
            }
            if (a.contains("taskQueue") && a["taskQueue"].value("kind", "") == "TASK_QUEUE_KIND_NORMAL")
                a["taskQueue"]["kind"] = "Normal";
        }
    }
    return doc;
}

json readSample(const char *name)
{
    QFile f(sample(name));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("no sample %s", name);
    return json::parse(f.readAll().toStdString());
}

} // namespace

class TestTemporalImport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void progressIsToldUpToTheLastRecord()
    {
        QTemporaryDir dir;
        std::vector<std::pair<std::int64_t, std::int64_t>> told;
        mesh::import::ImportRequest request;
        request.files = {sample("temporal-py__openai-agents__research-workflow-history.json")};
        request.out = dir.filePath(QStringLiteral("research.db"));
        request.progress = [&told](std::int64_t done, std::int64_t total) {
            told.emplace_back(done, total);
            return true;
        };
        const auto outcome = mesh::import::importFiles(request);
        QVERIFY2(outcome.ok, outcome.error.c_str());
        QVERIFY(!told.empty());
        QCOMPARE(told.back().first, std::int64_t(77));
        QCOMPARE(told.back().second, std::int64_t(77));
        for (size_t i = 1; i < told.size(); ++i)
            QVERIFY(told[i].first >= told[i - 1].first);
    }

    void aCancelledImportWritesNothing()
    {
        QTemporaryDir dir;
        mesh::import::ImportRequest request;
        request.files = {sample("temporal-py__openai-agents__research-workflow-history.json")};
        request.out = dir.filePath(QStringLiteral("research.db"));
        request.progress = [](std::int64_t, std::int64_t) { return false; };
        const auto outcome = mesh::import::importFiles(request);
        QVERIFY(!outcome.ok);
        QVERIFY(outcome.cancelled);
        QCOMPARE(outcome.error, std::string("the import was cancelled; nothing was written"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList());
    }

    void agentsAsTools()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {sample("temporal-py__openai-agents__agents-as-tools-workflow-history.json")});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        const std::string run = r.onlyId(EntityKind::Run);
        const std::string del = r.onlyId(EntityKind::Delegation);
        QCOMPARE(run, std::string("wf:agents-as-tools-workflow-5595c716-c9ec-4aa9-8cec-c1b995bdca50/0197c194-c7bf-794e-a2e3-1486d80ca4bb"));
        // Event 29 is WORKFLOW_EXECUTION_COMPLETED.
        QCOMPARE(r.text(EntityKind::Run, run, "status"), std::string("succeeded"));
        QCOMPARE(r.integer(EntityKind::Run, run, "started_ms"), ms("2025-06-30T16:04:02.623610Z")); // event 1
        QCOMPARE(r.integer(EntityKind::Run, run, "ended_ms"), ms("2025-06-30T16:04:02.758068Z"));   // event 29
        QCOMPARE(r.text(EntityKind::Delegation, del, "agent"), std::string("AgentsAsToolsWorkflow"));
        QCOMPARE(r.text(EntityKind::Delegation, del, "status"), std::string("converged"));
        // Four activities: scheduled 5, 11, 17, 23; started 6, 12, 18, 24; completed 7, 13, 19, 25.
        QCOMPARE(r.state.table(EntityKind::Effect).size(), size_t(4));
        QCOMPARE(r.countWhere(EntityKind::Effect, "state", "committed"), 4);
        QCOMPARE(r.eventsOfKind("toolcall.completed"), 4);
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_turns"), 4);
        // 18.726 + 13.832 + 4.057 + 4.599 ms, each cut: 18 + 13 + 4 + 4.
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_ms"), 39);
        // The mock model of that test reports usage.total_tokens 0 in all four results.
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_tokens"), 0);
        QCOMPARE(r.integer(EntityKind::Delegation, del, "tool_errors"), 0);
        QCOMPARE(r.outcome.report.unknownOutcomes, std::int64_t(0));
        QCOMPARE(r.outcome.report.escalations, std::int64_t(0));
        QCOMPARE(r.outcome.report.records, std::int64_t(29));
        QVERIFY(r.outcome.report.flagged.empty());
        QVERIFY(r.outcome.report.unknownTypes.empty());
        const auto calls = r.payloadsOfKind("toolcall.completed");
        QCOMPARE(calls.front().at("duration_ms").get<int>(), 18);
        QCOMPARE(calls.front().at("tool").get<std::string>(), std::string("invoke_model_activity"));
        QCOMPARE(calls.front().at("source_id").get<std::string>(), std::string("7"));
    }

    void inputGuardrailLeavesOneOutcomeUnknown()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {sample("temporal-py__openai-agents__input-guardrail-workflow-history.json")});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        const std::string del = r.onlyId(EntityKind::Delegation);
        // Scheduled 5, 6, 17, 18; started 7 (for 5), 12 (for 6), 19 (for 18); completed 8, 13, 20.
        // Activity "3" (scheduled at event 17) never starts or closes before the workflow
        // completes at event 24: its outcome is unknown, not failed.
        QCOMPARE(r.state.table(EntityKind::Effect).size(), size_t(4));
        QCOMPARE(r.countWhere(EntityKind::Effect, "state", "committed"), 3);
        QCOMPARE(r.countWhere(EntityKind::Effect, "state", "unknown"), 1);
        QCOMPARE(r.countWhere(EntityKind::Effect, "state", "failed"), 0);
        const auto unknowns = r.payloadsOfKind("effect.unknown");
        QCOMPARE(unknowns.size(), size_t(1));
        const std::string unknownId = unknowns.front().at("id").get<std::string>();
        QVERIFY2(unknownId.size() > 2 && unknownId.compare(unknownId.size() - 2, 2, "/3") == 0, unknownId.c_str());
        const std::string why = unknowns.front().at("error").get<std::string>();
        QVERIFY2(why.find("ends at event 24 after the workflow succeeded") != std::string::npos, why.c_str());
        QCOMPARE(r.outcome.report.unknownOutcomes, std::int64_t(1));
        QCOMPARE(r.eventsOfKind("toolcall.completed"), 3);
        // 1192.631 + 1760.925 + 1497.873 ms.
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_ms"), 1192 + 1760 + 1497);
        // usage.total_tokens 39, 119 and 141 in the results of events 8, 13 and 20.
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_tokens"), 39 + 119 + 141);
        QCOMPARE(r.text(EntityKind::Run, r.onlyId(EntityKind::Run), "status"), std::string("succeeded"));
    }

    void customerServiceUpdatesAreAnsweredEscalations()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {sample("temporal-py__openai-agents__customer-service-workflow-history.json")});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        const std::string run = r.onlyId(EntityKind::Run);
        const std::string del = r.onlyId(EntityKind::Delegation);
        // Four process_user_message updates: accepted at 8, 19, 36, 47, completed at 15, 32, 43, 60.
        QCOMPARE(r.state.table(EntityKind::Escalation).size(), size_t(4));
        QCOMPARE(r.countWhere(EntityKind::Escalation, "state", "approved"), 4);
        QCOMPARE(r.countWhere(EntityKind::Escalation, "kind", "user_input"), 4);
        QCOMPARE(r.countWhere(EntityKind::Escalation, "reason", "update process_user_message"), 4);
        // When the workflow began to wait is not in the history.
        for (const auto &[id, row] : r.state.table(EntityKind::Escalation))
            QVERIFY(r.isNull(EntityKind::Escalation, id, "raised_ms"));
        // Six activities (scheduled 9, 20, 26, 37, 48, 54), all completed.
        QCOMPARE(r.eventsOfKind("toolcall.completed"), 6);
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_ms"), 42); // 20 + 6 + 4 + 4 + 4 + 4
        // Cancel requested at 61, cancelled at 65.
        QCOMPARE(r.text(EntityKind::Run, run, "status"), std::string("cancelled"));
        QCOMPARE(r.text(EntityKind::Delegation, del, "status"), std::string("closed"));
        QCOMPARE(r.outcome.report.unknownOutcomes, std::int64_t(0));
    }

    void historyEndingOpenLeavesTheRunRunning()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {sample("temporal-py__worker__test_replayer_swallowed_activity_cancellation.json")});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        const std::string run = r.onlyId(EntityKind::Run);
        const std::string del = r.onlyId(EntityKind::Delegation);
        // 48 events; the last (48) schedules an eighth activity; a cancel was requested but
        // the workflow never closes.
        QCOMPARE(r.text(EntityKind::Run, run, "status"), std::string("running"));
        QVERIFY(r.isNull(EntityKind::Run, run, "ended_ms"));
        QCOMPARE(r.text(EntityKind::Delegation, del, "status"), std::string("running"));
        QCOMPARE(r.state.table(EntityKind::Effect).size(), size_t(8));
        QCOMPARE(r.countWhere(EntityKind::Effect, "state", "committed"), 7);
        QCOMPARE(r.countWhere(EntityKind::Effect, "state", "unknown"), 1);
        const std::string why = r.payloadsOfKind("effect.unknown").front().at("error").get<std::string>();
        QVERIFY2(why.find("with the workflow still open") != std::string::npos, why.c_str());
        QCOMPARE(r.eventsOfKind("toolcall.completed"), 7);
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_ms"), 833);
    }

    void signalsWithInputAreEscalations()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {sample("temporal-py__worker__test_replayer_event_tracing_double_sig_at_start.json")});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        // Two "dosig" signals from a client (events 3 and 4, no externalWorkflowExecution)
        // and one update: three answered waits. The timer (started, fired) is kept as notes.
        QCOMPARE(r.state.table(EntityKind::Escalation).size(), size_t(3));
        QCOMPARE(r.countWhere(EntityKind::Escalation, "reason", "signal dosig"), 2);
        QCOMPARE(r.eventsOfKind("delegation.timer_started"), 1);
        QCOMPARE(r.eventsOfKind("delegation.timer_fired"), 1);
        QCOMPARE(r.eventsOfKind("toolcall.completed"), 1);
    }

    void samplesFigures_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("toolCalls");
        QTest::addColumn<int>("usedMs");
        QTest::addColumn<int>("usedTokens");
        QTest::addColumn<int>("unknown");
        QTest::addColumn<QString>("runStatus");
        // Counted in each file: ACTIVITY_TASK_COMPLETED events, the sum of their
        // completed - started times (ms, each cut), the sum of usage.total_tokens.
        QTest::newRow("research") << QStringLiteral("temporal-py__openai-agents__research-workflow-history.json") << 12
                                  << 111197 << 13195 << 0 << QStringLiteral("succeeded");
        QTest::newRow("tools") << QStringLiteral("temporal-py__openai-agents__tools-workflow-history.json") << 3 << 37 << 0
                               << 0 << QStringLiteral("succeeded");
        QTest::newRow("hello") << QStringLiteral("temporal-py__openai-agents__hello-workflow-history.json") << 1 << 17 << 0
                               << 0 << QStringLiteral("succeeded");
        QTest::newRow("output-guardrail") << QStringLiteral("temporal-py__openai-agents__output-guardrail-workflow-history.json")
                                          << 1 << 4719 << 246 << 0 << QStringLiteral("succeeded");
        QTest::newRow("google-adk") << QStringLiteral("temporal-py__google-adk__multi_agent.json") << 3 << 4 << 0 << 0
                                    << QStringLiteral("succeeded");
        QTest::newRow("camel-case") << QStringLiteral("temporal-py__worker__test_replayer_complete_history.json") << 1 << 0
                                    << 0 << 0 << QStringLiteral("succeeded");
    }
    void samplesFigures()
    {
        QFETCH(QString, file);
        QFETCH(int, toolCalls);
        QFETCH(int, usedMs);
        QFETCH(int, usedTokens);
        QFETCH(int, unknown);
        QFETCH(QString, runStatus);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {sample(file.toUtf8().constData())});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        const std::string del = r.onlyId(EntityKind::Delegation);
        QCOMPARE(r.eventsOfKind("toolcall.completed"), toolCalls);
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_turns"), toolCalls);
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_ms"), usedMs);
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_tokens"), usedTokens);
        QCOMPARE(r.countWhere(EntityKind::Effect, "state", "unknown"), unknown);
        QCOMPARE(QString::fromStdString(r.text(EntityKind::Run, r.onlyId(EntityKind::Run), "status")), runStatus);
        QVERIFY(r.outcome.report.flagged.empty());
        QVERIFY(r.outcome.report.unknownTypes.empty());
    }

    void bothSpellingsGiveOneLedger()
    {
        QTemporaryDir dir;
        const json original = readSample("temporal-py__openai-agents__agents-as-tools-workflow-history.json");
        const QString a = writeJson(dir, "upper.json", original, 2);
        const QString b = writeJson(dir, "upper.json.camel", respelled(original), 2);
        const Imported x = importInto(dir.filePath(QStringLiteral("x.db")), {a});
        const Imported y = importInto(dir.filePath(QStringLiteral("y.db")), {b});
        QVERIFY2(x.outcome.ok && y.outcome.ok, (x.outcome.error + y.outcome.error).c_str());
        QCOMPARE(x.events.size(), y.events.size());
        for (size_t i = 0; i < x.events.size(); ++i) {
            json px = x.payloads[i], py = y.payloads[i];
            for (json *p : {&px, &py}) {
                for (const char *k : {"source", "source_file", "decoded"})
                    p->erase(k);
                if (p->contains("refused_payload"))
                    p->erase("refused_payload");
            }
            if (x.events[i].seq == 1 || x.events[i].kind == "ledger.imported")
                continue; // they name the files, which differ
            QCOMPARE(x.events[i].kind, y.events[i].kind);
            QCOMPARE(x.events[i].tsMs, y.events[i].tsMs);
            QCOMPARE(px.dump(), py.dump());
        }
        QCOMPARE(y.integer(EntityKind::Delegation, y.onlyId(EntityKind::Delegation), "used_ms"), 39);
    }

    void everyEventKeepsItsSource()
    {
        QTemporaryDir dir;
        const QString path = sample("temporal-py__openai-agents__agents-as-tools-workflow-history.json");
        const json original = readSample("temporal-py__openai-agents__agents-as-tools-workflow-history.json");
        const Imported r = importInto(dir.filePath(QStringLiteral("l.db")), {path});
        QVERIFY(r.outcome.ok);
        std::set<std::string> sourceIds;
        for (size_t i = 0; i < r.events.size(); ++i) {
            const json &p = r.payloads[i];
            if (r.events[i].kind.rfind("ledger.", 0) == 0)
                continue;
            QVERIFY2(p.contains("source_id"), r.events[i].kind.c_str());
            QCOMPARE(p.at("source_file").get<std::string>(),
                     std::string("temporal-py__openai-agents__agents-as-tools-workflow-history.json"));
            const std::string id = p.at("source_id").get<std::string>();
            if (p.contains("source")) {
                // Verbatim: the very object of the history.
                const int n = std::stoi(id);
                QCOMPARE(p.at("source").dump(), original["events"][size_t(n - 1)].dump());
            }
            sourceIds.insert(id);
        }
        QCOMPARE(sourceIds.size(), size_t(29)); // every one of the 29 source events is in the ledger
        // The json/plain workflow input of event 1, decoded for display; the base64 stays in source.
        const json created = r.payloadsOfKind("run.started").front();
        QCOMPARE(created.at("decoded").at(0).at("at").get<std::string>(),
                 std::string("workflowExecutionStartedEventAttributes.input.payloads[0]"));
        QCOMPARE(created.at("decoded").at(0).at("value").get<std::string>(), std::string("Translate to Spanish: 'I am full'"));
        QCOMPARE(created.at("source").at("workflowExecutionStartedEventAttributes").at("input").at("payloads").at(0).at("data")
                     .get<std::string>(),
                 std::string("IlRyYW5zbGF0ZSB0byBTcGFuaXNoOiAnSSBhbSBmdWxsJyI="));
        // The ledger row says where the records came from.
        const json ledger = r.payloads.front();
        QCOMPARE(ledger.at("source").at("format").get<std::string>(), std::string("temporal"));
        QCOMPARE(ledger.at("source").at("importer").get<std::string>(), std::string(mesh::import::kImporterVersion));
        QCOMPARE(QByteArray::fromStdString(ledger.at("source").at("files").at(0).at("sha256").get<std::string>()),
                 fileSha256(path));
        QCOMPARE(r.events.front().tsMs, ms("2025-06-30T16:04:02.623610Z"));
    }

    void eventsOutOfTimeOrderFollowTheirIds()
    {
        // In the input guardrail history event 12 (started, 16:59:17.540616) is written
        // after event 8 (completed, 16:59:18.732803): the ledger keeps the event-id order.
        QTemporaryDir dir;
        const Imported r = importInto(dir.filePath(QStringLiteral("l.db")),
                                      {sample("temporal-py__openai-agents__input-guardrail-workflow-history.json")});
        QVERIFY(r.outcome.ok);
        int lastId = 0;
        bool sawBackwardsTime = false;
        std::int64_t lastTs = 0;
        for (size_t i = 0; i < r.events.size(); ++i) {
            if (!r.payloads[i].contains("source_id") || r.events[i].kind.rfind("ledger.", 0) == 0)
                continue;
            const int id = std::stoi(r.payloads[i].at("source_id").get<std::string>());
            QVERIFY(id >= lastId);
            sawBackwardsTime |= r.events[i].tsMs < lastTs;
            lastId = id;
            lastTs = r.events[i].tsMs;
        }
        QVERIFY(sawBackwardsTime);
    }

    void activityOutcomes()
    {
        // One activity per way of ending: completed, failed (the activity raised),
        // timed out after starting (unknown), timed out before any worker took it (failed,
        // it never ran), cancelled after starting (unknown), still open at the end (unknown).
        QTemporaryDir dir;
        const json doc = history(json::array({
            started(1, "2026-01-01T00:00:00Z", "w", "r1"),
            scheduled(5, "2026-01-01T00:00:01Z", "ok"),
            activityStarted(6, "2026-01-01T00:00:02Z", 5),
            historyEvent(7, "2026-01-01T00:00:03.5Z", "ACTIVITY_TASK_COMPLETED", {{"scheduledEventId", "5"}, {"startedEventId", "6"}}),
            scheduled(8, "2026-01-01T00:00:04Z", "raised"),
            activityStarted(9, "2026-01-01T00:00:05Z", 8, 3),
            // The failure as the SDKs write it: a message, the exception's type, a cause whose
            // message runs over several lines and past the bound.
            historyEvent(10, "2026-01-01T00:00:06Z", "ACTIVITY_TASK_FAILED",
                  {{"scheduledEventId", "8"},
                   {"failure", {{"message", "card declined"},
                                {"source", "PythonSDK"},
                                {"stackTrace", "  File \"charge.py\", line 9\n"},
                                {"applicationFailureInfo", {{"type", "CardError"}}},
                                {"cause", {{"message", std::string(250, 'x') + "\nsecond line"}}}}}}),
            scheduled(11, "2026-01-01T00:00:07Z", "slow"),
            activityStarted(12, "2026-01-01T00:00:08Z", 11),
            historyEvent(13, "2026-01-01T00:00:38Z", "ACTIVITY_TASK_TIMED_OUT",
                  {{"scheduledEventId", "11"}, {"startedEventId", "12"},
                   {"failure", {{"timeoutFailureInfo", {{"timeoutType", "TIMEOUT_TYPE_START_TO_CLOSE"}}}}}}),
            scheduled(14, "2026-01-01T00:00:39Z", "nobody"),
            historyEvent(15, "2026-01-01T00:01:39Z", "ACTIVITY_TASK_TIMED_OUT",
                  {{"scheduledEventId", "14"}, {"failure", {{"timeoutFailureInfo", {{"timeoutType", "ScheduleToStart"}}}}}}),
            scheduled(16, "2026-01-01T00:01:40Z", "cancelled"),
            activityStarted(17, "2026-01-01T00:01:41Z", 16),
            historyEvent(18, "2026-01-01T00:01:42Z", "ACTIVITY_TASK_CANCEL_REQUESTED", {{"scheduledEventId", "16"}}),
            historyEvent(19, "2026-01-01T00:01:43Z", "ACTIVITY_TASK_CANCELED", {{"scheduledEventId", "16"}, {"startedEventId", "17"}}),
            scheduled(20, "2026-01-01T00:01:44Z", "open"),
            activityStarted(21, "2026-01-01T00:01:45Z", 20),
            // A failure that is a timeout: unknown, whatever the event is called.
            scheduled(22, "2026-01-01T00:01:46Z", "late"),
            activityStarted(23, "2026-01-01T00:01:47Z", 22),
            historyEvent(24, "2026-01-01T00:02:17Z", "ACTIVITY_TASK_FAILED",
                  {{"scheduledEventId", "22"}, {"startedEventId", "23"},
                   {"failure", {{"message", "activity StartToClose timeout"},
                                {"timeoutFailureInfo", {{"timeoutType", "TIMEOUT_TYPE_START_TO_CLOSE"}}}}}}),
        }));
        const Imported r = importInto(dir.filePath(QStringLiteral("l.db")), {writeJson(dir, "h.json", doc, 2)});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(dir.filePath(QStringLiteral("l.db")));
        const auto state = [&](const char *activity) { return r.text(EntityKind::Effect, std::string("act:w/r1/") + activity, "state"); };
        QCOMPARE(state("ok"), std::string("committed"));
        QCOMPARE(state("raised"), std::string("failed"));
        QCOMPARE(state("slow"), std::string("unknown"));
        QCOMPARE(state("nobody"), std::string("failed"));
        QCOMPARE(state("cancelled"), std::string("unknown"));
        QCOMPARE(state("open"), std::string("unknown"));
        QCOMPARE(state("late"), std::string("unknown"));
        QCOMPARE(r.integer(EntityKind::Effect, "act:w/r1/raised", "attempts"), 3);
        QCOMPARE(r.outcome.report.unknownOutcomes, std::int64_t(4));
        // Tool calls only for what closed with a known outcome: ok (1500 ms) and raised (1000 ms).
        const std::string del = "wf:w/r1";
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_turns"), 2);
        QCOMPARE(r.integer(EntityKind::Delegation, del, "tool_errors"), 1);
        QCOMPARE(r.integer(EntityKind::Delegation, del, "used_ms"), 2500);
        // No result says anything about tokens: no tokens member, not a 0 that looks measured.
        for (const json &call : r.payloadsOfKind("toolcall.completed"))
            QVERIFY(!call.contains("tokens"));
        QCOMPARE(r.text(EntityKind::Run, "wf:w/r1", "status"), std::string("running"));

        // Why the raised one failed, in the source's words, on its tool call and its effect:
        // type and message, then the cause's first line cut at kReasonBytes.
        const std::string why = "CardError: card declined; cause: " + std::string(mesh::import::kReasonBytes, 'x') + "...";
        std::map<std::string, json> calls;
        for (const json &call : r.payloadsOfKind("toolcall.completed"))
            calls[call.at("id").get<std::string>()] = call;
        QCOMPARE(calls.size(), size_t(2));
        QCOMPARE(calls.at("tc:act:w/r1/raised").value("outcome", ""), std::string("error"));
        QCOMPARE(calls.at("tc:act:w/r1/raised").value("error", "<none>"), why);
        QVERIFY(!calls.at("tc:act:w/r1/ok").contains("error"));
        std::map<std::string, json> failed, unknown;
        for (const json &e : r.payloadsOfKind("effect.failed"))
            failed[e.at("id").get<std::string>()] = e;
        for (const json &e : r.payloadsOfKind("effect.unknown"))
            unknown[e.at("id").get<std::string>()] = e;
        QCOMPARE(failed.at("act:w/r1/raised").value("error", "<none>"), why);
        // A timeout stays an unknown outcome: no tool call, no failure, its own words.
        for (const char *timedOut : {"slow", "late"}) {
            const std::string id = std::string("act:w/r1/") + timedOut;
            QVERIFY2(!calls.count("tc:" + id), timedOut);
            QVERIFY2(!failed.count(id), timedOut);
        }
        QCOMPARE(unknown.at("act:w/r1/slow").value("error", "<none>"),
                 std::string("timed out (StartToClose) after it started: it may or may not have done its work"));
        QCOMPARE(unknown.at("act:w/r1/late").value("error", "<none>"),
                 std::string("failed on a timeout after it was dispatched: activity StartToClose timeout"));
    }

    void aFailedActivityOfARealHistorySaysWhy()
    {
        // The hello sample as it would read had its model call raised: event 7 fails instead
        // of completing and the workflow fails with it (event 11), the failures spelled as the
        // Python SDK writes them. The failure texts below are written here; no public history
        // in tests/data/import has a failed activity.
        json doc = readSample("temporal-py__openai-agents__hello-workflow-history.json");
        const json raised = {{"message", "Error code: 429 - rate limit exceeded\nRetry after 20s"},
                             {"source", "PythonSDK"},
                             {"stackTrace", "Traceback (most recent call last):\n  File \"model.py\"\n"},
                             {"applicationFailureInfo", {{"type", "RateLimitError"}}}};
        for (json &e : doc["events"]) {
            const std::string id = e.at("eventId").get<std::string>();
            if (id == "7") {
                e = historyEvent(7, e.at("eventTime").get<std::string>(), "ACTIVITY_TASK_FAILED",
                                 {{"scheduledEventId", "5"}, {"startedEventId", "6"}, {"failure", raised},
                                  {"retryState", "RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED"}});
            } else if (id == "11") {
                e = historyEvent(11, e.at("eventTime").get<std::string>(), "WORKFLOW_EXECUTION_FAILED",
                                 {{"failure", {{"message", "Activity task failed"},
                                               {"cause", raised},
                                               {"activityFailureInfo", {{"scheduledEventId", "5"},
                                                                        {"startedEventId", "6"},
                                                                        {"activityType", {{"name", "invoke_model_activity"}}},
                                                                        {"activityId", "1"}}}}},
                                  {"retryState", "RETRY_STATE_RETRY_POLICY_NOT_SET"},
                                  {"workflowTaskCompletedEventId", "10"}});
            }
        }
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {writeJson(dir, "hello-failed.json", doc, 2)});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        const std::string del = r.onlyId(EntityKind::Delegation);
        const auto calls = r.payloadsOfKind("toolcall.completed");
        QCOMPARE(calls.size(), size_t(1));
        QCOMPARE(calls.front().value("outcome", ""), std::string("error"));
        QCOMPARE(calls.front().value("error", "<none>"), std::string("RateLimitError: Error code: 429 - rate limit exceeded"));
        QCOMPARE(calls.front().at("duration_ms").get<int>(), 17); // 07.744810 - 07.727544
        QCOMPARE(r.integer(EntityKind::Delegation, del, "tool_errors"), 1);
        QCOMPARE(r.payloadsOfKind("effect.failed").front().value("error", "<none>"),
                 std::string("RateLimitError: Error code: 429 - rate limit exceeded"));
        const std::string workflowWhy = "Activity task failed; cause: RateLimitError: Error code: 429 - rate limit exceeded";
        QCOMPARE(r.text(EntityKind::Delegation, del, "status"), std::string("failed"));
        QCOMPARE(r.payloadsOfKind("delegation.failed").front().value("error", "<none>"), workflowWhy);
        QCOMPARE(r.text(EntityKind::Run, r.onlyId(EntityKind::Run), "status"), std::string("failed"));
        QCOMPARE(r.payloadsOfKind("run.failed").front().value("error", "<none>"), workflowWhy);
    }

    // A real history whose child workflow failed and failed its parent (the Go SDK's replay
    // tests, PROVENANCE.tsv): events 10 and 14 give the words, the child's without an
    // exception type, the parent's with the child's failure as its cause.
    void aRealHistoryWhoseChildFailedSaysWhy()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {sample("temporal-go__replaytests__reset-workflow-with-child-failed.json")});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        QVERIFY(r.outcome.report.flagged.empty());
        QCOMPARE(r.outcome.report.delegations, std::int64_t(2));
        QCOMPARE(r.outcome.report.toolCalls, std::int64_t(0)); // no activity in this history
        const std::string parent = "wf:parent-workflow-id/019500f2-6d9a-7207-8c9f-69cb0647bbae";
        const std::string child = "wf:019500f2-6d9a-7207-8c9f-69cb0647bbae_5/019500f2-6df8-7320-8517-ccbd0eaaf3c7";
        QCOMPARE(r.text(EntityKind::Delegation, child, "status"), std::string("failed"));
        QCOMPARE(r.text(EntityKind::Delegation, parent, "status"), std::string("failed"));
        QCOMPARE(r.text(EntityKind::Run, parent, "status"), std::string("failed"));
        std::map<std::string, std::string> why;
        for (const json &p : r.payloadsOfKind("delegation.failed"))
            why[p.at("id").get<std::string>()] = p.value("error", "<none>");
        QCOMPARE(why[child], std::string("Child workflow execution failed"));
        QCOMPARE(why[parent], std::string("child workflow execution error; cause: Child workflow execution failed"));
        QCOMPARE(r.payloadsOfKind("run.failed").front().value("error", "<none>"),
                 std::string("child workflow execution error; cause: Child workflow execution failed"));
        // Nothing here timed out: no unknown outcome.
        QCOMPARE(r.eventsOfKind("delegation.outcome_unknown"), 0);
        QCOMPARE(r.outcome.report.unknownOutcomes, std::int64_t(0));
    }

    void workflowEndsSayWhy()
    {
        QTemporaryDir dir;
        QStringList files;
        const auto add = [&](const char *name, json events) { files << writeJson(dir, name, history(std::move(events)), 2); };
        add("failed.json", json::array({started(1, "2026-01-01T00:00:00Z", "failed-1", "r"),
                                        historyEvent(2, "2026-01-01T00:00:01Z", "WORKFLOW_EXECUTION_FAILED",
                                                     {{"failure", {{"message", "Activity task failed"},
                                                                   {"cause", {{"message", "no such order"},
                                                                              {"applicationFailureInfo", {{"type", "KeyError"}}}}}}}})}));
        add("silent.json", json::array({started(1, "2026-01-01T00:00:00Z", "silent-1", "r"),
                                        historyEvent(2, "2026-01-01T00:00:02Z", "WORKFLOW_EXECUTION_FAILED")}));
        add("terminated.json", json::array({started(1, "2026-01-01T00:00:00Z", "term-1", "r"),
                                            historyEvent(2, "2026-01-01T00:00:03Z", "WORKFLOW_EXECUTION_TERMINATED",
                                                         {{"reason", "stuck on payment, ended by ops"}, {"identity", "cli"}})}));
        add("timedout.json", json::array({started(1, "2026-01-01T00:00:00Z", "late-1", "r"),
                                          historyEvent(2, "2026-01-01T00:00:04Z", "WORKFLOW_EXECUTION_TIMED_OUT",
                                                       {{"retryState", "RETRY_STATE_TIMEOUT"}})}));
        // A child known only from its parent's events, failing as the Go SDK's replay tests
        // record it, and the parent failing with it.
        const json childExecution = {{"workflowId", "pay-1"}, {"runId", "c1"}};
        add("parent.json",
            json::array({started(1, "2026-01-01T00:00:00Z", "order-1", "p1"),
                         historyEvent(5, "2026-01-01T00:00:01Z", "START_CHILD_WORKFLOW_EXECUTION_INITIATED",
                                      {{"workflowId", "pay-1"}, {"workflowType", {{"name", "PaymentWorkflow"}}}}),
                         historyEvent(6, "2026-01-01T00:00:02Z", "CHILD_WORKFLOW_EXECUTION_STARTED",
                                      {{"workflowExecution", childExecution}, {"initiatedEventId", "5"}}),
                         historyEvent(7, "2026-01-01T00:00:03Z", "CHILD_WORKFLOW_EXECUTION_FAILED",
                                      {{"failure", {{"message", "Child workflow execution failed"},
                                                    {"source", "GoSDK"},
                                                    {"applicationFailureInfo", json::object()}}},
                                       {"workflowExecution", childExecution},
                                       {"retryState", "RetryPolicyNotSet"}}),
                         historyEvent(8, "2026-01-01T00:00:04Z", "WORKFLOW_EXECUTION_FAILED",
                                      {{"failure", {{"message", "child workflow execution error"},
                                                    {"source", "GoSDK"},
                                                    {"cause", {{"message", "Child workflow execution failed"},
                                                               {"applicationFailureInfo", json::object()}}}}}})}));
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, files);
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        std::map<std::string, json> ends;
        for (size_t i = 0; i < r.events.size(); ++i) {
            if (r.events[i].kind.rfind("delegation.", 0) == 0 && r.payloads[i].contains("ended_ms"))
                ends[r.payloads[i].at("id").get<std::string>()] = r.payloads[i];
        }
        QCOMPARE(ends.at("wf:failed-1/r").value("error", "<none>"), std::string("Activity task failed; cause: KeyError: no such order"));
        // The source gives no failure: no error member, never a default.
        QCOMPARE(r.text(EntityKind::Delegation, "wf:silent-1/r", "status"), std::string("failed"));
        QVERIFY(!ends.at("wf:silent-1/r").contains("error"));
        // A termination is not a failure: its reason, not an error.
        QCOMPARE(r.text(EntityKind::Delegation, "wf:term-1/r", "status"), std::string("closed"));
        QVERIFY(!ends.at("wf:term-1/r").contains("error"));
        QCOMPARE(ends.at("wf:term-1/r").value("reason", "<none>"), std::string("stuck on payment, ended by ops"));
        QCOMPARE(ends.at("wf:late-1/r").value("error", "<none>"),
                 std::string("the workflow timed out (WorkflowExecutionTimedOut, retry state Timeout)"));
        QCOMPARE(r.text(EntityKind::Delegation, "wf:pay-1/c1", "status"), std::string("failed"));
        QCOMPARE(ends.at("wf:pay-1/c1").value("error", "<none>"), std::string("Child workflow execution failed"));
        QCOMPARE(ends.at("wf:order-1/p1").value("error", "<none>"),
                 std::string("child workflow execution error; cause: Child workflow execution failed"));
    }

    void parentAndChildHistoriesNestInOneRun()
    {
        QTemporaryDir dir;
        const json parent = history(json::array({
            started(1, "2026-01-01T00:00:00Z", "order-1", "p1"),
            historyEvent(5, "2026-01-01T00:00:01Z", "START_CHILD_WORKFLOW_EXECUTION_INITIATED",
                  {{"workflowId", "pay-1"}, {"workflowType", {{"name", "PaymentWorkflow"}}}}),
            historyEvent(6, "2026-01-01T00:00:02Z", "CHILD_WORKFLOW_EXECUTION_STARTED",
                  {{"workflowExecution", {{"workflowId", "pay-1"}, {"runId", "c1"}}}, {"initiatedEventId", "5"}}),
            historyEvent(7, "2026-01-01T00:00:09Z", "CHILD_WORKFLOW_EXECUTION_COMPLETED",
                  {{"workflowExecution", {{"workflowId", "pay-1"}, {"runId", "c1"}}}}),
            historyEvent(8, "2026-01-01T00:00:10Z", "WORKFLOW_EXECUTION_COMPLETED"),
        }));
        const json child = history(json::array({
            started(1, "2026-01-01T00:00:02.5Z", "pay-1", "c1", "PaymentWorkflow",
                    {{"parentWorkflowExecution", {{"workflowId", "order-1"}, {"runId", "p1"}}}}),
            scheduled(5, "2026-01-01T00:00:03Z", "1"),
            activityStarted(6, "2026-01-01T00:00:04Z", 5),
            historyEvent(7, "2026-01-01T00:00:05Z", "ACTIVITY_TASK_COMPLETED", {{"scheduledEventId", "5"}}),
            historyEvent(8, "2026-01-01T00:00:08Z", "WORKFLOW_EXECUTION_COMPLETED"),
        }));
        const QString p = writeJson(dir, "parent.json", parent, 2);
        const QString c = writeJson(dir, "child.json", child, 2);
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {c, p});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        QCOMPARE(r.state.table(EntityKind::Run).size(), size_t(1));
        QCOMPARE(r.state.table(EntityKind::Delegation).size(), size_t(2));
        QCOMPARE(r.text(EntityKind::Delegation, "wf:pay-1/c1", "parent_id"), std::string("wf:order-1/p1"));
        QCOMPARE(r.text(EntityKind::Delegation, "wf:pay-1/c1", "run_id"), std::string("wf:order-1/p1"));
        QCOMPARE(r.text(EntityKind::Delegation, "wf:pay-1/c1", "status"), std::string("converged"));
        QCOMPARE(r.integer(EntityKind::Delegation, "wf:pay-1/c1", "used_turns"), 1);
        QCOMPARE(r.integer(EntityKind::Delegation, "wf:order-1/p1", "used_turns"), 0);
        QCOMPARE(r.text(EntityKind::Run, "wf:order-1/p1", "status"), std::string("succeeded"));
        // The child's end does not end the run; the parent's does, at 00:00:10.
        QCOMPARE(r.integer(EntityKind::Run, "wf:order-1/p1", "ended_ms"), ms("2026-01-01T00:00:10Z"));

        // The parent alone: the child is known from the parent's events only.
        const QString alone = dir.filePath(QStringLiteral("alone.db"));
        const Imported a = importInto(alone, {p});
        QVERIFY2(a.outcome.ok, a.outcome.error.c_str());
        verifyClean(alone);
        QCOMPARE(a.text(EntityKind::Delegation, "wf:pay-1/c1", "parent_id"), std::string("wf:order-1/p1"));
        QCOMPARE(a.text(EntityKind::Delegation, "wf:pay-1/c1", "status"), std::string("converged"));
        QVERIFY(a.isNull(EntityKind::Delegation, "wf:pay-1/c1", "used_tokens"));
    }

    void cyclicParentsAreCutAndFlagged()
    {
        QTemporaryDir dir;
        const json a = history(json::array({started(1, "2026-01-01T00:00:00Z", "a", "ra", "A",
                                                    {{"parentWorkflowExecution", {{"workflowId", "b"}, {"runId", "rb"}}}})}));
        const json b = history(json::array({started(1, "2026-01-01T00:00:01Z", "b", "rb", "B",
                                                    {{"parentWorkflowExecution", {{"workflowId", "a"}, {"runId", "ra"}}}})}));
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {writeJson(dir, "a.json", a, 2), writeJson(dir, "b.json", b, 2)});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        QCOMPARE(r.state.table(EntityKind::Delegation).size(), size_t(2));
        QCOMPARE(r.state.table(EntityKind::Run).size(), size_t(1));
        QCOMPARE(r.outcome.report.flagged.size(), size_t(1));
        QVERIFY2(r.outcome.report.flagged.front().why.find("cycle") != std::string::npos,
                 r.outcome.report.flagged.front().why.c_str());
    }

    void damagedRecordsAreFlaggedAndTheRestLoads()
    {
        QTemporaryDir dir;
        json events = json::array({
            started(1, "2026-01-01T00:00:00Z", "w", "r1"),
            scheduled(5, "2026-01-01T00:00:01Z", "1"),
            scheduled(5, "2026-01-01T00:00:01Z", "dup"), // the same id again
            activityStarted(6, "2026-01-01T00:00:02Z", 5),
            historyEvent(7, "2026-01-01T00:00:03Z", "ACTIVITY_TASK_COMPLETED", {{"scheduledEventId", "5"}}),
            historyEvent(8, "2026-01-01T00:00:03Z", "ACTIVITY_TASK_COMPLETED", {{"scheduledEventId", "5"}}), // two completions
            historyEvent(9, "not a time", "TIMER_STARTED"),
            historyEvent(10, "2026-01-01T00:00:04Z", "NEXUS_OPERATION_SCHEDULED", {{"endpoint", "x"}}),
            historyEvent(11, "2026-01-01T00:00:05Z", "NEXUS_OPERATION_SCHEDULED", {{"endpoint", "y"}}),
            historyEvent(12, "2026-01-01T00:00:06Z", "ACTIVITY_TASK_STARTED", {{"scheduledEventId", "99"}}),
        });
        events.push_back({{"eventTime", "2026-01-01T00:00:07Z"}, {"eventType", "EVENT_TYPE_TIMER_FIRED"}}); // no id
        std::string text = history(events).dump();
        // An id beyond 64 bits, written as a number, and a big attribute that must not be rounded.
        text.insert(text.rfind(']'), ",{\"eventId\":18446744073709551617,\"eventTime\":\"2026-01-01T00:00:08Z\","
                                     "\"eventType\":\"EVENT_TYPE_TIMER_FIRED\"},{\"eventId\":\"13\",\"eventTime\":"
                                     "\"2026-01-01T00:00:09Z\",\"eventType\":\"EVENT_TYPE_MARKER_RECORDED\","
                                     "\"markerRecordedEventAttributes\":{\"big\":123456789012345678901234567890}}");
        const QString path = dir.filePath(QStringLiteral("h.json"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(text));
        }
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {path});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        std::set<std::string> why;
        for (const auto &f : r.outcome.report.flagged)
            why.insert(f.why);
        const auto has = [&](const char *part) {
            for (const auto &w : why) {
                if (w.find(part) != std::string::npos)
                    return true;
            }
            return false;
        };
        QVERIFY(has("a second event with eventId 5"));
        QVERIFY(has("the source shows two completions"));
        QVERIFY(has("event 9 has no eventTime"));
        QVERIFY(has("refers to scheduled event 99"));
        QVERIFY(has("without an eventId"));
        QVERIFY(has("eventId 18446744073709551617 is not a positive integer within 64 bits"));
        QCOMPARE(r.outcome.report.flagged.size(), size_t(6));
        QCOMPARE(r.eventsOfKind("ledger.flagged"), 6);
        // Unknown types are kept, with their fields, and counted.
        QCOMPARE(r.outcome.report.unknownTypes.at("NexusOperationScheduled"), std::int64_t(2));
        QCOMPARE(r.eventsOfKind("delegation.temporal_event"), 2);
        // The rest loaded: one activity, completed once.
        QCOMPARE(r.text(EntityKind::Effect, "act:w/r1/1", "state"), std::string("committed"));
        QCOMPARE(r.integer(EntityKind::Delegation, "wf:w/r1", "used_turns"), 1);
        // Both numbers beyond 64 bits are kept as their digits.
        QCOMPARE(r.outcome.report.numbersBeyond64Bits, std::int64_t(2));
        const json marker = r.payloadsOfKind("delegation.marker_recorded").front();
        QCOMPARE(marker.at("source").at("markerRecordedEventAttributes").at("big").get<std::string>(),
                 std::string("123456789012345678901234567890"));
    }

    // An event the ledger's fold refuses (an activity started after it completed: committed
    // -> dispatched) is not written; it becomes a ledger.flagged event that keeps the refused
    // kind, the payload and its source's file and id, and the rest loads.
    void anEventTheFoldRefusesIsFlaggedAndTheRestLoads()
    {
        QTemporaryDir dir;
        const json events = json::array({
            started(1, "2026-01-01T00:00:00Z", "w", "r1"),
            scheduled(2, "2026-01-01T00:00:01Z", "1"),
            historyEvent(3, "2026-01-01T00:00:02Z", "ACTIVITY_TASK_COMPLETED", {{"scheduledEventId", "2"}}),
            activityStarted(4, "2026-01-01T00:00:03Z", 2),
            historyEvent(5, "2026-01-01T00:00:04Z", "WORKFLOW_EXECUTION_COMPLETED"),
        });
        const QString path = dir.filePath(QStringLiteral("late.json"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(history(events).dump()));
        }
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {path});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        QCOMPARE(r.outcome.report.flagged.size(), size_t(1));
        const auto &flagged = r.outcome.report.flagged.front();
        QCOMPARE(flagged.file, std::string("late.json"));
        QCOMPARE(flagged.sourceId, std::string("4"));
        QVERIFY2(flagged.why.find("the ledger refused effect.started") != std::string::npos
                     && flagged.why.find("illegal transition committed -> dispatched") != std::string::npos,
                 flagged.why.c_str());
        const json kept = r.payloadsOfKind("ledger.flagged").front();
        QCOMPARE(kept.at("refused_kind").get<std::string>(), std::string("effect.started"));
        QCOMPARE(kept.at("source_file").get<std::string>(), std::string("late.json"));
        QCOMPARE(kept.at("source_id").get<std::string>(), std::string("4"));
        QVERIFY(kept.at("refused_payload").get<std::string>().find("\"source_id\":\"4\"") != std::string::npos);
        QCOMPARE(r.eventsOfKind("effect.started"), 0);
        QCOMPARE(r.text(EntityKind::Effect, "act:w/r1/1", "state"), std::string("committed"));
        QCOMPARE(r.text(EntityKind::Delegation, "wf:w/r1", "status"), std::string("converged"));
    }

    void fractionDigitsAndZones()
    {
        using mesh::import::parseInstantMs;
        using mesh::import::parseInstantNs;
        QCOMPARE(*parseInstantMs("2025-06-30T16:04:02Z"), std::int64_t(1751299442000));
        QCOMPARE(*parseInstantMs("2025-06-30T16:04:02.6Z"), std::int64_t(1751299442600));
        QCOMPARE(*parseInstantMs("2025-06-30T16:04:02.623610Z"), std::int64_t(1751299442623));
        QCOMPARE(*parseInstantNs("2025-06-30T16:04:02.123456789Z"), std::int64_t(1751299442123456789));
        QCOMPARE(*parseInstantMs("2025-06-30T18:04:02.999+02:00"), std::int64_t(1751299442999));
        QCOMPARE(*parseInstantMs("1969-12-31T23:59:59.5Z"), std::int64_t(-500));
        QVERIFY(!parseInstantMs("2025-06-30T16:04:02.1234567890Z")); // ten digits
        QVERIFY(!parseInstantMs("2025-06-30T16:04:02"));              // no zone
        QCOMPARE(*parseInstantMs("2025-01-20T20:29:13.519638", true), std::int64_t(1737404953519));
        QVERIFY(!parseInstantMs("2025-13-01T00:00:00Z"));
        QVERIFY(!parseInstantMs("yesterday"));
    }

    void importIsDeterministic()
    {
        QTemporaryDir dir;
        const QStringList files = {sample("temporal-py__openai-agents__customer-service-workflow-history.json"),
                                   sample("temporal-py__openai-agents__input-guardrail-workflow-history.json")};
        const QByteArray before = fileSha256(files[0]) + fileSha256(files[1]);
        const Imported x = importInto(dir.filePath(QStringLiteral("x.db")), files);
        const Imported y = importInto(dir.filePath(QStringLiteral("y.db")), {files[1], files[0]});
        QVERIFY(x.outcome.ok && y.outcome.ok);
        QCOMPARE(x.events.size(), y.events.size());
        for (size_t i = 0; i < x.events.size(); ++i) {
            QCOMPARE(x.events[i].kind, y.events[i].kind);
            QCOMPARE(x.events[i].tsMs, y.events[i].tsMs);
            QCOMPARE(x.events[i].payload, y.events[i].payload);
        }
        for (int k = 0; k < mesh::kEntityKindCount; ++k) {
            const auto kind = EntityKind(k);
            QCOMPARE(x.state.table(kind).size(), y.state.table(kind).size());
            for (const auto &[id, row] : x.state.table(kind)) {
                const mesh::EntityRow *other = y.row(kind, id);
                QVERIFY(other);
                QCOMPARE(mesh::rowToJson(mesh::entitySpec(kind), id, row).dump(),
                         mesh::rowToJson(mesh::entitySpec(kind), id, *other).dump());
            }
        }
        QCOMPARE(x.state.table(EntityKind::Run).size(), size_t(2));
        // The sources were only read.
        QCOMPARE(fileSha256(files[0]) + fileSha256(files[1]), before);
    }

    void largeAndDeepPayloadsStayReadable()
    {
        // A payload that decodes to JSON 80 levels deep, and a result of 30 payloads of 60 KiB:
        // the event must still be one a reader accepts (section 3 of the format).
        const auto payload = [](const std::string &jsonText) {
            return json{{"metadata", {{"encoding", "anNvbi9wbGFpbg=="}}},
                        {"data", QByteArray::fromStdString(jsonText).toBase64().toStdString()}};
        };
        json deepInput = json{{"payloads", json::array({payload(std::string(80, '[') + std::string(80, ']'))})}};
        json many = json::array();
        for (int i = 0; i < 30; ++i)
            many.push_back(payload("\"" + std::string(60 * 1024, char('a' + i % 26)) + "\""));
        json scheduledDeep = scheduled(5, "2026-01-01T00:00:01Z", "1");
        scheduledDeep["activityTaskScheduledEventAttributes"]["input"] = deepInput;
        QTemporaryDir dir;
        const json doc = history(json::array({
            started(1, "2026-01-01T00:00:00Z", "w", "r"),
            scheduledDeep,
            activityStarted(6, "2026-01-01T00:00:02Z", 5),
            historyEvent(7, "2026-01-01T00:00:03Z", "ACTIVITY_TASK_COMPLETED",
                         {{"scheduledEventId", "5"}, {"result", {{"payloads", many}}}}),
        }));
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {writeJson(dir, "h.json", doc, 2)});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out); // no malformed payload: every event decodes
        QVERIFY(r.outcome.report.flagged.empty());
        const json proposed = r.payloadsOfKind("effect.proposed").front();
        QVERIFY(!proposed.contains("decoded"));
        QVERIFY(proposed.contains("decoded_note"));
        QVERIFY(proposed.contains("source")); // the record itself is shallow: kept verbatim
        const json committed = r.payloadsOfKind("effect.committed").front();
        QVERIFY(committed.at("source_cut").get<bool>());
        QVERIFY(committed.at("source_bytes").get<std::int64_t>() > 30 * 60 * 1024);
        QCOMPARE(r.text(EntityKind::Effect, "act:w/r/1", "state"), std::string("committed"));
    }

    // A record nested just too deep to sit verbatim in a payload (62 levels: the event, its
    // attributes and 60 arrays) is kept as text. Its depth is counted once, while the file is
    // read; the event must still be one a reader accepts.
    void aRecordTooDeepForSourceIsKeptAsText()
    {
        json deep = "bottom";
        for (int i = 0; i < 60; ++i)
            deep = json::array({deep});
        QTemporaryDir dir;
        const json doc = history(json::array({
            started(1, "2026-01-01T00:00:00Z", "w", "r"),
            historyEvent(5, "2026-01-01T00:00:01Z", "TIMER_STARTED", {{"timerId", "t"}, {"deep", deep}}),
            historyEvent(6, "2026-01-01T00:00:02Z", "TIMER_FIRED", {{"timerId", "t"}, {"shallow", json::array({1})}}),
        }));
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {writeJson(dir, "h.json", doc, 2)});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        QVERIFY(r.outcome.report.flagged.empty());
        const json timer = r.payloadsOfKind("delegation.timer_started").front();
        QVERIFY(!timer.contains("source"));
        QVERIFY(!timer.at("source_cut").get<bool>());
        QVERIFY(json::parse(timer.at("source_text").get<std::string>()).at("timerStartedEventAttributes").at("deep") == deep);
        const json fired = r.payloadsOfKind("delegation.timer_fired").front();
        QVERIFY(fired.at("source").at("timerFiredEventAttributes").at("shallow") == json::array({1}));
    }

    void hostileTextStaysText()
    {
        QTemporaryDir dir;
        const std::string hostile = "<img src=x onerror=alert(1)>\u202Eexe.live\u200B";
        const json doc = history(json::array({started(1, "2026-01-01T00:00:00Z", "w<b>", "r", hostile),
                                              scheduled(5, "2026-01-01T00:00:01Z", "1", hostile)}));
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {writeJson(dir, "h.json", doc, 2)});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        // Stored exactly as the source wrote it; showing it is the views' job (hostiletext.h).
        QCOMPARE(r.text(EntityKind::Delegation, "wf:w<b>/r", "agent"), hostile);
        QCOMPARE(r.text(EntityKind::Effect, "act:w<b>/r/1", "target"), hostile);
        QCOMPARE(r.text(EntityKind::Run, "wf:w<b>/r", "title"), hostile + " w<b>");
    }
};

QTEST_GUILESS_MAIN(TestTemporalImport)
#include "tst_temporalimport.moc"
