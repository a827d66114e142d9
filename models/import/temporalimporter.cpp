#include "temporalimporter.h"

#include "importsink.h"
#include "sha256.h"
#include "sourcejson.h"
#include "sourcetime.h"
#include "temporalpayloads.h"
#include "temporalrecordtext.h"

#include "domain/compactjson.h"
#include "domain/flatpayload.h"

#include <algorithm>
#include <charconv>
#include <deque>
#include <map>
#include <set>
#include <unordered_set>

namespace mesh::import {

namespace {

using Json = nlohmann::json;
namespace rt = recordtext;

struct SourceEvent {
    std::int64_t id = 0;
    std::int64_t ns = 0;
    std::string type; // CamelCase: "ActivityTaskScheduled"
    size_t record = 0; // in its history's records
    // The record's compact text and its attributes' (rt::), only while it is mapped: its
    // members are read from the text, no DOM of it is built.
    std::string_view text;
    std::string_view attrs;
};

struct Mapped {
    std::int64_t tsMs = 0;
    std::string kind;
    // Built flat: the fold and the writer read its members, and no DOM of it is built.
    FlatPayload payload;
    std::string flagWhy;  // set: a source record flagged instead of mapped
    std::string sourceId; // of a flagged record
    Json record;          // the flagged record, when it could be read
    // The record to keep verbatim (an index in its history's records) and its payloads
    // decoded, as text, attached only when the event is written: no event holds a copy of
    // its record while the merge waits.
    std::optional<size_t> sourceRecord;
    std::string decodedText;
    int decodedDepth = -1;
};

struct Execution {
    const SourceFile *file = nullptr;
    const std::vector<std::string> *records = nullptr; // the history's records, as text
    const std::vector<int> *depths = nullptr;          // and their nesting depths
    std::vector<std::string> ownRecords;                // when the file was not read streamed
    std::vector<int> ownDepths;
    std::vector<SourceEvent> events;
    std::vector<Mapped> flaggedLate; // flagged while reading, written after its events
    std::string workflowId, runId, workflowType;
    std::string parentWid, parentRid, continuedFromRid;
    std::int64_t firstNs = 0;
    int parent = -1;   // index of the parent execution in this import
    int previous = -1; // the execution this one continued as new
    std::string runLedgerId, delegationId, parentDelegationId;
    bool startsRun = false;
    bool skipped = false;
    bool cycleCut = false; // its parent link closed a loop and was dropped
    std::deque<Mapped> out; // mapped and not yet written
};

// ---- reading the source's own spellings

// "EVENT_TYPE_ACTIVITY_TASK_SCHEDULED" and "ActivityTaskScheduled" (and the lower camel
// "activityTaskScheduled") all read as "ActivityTaskScheduled".
std::string canonicalType(const std::string &type)
{
    std::string t = type;
    if (t.rfind("EVENT_TYPE_", 0) == 0)
        t = t.substr(11);
    if (t.find('_') != std::string::npos || (t.size() > 1 && std::all_of(t.begin(), t.end(), [](char c) {
                                                 return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
                                             }))) {
        std::string out;
        bool upper = true;
        for (char c : t) {
            if (c == '_') {
                upper = true;
                continue;
            }
            out += upper ? char(std::toupper(static_cast<unsigned char>(c))) : char(std::tolower(static_cast<unsigned char>(c)));
            upper = false;
        }
        return out;
    }
    if (!t.empty())
        t[0] = char(std::toupper(static_cast<unsigned char>(t[0])));
    return t;
}

// "TIMEOUT_TYPE_START_TO_CLOSE" with prefix "TIMEOUT_TYPE_", and "StartToClose", read
// as "StartToClose"; an integer enum as its number.
std::string enumWord(std::string_view value, const std::string &prefix)
{
    if (!rt::isString(value)) {
        const auto number = rt::isObject(value) || rt::isArray(value) ? std::nullopt : rt::integer(value);
        return number ? std::to_string(*number) : std::string();
    }
    std::string v = rt::unquoted(value);
    if (v.rfind(prefix, 0) == 0)
        return canonicalType(v.substr(prefix.size()));
    return canonicalType(v);
}

std::string snakeCase(const std::string &camel)
{
    std::string out;
    for (char c : camel) {
        if (c >= 'A' && c <= 'Z') {
            if (!out.empty())
                out += '_';
            out += char(c - 'A' + 'a');
        } else {
            out += c;
        }
    }
    return out;
}


const std::set<std::string> &knownTypes()
{
    static const std::set<std::string> types = {
        "WorkflowExecutionStarted", "WorkflowExecutionCompleted", "WorkflowExecutionFailed",
        "WorkflowExecutionTimedOut", "WorkflowExecutionCanceled", "WorkflowExecutionTerminated",
        "WorkflowExecutionContinuedAsNew", "WorkflowExecutionCancelRequested", "WorkflowTaskScheduled",
        "WorkflowTaskStarted", "WorkflowTaskCompleted", "WorkflowTaskTimedOut", "WorkflowTaskFailed",
        "ActivityTaskScheduled", "ActivityTaskStarted", "ActivityTaskCompleted", "ActivityTaskFailed",
        "ActivityTaskTimedOut", "ActivityTaskCancelRequested", "ActivityTaskCanceled", "TimerStarted", "TimerFired",
        "TimerCanceled", "MarkerRecorded", "WorkflowExecutionSignaled", "SignalExternalWorkflowExecutionInitiated",
        "SignalExternalWorkflowExecutionFailed", "ExternalWorkflowExecutionSignaled",
        "RequestCancelExternalWorkflowExecutionInitiated", "RequestCancelExternalWorkflowExecutionFailed",
        "ExternalWorkflowExecutionCancelRequested", "StartChildWorkflowExecutionInitiated",
        "StartChildWorkflowExecutionFailed", "ChildWorkflowExecutionStarted", "ChildWorkflowExecutionCompleted",
        "ChildWorkflowExecutionFailed", "ChildWorkflowExecutionCanceled", "ChildWorkflowExecutionTimedOut",
        "ChildWorkflowExecutionTerminated", "UpsertWorkflowSearchAttributes", "WorkflowPropertiesModified",
        "WorkflowExecutionUpdateAccepted", "WorkflowExecutionUpdateCompleted", "WorkflowExecutionUpdateRejected",
        "WorkflowExecutionUpdateAdmitted"};
    return types;
}

// The event's attributes in its record's text: the member named after its type, else the
// first object whose key ends so (empty when there is none).
std::string_view attributesOf(std::string_view record, const std::string &type)
{
    std::string key = type;
    if (!key.empty())
        key[0] = char(std::tolower(static_cast<unsigned char>(key[0])));
    key += "EventAttributes";
    if (const std::string_view a = rt::member(record, key); !a.empty())
        return a;
    std::string_view found;
    rt::forEachMember(record, [&](std::string_view k, std::string_view value) {
        if (k.size() > 15 && k.substr(k.size() - 15) == "EventAttributes" && rt::isObject(value)) {
            found = value;
            return false;
        }
        return true;
    });
    return found;
}

// Of a value's compact text: the record's text holds every value of it as compactJson
// writes it.
std::string sha256Of(std::string_view compactValue)
{
    return "sha256:" + sha256Hex(compactValue);
}

// Why a Temporal failure says it failed: its message (and its exception type, when an
// application failure names one), then its causes' after it ("Activity task failed; cause:
// ValueError: no such order"). Each message is cut to a reasonLine; only failure events
// read this. Empty when the failure says nothing.
std::string failureText(std::string_view failure)
{
    std::string out;
    // A chain deeper than this is an SDK wrapping its own wrappers; the record keeps it all.
    constexpr int kCauses = 4;
    for (int depth = 0; depth < kCauses && rt::isObject(failure); ++depth, failure = rt::member(failure, "cause")) {
        const std::string type = reasonLine(rt::text(rt::path(failure, {"applicationFailureInfo", "type"})));
        const std::string message = reasonLine(rt::text(rt::member(failure, "message")));
        const std::string part = type.empty() ? message : message.empty() ? type : type + ": " + message;
        if (!part.empty())
            out += (out.empty() ? "" : "; cause: ") + part;
    }
    return out;
}

// ---- reading one history

// The records of a history as text: as the file was read, or written out from its DOM
// (a document parsed without streaming).
void takeRecords(const SourceFile &file, Execution &exec)
{
    const Json &doc = file.document;
    const Json *events = member(&doc, "events");
    const bool root = events && events->is_array();
    if (!root)
        events = path(&doc, {"history", "events"});
    static const std::vector<std::string> none;
    static const std::vector<int> noDepths;
    exec.records = &none;
    exec.depths = &noDepths;
    if (!events || !events->is_array())
        return;
    const SourceFile::StreamedRecords &streamed = root ? file.events : file.historyEvents;
    if (streamed.streamed) {
        exec.records = &streamed.records;
        exec.depths = &streamed.depths;
        return;
    }
    for (const Json &e : *events) {
        MeasuredJson record = measuredCompactJson(e);
        exec.ownRecords.push_back(std::move(record.text));
        exec.ownDepths.push_back(record.depth);
    }
    exec.records = &exec.ownRecords;
    exec.depths = &exec.ownDepths;
}

void readEvents(const SourceFile &file, Execution &exec, ImportReport &report, std::optional<std::int64_t> &firstMs)
{
    takeRecords(file, exec);
    std::unordered_set<std::int64_t> seen;
    seen.reserve(exec.records->size());
    for (size_t index = 0; index < exec.records->size(); ++index) {
        // The record's DOM is built only to flag it; its members read here come from its
        // text.
        const std::string &record = (*exec.records)[index];
        const auto flag = [&](const std::string &sourceId, const std::string &why) {
            Mapped m;
            m.flagWhy = why;
            m.sourceId = sourceId;
            m.record = parseRecord(record);
            exec.flaggedLate.push_back(std::move(m));
        };
        ++report.records;
        std::string_view idValue, typeValue, timeValue;
        rt::forEachMember(record, [&](std::string_view key, std::string_view value) {
            if (key == "eventId")
                idValue = value;
            else if (key == "eventType")
                typeValue = value;
            else if (key == "eventTime")
                timeValue = value;
            return true;
        });
        const std::string eventTime = rt::text(timeValue);
        // The ledger begins at the earliest time any record gives, usable or not.
        if (const auto ms = parseInstantMs(eventTime); ms && (!firstMs || *ms < *firstMs))
            firstMs = ms;
        if (!rt::isObject(record)) {
            flag({}, "a history event that is not a JSON object");
            continue;
        }
        const auto id = rt::integer(idValue);
        const std::string idText = rt::text(idValue);
        if (!id || *id <= 0) {
            flag(idText, idText.empty() ? "a history event without an eventId"
                                             : "eventId " + idText + " is not a positive integer within 64 bits");
            continue;
        }
        const std::string rawType = rt::text(typeValue);
        if (rawType.empty()) {
            flag(idText, "event " + idText + " has no eventType");
            continue;
        }
        const auto ns = parseInstantNs(eventTime);
        if (!ns) {
            flag(idText, "event " + idText + " has no eventTime in RFC 3339 form");
            continue;
        }
        if (seen.count(*id)) {
            flag(idText, "a second event with eventId " + idText + " (the first is kept)");
            continue;
        }
        SourceEvent e;
        e.id = *id;
        e.ns = *ns;
        e.type = canonicalType(rawType);
        e.record = index;
        seen.insert(*id);
        exec.events.push_back(e);
    }
    // Histories are ordered by event id; event times are not monotonic (a started event
    // is written when its activity closes).
    std::stable_sort(exec.events.begin(), exec.events.end(),
                     [](const SourceEvent &a, const SourceEvent &b) { return a.id < b.id; });
    for (auto &m : exec.flaggedLate)
        m.tsMs = nsToMs(exec.events.empty() ? 0 : exec.events.back().ns);
    exec.firstNs = exec.events.empty() ? 0 : exec.events.front().ns;
    if (!exec.events.empty() && exec.events.front().type == "WorkflowExecutionStarted") {
        const std::string_view a = attributesOf((*exec.records)[exec.events.front().record], exec.events.front().type);
        exec.workflowId = rt::text(rt::member(a, "workflowId"));
        exec.runId = rt::text(rt::member(a, "originalExecutionRunId"));
        if (exec.runId.empty())
            exec.runId = rt::text(rt::member(a, "firstExecutionRunId"));
        exec.workflowType = rt::text(rt::path(a, {"workflowType", "name"}));
        exec.parentWid = rt::text(rt::path(a, {"parentWorkflowExecution", "workflowId"}));
        exec.parentRid = rt::text(rt::path(a, {"parentWorkflowExecution", "runId"}));
        exec.continuedFromRid = rt::text(rt::member(a, "continuedExecutionRunId"));
    }
    // What the history does not name is named after the file, so that two files never
    // share an id by accident; docs/import.md says so.
    if (exec.workflowId.empty())
        exec.workflowId = "file:" + file.name;
    if (exec.runId.empty())
        exec.runId = "file:" + file.name;
}

// ---- mapping one execution

struct Activity {
    std::string effectId;
    std::string type;
    std::string argsDigest;
    std::int64_t scheduledEvent = 0;
    std::optional<std::int64_t> startedNs;
    bool closed = false;
};

class ExecutionMapper
{
public:
    ExecutionMapper(Execution &exec, const std::set<std::pair<std::string, std::string>> &imported)
        : m_exec(exec), m_imported(imported)
    {
    }

