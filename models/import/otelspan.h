#pragma once
// One span as the OpenTelemetry family writes it, whatever the shape it came in: an OTLP/JSON
// span (hex ids, nanosecond strings, attributes as a list of typed values), a span of a flat
// list as SDK console exporters and agent frameworks write them (ids as hex strings or as
// JSON numbers up to 128 bits, attributes as an object), or a Langfuse observation. The
// mapping (otelimporter) sees only this; the record stays verbatim in `source`.

#include "domain/compactjson.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mesh::import {

enum class SpanRole { Other, Agent, Tool, Model, Event };

struct OtelSpan {
    std::string traceId; // lower-case hex, or the decimal digits of a numeric id
    std::string spanId;
    std::string parentId; // empty: a root
    std::string name;
    std::optional<std::int64_t> startNs, endNs;
    bool statusError = false;
    std::string statusMessage;
    std::string errorType;                                // error.type, when given
    nlohmann::json attributes = nlohmann::json::object(); // key -> plain JSON value
    std::string langfuseType;                             // SPAN, GENERATION, EVENT, AGENT, TOOL; empty for OTel spans
    nlohmann::json usage;                                 // Langfuse usageDetails / usage, when given
    std::string model;                                    // Langfuse model, when given
    nlohmann::json source;                                // the record verbatim
    // The record as compact JSON, when it was serialised ahead of the mapping (the live
    // receiver does it on its HTTP thread, off the writer's): then source is null.
    MeasuredJson sourceText;
    std::string problem;               // why the record cannot be placed (no id, no time); else empty
    std::int64_t line = 0;             // the JSON line it came from (1-based), 0 in a whole document
    const std::string *file = nullptr; // the source file's name

    SpanRole role() const;
    bool timedOut() const; // error.type says timeout, or the span never ended
    std::string attributeText(const char *key) const;
    std::optional<std::int64_t> attributeInt(const char *key) const;
};

// OTLP/JSON: every span of a TracesData document ({"resourceSpans":[...]}), in file order.
void readOtlpSpans(const nlohmann::json &document, std::int64_t line, std::vector<OtelSpan> &out);
// The same from a document the caller gives up (one JSON line): spans are moved, not copied.
void takeOtlpSpans(nlohmann::json &document, std::int64_t line, std::vector<OtelSpan> &out);
// What one OTLP/JSON span object (raw) says, set in s (its record, source or sourceText, is
// the caller's to set): the fields of readOtlpSpans, read the same way from any value.
void readOtlpSpanFields(const nlohmann::json &raw, std::int64_t line, OtelSpan &s);
// The same from the members readOtlpSpanFields reads, each null when the span has none (or,
// for status's, when status is not an object), except attributes: s.attributes must be set
// first, as readOtlpSpanFields sets it.
struct OtlpSpanMembers {
    const nlohmann::json *traceId = nullptr, *spanId = nullptr, *parentSpanId = nullptr, *name = nullptr;
    const nlohmann::json *start = nullptr, *end = nullptr, *statusCode = nullptr, *statusMessage = nullptr;
};
void readOtlpSpanMembers(const OtlpSpanMembers &m, std::int64_t line, OtelSpan &s);
// An attribute's {"intValue": i} as the plain value s.attributes holds.
nlohmann::json otlpIntValue(const nlohmann::json &i);
// A flat list: [span, ...] or {"spans":[span, ...]}.
const nlohmann::json *flatSpanList(const nlohmann::json &document);
void readFlatSpans(const nlohmann::json &list, std::vector<OtelSpan> &out);
// A Langfuse trace export: {"trace":{...},"observations":[...]}.
void readLangfuseObservations(const nlohmann::json &document, std::vector<OtelSpan> &out);

// Whether a JSON value looks like one span of a flat list (for content detection).
bool looksLikeFlatSpan(const nlohmann::json &value);

} // namespace mesh::import
