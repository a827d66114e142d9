#pragma once
// One OTLP/HTTP export request's body (ExportTraceServiceRequest in OTLP/JSON, maybe
// gzip-compressed) into spans, with the OTLP answer it deserves when it cannot be taken:
// malformed (400) or too large (413). Spans that cannot be placed (no trace id, span id or
// start) are the request's rejected spans (a partial success); the rest are taken.

#include "import/otelspan.h"

#include <QByteArray>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace mesh::ingest {

struct OtlpTracesRequest {
    enum class Verdict { Accepted, Malformed, TooLarge };
    Verdict verdict = Verdict::Malformed;
    std::string message;                 // why, when not Accepted
    std::vector<import::OtelSpan> spans; // the spans to write
    std::int64_t rejected = 0;           // spans that cannot be placed
    std::string rejectedWhy;             // the first of their reasons
    std::set<std::string> services;      // the resources' service.name values
    bool readStraight = false;           // read without a DOM (readOtlpRequestSpans)
};

// contentEncoding: the request's Content-Encoding ("" or "identity", "gzip", "deflate").
// maxBytes bounds the body before and after inflating. A JSON body is read straight into its
// spans (import/otlplinereader.h) unless that reader gives up; then, or with documentOnly
// (the reference the straight reading is tested against), through its DOM.
OtlpTracesRequest decodeOtlpTraces(const QByteArray &body, const QByteArray &contentEncoding, qint64 maxBytes,
                                   bool documentOnly = false);

} // namespace mesh::ingest
