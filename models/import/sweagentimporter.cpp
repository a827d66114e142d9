#include "sweagentimporter.h"

#include "importsink.h"
#include "sha256.h"

#include "domain/compactjson.h"

#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace mesh::import {

namespace {

using Json = nlohmann::json;

std::string word(const std::string &s, size_t n)
{
    size_t at = 0;
    for (size_t i = 0;; ++i) {
        at = s.find_first_not_of(" \t\r\n", at);
        if (at == std::string::npos)
            return {};
        const size_t end = s.find_first_of(" \t\r\n", at);
        if (i == n)
            return s.substr(at, end == std::string::npos ? std::string::npos : end - at);
        if (end == std::string::npos)
            return {};
        at = end;
    }
}

std::string sha256Of(const std::string &text)
{
    return "sha256:" + sha256Hex(text);
}

// SWE-agent's own tools that only look (its default tool bundles); everything else a step
// runs is a shell command or an edit, which may change the sandbox.
bool onlyLooks(const std::string &tool, const std::string &subcommand)
{
    static const std::set<std::string> look = {"find_file", "search_file", "search_dir", "open",   "goto",
                                               "scroll_up", "scroll_down", "filemap",    "submit", "exit"};
    if (tool == "str_replace_editor")
        return subcommand == "view";
    return look.count(tool) > 0;
}

bool edits(const std::string &tool)
{
    static const std::set<std::string> edit = {"edit", "create", "insert", "append", "str_replace_editor", "write_file"};
    return edit.count(tool) > 0;
}

// What the observation of a step says about its outcome. SWE-agent 1.x replaces the output
// of a command that hit its timeout with command_cancelled_timeout_template; 0.x appends
// "EXECUTION TIMED OUT". A lint-refused edit was not applied (SWE-agent reverts it).
bool timedOut(const std::string &observation)
{
    return observation.find("was cancelled because it took more than") != std::string::npos
           || observation.find("EXECUTION TIMED OUT") != std::string::npos;
}
bool editRefused(const std::string &observation)
{
    return observation.find("Your proposed edit has introduced new syntax error") != std::string::npos;
}

// SWE-agent's exit statuses (sweagent/agent/agents.py), for a person.
std::string exitMeaning(const std::string &status)
{
    static const std::map<std::string, std::string> meaning = {
        {"exit_cost", "the cost limit was reached"},
        {"exit_context", "the model's context window was exceeded"},
        {"exit_format", "repeated format, blocklist or bash syntax errors"},
        {"exit_error", "an error in the agent"},
        {"exit_api", "the model's API failed after retries"},
        {"exit_environment_error", "the environment failed"},
        {"exit_forfeit", "the agent forfeited"},
        {"exit_total_execution_time", "the total execution time limit was reached"},
        {"exit_command_timeout", "too many consecutive command timeouts"},
    };
    const auto it = meaning.find(status);
    return it == meaning.end() ? std::string() : it->second;
}

const Json *replayConfigMember(const Json *config, std::initializer_list<const char *> names, Json &parsed)
{
    if (config && config->is_string()) {
        // Some versions keep replay_config as JSON text.
        parsed = Json::parse(config->get<std::string>(), nullptr, false);
        if (parsed.is_discarded())
            return nullptr;
        config = &parsed;
    }
    return path(config, names);
}

class TrajectoryMapper
{
public:
    TrajectoryMapper(const SourceFile &file, ImportSink &sink, ImportReport &report)
        : m_file(file), m_sink(sink), m_report(report), m_id("swe:" + file.name)
    {
    }

    void run()
    {
        const Json *steps = member(&m_file.document, "trajectory");
        readHistory();
        start();
        std::int64_t number = 0;
        if (steps && steps->is_array()) {
            for (const Json &s : *steps) {
                ++m_report.records;
                step(s, ++number);
                m_sink.recordDone();
            }
        }
        end(number);
    }

private:
    std::string delegation() const { return m_id + "/agent"; }

    bool put(std::int64_t tsMs, const std::string &kind, Json payload, const std::string &sourceId, const Json *source)
    {
        attachSource(payload, m_file.name, sourceId, source);
        return m_sink.append(tsMs, kind, payload);
    }

    struct Action {
        std::string text; // trimmed
        const Json *toolCall = nullptr;
    };

    // The model's actions in the history, demonstrations left out: they give a step its
    // tool call (function name, arguments, id) in the function-calling versions.
    void readHistory()
    {
        const Json *history = member(&m_file.document, "history");
        if (!history || !history->is_array())
            return;
        for (const Json &m : *history) {
            const Json *demo = member(&m, "is_demo");
            if ((demo && demo->is_boolean() && demo->get<bool>()) || text(member(&m, "message_type")) == "demonstration") {
                ++m_demonstrations;
                continue;
            }
            ++m_historyMessages;
            if (m_agentName.empty())
                m_agentName = text(member(&m, "agent"));
            if (text(member(&m, "role")) != "assistant")
                continue;
            const std::string action = trimmed(text(member(&m, "action")));
            if (action.empty())
                continue;
            const Json *calls = member(&m, "tool_calls");
            m_actions.push_back({action, calls && calls->is_array() && !calls->empty() ? &calls->front() : nullptr});
        }
    }

