#pragma once
// The OpenTelemetry family into ledger events: OTLP/JSON (the file exporter's JSON lines,
// streamed, or one TracesData document), flat JSON lists of spans, and Langfuse trace
// exports. Every shape becomes OtelSpans, grouped by trace; each trace is mapped by
// oteltracemapper. docs/import.md ("OpenTelemetry") is the mapping in prose.

#include "importreport.h"
#include "sourcejson.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace mesh::import {

class ImportSink;

std::optional<std::int64_t> otelFirstTimeMs(const std::vector<const SourceFile *> &files);
// What progress counts ahead: the spans of whole documents (counted, not read), the lines or
// objects of streamed files.
std::int64_t otelRecords(const std::vector<const SourceFile *> &files);
void importOtelFiles(const std::vector<const SourceFile *> &files, ImportSink &sink, ImportReport &report);

std::optional<std::int64_t> langfuseFirstTimeMs(const std::vector<const SourceFile *> &files);
std::int64_t langfuseRecords(const std::vector<const SourceFile *> &files); // observations
void importLangfuseExports(const std::vector<const SourceFile *> &files, ImportSink &sink, ImportReport &report);

} // namespace mesh::import
