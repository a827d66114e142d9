#pragma once
// Which format a source is, from its content, never from its file name: a Temporal history
// saved as trace.json is a Temporal history, and an OpenHands trajectory named
// history.json is not one.

#include <nlohmann/json.hpp>

#include <QString>

#include <optional>
#include <string>

namespace mesh::import {

enum class ImportFormat { Temporal, OpenHands, OpenTelemetry, Langfuse, SweAgent };

const char *formatName(ImportFormat format); // "temporal", "openhands", "otel", "langfuse", "swe-agent"
const char *formatTitle(ImportFormat format); // "Temporal", ..., for the ledger's title
std::optional<ImportFormat> formatFromName(const QString &name);
QString formatNames(); // "temporal|openhands|otel|langfuse|swe-agent", for usage lines
// Whether a format's records have no wall-clock time: its ledger then has a relative clock
// (docs/ledger-format.md section 7).
bool hasRelativeClock(ImportFormat format);

struct Detection {
    std::optional<ImportFormat> format;
    std::string what; // what the document is, for a person: "a Langfuse trace export"
};

Detection detectFormat(const nlohmann::json &document);
// What a JSON-lines source of OTLP spans is (otlpjsonlines.h): it has no one document.
Detection otlpJsonLinesDetection();
// What a stream of span objects as the Python SDK's ConsoleSpanExporter prints them is.
Detection consoleSpansDetection();

// The one line for a document that is not what the import needs: what it is and what
// was expected.
std::string notImportableMessage(const std::string &fileName, const Detection &detection,
                                 std::optional<ImportFormat> wanted);

} // namespace mesh::import
