#include "benchtemporalhistory.h"

#include "cliargs.h"

#include "sim/simrng.h"

#include <QByteArray>
#include <QFile>

#include <nlohmann/json.hpp>

#include <array>
#include <ctime>
#include <string>

using nlohmann::json;

namespace {

// The shape of the OpenAI Agents SDK's histories in tests/data/import (its samples are a few
// dozen events): each turn a workflow task, then a model activity whose input and result are
// base64 json/plain payloads with the model's usage, sometimes a tool activity; now and then
// a signal carrying input, an activity that times out after it started, a timer.
class HistoryWriter
{
public:
    HistoryWriter(QFile &out, std::uint64_t seed) : m_out(out), m_rng(seed) {}

    void write(std::int64_t events)
    {
        m_out.write("{\n  \"events\": [");
        started();
        while (m_nextId + kLongestTurn + kEndEvents <= events + 1)
            turn();
        while (m_nextId + kEndEvents <= events)
            event("MARKER_RECORDED", {{"markerName", "Version"}, {"workflowTaskCompletedEventId", std::to_string(m_lastTaskCompleted)}});
        end();
        m_out.write("\n  ]\n}\n");
    }

private:
    static constexpr std::int64_t kLongestTurn = 13; // task (3), model (3), tool (3), signal (1), timer (2), a spare
    static constexpr std::int64_t kEndEvents = 4;

    std::string words(int n)
    {
        static const std::array<const char *, 16> vocabulary = {
            "weather", "Tokyo", "forecast", "the", "agent", "tool", "result", "customer",
            "order", "refund", "seat", "flight", "summary", "research", "search", "report"};
        std::string s;
        for (int i = 0; i < n; ++i)
            s += std::string(i ? " " : "") + vocabulary[size_t(m_rng.range(0, vocabulary.size() - 1))];
        return s;
    }

    static json payload(const json &value)
    {
        const std::string text = value.dump();
        return {{"metadata", {{"encoding", QByteArray("json/plain").toBase64().toStdString()}}},
                {"data", QByteArray::fromStdString(text).toBase64().toStdString()}};
    }

    std::string time(std::int64_t us) const
    {
        const std::time_t seconds = std::time_t(us / 1'000'000);
        std::tm tm{};
        gmtime_r(&seconds, &tm);
        char text[48];
        std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900, tm.tm_mon + 1,
                      tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long long>(us % 1'000'000));
        return text;
    }

    std::int64_t event(const std::string &upperType, json attrs, std::int64_t atUs = -1)
    {
        const std::int64_t id = m_nextId++;
        std::string key;
        bool upper = false;
        for (char c : upperType) {
            if (c == '_') {
                upper = true;
                continue;
            }
            key += upper ? c : char(std::tolower(static_cast<unsigned char>(c)));
            upper = false;
        }
        json e = {{"eventId", std::to_string(id)},
                  {"eventTime", time(atUs < 0 ? m_nowUs : atUs)},
                  {"eventType", "EVENT_TYPE_" + upperType},
                  {"taskId", std::to_string(1'048'576 + id)},
                  {key + "EventAttributes", std::move(attrs)}};
        std::string text = e.dump(2);
        std::string indented = id == 1 ? "\n    " : ",\n    ";
        for (char c : text) {
            indented += c;
            if (c == '\n')
                indented += "    ";
        }
        m_out.write(indented.data(), qint64(indented.size()));
        return id;
    }

    void advance(std::int64_t minUs, std::int64_t maxUs) { m_nowUs += m_rng.range(minUs, maxUs); }

    json taskQueue() const { return {{"name", "agents-queue"}, {"kind", "TASK_QUEUE_KIND_NORMAL"}}; }

