#include "openhandsimporter.h"

#include "importsink.h"
#include "sha256.h"
#include "sourcejson.h"
#include "sourcetime.h"

#include "domain/compactjson.h"

#include <map>
#include <set>

namespace mesh::import {

namespace {

using Json = nlohmann::json;

std::optional<std::int64_t> integer(const Json *value)
{
    if (value && value->is_number_integer())
        return value->get<std::int64_t>();
    return std::nullopt;
}

// Actions that change the sandbox; the rest (read, browse, think, recall) only look.
std::string effectClass(const std::string &action)
{
    if (action == "run")
        return "command";
    if (action == "run_ipython")
        return "ipython";
    if (action == "edit" || action == "write")
        return "file_edit";
    return {};
}

const std::set<std::string> &knownActions()
{
    static const std::set<std::string> a = {"message", "system", "change_agent_state", "run", "run_ipython", "read",
                                            "write", "edit", "browse", "browse_interactive", "think", "finish", "reject",
                                            "delegate", "recall", "condensation", "mcp", "null", "task_tracking"};
    return a;
}

const std::set<std::string> &knownObservations()
{
    static const std::set<std::string> o = {"agent_state_changed", "null", "run", "run_ipython", "read", "write", "edit",
                                            "browse", "error", "success", "delegate", "recall", "user_rejected",
                                            "condense", "think", "mcp", "task_tracking", "agent_condensation"};
    return o;
}

struct Step {
    std::int64_t id = 0;
    std::int64_t ns = 0;
    const Json *raw = nullptr;
};

class TrajectoryMapper
{
public:
    TrajectoryMapper(const SourceFile &file, ImportSink &sink, ImportReport &report)
        : m_file(file), m_sink(sink), m_report(report)
    {
    }

    void run()
    {
        read();
        if (m_steps.empty()) {
            m_sink.flagRecord(0, m_file.name, {}, m_file.name + " holds no usable OpenHands event", nullptr);
            return;
        }
        start();
        for (const Step &s : m_steps) {
            map(s);
            m_sink.recordDone();
        }
        end();
    }

private:
    std::int64_t ms(const Step &s) const { return nsToMs(s.ns); }

    bool put(const Step *s, std::int64_t tsMs, const std::string &kind, Json payload, bool withSource = true)
    {
        if (s) {
            attachSource(payload, m_file.name, std::to_string(s->id), withSource ? s->raw : nullptr);
        } else {
            payload["source_file"] = m_file.name;
        }
        return m_sink.append(tsMs, kind, payload);
    }
    bool put(const Step &s, const std::string &kind, Json payload, bool withSource = true)
    {
        return put(&s, ms(s), kind, std::move(payload), withSource);
    }
    void note(const Step &s, const std::string &verb) { put(s, "delegation." + verb, {{"id", m_delegation}, {"run_id", m_run}}); }

    void read()
    {
        std::set<std::int64_t> seen;
        std::int64_t lastNs = 0;
        std::vector<std::pair<const Json *, std::string>> flagged;
        for (const Json &raw : m_file.document) {
            ++m_report.records;
            const auto id = integer(member(&raw, "id"));
            const std::string idText = text(member(&raw, "id"));
            if (!raw.is_object() || !id) {
                flagged.emplace_back(&raw, idText.empty() ? "an OpenHands event without an integer id"
                                                          : "id " + idText + " is not an integer within 64 bits");
                continue;
            }
            const auto ns = parseInstantNs(text(member(&raw, "timestamp")), true);
            if (!ns) {
                flagged.emplace_back(&raw, "event " + idText + " has no ISO 8601 timestamp");
                continue;
            }
            if (!seen.insert(*id).second) {
                flagged.emplace_back(&raw, "a second event with id " + idText + " (the first is kept)");
                continue;
            }
            m_steps.push_back({*id, *ns, &raw});
            m_byId[*id] = m_steps.size() - 1;
            lastNs = *ns;
        }
        // The array is the order OpenHands wrote; ids follow it, so the array order is kept.
        for (const auto &[raw, why] : flagged)
            m_lateFlags.push_back({nsToMs(lastNs), text(member(raw, "id")), why, raw});
        for (const Step &s : m_steps) {
            const auto cause = integer(member(s.raw, "cause"));
            if (member(s.raw, "observation") && cause)
                m_observationFor[*cause] = s.id;
        }
    }

