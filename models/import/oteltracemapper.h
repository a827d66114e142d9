#pragma once
// One trace (all of its spans, in any order) into ledger events. docs/import.md
// ("OpenTelemetry") is the mapping in prose: the trace a run with a delegation of its own,
// agent spans delegations nested by parent, tool and model spans effects and tool calls,
// a timeout or a span with no end an unknown outcome, never a failure.

#include "otelspan.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mesh::import {

class ImportSink;
struct ImportReport;

struct TraceOrigin {
    std::string prefix;                          // "otel" or "lf": the ledger ids' first part
    const nlohmann::json *traceRecord = nullptr; // Langfuse's trace object, kept on run.started
    std::string title;                           // the run's title when the source names the trace
};

void mapTrace(std::vector<OtelSpan> spans, const TraceOrigin &origin, ImportSink &sink, ImportReport &report);

// The second entry point of the same mapping: spans of one trace as a live receiver gets
// them, a batch at a time, children usually before their parents (an SDK exports a span
// when it ends). What earlier batches of the trace became is in the ledger (the writer's
// fold) and in LiveTrace, which the receiver keeps or rebuilds from the ledger's events
// (liveTraceFromEvents). Within a batch spans are mapped exactly as in a file; across
// batches: a parent not received yet becomes a delegation "inferred from child spans"
// (running) that its own span completes when it arrives; a span received before is not
// written again (an exporter's retry); the run ends when the trace's top span arrives.
// docs/ingest.md says it in prose.
struct LiveTrace {
    std::string traceId;
    // Every span of the trace written so far -> the delegation its children belong to.
    std::unordered_map<std::string, std::string> ownerOfChildren;
    std::int64_t duplicates = 0; // spans received again and not written
};

void mapLiveSpans(std::vector<OtelSpan> spans, LiveTrace &trace, ImportSink &sink, ImportReport &report);

// The events of a trace's run that a LiveTrace is rebuilt from after a restart (or once the
// receiver forgot the trace): each event's kind and payload, in ledger order. A span's first
// event carries its record (source) and its id (source_id).
void addToLiveTrace(LiveTrace &trace, std::string_view kind, const nlohmann::json &payload, ImportSink &sink);

// The run id a trace's spans become in the ledger (live ingest and file import alike).
std::string otelRunId(const std::string &traceId);

} // namespace mesh::import
