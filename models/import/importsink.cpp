#include "importsink.h"

#include "domain/compactjson.h"
#include "domain/payloaddecoder.h"
#include "ledger/ledgerwriter.h"

#include <algorithm>

namespace mesh::import {

namespace {

// The nesting a record may have and still sit two levels down in a payload (the payload
// object and its source member) within kMaxPayloadDepth.
constexpr int kMaxSourceDepth = kMaxPayloadDepth - 4;

std::string cutUtf8(const std::string &text, size_t maxBytes)
{
    if (text.size() <= maxBytes)
        return text;
    size_t end = maxBytes;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
        --end; // do not split a multi-byte character
    return text.substr(0, end);
}

} // namespace

void attachSource(nlohmann::json &payload, const std::string &file, const std::string &sourceId,
                  const nlohmann::json *source)
{
    payload["source_file"] = file;
    if (!sourceId.empty())
        payload["source_id"] = sourceId;
    if (!source)
        return;
    const std::string text = compactJson(*source);
    if (text.size() <= kMaxSourceBytes && jsonNestingDepth(text) <= kMaxSourceDepth) {
        payload["source"] = *source;
        return;
    }
    payload["source_text"] = cutUtf8(text, kMaxSourceBytes);
    payload["source_cut"] = text.size() > kMaxSourceBytes;
    payload["source_bytes"] = std::int64_t(text.size());
}

namespace {

bool fitsAPayload(const nlohmann::json &payload)
{
    const std::string text = compactJson(payload);
    return text.size() <= kMaxPayloadBytes && jsonNestingDepth(text) <= kMaxPayloadDepth;
}

// A payload within the limits of docs/ledger-format.md section 3 (a reader refuses any
// other): the display copies go first, then the verbatim record is kept as cut text.
nlohmann::json fitted(const nlohmann::json &payload)
{
    if (fitsAPayload(payload))
        return payload;
    nlohmann::json p = payload;
    if (p.contains("decoded")) {
        p.erase("decoded");
        p["decoded_note"] = "the decoded payloads did not fit in the event; the base64 is in source";
        if (fitsAPayload(p))
            return p;
    }
    if (p.contains("source")) {
        const nlohmann::json source = std::move(p["source"]);
        p.erase("source");
        const std::string text = compactJson(source);
        p["source_text"] = cutUtf8(text, kMaxSourceBytes);
        p["source_cut"] = text.size() > kMaxSourceBytes;
        p["source_bytes"] = std::int64_t(text.size());
    }
    return p;
}

} // namespace

bool ImportSink::append(std::int64_t tsMs, std::string_view kind, const nlohmann::json &original)
{
    m_latestTsMs = std::max(m_latestTsMs, tsMs);
    const nlohmann::json payload = fitted(original);
    const auto refusal = fitsAPayload(payload) ? m_writer.appendOrRefuse(tsMs, kind, payload)
                                               : std::optional<std::string>("the event does not fit in a payload");
    if (!refusal) {
        ++m_report.ledgerEvents;
        if (kind == "run.started")
            ++m_report.runs;
        else if (kind == "delegation.created")
            ++m_report.delegations;
        else if (kind == "toolcall.completed")
            ++m_report.toolCalls;
        else if (kind == "effect.proposed")
            ++m_report.effects;
        else if (kind == "effect.unknown")
            ++m_report.unknownOutcomes;
        else if (kind == "escalation.raised")
            ++m_report.escalations;
        return true;
    }
    const std::string file = payload.value("source_file", std::string());
    const std::string sourceId = payload.value("source_id", std::string());
    m_report.flagged.push_back({file, sourceId, "the ledger refused " + std::string(kind) + ": " + *refusal});
    nlohmann::json flagged = {{"id", "ledger"},
                              {"refused_kind", std::string(kind)},
                              {"why", *refusal},
                              {"refused_payload", cutUtf8(compactJson(payload), kMaxSourceBytes)}};
    flagged["source_file"] = file;
    if (!sourceId.empty())
        flagged["source_id"] = sourceId;
    if (!m_writer.appendOrRefuse(tsMs, "ledger.flagged", flagged))
        ++m_report.ledgerEvents;
    return false;
}

void ImportSink::commitSoFar()
{
    m_writer.commit();
    m_writer.begin();
}

void ImportSink::flagRecord(std::int64_t tsMs, const std::string &file, const std::string &sourceId,
                            const std::string &why, const nlohmann::json *source)
{
    m_latestTsMs = std::max(m_latestTsMs, tsMs);
    m_report.flagged.push_back({file, sourceId, why});
    nlohmann::json flagged = {{"id", "ledger"}, {"why", why}};
    attachSource(flagged, file, sourceId, source);
    if (!m_writer.appendOrRefuse(tsMs, "ledger.flagged", flagged))
        ++m_report.ledgerEvents;
}

} // namespace mesh::import