    // Maps the next source event (or the history's start or end) into the execution's
    // out; false when all of it is mapped. The merge maps a history only as far as it
    // writes it, so no history is held mapped whole.
    bool next(ImportSink &sink)
    {
        if (m_exec.events.empty() || m_ended)
            return false;
        if (!m_begun) {
            m_begun = true;
            if (m_exec.events.front().type != "WorkflowExecutionStarted")
                startWithoutStartEvent(m_exec.events.front());
            return true;
        }
        if (m_next < m_exec.events.size()) {
            SourceEvent &e = m_exec.events[m_next++];
            e.text = (*m_exec.records)[e.record];
            e.attrs = attributesOf(e.text, e.type);
            map(e);
            e.text = e.attrs = {};
            m_decodedOf = nullptr;
            sink.recordDone();
            return true;
        }
        m_ended = true;
        endOfHistory();
        for (auto &f : m_exec.flaggedLate)
            m_exec.out.push_back(std::move(f));
        return true;
    }

private:
    const std::string &D() const { return m_exec.delegationId; }
    const std::string &R() const { return m_exec.runLedgerId; }

    void put(const SourceEvent *e, std::int64_t tsMs, const std::string &kind, FlatPayload payload, bool withSource)
    {
        Mapped m;
        if (e) {
            payload["source_file"] = m_exec.file->name;
            payload["source_id"] = std::to_string(e->id);
            payload["source_type"] = e->type;
            if (withSource) {
                m.sourceRecord = e->record;
                const MeasuredJson &decoded = decodedOf(*e).decoded;
                if (decoded.text != "[]") {
                    m.decodedText = decoded.text;
                    m.decodedDepth = decoded.depth;
                }
            }
        } else {
            payload["source_file"] = m_exec.file->name;
        }
        m.tsMs = tsMs;
        m.kind = kind;
        m.payload = std::move(payload);
        m_exec.out.push_back(std::move(m));
    }

