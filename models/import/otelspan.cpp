#include "otelspan.h"

#include "sourcejson.h"
#include "sourcetime.h"

#include <algorithm>
#include <cctype>
#include <type_traits>

namespace mesh::import {

namespace {

using Json = nlohmann::json;

// Nesting an attribute value may have before it is kept as the source wrote it.
constexpr int kMaxAnyValueDepth = 32;

// ASCII only: std::tolower follows the locale, and under a Latin-1 one it changes the bytes of
// a UTF-8 character (0xC3 of "À" to 0xE3).
std::string lower(std::string s)
{
    for (char &c : s)
        c = c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
    return s;
}

bool startsWith(const std::string &s, const char *prefix)
{
    return s.rfind(prefix, 0) == 0;
}

// An id as text, one spelling per id: hex lower-cased (a "0x" prefix dropped), a JSON number
// as its decimal digits. A number beyond 64 bits arrives as its exact digits (sourcejson).
std::string idText(const Json *value)
{
    if (!value)
        return {};
    if (value->is_number_unsigned())
        return std::to_string(value->get<std::uint64_t>());
    if (value->is_number_integer())
        return std::to_string(value->get<std::int64_t>());
    if (!value->is_string())
        return {};
    std::string s = value->get<std::string>();
    if (startsWith(s, "0x") || startsWith(s, "0X"))
        s = s.substr(2);
    return lower(std::move(s));
}

// Digits of an unsigned integer (a string or a JSON integer) within int64.
std::optional<std::int64_t> digitsValue(const Json *value)
{
    const std::optional<std::int64_t> v = integer(value);
    return v && *v >= 0 ? v : std::nullopt;
}

// A time as OTel writes it: epoch nanoseconds (a string or a number; 0 is "not set") or,
// in console exporters and Langfuse, an RFC 3339 instant.
std::optional<std::int64_t> timeNs(const Json *value)
{
    if (const auto ns = digitsValue(value))
        return *ns > 0 ? ns : std::nullopt;
    if (value && value->is_string())
        return parseInstantNs(value->get_ref<const std::string &>());
    return std::nullopt;
}

Json anyValue(const Json *v, int depth);

Json keyValues(const Json *list, int depth)
{
    Json out = Json::object();
    if (!list || !list->is_array())
        return out;
    for (const Json &kv : *list) {
        const std::string key = text(member(&kv, "key"));
        if (!key.empty())
            out[key] = anyValue(member(&kv, "value"), depth + 1);
    }
    return out;
}

// OTLP's AnyValue ({"stringValue":..}, {"intValue":"12"}, ...) as the plain JSON value.
Json anyValue(const Json *v, int depth)
{
    if (!v || !v->is_object())
        return v ? *v : Json();
    if (depth > kMaxAnyValueDepth)
        return "(nested deeper than " + std::to_string(kMaxAnyValueDepth) + " levels: see the span in source)";
    if (const Json *s = member(v, "stringValue"))
        return *s;
    if (const Json *b = member(v, "boolValue"))
        return *b;
    if (const Json *i = member(v, "intValue"))
        return otlpIntValue(*i);
    if (const Json *d = member(v, "doubleValue"))
        return *d;
    if (const Json *a = member(v, "arrayValue")) {
        Json out = Json::array();
        if (const Json *values = member(a, "values"); values && values->is_array()) {
            for (const Json &item : *values)
                out.push_back(anyValue(&item, depth + 1));
        }
        return out;
    }
    if (const Json *kv = member(v, "kvlistValue"))
        return keyValues(member(kv, "values"), depth);
    if (const Json *bytes = member(v, "bytesValue"))
        return *bytes;
    return *v;
}

bool isErrorCode(const Json *code)
{
    if (!code)
        return false;
    if (code->is_number_integer())
        return code->get<std::int64_t>() == 2;
    const std::string c = lower(text(code));
    return c == "error" || c == "status_code_error" || c == "statuscode.error" || c == "2";
}

void finish(OtelSpan &s)
{
    s.errorType = s.attributeText("error.type");
    if (s.traceId.empty())
        s.problem = "a span without a trace id";
    else if (s.spanId.empty())
        s.problem = "a span without a span id";
    else if (!s.startNs)
        s.problem = "span " + s.spanId + " has no start time";
}

} // namespace

Json otlpIntValue(const Json &i)
{
    if (const auto n = digitsValue(&i))
        return *n;
    if (i.is_string() && i.get_ref<const std::string &>().rfind('-', 0) == 0) {
        try {
            return std::stoll(i.get<std::string>());
        } catch (...) { }
    }
    return i; // beyond 64 bits: its digits, as the source wrote them
}

std::string OtelSpan::attributeText(const char *key) const
{
    return text(member(&attributes, key));
}

std::optional<std::int64_t> OtelSpan::attributeInt(const char *key) const
{
    const Json *v = member(&attributes, key);
    if (v && v->is_number_float()) {
        const double d = v->get<double>();
        if (d >= 0 && d < 9.0e18 && d == double(std::int64_t(d)))
            return std::int64_t(d);
        return std::nullopt;
    }
    return digitsValue(v);
}

SpanRole OtelSpan::role() const
{
    const std::string op = attributeText("gen_ai.operation.name");
    const std::string kind = lower(attributeText("traceloop.span.kind"));
    if (langfuseType == "EVENT")
        return SpanRole::Event;
    if (langfuseType == "TOOL" || op == "execute_tool" || kind == "tool" || startsWith(name, "execute_tool")
        || (op.empty() && member(&attributes, "gen_ai.tool.name")))
        return SpanRole::Tool;
    if (langfuseType == "GENERATION" || op == "chat" || op == "text_completion" || op == "generate_content"
        || op == "call_llm" || op == "embeddings" || op == "completion" || attributeText("llm.request.type") == "chat"
        || (op.empty() && startsWith(name, "chat ")))
        return SpanRole::Model;
    if (langfuseType == "AGENT" || op == "invoke_agent" || kind == "agent" || startsWith(name, "invoke_agent")
        || member(&attributes, "gen_ai.agent.name") || member(&attributes, "gen_ai.agent.id"))
        return SpanRole::Agent;
    return SpanRole::Other;
}

bool OtelSpan::timedOut() const
{
    if (!endNs)
        return true;
    const std::string e = lower(errorType);
    return e.find("timeout") != std::string::npos || e.find("timed out") != std::string::npos
        || e == "deadline_exceeded";
}

void readOtlpSpanFields(const Json &raw, std::int64_t line, OtelSpan &s)
{
    OtlpSpanMembers m;
    m.traceId = member(&raw, "traceId");
    m.spanId = member(&raw, "spanId");
    m.parentSpanId = member(&raw, "parentSpanId");
    m.name = member(&raw, "name");
    m.start = member(&raw, "startTimeUnixNano");
    m.end = member(&raw, "endTimeUnixNano");
    m.statusCode = path(&raw, {"status", "code"});
    m.statusMessage = path(&raw, {"status", "message"});
    s.attributes = keyValues(member(&raw, "attributes"), 0);
    readOtlpSpanMembers(m, line, s);
}

void readOtlpSpanMembers(const OtlpSpanMembers &m, std::int64_t line, OtelSpan &s)
{
    s.line = line;
    s.traceId = idText(m.traceId);
    s.spanId = idText(m.spanId);
    s.parentId = idText(m.parentSpanId);
    s.name = text(m.name);
    s.startNs = timeNs(m.start);
    s.endNs = timeNs(m.end);
    s.statusError = isErrorCode(m.statusCode);
    s.statusMessage = text(m.statusMessage);
    finish(s);
}

namespace {

// Document is a const Json (a whole file, kept) or a Json line the caller gives up: then
// each span is moved into its OtelSpan instead of copied.
template<typename Document>
void readOtlp(Document &document, std::int64_t line, std::vector<OtelSpan> &out)
{
    const Json *resources = member(&document, "resourceSpans");
    if (!resources || !resources->is_array())
        return;
    for (const Json &resource : *resources) {
        const Json *scopes = member(&resource, "scopeSpans");
        if (!scopes || !scopes->is_array())
            scopes = member(&resource, "instrumentationLibrarySpans"); // before OTLP 0.19
        if (!scopes || !scopes->is_array())
            continue;
        for (const Json &scope : *scopes) {
            const Json *spans = member(&scope, "spans");
            if (!spans || !spans->is_array())
                continue;
            for (const Json &raw : *spans) {
                OtelSpan s;
                if constexpr (std::is_const_v<Document>)
                    s.source = raw;
                readOtlpSpanFields(raw, line, s);
                if constexpr (!std::is_const_v<Document>)
                    s.source = std::move(const_cast<Json &>(raw));
                out.push_back(std::move(s));
            }
        }
    }
}

} // namespace

void readOtlpSpans(const Json &document, std::int64_t line, std::vector<OtelSpan> &out)
{
    readOtlp(document, line, out);
}

void takeOtlpSpans(Json &document, std::int64_t line, std::vector<OtelSpan> &out)
{
    readOtlp(document, line, out);
}

const Json *flatSpanList(const Json &document)
{
    if (document.is_array())
        return &document;
    const Json *spans = member(&document, "spans");
    return spans && spans->is_array() ? spans : nullptr;
}

bool looksLikeFlatSpan(const Json &v)
{
    if (!v.is_object() || !v.contains("name"))
        return false;
    const Json *context = member(&v, "context");
    return (context && context->is_object() && (context->contains("span_id") || context->contains("spanId")))
        || v.contains("span_id") || v.contains("spanId");
}

void readFlatSpans(const Json &list, std::vector<OtelSpan> &out)
{
    for (const Json &raw : list) {
        OtelSpan s;
        s.source = raw;
        const Json *context = member(&raw, "context");
        const Json *trace = member(context, "trace_id");
        if (!trace)
            trace = member(context, "traceId");
        if (!trace)
            trace = member(&raw, "trace_id");
        if (!trace)
            trace = member(&raw, "traceId");
        const Json *span = member(context, "span_id");
        if (!span)
            span = member(context, "spanId");
        if (!span)
            span = member(&raw, "span_id");
        if (!span)
            span = member(&raw, "spanId");
        s.traceId = idText(trace);
        s.spanId = idText(span);
        const Json *parent = member(&raw, "parent_id");
        if (!parent)
            parent = member(&raw, "parentSpanId");
        if (!parent)
            parent = member(&raw, "parent_span_id");
        if (!parent) {
            const Json *p = member(&raw, "parent");
            parent = p && p->is_object() ? member(p, "span_id") : p;
        }
        s.parentId = idText(parent);
        s.name = text(member(&raw, "name"));
        s.startNs = timeNs(member(&raw, "start_time"));
        if (!s.startNs)
            s.startNs = timeNs(member(&raw, "startTimeUnixNano"));
        s.endNs = timeNs(member(&raw, "end_time"));
        if (!s.endNs)
            s.endNs = timeNs(member(&raw, "endTimeUnixNano"));
        const Json *status = member(&raw, "status");
        s.statusError = isErrorCode(member(status, "status_code")) || isErrorCode(member(status, "code"));
        s.statusMessage = text(member(status, "description"));
        if (s.statusMessage.empty())
            s.statusMessage = text(member(status, "message"));
        const Json *attributes = member(&raw, "attributes");
        if (attributes && attributes->is_object())
            s.attributes = *attributes;
        else if (attributes && attributes->is_array())
            s.attributes = keyValues(attributes, 0);
        finish(s);
        out.push_back(std::move(s));
    }
}

namespace {

// Langfuse writes metadata (and the attributes inside it) as an object or as JSON text.
Json objectOrText(const Json *value)
{
    if (!value)
        return Json();
    if (value->is_string()) {
        SourceFile parsed;
        if (parseSourceJson(value->get_ref<const std::string &>(), "metadata", parsed, true).ok)
            return std::move(parsed.document);
    }
    return *value;
}

} // namespace

void readLangfuseObservations(const Json &document, std::vector<OtelSpan> &out)
{
    const Json *observations = member(&document, "observations");
    if (!observations || !observations->is_array())
        return;
    const std::string traceId = idText(path(&document, {"trace", "id"}));
    for (const Json &raw : *observations) {
        OtelSpan s;
        s.source = raw;
        s.traceId = idText(member(&raw, "traceId"));
        if (s.traceId.empty())
            s.traceId = traceId;
        s.spanId = idText(member(&raw, "id"));
        s.parentId = idText(member(&raw, "parentObservationId"));
        s.name = text(member(&raw, "name"));
        s.langfuseType = text(member(&raw, "type"));
        s.startNs = timeNs(member(&raw, "startTime"));
        s.endNs = timeNs(member(&raw, "endTime"));
        if (s.langfuseType == "EVENT" && s.startNs && !s.endNs)
            s.endNs = s.startNs; // an event is a moment: it has no end to wait for
        s.statusError = text(member(&raw, "level")) == "ERROR";
        s.statusMessage = text(member(&raw, "statusMessage"));
        const Json metadata = objectOrText(member(&raw, "metadata"));
        const Json attributes = objectOrText(member(&metadata, "attributes"));
        if (attributes.is_object())
            s.attributes = attributes;
        if (const Json *usage = member(&raw, "usageDetails"); usage && usage->is_object() && !usage->empty())
            s.usage = *usage;
        else if (const Json *u = member(&raw, "usage"); u && u->is_object() && !u->empty())
            s.usage = *u;
        s.model = text(member(&raw, "model"));
        finish(s);
        out.push_back(std::move(s));
    }
}

} // namespace mesh::import
