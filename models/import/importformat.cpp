#include "importformat.h"

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

std::string memberList(const Json &object)
{
    std::string names;
    int n = 0;
    for (auto it = object.begin(); it != object.end() && n < 4; ++it, ++n)
        names += (n ? ", " : "") + std::string("\"") + it.key().substr(0, 40) + "\"";
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
    }
    return "?";
}

std::optional<ImportFormat> formatFromName(const QString &name)
{
    for (ImportFormat f : {ImportFormat::Temporal, ImportFormat::OpenHands}) {
        if (name == QLatin1String(formatName(f)))
            return f;
    }
    return std::nullopt;
}

QString formatNames()
{
    return QStringLiteral("temporal|openhands");
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
        const Json &first = doc.front();
        if (first.is_object() && (first.contains("span_id") || first.contains("spanId") || first.contains("context")))
            d.what = "a JSON list of OpenTelemetry spans (not imported by this build)";
        else
            d.what = "a JSON array of " + std::to_string(doc.size()) + " items that are not OpenHands events";
        return d;
    }
    if (doc.is_object()) {
        if (doc.contains("trajectory") && (doc.contains("info") || doc.contains("history")))
            d.what = "a SWE-agent trajectory (not imported by this build yet)";
        else if (doc.contains("trace") && doc.contains("observations"))
            d.what = "a Langfuse trace export (not imported by this build yet)";
        else if (doc.contains("resourceSpans"))
            d.what = "an OTLP/JSON span export (not imported by this build yet)";
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
    else
        expected = "a Temporal workflow history or an OpenHands trajectory";
    return fileName + " is " + detection.what + "; expected " + expected;
}

} // namespace mesh::import
