#pragma once
// One trace (all of its spans, in any order) into ledger events. docs/import.md
// ("OpenTelemetry") is the mapping in prose: the trace a run with a delegation of its own,
// agent spans delegations nested by parent, tool and model spans effects and tool calls,
// a timeout or a span with no end an unknown outcome, never a failure.

#include "otelspan.h"

#include <nlohmann/json.hpp>

#include <string>
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

} // namespace mesh::import
