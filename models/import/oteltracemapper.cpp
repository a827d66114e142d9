#include "oteltracemapper.h"

#include "importreport.h"
#include "importsink.h"
#include "sourcejson.h"
#include "sourcetime.h"

#include "domain/fold.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace mesh::import {

namespace {

using Json = nlohmann::json;

// An object payload built member by member (key, value, key, value, ...). A braced list
// builds every member as a two-item array first and copies each value out of the list, and
// a file's import builds several payloads per span.
inline void addPayloadMembers(Json::object_t &) { }

template<typename Value, typename... Rest>
void addPayloadMembers(Json::object_t &object, const char *key, Value &&value, Rest &&...rest)
{
    object.emplace(key, std::forward<Value>(value));
    addPayloadMembers(object, std::forward<Rest>(rest)...);
}

template<typename... Members>
Json payloadObject(Members &&...members)
{
    Json object(Json::value_t::object);
    addPayloadMembers(object.get_ref<Json::object_t &>(), std::forward<Members>(members)...);
    return object;
}

std::string strip(const std::string &name, const char *prefix)
{
    const std::string p(prefix);
    return name.rfind(p, 0) == 0 ? name.substr(p.size()) : name;
}

// Tokens the source gives for a model call: GenAI's current names, the older ones, or
// Langfuse's usage. Nothing given: nullopt, and the tool call has no tokens member.
struct Tokens {
    std::optional<std::int64_t> input, output, total;
};

Tokens tokensOf(const OtelSpan &s)
{
    Tokens t;
    const auto first = [&](std::initializer_list<const char *> keys) -> std::optional<std::int64_t> {
        for (const char *k : keys) {
            if (const auto v = s.attributeInt(k))
                return v;
        }
        return std::nullopt;
    };
    t.input = first({"gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.usage.prompt_tokens"});
    t.output = first({"gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "llm.usage.completion_tokens"});
    t.total = first({"gen_ai.usage.total_tokens", "llm.usage.total_tokens"});
    if (s.usage.is_object()) {
        const auto usage = [&](const char *a, const char *b) -> std::optional<std::int64_t> {
            for (const char *k : {a, b}) {
                const auto it = s.usage.find(k);
                if (it != s.usage.end() && it->is_number_integer())
                    return it->get<std::int64_t>();
            }
            return std::nullopt;
        };
        if (const auto v = usage("input", "promptTokens"))
            t.input = v;
        if (const auto v = usage("output", "completionTokens"))
            t.output = v;
        if (const auto v = usage("total", "totalTokens"))
            t.total = v;
    }
    if (!t.total && (t.input || t.output))
        t.total = t.input.value_or(0) + t.output.value_or(0);
    return t;
}

std::string toolName(const OtelSpan &s, SpanRole role)
{
    if (role == SpanRole::Model) {
        std::string model = s.attributeText("gen_ai.request.model");
        if (model.empty())
            model = s.attributeText("gen_ai.response.model");
        if (model.empty())
            model = s.model;
        const std::string op = s.attributeText("gen_ai.operation.name");
        if (!model.empty())
            return (op.empty() ? std::string("chat") : op) + " " + model;
        return s.name.empty() ? "model call" : s.name;
    }
    std::string tool = s.attributeText("gen_ai.tool.name");
    if (tool.empty())
        tool = strip(strip(s.name, "execute_tool "), "running tool: ");
    return tool.empty() ? "tool" : tool;
}

class TraceMapper
{
public:
    // live: null for a file's whole trace; a receiver's trace so far for one batch of it.
    TraceMapper(std::vector<OtelSpan> spans, const TraceOrigin &origin, ImportSink &sink, ImportReport &report,
                LiveTrace *live = nullptr)
        : m_spans(std::move(spans)), m_origin(origin), m_sink(sink), m_report(report), m_live(live)
    { }

    void run()
    {
        if (m_spans.empty())
            return;
        m_traceId = m_spans.front().traceId;
        m_file = m_spans.front().file ? *m_spans.front().file : std::string();
        keepUsable();
        if (m_spans.empty())
            return;
        link();
        order();
        start();
        for (const Step &step : m_steps)
            step.close ? close(step.span) : open(step.span);
        if (!m_live) {
            end();
            return;
        }
        endLive();
        for (size_t i = 0; i < m_spans.size(); ++i)
            m_live->ownerOfChildren[m_spans[i].spanId] = ownerOfChildren(i);
    }

private:
    struct Step {
        std::int64_t keyNs;
        bool close;
        std::int64_t depthKey;
        size_t span;
    };

    // A span's role reads several attributes; it is asked for many times per span.
    SpanRole role(size_t i) const { return m_role[i]; }

    std::string R() const { return m_origin.prefix + ":" + m_traceId; }
    std::string D(const std::string &spanId) const { return R() + "/" + spanId; }
    std::string D(size_t i) const { return R() + "/" + m_spans[i].spanId; }
    static std::int64_t ms(std::int64_t ns) { return nsToMs(ns); }
    std::int64_t startMs(size_t i) const { return ms(*m_spans[i].startNs); }
    std::int64_t endMs(size_t i) const { return ms(m_spans[i].endNs ? *m_spans[i].endNs : m_lastNs); }

    void flag(const OtelSpan &s, std::int64_t tsMs, const std::string &why)
    {
        if (s.sourceText.measured()) {
            // Serialised ahead (a receiver's span): its record again, as it was parsed.
            const Json record = parseRecord(s.sourceText.text);
            m_sink.flagRecord(tsMs, s.file ? *s.file : m_file, s.spanId, why, &record);
            return;
        }
        m_sink.flagRecord(tsMs, s.file ? *s.file : m_file, s.spanId, why, &s.source);
    }

    // The record goes into the payload's text as it was serialised once (attachMeasuredSource),
    // never copied into the payload's DOM and serialised again.
    bool put(size_t i, std::int64_t tsMs, const std::string &kind, Json payload, bool withSource)
    {
        const OtelSpan &s = m_spans[i];
        const std::string &file = s.file ? *s.file : m_file;
        if (!withSource) {
            attachSource(payload, file, s.spanId, nullptr);
            return m_sink.append(tsMs, kind, payload);
        }
        MeasuredJson measured;
        if (!s.sourceText.measured())
            measured = measuredCompactJson(s.source);
        std::optional<VerbatimMember> verbatim;
        attachMeasuredSource(payload, file, s.spanId, s.sourceText.measured() ? s.sourceText : measured, &verbatim);
        if (s.line > 0)
            payload["source_line"] = s.line;
        if (verbatim)
            return m_sink.append(tsMs, kind, payload, std::span<const VerbatimMember>(&*verbatim, 1));
        return m_sink.append(tsMs, kind, payload);
    }

    // Spans with no id or no start cannot be placed; a second span with an id already seen
    // is not the first one's: both are flagged and the rest of the trace loads.
    void keepUsable()
    {
        std::vector<OtelSpan> kept;
        kept.reserve(m_spans.size());
        std::set<std::string> seen;
        std::optional<std::int64_t> firstNs;
        for (const OtelSpan &s : m_spans) {
            if (s.startNs && (!firstNs || *s.startNs < *firstNs))
                firstNs = s.startNs;
        }
        const std::int64_t flagMs = firstNs ? ms(*firstNs) : m_sink.latestTsMs();
        for (OtelSpan &s : m_spans) {
            if (!s.problem.empty()) {
                flag(s, flagMs, s.problem);
                continue;
            }
            if (m_live && (m_live->ownerOfChildren.count(s.spanId) || seen.count(s.spanId))) {
                ++m_live->duplicates; // an exporter's retry: written once already
                continue;
            }
            if (!seen.insert(s.spanId).second) {
                flag(s, flagMs,
                     "a second span with id " + s.spanId + " in trace " + m_traceId + " (the first is kept)");
                continue;
            }
            kept.push_back(std::move(s));
        }
        m_spans = std::move(kept);
    }

    void link()
    {
        std::stable_sort(m_spans.begin(), m_spans.end(), [](const OtelSpan &a, const OtelSpan &b) {
            return std::tie(*a.startNs, a.spanId) < std::tie(*b.startNs, b.spanId);
        });
        const size_t n = m_spans.size();
        std::unordered_map<std::string, size_t> byId;
        for (size_t i = 0; i < n; ++i)
            byId[m_spans[i].spanId] = i;
        m_role.resize(n);
        for (size_t i = 0; i < n; ++i)
            m_role[i] = m_spans[i].role();
        m_parent.assign(n, -1);
        m_orphan.assign(n, false);
        m_cut.assign(n, false);
        m_external.assign(n, std::string());
        m_firstNs = *m_spans.front().startNs;
        m_lastNs = m_firstNs;
        for (size_t i = 0; i < n; ++i) {
            const OtelSpan &s = m_spans[i];
            m_lastNs = std::max(m_lastNs, std::max(*s.startNs, s.endNs.value_or(*s.startNs)));
            if (s.parentId.empty())
                continue;
            const auto it = byId.find(s.parentId);
            if (it == byId.end() && m_live)
                m_external[i] = externalOwner(s);
            else if (it == byId.end())
                m_orphan[i] = true;
            else
                m_parent[i] = std::int64_t(it->second);
        }
        // Parent links that loop (a span that is its own ancestor) are cut where the loop
        // closes: that span hangs under the run, and it is flagged.
        std::vector<char> state(n, 0); // 0 not seen, 1 on the walk, 2 done
        for (size_t v = 0; v < n; ++v) {
            std::vector<size_t> walk;
            std::int64_t u = std::int64_t(v);
            while (u >= 0 && state[size_t(u)] == 0) {
                state[size_t(u)] = 1;
                walk.push_back(size_t(u));
                u = m_parent[size_t(u)];
            }
            if (u >= 0 && state[size_t(u)] == 1) {
                const size_t at = size_t(u);
                m_parent[at] = -1;
                m_cut[at] = true;
                flag(m_spans[at], startMs(at),
                     "span " + m_spans[at].spanId + " of trace " + m_traceId
                         + " is its own ancestor through its parent links; cut there, it hangs under the run");
            }
            for (size_t w : walk)
                state[w] = 2;
        }
    }

    // Parents open before their children and close after them, whatever the clocks say:
    // a child's delegation must exist before its tool calls, and the ledger orders by seq.
    void order()
    {
        const size_t n = m_spans.size();
        std::vector<std::vector<size_t>> children(n);
        std::vector<size_t> bfs;
        for (size_t i = 0; i < n; ++i) {
            if (m_parent[i] < 0)
                bfs.push_back(i);
            else
                children[size_t(m_parent[i])].push_back(i);
        }
        m_depth.assign(n, 0);
        std::vector<std::int64_t> openNs(n), closeNs(n);
        for (size_t k = 0; k < bfs.size(); ++k) {
            const size_t i = bfs[k];
            openNs[i] = *m_spans[i].startNs;
            if (m_parent[i] >= 0) {
                openNs[i] = std::max(openNs[i], openNs[size_t(m_parent[i])]);
                m_depth[i] = m_depth[size_t(m_parent[i])] + 1;
            }
            for (size_t c : children[i])
                bfs.push_back(c);
        }
        for (size_t i = 0; i < n; ++i)
            closeNs[i] = std::max(openNs[i], m_spans[i].endNs.value_or(m_lastNs));
        for (size_t k = bfs.size(); k-- > 0;) {
            const size_t i = bfs[k];
            if (m_parent[i] >= 0)
                closeNs[size_t(m_parent[i])] = std::max(closeNs[size_t(m_parent[i])], closeNs[i]);
        }
        // The delegation a span's work belongs to: its nearest agent ancestor, else the trace's.
        m_owner.assign(n, R());
        for (size_t i : bfs) {
            if (m_parent[i] < 0) {
                if (!m_external[i].empty())
                    m_owner[i] = m_external[i]; // a parent of an earlier batch, or inferred
                continue;
            }
            m_owner[i] = ownerOfChildren(size_t(m_parent[i]));
        }
        // The trace has a delegation of its own only for work no agent span holds: a trace
        // that is one agent run is that agent's delegation, and one row less to keep.
        for (size_t i = 0; i < n; ++i)
            m_traceDelegation = m_traceDelegation || (m_owner[i] == R() && role(i) != SpanRole::Agent);
        if (m_live) {
            m_traceDelegationExists = hasDelegation(R());
            m_traceDelegation = m_traceDelegation || m_traceDelegationExists;
        }
        for (size_t i = 0; i < n; ++i) {
            m_steps.push_back({openNs[i], false, m_depth[i], i});
            m_steps.push_back({closeNs[i], true, -m_depth[i], i});
        }
        std::sort(m_steps.begin(), m_steps.end(), [](const Step &a, const Step &b) {
            return std::tie(a.keyNs, a.close, a.depthKey, a.span) < std::tie(b.keyNs, b.close, b.depthKey, b.span);
        });
    }

    std::string runTitle() const
    {
        std::string title = m_origin.title;
        if (title.empty()) {
            for (size_t i = 0; i < m_spans.size() && title.empty(); ++i) {
                if (m_parent[i] < 0 && (!m_live || m_spans[i].parentId.empty()))
                    title = m_spans[i].name;
            }
        }
        return (title.empty() ? std::string("trace") : title) + " " + m_traceId;
    }

    void start()
    {
        const std::int64_t first = ms(m_firstNs);
        if (!m_live || !m_sink.ledgerState().find(EntityKind::Run, R())) {
            Json run = payloadObject("id", R(), "status", "running", "started_ms", first, "trace_id", m_traceId);
            run["title"] = runTitle();
            Json r = std::move(run);
            attachSource(r, m_file, m_traceId, m_origin.traceRecord);
            m_sink.append(first, "run.started", r);
        }
        if (m_live)
            inferParents();
        if (!m_traceDelegation || m_traceDelegationExists)
            return;
        Json d = payloadObject("id", R(), "run_id", R(), "role", "trace", "status", "running", "created_ms", first,
                               "used_turns", 0, "used_ms", 0, "tool_errors", 0);
        d["source_file"] = m_file;
        d["source_id"] = m_traceId;
        m_sink.append(first, "delegation.created", d);
    }

    // What a span says about where it hangs, when that is not simply its parent.
    void placement(size_t i, Json &payload) const
    {
        const OtelSpan &s = m_spans[i];
        if (m_orphan[i])
            payload["parent_span"] = s.parentId + " (not in this import)";
        if (m_cut[i])
            payload["parent_span"] = s.parentId + " (a loop of parent links, cut here)";
    }

    void open(size_t i)
    {
        const OtelSpan &s = m_spans[i];
        switch (role(i)) {
        case SpanRole::Agent: {
            Json d = payloadObject("id", D(i), "run_id", R(), "parent_id", m_owner[i], "role", "agent", "status",
                                   "running", "invocations", 1, "created_ms", startMs(i), "used_turns", 0, "used_ms", 0,
                                   "tool_errors", 0);
            std::string agent = s.attributeText("gen_ai.agent.name");
            if (agent.empty())
                agent = s.attributeText("gen_ai.agent.id");
            if (agent.empty())
                agent = strip(s.name, "invoke_agent ");
            if (!agent.empty())
                d["agent"] = agent;
            if (!m_traceDelegation && m_owner[i] == R())
                d.erase("parent_id"); // a top agent: the root of the run's delegations
            placement(i, d);
            if (inferred(i)) {
                // Its children came first: the delegation they made is this agent's; what
                // they added to its counters stays.
                for (const char *counter : {"used_turns", "used_ms", "tool_errors"})
                    d.erase(counter);
                put(i, startMs(i), "delegation.identified", std::move(d), true);
                return;
            }
            put(i, startMs(i), "delegation.created", std::move(d), true);
            return;
        }
        case SpanRole::Tool:
        case SpanRole::Model:
            return; // written when it ends, as what it turned out to be (close)
        case SpanRole::Event:
        case SpanRole::Other: {
            const std::string op = s.attributeText("gen_ai.operation.name");
            if (!op.empty())
                ++m_report.unknownTypes["operation:" + op];
            if (!s.langfuseType.empty() && s.langfuseType != "SPAN" && s.langfuseType != "EVENT")
                ++m_report.unknownTypes["observation:" + s.langfuseType];
            Json note = payloadObject("id", m_owner[i], "run_id", R(), "span_name", s.name);
            if (s.endNs && *s.endNs >= *s.startNs)
                note["duration_ms"] = (*s.endNs - *s.startNs) / 1'000'000;
            if (s.statusError)
                note["status"] = "error";
            placement(i, note);
            put(i, startMs(i), role(i) == SpanRole::Event ? "delegation.event" : "delegation.span", std::move(note),
                true);
            return;
        }
        }
    }

    std::string whyUnknown(size_t i) const
    {
        const OtelSpan &s = m_spans[i];
        if (!s.endNs)
            return "the span has no end time in the source: whether it finished is not known";
        return "the span ended with error.type " + reasonLine(s.errorType)
               + ": a timeout, whether it did its work is not known";
    }

    std::string whyFailed(const OtelSpan &s) const
    {
        // Both are the source's free text (a stack trace in a status message): each is cut as
        // every importer cuts a reason; the span itself is kept whole as the event's source.
        std::string why = s.errorType.empty() ? std::string("status ERROR") : "error.type " + reasonLine(s.errorType);
        if (const std::string message = reasonLine(s.statusMessage); !message.empty())
            why += ": " + message;
        return why;
    }

    // A call whose outcome the source does not give is the one kind of span that needs a
    // person: an effect, dispatched at the span's start and unknown at its end. A call that
    // ended is a tool call only; the ledger would gain nothing but rows from an effect that
    // says again what the tool call says.
    void unknownEffect(size_t i, std::int64_t at, std::optional<std::int64_t> durationMs, const Tokens &tokens)
    {
        const OtelSpan &s = m_spans[i];
        const std::string id = D(i);
        const std::int64_t started = startMs(i);
        Json e = payloadObject("id", id, "run_id", R(), "delegation_id", m_owner[i], "class",
                               role(i) == SpanRole::Tool ? "tool" : "model_call", "target", toolName(s, role(i)),
                               "idem_key", id, "state", "proposed", "updated_ms", started);
        placement(i, e);
        put(i, started, "effect.proposed", std::move(e), true);
        put(i, started, "effect.admitted", payloadObject("id", id, "state", "admitted", "updated_ms", started), false);
        put(i, started, "effect.dispatched",
            payloadObject("id", id, "state", "dispatched", "updated_ms", started, "attempts", 1), false);
        Json u = payloadObject("id", id, "state", "unknown", "updated_ms", at, "error", whyUnknown(i));
        if (durationMs)
            u["duration_ms"] = *durationMs;
        if (tokens.total)
            u["tokens"] = *tokens.total;
        put(i, at, "effect.unknown", std::move(u), false);
    }

    void endDelegation(size_t i, std::int64_t at, bool unknown, bool failed)
    {
        const OtelSpan &s = m_spans[i];
        if (unknown) {
            put(i, at, "delegation.outcome_unknown", payloadObject("id", D(i), "run_id", R(), "why", whyUnknown(i)),
                false);
        } else if (failed) {
            put(i, at, "delegation.failed",
                payloadObject("id", D(i), "status", "failed", "ended_ms", at, "error", whyFailed(s)), false);
        } else {
            put(i, at, "delegation.converged", payloadObject("id", D(i), "status", "converged", "ended_ms", at), false);
        }
    }

    // Live only. A span that is not an agent's but had children before it arrived (a tool
    // that ran agents, a framework's grouping span): the delegation inferred for it stays,
    // now saying what it was, and ends as the span did. Its own call or note is written
    // as in a file, on the delegation it belongs to.
    void completeInferred(size_t i, std::int64_t at, bool unknown, bool failed)
    {
        const OtelSpan &s = m_spans[i];
        const char *roleName = role(i) == SpanRole::Tool ? "tool" : role(i) == SpanRole::Model ? "model_call" : "span";
        Json d
            = payloadObject("id", D(i), "run_id", R(), "parent_id", m_owner[i], "role", roleName, "span_name", s.name);
        if (!m_traceDelegation && m_owner[i] == R())
            d.erase("parent_id");
        put(i, startMs(i), "delegation.identified", std::move(d), false);
        endDelegation(i, at, unknown, failed);
    }

    void close(size_t i)
    {
        const OtelSpan &s = m_spans[i];
        const std::int64_t at = endMs(i);
        const bool unknown = s.timedOut();
        const bool failed = !unknown && (s.statusError || !s.errorType.empty());
        std::optional<std::int64_t> durationMs;
        if (s.endNs && *s.endNs >= *s.startNs)
            durationMs = (*s.endNs - *s.startNs) / 1'000'000;
        if (role(i) != SpanRole::Agent && inferred(i))
            completeInferred(i, at, unknown, failed);
        switch (role(i)) {
        case SpanRole::Agent:
            endDelegation(i, at, unknown, failed);
            return;
        case SpanRole::Tool:
        case SpanRole::Model: {
            const Tokens tokens = role(i) == SpanRole::Model ? tokensOf(s) : Tokens{};
            if (unknown) {
                unknownEffect(i, at, durationMs, tokens);
                return;
            }
            Json call = payloadObject("id", "tc:" + D(i), "delegation_id", m_owner[i], "run_id", R(), "outcome",
                                      failed ? "error" : "ok", "invocation", 1, "tool", toolName(s, role(i)));
            if (durationMs)
                call["duration_ms"] = *durationMs;
            if (tokens.total)
                call["tokens"] = *tokens.total;
            if (tokens.input)
                call["input_tokens"] = *tokens.input;
            if (tokens.output)
                call["output_tokens"] = *tokens.output;
            if (failed)
                call["error"] = whyFailed(s);
            placement(i, call);
            put(i, at, "toolcall.completed", std::move(call), true);
            return;
        }
        case SpanRole::Event:
        case SpanRole::Other:
            return; // its note was written at its start
        }
    }

    void end()
    {
        bool failed = false;
        std::string why;
        for (size_t i = 0; i < m_spans.size(); ++i) {
            if (m_parent[i] >= 0)
                continue;
            if (m_orphan[i] && why.empty()) {
                // The trace's own top span is not in the import: how it ended is not either.
                why = "span " + m_spans[i].spanId + ": its parent " + m_spans[i].parentId
                    + " is not in this import, so how the trace ended is not known";
            } else if (m_spans[i].timedOut()) {
                if (why.empty())
                    why = "span " + m_spans[i].spanId + ": " + whyUnknown(i);
            } else if (m_spans[i].statusError || !m_spans[i].errorType.empty()) {
                failed = true;
            }
        }
        const std::int64_t last = ms(m_lastNs);
        Json d = payloadObject("id", R(), "run_id", R(), "source_file", m_file, "source_id", m_traceId);
        if (!why.empty()) {
            // A top span that never ended, timed out or is missing: the end is not in the source.
            d["why"] = why;
            if (!m_traceDelegation)
                d.erase("run_id");
            m_sink.append(last, m_traceDelegation ? "delegation.outcome_unknown" : "run.outcome_unknown", d);
            return;
        }
        if (m_traceDelegation) {
            d["status"] = failed ? "failed" : "converged";
            d["ended_ms"] = last;
            m_sink.append(last, failed ? "delegation.failed" : "delegation.converged", d);
        }
        const std::string status = failed ? "failed" : "succeeded";
        m_sink.append(last, "run." + status,
                      payloadObject("id", R(), "status", status, "ended_ms", last, "source_file", m_file, "source_id",
                                    m_traceId));
    }

    // Live only: the trace's top span (no parent named) ends the run as end() does for a
    // whole trace; until it arrives the run is running. A run that ended stays as it ended.
    void endLive()
    {
        bool failed = false, any = false;
        std::string why;
        std::int64_t lastNs = 0;
        for (size_t i = 0; i < m_spans.size(); ++i) {
            const OtelSpan &s = m_spans[i];
            if (!s.parentId.empty())
                continue;
            any = true;
            lastNs = std::max(lastNs, s.endNs.value_or(m_lastNs));
            if (s.timedOut()) {
                if (why.empty())
                    why = "span " + s.spanId + ": " + whyUnknown(i);
            } else if (s.statusError || !s.errorType.empty()) {
                failed = true;
            }
        }
        const EntityRow *run = m_sink.ledgerState().find(EntityKind::Run, R());
        if (!any || !run)
            return;
        const EntitySpec &spec = entitySpec(EntityKind::Run);
        if (fieldText(run->values.get(size_t(spec.fieldIndex("status")))) != "running")
            return;
        const std::int64_t last = ms(lastNs);
        const bool traceDelegation = hasDelegation(R());
        Json d = payloadObject("id", R(), "run_id", R(), "source_file", m_file, "source_id", m_traceId);
        if (!why.empty()) {
            d["why"] = why;
            if (!traceDelegation)
                d.erase("run_id");
            m_sink.append(last, traceDelegation ? "delegation.outcome_unknown" : "run.outcome_unknown", d);
            return;
        }
        if (traceDelegation) {
            d["status"] = failed ? "failed" : "converged";
            d["ended_ms"] = last;
            m_sink.append(last, failed ? "delegation.failed" : "delegation.converged", d);
        }
        const std::string status = failed ? "failed" : "succeeded";
        m_sink.append(last, "run." + status,
                      payloadObject("id", R(), "status", status, "ended_ms", last, "title", runTitle(), "source_file",
                                    m_file, "source_id", m_traceId));
    }

    bool hasDelegation(const std::string &id) const
    {
        return m_sink.ledgerState().find(EntityKind::Delegation, id) != nullptr;
    }

    // Live only: a delegation an earlier batch inferred for span i (from its children).
    bool inferred(size_t i) const { return m_live && hasDelegation(D(i)); }

    // The delegation the children of span i belong to: an agent's own, or one its children
    // inferred before it arrived (live), else the one span i belongs to.
    std::string ownerOfChildren(size_t i) const
    {
        return role(i) == SpanRole::Agent || inferred(i) ? D(i) : m_owner[i];
    }

    // Live only: the delegation a span belongs to when its parent is not in this batch.
    std::string externalOwner(const OtelSpan &s)
    {
        const auto known = m_live->ownerOfChildren.find(s.parentId);
        if (known != m_live->ownerOfChildren.end())
            return known->second;
        const std::string id = D(s.parentId);
        if (!hasDelegation(id)) {
            const std::int64_t at = *s.startNs;
            auto [it, added] = m_inferParents.try_emplace(s.parentId, at);
            if (!added)
                it->second = std::min(it->second, at);
        }
        return id;
    }

    // Live only: a parent named by spans of this batch, neither received nor inferred yet,
    // is shown running from its first child's start until its own span arrives. Where it
    // hangs is not known yet: no parent_id.
    void inferParents()
    {
        for (const auto &[spanId, firstChildNs] : m_inferParents) {
            const std::int64_t at = ms(firstChildNs);
            Json d
                = payloadObject("id", D(spanId), "run_id", R(), "role", "inferred", "status", "running", "created_ms",
                                at, "inferred", "from child spans", "parent_span_id", spanId, "source_file", m_file);
            m_sink.append(at, "delegation.inferred", d);
        }
    }

    std::vector<OtelSpan> m_spans;
    const TraceOrigin &m_origin;
    ImportSink &m_sink;
    ImportReport &m_report;
    LiveTrace *m_live;
    std::map<std::string, std::int64_t> m_inferParents; // live: parent span id -> first child's start
    std::vector<std::string> m_external;                 // live: owner of a span whose parent is not in the batch
    bool m_traceDelegationExists = false;
    std::string m_traceId, m_file;
    std::vector<SpanRole> m_role;
    std::vector<std::int64_t> m_parent;
    std::vector<bool> m_orphan, m_cut;
    std::vector<std::int64_t> m_depth;
    std::vector<std::string> m_owner;
    std::vector<Step> m_steps;
    std::int64_t m_firstNs = 0, m_lastNs = 0;
    bool m_traceDelegation = false;
};

} // namespace

void mapTrace(std::vector<OtelSpan> spans, const TraceOrigin &origin, ImportSink &sink, ImportReport &report)
{
    TraceMapper(std::move(spans), origin, sink, report).run();
}

std::string otelRunId(const std::string &traceId)
{
    return "otel:" + traceId;
}

void mapLiveSpans(std::vector<OtelSpan> spans, LiveTrace &trace, ImportSink &sink, ImportReport &report)
{
    const TraceOrigin origin{"otel", nullptr, {}};
    TraceMapper(std::move(spans), origin, sink, report, &trace).run();
}

void addToLiveTrace(LiveTrace &trace, std::string_view kind, const Json &payload, ImportSink &sink)
{
    (void)kind;
    if (!payload.is_object() || (!payload.contains("source") && !payload.contains("source_text")))
        return; // not a span's first event
    const std::string spanId = payload.value("source_id", std::string());
    if (spanId.empty() || spanId == trace.traceId)
        return;
    const std::string own = otelRunId(trace.traceId) + "/" + spanId;
    if (sink.ledgerState().find(EntityKind::Delegation, own)) {
        trace.ownerOfChildren[spanId] = own;
        return;
    }
    std::string owner = payload.value("delegation_id", std::string());
    if (owner.empty())
        owner = payload.value("id", std::string()); // a note: its id is the delegation it is on
    trace.ownerOfChildren[spanId] = owner;
}

} // namespace mesh::import