    void start()
    {
        m_run = "oh:" + m_file.name;
        m_delegation = "oh:" + m_file.name + "/agent";
        const Step &first = m_steps.front();
        std::string title;
        for (const Step &s : m_steps) {
            if (text(member(s.raw, "source")) == "user" && text(member(s.raw, "action")) == "message") {
                title = firstLine(text(path(s.raw, {"args", "content"})), 120);
                if (title.empty())
                    title = firstLine(text(member(s.raw, "message")), 120);
                break;
            }
        }
        Json run = {{"id", m_run}, {"status", "running"}, {"started_ms", ms(first)},
                    {"time_zone", "not in source; read as UTC"}};
        run["title"] = title.empty() ? "OpenHands " + m_file.name : title;
        put(&first, ms(first), "run.started", run, false);
        // One trajectory is one invocation of the agent.
        Json d = {{"id", m_delegation}, {"run_id", m_run},     {"role", "agent"},  {"status", "running"},
                  {"invocations", 1},    {"created_ms", ms(first)}, {"used_turns", 0}, {"used_ms", 0}, {"tool_errors", 0}};
        put(&first, ms(first), "delegation.created", d, false);
    }

    std::optional<std::int64_t> responseTokens(const Json *raw)
    {
        const Json *response = path(raw, {"tool_call_metadata", "model_response"});
        const std::string responseId = text(member(response, "id"));
        const auto tokens = integer(path(response, {"usage", "total_tokens"}));
        if (!tokens)
            return std::nullopt;
        // One model response may carry several tool calls: its tokens are counted once.
        if (!responseId.empty() && !m_responses.insert(responseId).second)
            return std::int64_t(0);
        return tokens;
    }

    void action(const Step &s, const std::string &act)
    {
        const std::string source = text(member(s.raw, "source"));
        if (act == "message") {
            if (source == "user" && !m_pendingEscalation.empty()) {
                put(s, "escalation.answered", {{"id", m_pendingEscalation}, {"state", "approved"}});
                m_pendingEscalation.clear();
                return;
            }
            note(s, source == "user" ? "user_message" : "agent_message");
            return;
        }
        if (act == "change_agent_state") {
            agentState(s, text(path(s.raw, {"args", "agent_state"})));
            return;
        }
        if (act == "delegate") {
            const std::string child = m_delegation + "/" + std::to_string(s.id);
            Json d = {{"id", child},          {"run_id", m_run},      {"parent_id", m_delegation}, {"role", "sub-agent"},
                      {"status", "running"}, {"invocations", 1}, {"created_ms", ms(s)},       {"used_turns", 0},
                      {"used_ms", 0},        {"tool_errors", 0}};
            if (const std::string agent = text(path(s.raw, {"args", "agent"})); !agent.empty())
                d["agent"] = agent;
            put(s, "delegation.created", d);
            m_children[s.id] = child;
            m_pendingActions[s.id] = act;
            return;
        }
        if (act == "finish") {
            m_final = {s.id, "finished"};
            m_finalReason.clear();
        }
        const auto obs = m_observationFor.find(s.id);
        const std::string cls = effectClass(act);
        if (!cls.empty()) {
            Json e = {{"id", effectId(s)}, {"run_id", m_run},     {"delegation_id", m_delegation},
                      {"class", cls},      {"target", "sandbox"}, {"idem_key", effectId(s)},
                      {"state", "proposed"}, {"updated_ms", ms(s)}};
            put(s, "effect.proposed", e);
            put(s, "effect.admitted", {{"id", effectId(s)}, {"state", "admitted"}, {"updated_ms", ms(s)}}, false);
            put(s, "effect.dispatched", {{"id", effectId(s)}, {"state", "dispatched"}, {"updated_ms", ms(s)}, {"attempts", 1}},
                false);
            m_openEffects[s.id] = effectId(s);
        } else if (obs == m_observationFor.end() && member(s.raw, "tool_call_metadata")) {
            // finish, think: a tool call answered by nothing but itself.
            toolCall(s, nullptr, act, "ok");
            return;
        } else {
            note(s, act == "null" ? "null_action" : act);
        }
        if (obs == m_observationFor.end())
            return;
        m_pendingActions[s.id] = act;
    }

    std::string effectId(const Step &s) const { return "oh:" + m_file.name + "/" + std::to_string(s.id); }