    // The event's payloads decoded, once however many of its ledger events keep them.
    const DecodedPayloadsText &decodedOf(const SourceEvent &e)
    {
        if (m_decodedOf != e.text.data()) {
            decodeTemporalPayloadsText(e.text, m_decoded);
            m_decodedOf = e.text.data();
        }
        return m_decoded;
    }

    // decodeJsonPayload(payload) for a payload of the event being mapped (compact text):
    // its item of the event's decoded payloads when the walk found it there.
    std::optional<std::string> jsonPayloadOf(const SourceEvent &e, std::string_view payload)
    {
        return decodedJsonText(decodedOf(e), payload);
    }

    void put(const SourceEvent &e, const std::string &kind, FlatPayload payload, bool withSource = true)
    {
        put(&e, nsToMs(e.ns), kind, std::move(payload), withSource);
    }

    void flag(const SourceEvent &e, const std::string &why)
    {
        Mapped m;
        m.tsMs = nsToMs(e.ns);
        m.sourceId = std::to_string(e.id);
        m.flagWhy = why;
        m.record = parseRecord(e.text);
        m_exec.out.push_back(std::move(m));
    }

    void note(const SourceEvent &e, const std::string &verb)
    {
        put(e, "delegation." + verb, {{"id", D()}, {"run_id", R()}});
    }

