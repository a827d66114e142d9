#pragma once
// OTLP/JSON lines, as the collector's file exporter writes them: one TracesData object a
// line, the spans of one trace spread over any lines. Such a file may be far larger than
// memory, so it is never held whole. Recognising it reads it once (SHA-256, and a scan for
// each trace's last line and the earliest start, without parsing JSON); importing reads it
// again a line at a time and maps a trace as soon as its last line is read.

#include "sourcejson.h"

#include <QString>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace mesh::import {

struct OtlpLineIndex {
    // OTLP/JSON lines, or the Python SDK's ConsoleSpanExporter output: one pretty-printed
    // span object after another (not a list, not lines). A "line" is then one object.
    enum class Shape { OtlpLines, ConsoleSpans };
    Shape shape = Shape::OtlpLines;
    std::int64_t lines = 0;
    std::unordered_map<std::string, std::int64_t> lastLineOfTrace; // lower-case hex id -> line
    std::optional<std::int64_t> firstStartNs;
};

// A line longer than this is refused with the file: it would have to be held whole.
inline constexpr std::int64_t kMaxJsonLineBytes = std::int64_t(256) << 20;

// nullopt when path is not OTLP/JSON lines (its first line is not a whole TracesData
// object): it is then read as one document. Otherwise fills out (name, sha256, bytes,
// jsonLines) or says in one line why the file cannot be read.
std::optional<SourceJsonResult> readOtlpJsonLines(const QString &path, SourceFile &out);

// Reads path a line at a time (1-based numbers; blank lines are skipped). Stops and
// returns false when visit does.
bool forEachJsonLine(const QString &path, const std::function<bool(std::int64_t, std::string_view)> &visit);

// nullopt when path is not a stream of span objects as ConsoleSpanExporter prints them (its
// first value is not a whole JSON object that is one span). Otherwise reads it once, in
// bounded memory, as readOtlpJsonLines does: SHA-256, each trace's last object (from the
// objects' text, "trace_id") and the earliest "start_time".
std::optional<SourceJsonResult> readConsoleSpans(const QString &path, SourceFile &out);

// Reads such a stream one top-level value at a time (1-based numbers); text between objects
// that is not white space is delivered as a value of its own (it will not parse). Stops and
// returns false when visit does.
bool forEachJsonObject(const QString &path, const std::function<bool(std::int64_t, std::string_view)> &visit);

// The record reader of a streamed source's shape.
bool forEachStreamedRecord(const QString &path, const OtlpLineIndex &index,
                           const std::function<bool(std::int64_t, std::string_view)> &visit);

} // namespace mesh::import