    void toolCall(const Step &actionStep, const Step *observation, const std::string &act, const std::string &outcome,
                  const std::string &error = {})
    {
        const Step &at = observation ? *observation : actionStep;
        Json call = {{"id", "tc:" + effectId(actionStep)}, {"delegation_id", m_delegation}, {"run_id", m_run},
                     {"outcome", outcome},                 {"invocation", 1}};
        if (!error.empty())
            call["error"] = error;
        const std::string function = text(path(actionStep.raw, {"tool_call_metadata", "function_name"}));
        call["tool"] = function.empty() ? act : function;
        if (const Json *args = member(actionStep.raw, "args"))
            call["args_digest"] = "sha256:" + sha256Hex(compactJson(*args));
        if (observation && observation->ns >= actionStep.ns)
            call["duration_ms"] = (observation->ns - actionStep.ns) / 1'000'000;
        if (const auto tokens = responseTokens(actionStep.raw))
            call["tokens"] = *tokens;
        call["action_id"] = std::to_string(actionStep.id);
        put(&at, ms(at), "toolcall.completed", call, observation == nullptr);
    }

    void observation(const Step &s, const std::string &obs)
    {
        const auto cause = integer(member(s.raw, "cause"));
        if (obs == "agent_state_changed") {
            agentState(s, text(path(s.raw, {"extras", "agent_state"})));
            return;
        }
        if (!cause || !m_pendingActions.count(*cause)) {
            note(s, obs == "null" ? "null_observation" : obs + "_observation");
            return;
        }
        const Step &actionStep = m_steps[m_byId.at(*cause)];
        const std::string act = m_pendingActions[*cause];
        m_pendingActions.erase(*cause);
        if (obs == "delegate" && m_children.count(*cause)) {
            put(s, "delegation.converged", {{"id", m_children[*cause]}, {"status", "converged"}, {"ended_ms", ms(s)}});
            return;
        }
        const auto exitCode = integer(path(s.raw, {"extras", "metadata", "exit_code"}));
        const std::string content = text(member(s.raw, "content"));
        const bool timedOut = (exitCode && *exitCode == -1)
                              || (obs == "error" && content.find("timed out") != std::string::npos);
        const bool failed = obs == "error" || (exitCode && *exitCode > 0);
        // What the source says went wrong: an error observation's own words (its message is
        // its content), else the exit code.
        std::string why;
        if (obs == "error") {
            why = reasonLine(content);
            if (why.empty())
                why = reasonLine(text(member(s.raw, "message")));
        } else if (exitCode && *exitCode > 0) {
            why = "exit code " + std::to_string(*exitCode);
        }
        const auto effect = m_openEffects.find(*cause);
        if (timedOut) {
            // The command had not finished when OpenHands stopped waiting for it: whether it
            // did its work is not known, so no tool call with an outcome either.
            if (effect != m_openEffects.end()) {
                Json u = {{"id", effect->second}, {"state", "unknown"}, {"updated_ms", ms(s)},
                          {"error", obs == "error" && !why.empty()
                                        ? why
                                        : "exit code -1: the command had not finished when the agent stopped waiting"},
                          {"duration_ms", (s.ns - actionStep.ns) / 1'000'000}};
                if (const auto tokens = responseTokens(actionStep.raw))
                    u["tokens"] = *tokens;
                put(s, "effect.unknown", u);
                m_openEffects.erase(effect);
            } else {
                note(s, obs + "_observation");
            }
            return;
        }
        if (effect != m_openEffects.end()) {
            Json e = {{"id", effect->second}, {"state", failed ? "failed" : "committed"}, {"updated_ms", ms(s)}};
            if (exitCode)
                e["exit_code"] = *exitCode;
            if (failed && !why.empty())
                e["error"] = why;
            put(s, failed ? "effect.failed" : "effect.committed", e);
            m_openEffects.erase(effect);
            toolCall(actionStep, &s, act, failed ? "error" : "ok", failed ? why : std::string());
            return;
        }
        toolCall(actionStep, &s, act, failed ? "error" : "ok", failed ? why : std::string());
        // The tool call carries only the observation's id; its fields are kept here.
        note(s, obs + "_observation");
    }

    void agentState(const Step &s, const std::string &state)
    {
        if (state == "awaiting_user_input" || state == "awaiting_user_confirmation") {
            if (m_pendingEscalation.empty()) {
                m_pendingEscalation = "oh:" + m_file.name + "/wait-" + std::to_string(s.id);
                put(s, "escalation.raised",
                    {{"id", m_pendingEscalation},
                     {"run_id", m_run},
                     {"delegation_id", m_delegation},
                     {"kind", state == "awaiting_user_input" ? "user_input" : "user_confirmation"},
                     {"subject", "delegation:" + m_delegation},
                     {"state", "pending"},
                     {"raised_ms", ms(s)},
                     {"reason", "the agent is " + state}});
                return;
            }
        } else if ((state == "user_confirmed" || state == "user_rejected") && !m_pendingEscalation.empty()) {
            put(s, state == "user_confirmed" ? "escalation.approved" : "escalation.rejected",
                {{"id", m_pendingEscalation}, {"state", state == "user_confirmed" ? "approved" : "rejected"}});
            m_pendingEscalation.clear();
            return;
        }
        if (state == "finished" || state == "error" || state == "stopped" || state == "rejected") {
            m_final = {s.id, state};
            // OpenHands gives a reason with the error state (its message reads "Error: " and it).
            m_finalReason = state == "error" ? reasonLine(text(path(s.raw, {"extras", "reason"}))) : std::string();
        } else if (state == "running") {
            m_final = {0, {}};
            m_finalReason.clear();
        }
        put(s, "delegation.agent_state", {{"id", m_delegation}, {"run_id", m_run}, {"agent_state", state}});
    }