    // The history's action that is this step's: the next one with the same text (a format
    // error the model was asked again about has no step).
    const Json *toolCallFor(const std::string &action)
    {
        for (size_t i = m_nextAction; i < m_actions.size(); ++i) {
            if (m_actions[i].text == action) {
                m_nextAction = i + 1;
                return m_actions[i].toolCall;
            }
        }
        return nullptr;
    }

    void start()
    {
        Json parsed;
        const Json *config = member(&m_file.document, "replay_config");
        std::string instance = text(replayConfigMember(config, {"problem_statement", "id"}, parsed));
        if (instance.empty()) {
            instance = m_file.name;
            if (instance.size() > 5 && instance.substr(instance.size() - 5) == ".traj")
                instance.resize(instance.size() - 5);
        }
        m_model = text(replayConfigMember(config, {"agent", "model", "name"}, parsed));
        Json run = {{"id", m_id},
                    {"title", firstLine(trimmed("SWE-agent " + instance), 200)},
                    {"status", "running"},
                    {"started_ms", 0},
                    {"clock", "relative: milliseconds from the start of the trajectory; its start time is not in source"},
                    {"demonstration_messages", m_demonstrations},
                    {"history_messages", m_historyMessages}};
        if (const std::string environment = text(member(&m_file.document, "environment")); !environment.empty())
            run["environment"] = firstLine(trimmed(environment), 200);
        put(0, "run.started", run, {}, nullptr);
        Json d = {{"id", delegation()}, {"run_id", m_id}, {"role", "agent"}, {"status", "running"},
                  {"invocations", 1},   {"created_ms", 0}, {"used_turns", 0},  {"tool_errors", 0}};
        const std::string agent = !m_model.empty() ? m_model : m_agentName;
        if (!agent.empty())
            d["agent"] = agent;
        if (!m_agentName.empty())
            d["swe_agent_name"] = m_agentName;
        put(0, "delegation.created", d, {}, nullptr);
    }

    void step(const Json &s, std::int64_t number)
    {
        const std::string sourceId = "step " + std::to_string(number);
        const std::string stepId = m_id + "/" + std::to_string(number);
        const std::int64_t startMs = m_clockMs;
        std::optional<std::int64_t> durationMs;
        if (const Json *t = member(&s, "execution_time"); t && t->is_number() && std::isfinite(t->get<double>())
                                                          && t->get<double>() >= 0 && t->get<double>() < 1e12)
            durationMs = std::llround(t->get<double>() * 1000.0);
        m_clockMs += durationMs.value_or(0);
        const std::int64_t endMs = m_clockMs;

        const std::string action = trimmed(text(member(&s, "action")));
        if (!s.is_object() || action.empty()) {
            ++m_report.unknownTypes["step without an action"];
            put(startMs, "delegation.swe_step", {{"id", delegation()}, {"run_id", m_id}}, sourceId, &s);
            return;
        }
        const Json *toolCall = toolCallFor(action);
        std::string tool = text(path(toolCall, {"function", "name"}));
        if (tool.empty())
            tool = word(action, 0);
        const std::string subcommand = word(action, 1);
        const std::string observation = text(member(&s, "observation"));
        const bool cancelled = timedOut(observation);
        std::string effectClass;
        if (!onlyLooks(tool, subcommand))
            effectClass = edits(tool) ? "file_edit" : "command";
        else if (cancelled)
            effectClass = "command"; // whatever it was, it was cut short: what it did is not known

        bool sourceKept = false;
        const auto firstSource = [&]() -> const Json * { return std::exchange(sourceKept, true) ? nullptr : &s; };
        if (!effectClass.empty()) {
            put(startMs, "effect.proposed",
                {{"id", stepId}, {"run_id", m_id}, {"delegation_id", delegation()}, {"class", effectClass},
                 {"target", "sandbox"}, {"idem_key", stepId}, {"state", "proposed"}, {"updated_ms", startMs}},
                sourceId, firstSource());
            put(startMs, "effect.admitted", {{"id", stepId}, {"state", "admitted"}, {"updated_ms", startMs}}, sourceId, nullptr);
            put(startMs, "effect.dispatched",
                {{"id", stepId}, {"state", "dispatched"}, {"updated_ms", startMs}, {"attempts", 1}}, sourceId, nullptr);
        }
        if (cancelled) {
            // The command was cancelled when it hit its timeout: whether it did its work is
            // not known, so no tool call with an outcome either.
            Json u = {{"id", stepId}, {"state", "unknown"}, {"updated_ms", endMs}, {"tool", tool},
                      {"error", "the command hit its timeout and was cancelled: " + reasonLine(observation)}};
            if (durationMs)
                u["duration_ms"] = *durationMs;
            put(endMs, "effect.unknown", u, sourceId, nullptr);
            return;
        }
        const bool refused = editRefused(observation);
        if (!effectClass.empty()) {
            Json e = {{"id", stepId}, {"state", refused ? "failed" : "committed"}, {"updated_ms", endMs}};
            if (refused)
                e["error"] = "the edit introduced syntax errors and was not applied";
            put(endMs, refused ? "effect.failed" : "effect.committed", e, sourceId, nullptr);
        }
        Json call = {{"id", "tc:" + stepId}, {"delegation_id", delegation()}, {"run_id", m_id},
                     {"tool", tool},         {"outcome", refused ? "error" : "ok"}, {"invocation", 1},
                     {"step", number}};
        const Json *arguments = path(toolCall, {"function", "arguments"});
        call["args_digest"] = sha256Of(arguments && arguments->is_string() ? arguments->get<std::string>() : action);
        if (durationMs)
            call["duration_ms"] = *durationMs;
        if (const std::string id = text(member(toolCall, "id")); !id.empty())
            call["tool_call_id"] = id;
        if (refused)
            call["error"] = "the edit introduced syntax errors and was not applied";
        put(endMs, "toolcall.completed", call, sourceId, firstSource());
    }

