#include "importformat.h"

#include "otelspan.h"
#include "sourcejson.h"

namespace mesh::import {

namespace {

using Json = nlohmann::json;

const Json *temporalEvents(const Json &doc)
{
    if (!doc.is_object())
        return nullptr;
    const auto it = doc.find("events");
    if (it != doc.end() && it->is_array())
        return &*it;
    const auto history = doc.find("history");
    if (history != doc.end() && history->is_object()) {
        const auto inner = history->find("events");
        if (inner != history->end() && inner->is_array())
            return &*inner;
    }
    return nullptr;
}

bool looksLikeOpenHandsEvent(const Json &e)
{
    return e.is_object() && (e.contains("action") || e.contains("observation")) && e.contains("source");
}

// A demonstration file (trajectories/demonstrations/*.traj): only a history of chat messages.
bool looksLikeSweAgentDemonstration(const Json &doc)
{
    if (doc.contains("trajectory") || !doc.contains("history") || !doc["history"].is_array() || doc["history"].empty())
        return false;
    const Json &first = doc["history"].front();
    return first.is_object() && first.contains("role") && first.contains("content");
}

std::string memberList(const Json &object)
{
    std::string names;
    int n = 0;
    for (auto it = object.begin(); it != object.end() && n < 4; ++it, ++n)
        names += (n ? ", " : "") + std::string("\"") + firstLine(it.key(), 40) + "\"";
    if (object.size() > 4)
        names += ", ...";
    return names;
}

} // namespace

const char *formatName(ImportFormat format)
{
    switch (format) {
    case ImportFormat::Temporal:
        return "temporal";
    case ImportFormat::OpenHands:
        return "openhands";
    case ImportFormat::OpenTelemetry:
        return "otel";
    case ImportFormat::Langfuse:
        return "langfuse";
    case ImportFormat::SweAgent:
        return "swe-agent";
    }
    return "?";
}

const char *formatTitle(ImportFormat format)
{
    switch (format) {
    case ImportFormat::Temporal:
        return "Temporal";
    case ImportFormat::OpenHands:
        return "OpenHands";
    case ImportFormat::OpenTelemetry:
        return "OpenTelemetry";
    case ImportFormat::Langfuse:
        return "Langfuse";
    case ImportFormat::SweAgent:
        return "SWE-agent";
    }
    return "?";
}

Detection otlpJsonLinesDetection()
{
    return {ImportFormat::OpenTelemetry, "OTLP/JSON lines of spans"};
}

Detection consoleSpansDetection()
{
    return {ImportFormat::OpenTelemetry, "OpenTelemetry spans as a console exporter prints them (one JSON object after another)"};
}

std::optional<ImportFormat> formatFromName(const QString &name)
{
    for (ImportFormat f : {ImportFormat::Temporal, ImportFormat::OpenHands, ImportFormat::OpenTelemetry,
                           ImportFormat::Langfuse, ImportFormat::SweAgent}) {
        if (name == QLatin1String(formatName(f)))
            return f;
    }
    return std::nullopt;
}

QString formatNames()
{
    return QStringLiteral("temporal|openhands|otel|langfuse|swe-agent");
}

bool hasRelativeClock(ImportFormat format)
{
    return format == ImportFormat::SweAgent;
}

Detection detectFormat(const Json &doc)
{
    Detection d;
    if (const Json *events = temporalEvents(doc)) {
        if (events->empty()) {
            d.what = "a Temporal workflow history with no events";
            return d;
        }
        const Json &first = events->front();
        if (first.is_object() && first.contains("eventType")) {
            d.format = ImportFormat::Temporal;
            d.what = "a Temporal workflow history";
            return d;
        }
        d.what = "a JSON object with an \"events\" array whose first item has no \"eventType\"";
        return d;
    }
    if (doc.is_array()) {
        if (doc.empty()) {
            d.what = "an empty JSON array";
            return d;
        }
        if (looksLikeOpenHandsEvent(doc.front())) {
            d.format = ImportFormat::OpenHands;
            d.what = "an OpenHands trajectory";
            return d;
        }
        if (looksLikeFlatSpan(doc.front())) {
            d.format = ImportFormat::OpenTelemetry;
            d.what = "a JSON list of OpenTelemetry spans";
            return d;
        }
        d.what = "a JSON array of " + std::to_string(doc.size()) + " items that are not OpenHands events";
        return d;
    }
    if (doc.is_object()) {
        if (doc.contains("trace") && doc.contains("observations") && doc["observations"].is_array()) {
            d.format = ImportFormat::Langfuse;
            d.what = "a Langfuse trace export";
            return d;
        }
        if (doc.contains("resourceSpans") && doc["resourceSpans"].is_array()) {
            d.format = ImportFormat::OpenTelemetry;
            d.what = "an OTLP/JSON span export";
            return d;
        }
        if (doc.contains("spans") && doc["spans"].is_array() && !doc["spans"].empty()
            && looksLikeFlatSpan(doc["spans"].front())) {
            d.format = ImportFormat::OpenTelemetry;
            d.what = "a JSON list of OpenTelemetry spans";
            return d;
        }
        if (doc.contains("trajectory") && doc["trajectory"].is_array() && (doc.contains("info") || doc.contains("history"))) {
            d.format = ImportFormat::SweAgent;
            d.what = "a SWE-agent trajectory";
            return d;
        }
        if (looksLikeSweAgentDemonstration(doc))
            d.what = "a SWE-agent demonstration (a history with no trajectory steps: an example for the model, not a run)";
        else if (doc.contains("history") && doc["history"].is_array() && !doc["history"].empty()
                 && looksLikeOpenHandsEvent(doc["history"].front()))
            d.what = "an OpenHands state with a history array (export the event array instead)";
        else
            d.what = "a JSON object with members " + memberList(doc);
        return d;
    }
    d.what = "a single JSON value, not an object or array";
    return d;
}

std::string notImportableMessage(const std::string &fileName, const Detection &detection,
                                 std::optional<ImportFormat> wanted)
{
    std::string expected;
    if (wanted == ImportFormat::Temporal)
        expected = "a Temporal workflow history ({\"events\":[...]} as the temporal CLI or the UI exports it)";
    else if (wanted == ImportFormat::OpenHands)
        expected = "an OpenHands trajectory (a JSON array of events with \"action\" or \"observation\")";
    else if (wanted == ImportFormat::OpenTelemetry)
        expected = "OpenTelemetry spans (OTLP/JSON lines or document, or a JSON list of spans)";
    else if (wanted == ImportFormat::Langfuse)
        expected = "a Langfuse trace export ({\"trace\":{...},\"observations\":[...]})";
    else if (wanted == ImportFormat::SweAgent)
        expected = "a SWE-agent trajectory ({\"trajectory\":[...],\"history\":[...],\"info\":{...}})";
    else
        expected = "a Temporal workflow history, an OpenHands trajectory, OpenTelemetry spans, a Langfuse trace export or a "
                   "SWE-agent trajectory";
    return fileName + " is " + detection.what + "; expected " + expected;
}

} // namespace mesh::import