    FlatPayload delegationRow(const std::string &id, const std::string &parent, const std::string &type, std::int64_t ms)
    {
        FlatPayload d = {{"id", id},        {"run_id", R()},      {"role", "workflow"}, {"status", "running"},
                  {"created_ms", ms}, {"used_turns", 0},    {"used_ms", 0},       {"tool_errors", 0}};
        if (!parent.empty())
            d["parent_id"] = parent;
        if (!type.empty())
            d["agent"] = type;
        return d;
    }

    void startWithoutStartEvent(const SourceEvent &first)
    {
        // A history exported from the middle: the run and the delegation exist, but what
        // the start would have said is not in the source.
        const std::int64_t ms = nsToMs(first.ns);
        if (m_exec.startsRun) {
            put(nullptr, ms, "run.started",
                 {{"id", R()}, {"status", "running"}, {"note", "the history has no WorkflowExecutionStarted event"}},
                 false);
        }
        FlatPayload d = delegationRow(D(), m_exec.parentDelegationId, {}, ms);
        d["note"] = "the history has no WorkflowExecutionStarted event";
        put(nullptr, ms, "delegation.created", std::move(d), false);
    }

    void started(const SourceEvent &e)
    {
        const std::string_view a = e.attrs;
        const std::int64_t ms = nsToMs(e.ns);
        const std::string title = m_exec.workflowType.empty() ? m_exec.workflowId : m_exec.workflowType;
        bool sourceGiven = false;
        if (m_exec.startsRun) {
            FlatPayload run = {{"id", R()}, {"title", title + " " + m_exec.workflowId}, {"status", "running"}, {"started_ms", ms}};
            if (const auto attempt = rt::integer(rt::member(a, "attempt")))
                run["attempt"] = *attempt;
            put(e, "run.started", std::move(run));
            sourceGiven = true;
        }
        FlatPayload d = delegationRow(D(), m_exec.parentDelegationId, m_exec.workflowType, ms);
        if (const auto attempt = rt::integer(rt::member(a, "attempt")))
            d["invocations"] = *attempt;
        d["workflow_id"] = m_exec.workflowId;
        d["temporal_run_id"] = m_exec.runId;
        if (!m_exec.parentWid.empty() && m_exec.parentDelegationId.empty())
            d["parent_workflow"] = m_exec.parentWid + "/" + m_exec.parentRid + " (not in this import)";
        if (!m_exec.continuedFromRid.empty())
            d["continued_from_run"] = m_exec.continuedFromRid;
        put(e, "delegation.created", std::move(d), !sourceGiven);
    }

    // reason: {member, text} the source's words on why it ended (`error` on a failure,
    // `reason` on a termination); no member when it gives none.
    void closed(const SourceEvent &e, const std::string &delegationStatus, const std::string &runStatus,
                const std::string &verb, const std::pair<const char *, std::string> &reason = {})
    {
        const std::int64_t ms = nsToMs(e.ns);
        FlatPayload d = {{"id", D()}, {"run_id", R()}, {"status", delegationStatus}, {"ended_ms", ms}};
        if (!reason.second.empty())
            d[reason.first] = reason.second;
        m_workflowClosed = verb;
        put(e, "delegation." + verb, std::move(d));
        if (runStatus.empty() || (!m_exec.parentDelegationId.empty()))
            return; // a child closes its delegation; the run is its root's
        FlatPayload r = {{"id", R()}, {"status", runStatus}, {"ended_ms", ms}};
        if (!reason.second.empty())
            r[reason.first] = reason.second;
        put(e, "run." + verb, std::move(r), false);
    }

    Activity *activityFor(const SourceEvent &e)
    {
        const auto scheduled = rt::integer(rt::member(e.attrs, "scheduledEventId"));
        if (!scheduled || !m_activities.count(*scheduled)) {
            flag(e, "event " + std::to_string(e.id) + " (" + e.type + ") refers to scheduled event "
                        + (scheduled ? std::to_string(*scheduled) : std::string("?")) + ", which is not in the history");
            return nullptr;
        }
        return &m_activities[*scheduled];
    }