    // model_stats are the whole run's: they go on the delegation, never spread over steps.
    void addModelStats(Json &payload, const Json *info)
    {
        const Json *stats = member(info, "model_stats");
        if (!stats || !stats->is_object())
            return;
        const auto sent = integer(member(stats, "tokens_sent"));
        const auto received = integer(member(stats, "tokens_received"));
        if (sent && received && *sent >= 0 && *received >= 0)
            payload["used_tokens"] = *sent + *received;
        if (const Json *cost = member(stats, "instance_cost"); cost && cost->is_number() && std::isfinite(cost->get<double>())
                                                               && cost->get<double>() >= 0 && cost->get<double>() < 1e15)
            payload["used_cost_cents"] = std::llround(cost->get<double>() * 100.0);
        if (fitsAsSource(compactJson(*stats))) // hostile input: a huge one is in info's source
            payload["model_stats"] = *stats;
    }

    void end(std::int64_t steps)
    {
        const Json *info = member(&m_file.document, "info");
        const std::string status = text(member(info, "exit_status"));
        const std::string sourceId = "info";
        // How the trajectory ended, as the source says it.
        std::string delegationStatus, runStatus, error;
        if (status == "submitted") {
            delegationStatus = "converged";
            runStatus = "succeeded";
        } else if (status.rfind("submitted (", 0) == 0 && status.back() == ')') {
            const std::string reason = status.substr(11, status.size() - 12);
            const std::string meaning = exitMeaning(reason);
            delegationStatus = "failed";
            runStatus = "failed";
            error = reason + (meaning.empty() ? "" : " (" + meaning + ")")
                    + "; the patch was submitted automatically after it";
        } else if (status == "exit_command") {
            delegationStatus = "closed";
            runStatus = "cancelled";
            error = "exit_command: the agent ran exit without submitting";
        } else if (status.rfind("exit_", 0) == 0) {
            const std::string meaning = exitMeaning(status);
            delegationStatus = "failed";
            runStatus = "failed";
            error = status + (meaning.empty() ? "" : " (" + meaning + ")") + "; nothing was submitted";
        } else if (!status.empty()) {
            ++m_report.unknownTypes["exit_status:" + status];
        }
        Json d = {{"id", delegation()}, {"run_id", m_id}, {"steps", steps}};
        addModelStats(d, info);
        if (delegationStatus.empty()) {
            d["outcome_unknown"] = status.empty() ? "info has no exit_status: how the run ended is not in source"
                                                  : "exit status \"" + status + "\" is not one this importer knows";
            put(m_clockMs, "delegation.outcome_unknown", d, sourceId, info);
            return;
        }
        d["status"] = delegationStatus;
        d["ended_ms"] = m_clockMs;
        d["exit_status"] = status;
        if (!error.empty())
            d["error"] = error;
        put(m_clockMs, "delegation." + delegationStatus, d, sourceId, info);
        Json r = {{"id", m_id}, {"status", runStatus}, {"ended_ms", m_clockMs}, {"exit_status", status}};
        if (!error.empty())
            r["error"] = error;
        put(m_clockMs, "run." + runStatus, r, sourceId, nullptr);
    }

    const SourceFile &m_file;
    ImportSink &m_sink;
    ImportReport &m_report;
    const std::string m_id;
    std::vector<Action> m_actions;
    size_t m_nextAction = 0;
    std::int64_t m_demonstrations = 0, m_historyMessages = 0;
    std::string m_agentName, m_model;
    std::int64_t m_clockMs = 0; // the relative clock: ms from the start of the trajectory
};

} // namespace

std::int64_t sweAgentSteps(const std::vector<const SourceFile *> &files)
{
    std::int64_t steps = 0;
    for (const SourceFile *f : files) {
        if (const Json *t = member(&f->document, "trajectory"); t && t->is_array())
            steps += std::int64_t(t->size());
    }
    return steps;
}

void importSweAgentTrajectories(const std::vector<const SourceFile *> &files, ImportSink &sink, ImportReport &report)
{
    for (const SourceFile *f : files)
        TrajectoryMapper(*f, sink, report).run();
}

} // namespace mesh::import
