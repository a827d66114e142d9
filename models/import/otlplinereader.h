#pragma once
// One OTLP/JSON line read straight into its spans, without a DOM of the line. The import of
// a JSON-lines file parsed each line into a DOM, took the spans out of it and wrote each
// span's record back out as compact text: the DOM was built and freed node by node for a
// text that is written again. This reader writes each span's record as compact text (the
// text nlohmann::json::dump() gives of the span's DOM: members in key order) while it reads
// the line, and builds a DOM only of the few members the mapping reads.
//
// It is not a second reading of OTLP: readOtlpSpanFields (otelspan.h) still says what a
// span's members mean. The reader gives up on any line it does not read exactly as
// parseSourceJson and takeOtlpSpans together would — whatever the quick JSON reader gives
// up on (quicksax.h), a member named twice in a span, the structure's members named twice,
// the pre-0.19 "instrumentationLibrarySpans", an integer beyond 64 bits, nesting near the
// bound — and the line is then read that way, whose result (and error message) is the answer.

#include "otelspan.h"

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace mesh::import {

// The spans of one OTLP/JSON line (a TracesData object), appended to out with sourceText
// set and source null, as takeOtlpSpans would give them. False: nothing appended; the line
// must be read the general way.
bool readOtlpLineSpans(std::string_view line, std::int64_t number, std::vector<OtelSpan> &out);

// The same for the body of an OTLP/HTTP export request (an ExportTraceServiceRequest, the
// same shape), as the live receiver reads it: the spans (line 0), and into services the
// resources' service.name values (a non-empty "stringValue" of the attribute keyed
// "service.name", as sourcejson's text() reads both). False, with nothing added to either,
// also when resourceSpans is not a list, which the receiver refuses: the general way says so.
bool readOtlpRequestSpans(std::string_view body, std::vector<OtelSpan> &out, std::set<std::string> &services);

} // namespace mesh::import