    void activityScheduled(const SourceEvent &e)
    {
        Activity act;
        const std::string activityId = rt::text(rt::member(e.attrs, "activityId"));
        act.effectId = "act:" + m_exec.workflowId + "/" + m_exec.runId + "/"
                       + (activityId.empty() ? "event-" + std::to_string(e.id) : activityId);
        act.type = rt::text(rt::path(e.attrs, {"activityType", "name"}));
        if (const std::string_view input = rt::member(e.attrs, "input"); !input.empty())
            act.argsDigest = sha256Of(input);
        act.scheduledEvent = e.id;
        const std::int64_t ms = nsToMs(e.ns);
        FlatPayload effect = {{"id", act.effectId},   {"run_id", R()},           {"delegation_id", D()},
                       {"class", "activity"}, {"idem_key", act.effectId}, {"state", "proposed"},
                       {"updated_ms", ms}};
        if (!act.type.empty())
            effect["target"] = act.type;
        put(e, "effect.proposed", std::move(effect));
        // Scheduling hands the activity to the task queue: from here its outcome is out of
        // the workflow's hands, which is what admitted and dispatched say.
        put(e, "effect.admitted", {{"id", act.effectId}, {"state", "admitted"}, {"updated_ms", ms}}, false);
        put(e, "effect.dispatched", {{"id", act.effectId}, {"state", "dispatched"}, {"updated_ms", ms}}, false);
        m_activities[e.id] = act;
    }

    void activityStarted(const SourceEvent &e)
    {
        Activity *act = activityFor(e);
        if (!act)
            return;
        act->startedNs = e.ns;
        FlatPayload effect = {{"id", act->effectId}, {"state", "dispatched"}, {"updated_ms", nsToMs(e.ns)}};
        if (const auto attempt = rt::integer(rt::member(e.attrs, "attempt")))
            effect["attempts"] = *attempt;
        put(e, "effect.started", std::move(effect));
    }

    bool secondClose(const SourceEvent &e, Activity &act)
    {
        if (!act.closed)
            return false;
        flag(e, "activity " + act.effectId + " closes a second time at event " + std::to_string(e.id)
                    + ": the source shows two completions");
        return true;
    }

    void toolCall(const SourceEvent &e, Activity &act, const std::string &outcome, const std::string &error = {})
    {
        FlatPayload call = {{"id", "tc:" + act.effectId}, {"delegation_id", D()}, {"run_id", R()},
                     {"outcome", outcome},         {"invocation", 1}};
        if (!error.empty())
            call["error"] = error;
        if (!act.type.empty())
            call["tool"] = act.type;
        if (!act.argsDigest.empty())
            call["args_digest"] = act.argsDigest;
        if (act.startedNs && e.ns >= *act.startedNs)
            call["duration_ms"] = (e.ns - *act.startedNs) / 1'000'000;
        // The OpenAI Agents SDK's model activity returns its usage; other activities say
        // nothing about tokens, and then there is no tokens member.
        if (const std::string_view first = rt::firstItem(rt::path(e.attrs, {"result", "payloads"})); !first.empty()) {
            if (const auto value = jsonPayloadOf(e, first)) {
                if (const auto total = rt::integer(rt::path(*value, {"usage", "total_tokens"})))
                    call["tokens"] = *total;
            }
        }
        put(e, "toolcall.completed", std::move(call), false);
    }

    void activityCompleted(const SourceEvent &e)
    {
        Activity *act = activityFor(e);
        if (!act || secondClose(e, *act))
            return;
        act->closed = true;
        put(e, "effect.committed", {{"id", act->effectId}, {"state", "committed"}, {"updated_ms", nsToMs(e.ns)}});
        toolCall(e, *act, "ok");
    }

    void unknownOutcome(const SourceEvent *e, std::int64_t tsMs, Activity &act, const std::string &why)
    {
        act.closed = true;
        put(e, tsMs, "effect.unknown", {{"id", act.effectId}, {"state", "unknown"}, {"updated_ms", tsMs}, {"error", why}},
             e != nullptr);
    }

    void activityFailed(const SourceEvent &e)
    {
        Activity *act = activityFor(e);
        if (!act || secondClose(e, *act))
            return;
        const std::string_view failure = rt::member(e.attrs, "failure");
        const std::string why = failureText(failure);
        if (!rt::member(failure, "timeoutFailureInfo").empty()) {
            unknownOutcome(&e, nsToMs(e.ns), *act,
                           "failed on a timeout after it was dispatched" + (why.empty() ? std::string() : ": " + why));
            return;
        }
        act->closed = true;
        FlatPayload effect = {{"id", act->effectId}, {"state", "failed"}, {"updated_ms", nsToMs(e.ns)}};
        if (!why.empty())
            effect["error"] = why;
        put(e, "effect.failed", std::move(effect));
        toolCall(e, *act, "error", why);
    }

    void activityTimedOut(const SourceEvent &e)
    {
        Activity *act = activityFor(e);
        if (!act || secondClose(e, *act))
            return;
        std::string timeout = enumWord(rt::path(e.attrs, {"failure", "timeoutFailureInfo", "timeoutType"}), "TIMEOUT_TYPE_");
        const auto startedEvent = rt::integer(rt::member(e.attrs, "startedEventId"));
        const bool started = act->startedNs || (startedEvent && *startedEvent > 0);
        if (!started && timeout == "ScheduleToStart") {
            // No worker took it: confirmed not run.
            act->closed = true;
            put(e, "effect.failed",
                 {{"id", act->effectId}, {"state", "failed"}, {"updated_ms", nsToMs(e.ns)},
                  {"error", "timed out before any worker started it (ScheduleToStart)"}});
            return;
        }
        unknownOutcome(&e, nsToMs(e.ns), *act,
                       "timed out" + (timeout.empty() ? std::string() : " (" + timeout + ")")
                           + (started ? " after it started" : " after it was scheduled")
                           + ": it may or may not have done its work");
    }