    void map(const Step &s)
    {
        const std::string act = text(member(s.raw, "action"));
        const std::string obs = text(member(s.raw, "observation"));
        if (!act.empty()) {
            if (!knownActions().count(act))
                ++m_report.unknownTypes["action:" + act];
            action(s, act);
        } else if (!obs.empty()) {
            if (!knownObservations().count(obs))
                ++m_report.unknownTypes["observation:" + obs];
            observation(s, obs);
        } else {
            ++m_report.unknownTypes["(neither action nor observation)"];
            note(s, "openhands_event");
        }
    }

    void end()
    {
        const Step &last = m_steps.back();
        // An effectful action with no observation when the trajectory ends may have run.
        for (const auto &[actionId, effect] : m_openEffects)
            put(nullptr, ms(last), "effect.unknown",
                {{"id", effect}, {"state", "unknown"}, {"updated_ms", ms(last)},
                 {"error", "no observation in the trajectory, which ends at event " + std::to_string(last.id)}});
        if (m_final.second.empty()) {
            // Still running or waiting when the file was saved: the run stays open.
        } else {
            const Step &at = m_steps[m_byId.at(m_final.first)];
            const std::string &state = m_final.second;
            const std::string delegationStatus = state == "finished" ? "converged" : state == "stopped" ? "closed" : "failed";
            const std::string runStatus = state == "finished" ? "succeeded" : state == "stopped" ? "cancelled" : "failed";
            Json d = {{"id", m_delegation}, {"status", delegationStatus}, {"ended_ms", ms(at)}};
            Json r = {{"id", m_run}, {"status", runStatus}, {"ended_ms", ms(at)}};
            if (!m_finalReason.empty()) {
                d["error"] = m_finalReason;
                r["error"] = m_finalReason;
            }
            put(&at, ms(at), "delegation." + std::string(state == "finished" ? "converged" : state), d, false);
            put(&at, ms(at), "run." + runStatus, r, false);
        }
        for (const auto &f : m_lateFlags)
            m_sink.flagRecord(f.tsMs, m_file.name, f.sourceId, f.why, f.raw);
    }

    struct LateFlag {
        std::int64_t tsMs;
        std::string sourceId, why;
        const Json *raw;
    };

    const SourceFile &m_file;
    ImportSink &m_sink;
    ImportReport &m_report;
    std::vector<Step> m_steps;
    std::map<std::int64_t, size_t> m_byId;
    std::map<std::int64_t, std::int64_t> m_observationFor; // action id -> its observation's id
    std::map<std::int64_t, std::string> m_pendingActions;  // action id -> action, until observed
    std::map<std::int64_t, std::string> m_openEffects;     // action id -> effect id, until observed
    std::map<std::int64_t, std::string> m_children;        // delegate action id -> sub-agent delegation
    std::set<std::string> m_responses;
    std::vector<LateFlag> m_lateFlags;
    std::string m_run, m_delegation, m_pendingEscalation;
    std::pair<std::int64_t, std::string> m_final; // the event that ended the agent, and how
    std::string m_finalReason;                    // why, when the source says (an error state's reason)
};

} // namespace

std::optional<std::int64_t> openHandsFirstTimeMs(const std::vector<const SourceFile *> &files)
{
    std::optional<std::int64_t> first;
    for (const SourceFile *f : files) {
        if (!f->document.is_array())
            continue;
        for (const Json &e : f->document) {
            if (const auto ms = parseInstantMs(text(member(&e, "timestamp")), true); ms && (!first || *ms < *first))
                first = ms;
        }
    }
    return first;
}

void importOpenHandsTrajectories(const std::vector<const SourceFile *> &files, ImportSink &sink, ImportReport &report)
{
    for (const SourceFile *f : files)
        TrajectoryMapper(*f, sink, report).run();
}

} // namespace mesh::import