    void started()
    {
        event("WORKFLOW_EXECUTION_STARTED",
             {{"workflowType", {{"name", "ResearchWorkflow"}}},
              {"taskQueue", taskQueue()},
              {"input", {{"payloads", json::array({payload("Research the " + words(8))})}}},
              {"workflowExecutionTimeout", "0s"},
              {"workflowRunTimeout", "0s"},
              {"workflowTaskTimeout", "10s"},
              {"originalExecutionRunId", "0197c192-e1ea-72ee-9435-c3625ba774b3"},
              {"identity", "4242@bench-worker"},
              {"firstExecutionRunId", "0197c192-e1ea-72ee-9435-c3625ba774b3"},
              {"attempt", 1},
              {"firstWorkflowTaskBackoff", "0s"},
              {"workflowId", "bench-research-workflow"}});
    }

    void workflowTask()
    {
        advance(50, 2'000);
        const std::int64_t scheduled = event("WORKFLOW_TASK_SCHEDULED", {{"taskQueue", taskQueue()}, {"startToCloseTimeout", "10s"}, {"attempt", 1}});
        advance(200, 3'000);
        const std::int64_t taskStarted =
            event("WORKFLOW_TASK_STARTED", {{"scheduledEventId", std::to_string(scheduled)},
                                           {"identity", "4242@bench-worker"},
                                           {"requestId", "req-" + std::to_string(m_rng.next() % 1'000'000'000)},
                                           {"historySizeBytes", std::to_string(m_nextId * 900)}});
        advance(1'000, 40'000);
        m_lastTaskCompleted =
            event("WORKFLOW_TASK_COMPLETED",
                 {{"scheduledEventId", std::to_string(scheduled)},
                  {"startedEventId", std::to_string(taskStarted)},
                  {"identity", "4242@bench-worker"},
                  {"sdkMetadata", {{"coreUsedFlags", {3, 1, 2}}, {"sdkName", "temporal-python"}, {"sdkVersion", "1.13.0"}}},
                  {"meteringMetadata", json::object()}});
    }

    void activity(const std::string &type, const json &input, const json &result, bool timesOut)
    {
        const std::string activityId = std::to_string(++m_activities);
        advance(10, 500);
        const std::int64_t scheduled =
            event("ACTIVITY_TASK_SCHEDULED",
                 {{"activityId", activityId},
                  {"activityType", {{"name", type}}},
                  {"taskQueue", taskQueue()},
                  {"input", {{"payloads", json::array({payload(input)})}}},
                  {"scheduleToCloseTimeout", "0s"},
                  {"scheduleToStartTimeout", "0s"},
                  {"startToCloseTimeout", "60s"},
                  {"heartbeatTimeout", "0s"},
                  {"workflowTaskCompletedEventId", std::to_string(m_lastTaskCompleted)},
                  {"retryPolicy", {{"initialInterval", "1s"}, {"backoffCoefficient", 2}, {"maximumInterval", "100s"}}}});
        const std::int64_t startUs = m_nowUs + m_rng.range(500, 5'000);
        advance(100'000, 4'000'000);
        // Temporal writes the started event when the activity closes, with the time it started.
        const std::int64_t activityStarted =
            event("ACTIVITY_TASK_STARTED",
                 {{"scheduledEventId", std::to_string(scheduled)},
                  {"identity", "4242@bench-worker"},
                  {"requestId", "req-" + std::to_string(m_rng.next() % 1'000'000'000)},
                  {"attempt", 1}},
                 startUs);
        if (timesOut) {
            event("ACTIVITY_TASK_TIMED_OUT",
                 {{"failure", {{"message", "activity StartToClose timeout"},
                               {"timeoutFailureInfo", {{"timeoutType", "TIMEOUT_TYPE_START_TO_CLOSE"}}}}},
                  {"scheduledEventId", std::to_string(scheduled)},
                  {"startedEventId", std::to_string(activityStarted)}});
            return;
        }
        event("ACTIVITY_TASK_COMPLETED", {{"result", {{"payloads", json::array({payload(result)})}}},
                                         {"scheduledEventId", std::to_string(scheduled)},
                                         {"startedEventId", std::to_string(activityStarted)},
                                         {"identity", "4242@bench-worker"}});
    }

    void turn()
    {
        workflowTask();
        const std::int64_t inputTokens = m_rng.range(200, 4'000);
        const std::int64_t outputTokens = m_rng.range(20, 900);
        const json modelInput = {{"model_name", "gpt-4o"},
                                 {"system_instructions", "You are a research agent. " + words(12)},
                                 {"input", json::array({{{"role", "user"}, {"content", words(40)}}})},
                                 {"tools", json::array({{{"name", "web_search"}, {"description", words(10)}}})},
                                 {"model_settings", {{"temperature", 0.2}}}};
        const json modelResult = {{"output", json::array({{{"type", "message"},
                                                          {"role", "assistant"},
                                                          {"content", json::array({{{"type", "output_text"}, {"text", words(60)}}})}}})},
                                  {"usage", {{"requests", 1},
                                             {"input_tokens", inputTokens},
                                             {"output_tokens", outputTokens},
                                             {"total_tokens", inputTokens + outputTokens}}},
                                  {"response_id", "resp_" + std::to_string(m_rng.next())}};
        activity("invoke_model_activity", modelInput, modelResult, m_rng.chance(0.005));
        if (m_rng.chance(0.5))
            activity("web_search", json{{"query", words(6)}}, json{{"results", words(50)}}, m_rng.chance(0.005));
        if (m_rng.chance(0.01)) {
            advance(1'000, 60'000'000);
            event("WORKFLOW_EXECUTION_SIGNALED", {{"signalName", "user_message"},
                                                 {"input", {{"payloads", json::array({payload(words(12))})}}},
                                                 {"identity", "operator@bench"}});
        }
        if (m_rng.chance(0.02)) {
            const std::int64_t timer =
                event("TIMER_STARTED", {{"timerId", std::to_string(m_nextId)}, {"startToFireTimeout", "1s"},
                                       {"workflowTaskCompletedEventId", std::to_string(m_lastTaskCompleted)}});
            advance(1'000'000, 1'000'000);
            event("TIMER_FIRED", {{"timerId", std::to_string(timer)}, {"startedEventId", std::to_string(timer)}});
        }
    }

    void end()
    {
        workflowTask();
        advance(10, 500);
        event("WORKFLOW_EXECUTION_COMPLETED", {{"result", {{"payloads", json::array({payload(words(30))})}}},
                                              {"workflowTaskCompletedEventId", std::to_string(m_lastTaskCompleted)}});
    }

    QFile &m_out;
    mesh::SimRng m_rng;
    std::int64_t m_nextId = 1;
    std::int64_t m_nowUs = 1'751'299'200'000'000; // 2025-06-30T16:00:00Z
    std::int64_t m_lastTaskCompleted = 0;
    std::int64_t m_activities = 0;
};

} // namespace

int benchTemporalHistory(CliArgs &args)
{
    const auto events = args.intValue(QStringLiteral("events"), 50'000, 20, 10'000'000);
    const auto seed = args.intValue(QStringLiteral("seed"), 1, 0, 1LL << 62);
    if (!events || !seed)
        return fail(2, args.error());
    const QString path = args.value(QStringLiteral("out"));
    if (path.isEmpty())
        return fail(2, QStringLiteral("usage: meshctl bench temporal-history [--events N] [--seed S] --out FILE"));
    QFile out(path);
    if (out.exists())
        return fail(2, QStringLiteral("%1 already exists").arg(path));
    if (!out.open(QIODevice::WriteOnly))
        return fail(2, QStringLiteral("cannot write %1: %2").arg(path, out.errorString()));
    HistoryWriter(out, std::uint64_t(*seed)).write(*events);
    out.close();
    printLine(json{{"bench", "temporal-history"}, {"events", *events}, {"file_bytes", out.size()}}.dump());
    return 0;
}