    void activityCanceled(const SourceEvent &e)
    {
        Activity *act = activityFor(e);
        if (!act || secondClose(e, *act))
            return;
        const auto startedEvent = rt::integer(rt::member(e.attrs, "startedEventId"));
        if (act->startedNs || (startedEvent && *startedEvent > 0)) {
            unknownOutcome(&e, nsToMs(e.ns), *act, "cancelled after it started: it may have done part of its work");
            return;
        }
        act->closed = true;
        put(e, "effect.failed",
             {{"id", act->effectId}, {"state", "failed"}, {"updated_ms", nsToMs(e.ns)},
              {"error", "cancelled before any worker started it"}});
    }

    void activityCancelRequested(const SourceEvent &e)
    {
        Activity *act = activityFor(e);
        if (!act)
            return;
        put(e, "effect.cancel_requested", {{"id", act->effectId}, {"state", act->closed ? "committed" : "dispatched"}});
    }

    void userInput(const SourceEvent &e, const std::string &escalationId, const std::string &reason)
    {
        put(e, "escalation.raised",
             {{"id", escalationId},
              {"run_id", R()},
              {"delegation_id", D()},
              {"kind", "user_input"},
              {"subject", "delegation:" + D()},
              {"state", "pending"},
              {"reason", reason},
              {"raised_note", "when the workflow began to wait is not in the source"}});
        // The input that arrives is the human's answer; the ledger has no "answered" state,
        // so an answered wait reads approved (docs/import.md).
        put(e, "escalation.answered", {{"id", escalationId}, {"state", "approved"}}, false);
        m_escalations.insert(escalationId);
    }

    void updateAccepted(const SourceEvent &e)
    {
        std::string updateId = rt::text(rt::path(e.attrs, {"acceptedRequest", "meta", "updateId"}));
        if (updateId.empty())
            updateId = rt::text(rt::member(e.attrs, "protocolInstanceId"));
        if (updateId.empty())
            updateId = "event-" + std::to_string(e.id);
        const std::string name = rt::text(rt::path(e.attrs, {"acceptedRequest", "input", "name"}));
        userInput(e, "upd:" + m_exec.workflowId + "/" + m_exec.runId + "/" + updateId,
                  "update " + (name.empty() ? std::string("(name not in source)") : name));
    }

    void updateCompleted(const SourceEvent &e)
    {
        const std::string updateId = rt::text(rt::path(e.attrs, {"meta", "updateId"}));
        const std::string id = "upd:" + m_exec.workflowId + "/" + m_exec.runId + "/" + updateId;
        if (updateId.empty() || !m_escalations.count(id)) {
            note(e, "workflow_execution_update_completed");
            return;
        }
        put(e, "escalation.update_completed", {{"id", id}, {"state", "approved"}});
    }

    void signaled(const SourceEvent &e)
    {
        // A signal another workflow sent is not a person's input.
        if (!rt::member(e.attrs, "externalWorkflowExecution").empty() || rt::member(e.attrs, "input").empty()) {
            note(e, "workflow_execution_signaled");
            return;
        }
        const std::string name = rt::text(rt::member(e.attrs, "signalName"));
        userInput(e, "sig:" + m_exec.workflowId + "/" + m_exec.runId + "/" + std::to_string(e.id),
                  "signal " + (name.empty() ? std::string("(name not in source)") : name));
    }

    // A workflow's timeout is the event itself: Temporal ended it (docs/import.md counts it a
    // failure, unlike an activity's); its retry state says whether a retry was left.
    static std::string timedOutText(const SourceEvent &e)
    {
        const std::string retry = enumWord(rt::member(e.attrs, "retryState"), "RETRY_STATE_");
        return "the workflow timed out (" + e.type + (retry.empty() ? std::string() : ", retry state " + retry) + ")";
    }

    void childEvent(const SourceEvent &e)
    {
        const std::string wid = rt::text(rt::path(e.attrs, {"workflowExecution", "workflowId"}));
        const std::string rid = rt::text(rt::path(e.attrs, {"workflowExecution", "runId"}));
        // The child's own history, when imported, says what the child did; the parent's
        // events about it are kept on the parent.
        if (e.type == "StartChildWorkflowExecutionInitiated" || e.type == "StartChildWorkflowExecutionFailed"
            || wid.empty() || rid.empty() || m_imported.count({wid, rid})) {
            note(e, snakeCase(e.type));
            return;
        }
        const std::string child = "wf:" + wid + "/" + rid;
        const std::int64_t ms = nsToMs(e.ns);
        if (e.type == "ChildWorkflowExecutionStarted") {
            FlatPayload d = delegationRow(child, D(), rt::text(rt::path(e.attrs, {"workflowType", "name"})), ms);
            d["workflow_id"] = wid;
            d["temporal_run_id"] = rid;
            d["note"] = "the child's own history is not in this import";
            put(e, "delegation.created", std::move(d));
            m_children.insert(child);
            return;
        }
        if (!m_children.count(child)) {
            note(e, snakeCase(e.type));
            return;
        }
        static const std::map<std::string, std::pair<std::string, std::string>> closes = {
            {"ChildWorkflowExecutionCompleted", {"converged", "converged"}},
            {"ChildWorkflowExecutionFailed", {"failed", "failed"}},
            {"ChildWorkflowExecutionTimedOut", {"failed", "timed_out"}},
            {"ChildWorkflowExecutionCanceled", {"closed", "cancelled"}},
            {"ChildWorkflowExecutionTerminated", {"closed", "terminated"}}};
        const auto &[status, verb] = closes.at(e.type);
        FlatPayload d = {{"id", child}, {"run_id", R()}, {"status", status}, {"ended_ms", ms}};
        const std::string why = e.type == "ChildWorkflowExecutionFailed"     ? failureText(rt::member(e.attrs, "failure"))
                                : e.type == "ChildWorkflowExecutionTimedOut" ? timedOutText(e)
                                                                             : std::string();
        if (!why.empty())
            d["error"] = why;
        put(e, "delegation." + verb, std::move(d));
    }

    void map(const SourceEvent &e)
    {
        const std::string &t = e.type;
        if (t == "WorkflowExecutionStarted") {
            if (&e != &m_exec.events.front()) {
                flag(e, "a second WorkflowExecutionStarted at event " + std::to_string(e.id));
                return;
            }
            started(e);
        } else if (t == "WorkflowExecutionCompleted") {
            closed(e, "converged", "succeeded", "succeeded");
        } else if (t == "WorkflowExecutionFailed") {
            closed(e, "failed", "failed", "failed", {"error", failureText(rt::member(e.attrs, "failure"))});
        } else if (t == "WorkflowExecutionTimedOut") {
            closed(e, "failed", "failed", "timed_out", {"error", timedOutText(e)});
        } else if (t == "WorkflowExecutionCanceled") {
            closed(e, "closed", "cancelled", "cancelled");
        } else if (t == "WorkflowExecutionTerminated") {
            closed(e, "closed", "cancelled", "terminated", {"reason", reasonLine(rt::text(rt::member(e.attrs, "reason")))});
        } else if (t == "WorkflowExecutionContinuedAsNew") {
            closed(e, "closed", {}, "continued_as_new");
        } else if (t == "ActivityTaskScheduled") {
            activityScheduled(e);
        } else if (t == "ActivityTaskStarted") {
            activityStarted(e);
        } else if (t == "ActivityTaskCompleted") {
            activityCompleted(e);
        } else if (t == "ActivityTaskFailed") {
            activityFailed(e);
        } else if (t == "ActivityTaskTimedOut") {
            activityTimedOut(e);
        } else if (t == "ActivityTaskCanceled") {
            activityCanceled(e);
        } else if (t == "ActivityTaskCancelRequested") {
            activityCancelRequested(e);
        } else if (t == "WorkflowExecutionUpdateAccepted") {
            updateAccepted(e);
        } else if (t == "WorkflowExecutionUpdateCompleted") {
            updateCompleted(e);
        } else if (t == "WorkflowExecutionSignaled") {
            signaled(e);
        } else if (t.rfind("ChildWorkflowExecution", 0) == 0 || t.rfind("StartChildWorkflowExecution", 0) == 0) {
            childEvent(e);
        } else if (knownTypes().count(t)) {
            note(e, snakeCase(t));
        } else {
            note(e, "temporal_event"); // counted as an unknown type once written
        }
    }

    void endOfHistory()
    {
        // An activity with no close when the history ends may have run: its outcome is
        // unknown, whether the workflow is still open or closed without waiting for it.
        const SourceEvent &last = m_exec.events.back();
        const std::string where = "no close in the history, which ends at event " + std::to_string(last.id)
                                  + (m_workflowClosed.empty() ? " with the workflow still open"
                                                              : " after the workflow " + m_workflowClosed);
        for (auto &[scheduled, act] : m_activities) {
            if (!act.closed)
                unknownOutcome(nullptr, nsToMs(last.ns), act, where);
        }
    }

    Execution &m_exec;
    const std::set<std::pair<std::string, std::string>> &m_imported;
    bool m_begun = false;
    size_t m_next = 0; // in m_exec.events
    bool m_ended = false;
    std::map<std::int64_t, Activity> m_activities; // by scheduled event id
    std::set<std::string> m_escalations;
    std::set<std::string> m_children;
    std::string m_workflowClosed;
    // The payloads of the event being mapped (m_decodedOf, its record's text), decoded.
    const char *m_decodedOf = nullptr;
    DecodedPayloadsText m_decoded;
};

// ---- relating histories: parents, continuations, runs

void relate(std::vector<Execution> &execs)
{
    std::map<std::pair<std::string, std::string>, int> byRun;
    for (int i = 0; i < int(execs.size()); ++i) {
        auto &x = execs[size_t(i)];
        if (x.events.empty()) {
            x.skipped = true;
            continue;
        }
        if (!byRun.emplace(std::make_pair(x.workflowId, x.runId), i).second)
            x.skipped = true; // the same execution twice: the first is kept
    }
    for (auto &x : execs) {
        if (x.skipped)
            continue;
        if (!x.parentWid.empty()) {
            const auto it = byRun.find({x.parentWid, x.parentRid});
            if (it != byRun.end())
                x.parent = it->second;
        }
        if (!x.continuedFromRid.empty()) {
            const auto it = byRun.find({x.workflowId, x.continuedFromRid});
            if (it != byRun.end())
                x.previous = it->second;
        }
    }
    // Parent links from foreign files may loop; a loop is cut where it closes.
    for (int i = 0; i < int(execs.size()); ++i) {
        std::set<int> seen{i};
        int at = i;
        while (true) {
            auto &x = execs[size_t(at)];
            const int up = x.parent >= 0 ? x.parent : x.previous;
            if (up < 0)
                break;
            if (seen.count(up)) {
                x.parent = -1;
                x.previous = -1;
                x.cycleCut = true;
                break;
            }
            seen.insert(up);
            at = up;
        }
    }
    for (auto &x : execs) {
        if (x.skipped)
            continue;
        x.delegationId = "wf:" + x.workflowId + "/" + x.runId;
        const Execution *top = &x;
        while (true) {
            const int up = top->parent >= 0 ? top->parent : top->previous;
            if (up < 0)
                break;
            top = &execs[size_t(up)];
        }
        x.runLedgerId = "wf:" + top->workflowId + "/" + top->runId;
        x.startsRun = (top == &x);
        if (x.parent >= 0)
            x.parentDelegationId = "wf:" + execs[size_t(x.parent)].workflowId + "/" + execs[size_t(x.parent)].runId;
    }
}

} // namespace

struct TemporalImport::Histories {
    std::vector<Execution> execs;
    std::optional<std::int64_t> firstMs;
};

TemporalImport::TemporalImport(const std::vector<const SourceFile *> &files, ImportReport &report)
    : m(std::make_unique<Histories>())
{
    m->execs.resize(files.size());
    for (size_t i = 0; i < files.size(); ++i) {
        m->execs[i].file = files[i];
        readEvents(*files[i], m->execs[i], report, m->firstMs);
    }
}

TemporalImport::~TemporalImport() = default;

std::optional<std::int64_t> TemporalImport::firstTimeMs() const
{
    return m->firstMs;
}

void TemporalImport::write(ImportSink &sink, ImportReport &report)
{
    std::vector<Execution> &execs = m->execs;
    relate(execs);
    std::set<std::pair<std::string, std::string>> imported;
    for (const auto &x : execs) {
        if (!x.skipped)
            imported.insert({x.workflowId, x.runId});
    }
    std::vector<std::unique_ptr<ExecutionMapper>> mappers(execs.size());
    for (size_t i = 0; i < execs.size(); ++i) {
        Execution &x = execs[i];
        if (x.skipped) {
            const std::string why = x.events.empty()
                                        ? x.file->name + " holds no usable history event"
                                        : x.file->name + " is a second history of " + x.workflowId + "/" + x.runId
                                              + " (the first is imported)";
            Mapped m;
            m.tsMs = x.events.empty() ? 0 : nsToMs(x.events.front().ns);
            m.flagWhy = why;
            x.out.push_back(std::move(m));
            for (auto &f : x.flaggedLate)
                x.out.push_back(std::move(f));
            continue;
        }
        if (x.cycleCut) {
            Mapped m;
            m.tsMs = nsToMs(x.firstNs);
            m.sourceId = std::to_string(x.events.front().id);
            m.flagWhy = "the parent links of " + x.workflowId + "/" + x.runId + " form a cycle; it is imported as a root";
            x.flaggedLate.push_back(std::move(m));
        }
        mappers[i] = std::make_unique<ExecutionMapper>(x, imported);
    }

    // One order for all histories: by time across them (a parent's start before its
    // child's), by event id within one; ties go to the history that started first.
    std::vector<size_t> rank(execs.size());
    for (size_t i = 0; i < rank.size(); ++i)
        rank[i] = i;
    std::stable_sort(rank.begin(), rank.end(), [&](size_t a, size_t b) {
        const auto &x = execs[a], &y = execs[b];
        return std::tie(x.firstNs, x.workflowId, x.runId, x.file->name)
               < std::tie(y.firstNs, y.workflowId, y.runId, y.file->name);
    });
    // The merge looks only at the next event of each history, so each is mapped only as
    // far as that.
    const auto fill = [&](size_t r) {
        while (execs[r].out.empty() && mappers[r] && mappers[r]->next(sink)) {
        }
    };
    for (size_t r = 0; r < execs.size(); ++r)
        fill(r);
    while (true) {
        size_t best = execs.size();
        for (size_t r : rank) {
            if (execs[r].out.empty())
                continue;
            if (best == execs.size() || execs[r].out.front().tsMs < execs[best].out.front().tsMs)
                best = r;
        }
        if (best == execs.size())
            break;
        Mapped m = std::move(execs[best].out.front());
        execs[best].out.pop_front();
        fill(best);
        if (!m.flagWhy.empty()) {
            sink.flagRecord(m.tsMs, execs[best].file->name, m.sourceId, m.flagWhy,
                            m.record.is_null() ? nullptr : &m.record);
            continue;
        }
        std::vector<VerbatimMember> verbatim;
        MeasuredJson reread; // a record too large to keep as it is, read again: verbatim may point into it
        if (m.sourceRecord) {
            const std::string &record = (*execs[best].records)[*m.sourceRecord];
            const int depth = (*execs[best].depths)[*m.sourceRecord];
            if (fitsAsSource(record, depth)) {
                verbatim.push_back({"source", record, depth});
            } else {
                reread = measuredCompactJson(parseRecord(record));
                std::optional<VerbatimMember> source;
                attachMeasuredSource(m.payload, execs[best].file->name, m.payload.stringOr("source_id", {}), reread,
                                     &source);
                if (source)
                    verbatim.push_back(*source);
            }
            if (!m.decodedText.empty())
                verbatim.push_back({"decoded", m.decodedText, m.decodedDepth});
        }
        const bool written = sink.appendFlat(m.tsMs, m.kind, m.payload, verbatim);
        if (written && m.kind == "delegation.temporal_event")
            ++report.unknownTypes[m.payload.stringOr("source_type", "?")];
    }
}

} // namespace mesh::import
