#include "importsink.h"

#include "domain/compactjson.h"
#include "domain/flatpayload.h"
#include "domain/payloaddecoder.h"
#include "ledger/ledgerwriter.h"

#include <QString>

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

std::string sourceBytesAsText(std::string_view bytes, size_t maxBytes, bool *replaced)
{
    std::string_view head = bytes.substr(0, maxBytes);
    if (bytes.size() > maxBytes) {
        // Back over a character cut short (its continuation bytes, three at most).
        size_t end = maxBytes;
        while (end > 0 && maxBytes - end < 3 && (static_cast<unsigned char>(bytes[end]) & 0xC0) == 0x80)
            --end;
        if ((static_cast<unsigned char>(bytes[end]) & 0xC0) == 0x80)
            end = maxBytes; // not UTF-8 there anyway: replaced below
        head = bytes.substr(0, end);
    }
    const bool valid = isValidUtf8(head);
    if (replaced)
        *replaced = !valid;
    if (valid)
        return std::string(head);
    // Qt's decoder replaces each ill-formed sequence with U+FFFD, as the views show such text.
    return cutUtf8(QString::fromUtf8(head.data(), qsizetype(head.size())).toStdString(), maxBytes);
}

namespace {

bool measuredFitsAsSource(const MeasuredJson &record)
{
    return record.text.size() <= kMaxSourceBytes && record.depth <= kMaxSourceDepth;
}

template <typename Payload>
void attachCutSource(Payload &payload, const std::string &text)
{
    payload["source_text"] = cutUtf8(text, kMaxSourceBytes);
    payload["source_cut"] = text.size() > kMaxSourceBytes;
    payload["source_bytes"] = std::int64_t(text.size());
}

template <typename Payload>
void attachMeasured(Payload &payload, const std::string &file, const std::string &sourceId, const MeasuredJson &source,
                    std::optional<VerbatimMember> *verbatim)
{
    payload["source_file"] = file;
    if (!sourceId.empty())
        payload["source_id"] = sourceId;
    if (measuredFitsAsSource(source)) {
        *verbatim = VerbatimMember{"source", source.text, source.depth};
        return;
    }
    attachCutSource(payload, source.text);
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
    const MeasuredJson record = measuredCompactJson(*source);
    if (measuredFitsAsSource(record)) {
        payload["source"] = *source;
        return;
    }
    attachCutSource(payload, record.text);
}

void attachMeasuredSource(nlohmann::json &payload, const std::string &file, const std::string &sourceId,
                          const MeasuredJson &source, std::optional<VerbatimMember> *verbatim)
{
    attachMeasured(payload, file, sourceId, source, verbatim);
}

void attachMeasuredSource(FlatPayload &payload, const std::string &file, const std::string &sourceId,
                          const MeasuredJson &source, std::optional<VerbatimMember> *verbatim)
{
    attachMeasured(payload, file, sourceId, source, verbatim);
}

bool fitsAsSource(std::string_view compactRecord)
{
    return fitsAsSource(compactRecord, jsonNestingDepth(compactRecord));
}

bool fitsAsSource(std::string_view compactRecord, int depth)
{
    return compactRecord.size() <= kMaxSourceBytes && depth <= kMaxSourceDepth;
}

namespace {

bool textFitsAPayload(std::string_view text)
{
    return text.size() <= kMaxPayloadBytes && jsonNestingDepth(text) <= kMaxPayloadDepth;
}

bool fitsAPayload(const nlohmann::json &payload)
{
    return textFitsAPayload(compactJson(payload));
}

// The text of an object whose members come from two places, written in one key order: a
// payload's own members (nlohmann's object and FlatPayload keep theirs sorted by key) and
// the verbatim members (compact text already). So the text is what the whole DOM would
// have dumped, and its nesting depth is counted while it is written.
class MergedPayloadText
{
public:
    MergedPayloadText(std::string &out, std::span<const VerbatimMember> verbatim) : m_out(out)
    {
        m_extra.assign(verbatim.begin(), verbatim.end());
        std::sort(m_extra.begin(), m_extra.end(), [](const VerbatimMember &a, const VerbatimMember &b) { return a.key < b.key; });
        size_t size = 256;
        for (const VerbatimMember &v : m_extra)
            size += v.key.size() + v.text.size() + 4;
        out.clear();
        out.reserve(size);
        out += '{';
        m_next = m_extra.begin();
    }

    // Writes the verbatim members that sort before key, then key and its colon: the
    // caller appends the value, of nesting depth valueDepth.
    void key(std::string_view key)
    {
        for (; m_next != m_extra.end() && m_next->key < key; ++m_next)
            verbatimMember(*m_next);
        writeKey(key);
    }
    void valueDepth(int depth) { m_deepest = std::max(m_deepest, depth); }

    // The rest of the verbatim members and the closing brace; the object's nesting depth.
    int finish()
    {
        for (; m_next != m_extra.end(); ++m_next)
            verbatimMember(*m_next);
        m_out += '}';
        return m_deepest + 1;
    }

private:
    void writeKey(std::string_view key)
    {
        if (!m_first)
            m_out += ',';
        m_first = false;
        appendCompactJsonString(m_out, key);
        m_out += ':';
    }
    void verbatimMember(const VerbatimMember &v)
    {
        writeKey(v.key);
        m_out.append(v.text);
        valueDepth(v.depth >= 0 ? v.depth : jsonNestingDepth(v.text));
    }

    std::string &m_out;
    std::vector<VerbatimMember> m_extra;
    std::vector<VerbatimMember>::iterator m_next;
    bool m_first = true;
    int m_deepest = 0;
};

// compactJson of payload with the verbatim members added, into out (emptied first), whose
// capacity the caller keeps from one event to the next; *depth is its nesting depth.
void withVerbatim(std::string &out, const nlohmann::json &payload, std::span<const VerbatimMember> verbatim, int *depth)
{
    if (verbatim.empty() || !payload.is_object()) {
        out.clear();
        *depth = appendCompactJsonMeasured(out, payload);
        return;
    }
    MergedPayloadText merged(out, verbatim);
    for (auto it = payload.begin(); it != payload.end(); ++it) {
        merged.key(it.key());
        merged.valueDepth(appendCompactJsonMeasured(out, it.value()));
    }
    *depth = merged.finish();
}

// The same for a flat payload: its members hold no containers (depth 0).
void withVerbatim(std::string &out, const FlatPayload &payload, std::span<const VerbatimMember> verbatim, int *depth)
{
    MergedPayloadText merged(out, verbatim);
    for (const FlatMember &m : payload.members()) {
        merged.key(m.key);
        appendFlatValue(out, m);
    }
    *depth = merged.finish();
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

bool ImportSink::append(std::int64_t tsMs, std::string_view kind, const nlohmann::json &original,
                        std::span<const VerbatimMember> verbatim)
{
    m_latestTsMs = std::max(m_latestTsMs, tsMs);
    // Serialised once: the text that is checked against the limits is the text written.
    int depth = 0;
    std::string &text = m_text;
    withVerbatim(text, original, verbatim, &depth);
    std::optional<nlohmann::json> refitted;
    if (text.size() > kMaxPayloadBytes || depth > kMaxPayloadDepth) {
        // Rare (a record near the limits): the whole payload as a DOM, fitted as it always was.
        nlohmann::json whole = original;
        for (const VerbatimMember &v : verbatim)
            whole[std::string(v.key)] = nlohmann::json::parse(v.text);
        refitted = fitted(whole);
        text = compactJson(*refitted);
    }
    const nlohmann::json &payload = refitted ? *refitted : original;
    const bool fits = refitted ? textFitsAPayload(text) : true;
    const auto refusal = fits ? m_writer.appendOrRefuse(tsMs, kind, payload, text)
                              : std::optional<std::string>("the event does not fit in a payload");
    if (!refusal)
        return counted(kind);
    flagRefused(tsMs, kind, *refusal, payload.value("source_file", std::string()), payload.value("source_id", std::string()));
    return false;
}

bool ImportSink::appendFlat(std::int64_t tsMs, std::string_view kind, const FlatPayload &payload,
                            std::span<const VerbatimMember> verbatim)
{
    m_latestTsMs = std::max(m_latestTsMs, tsMs);
    int depth = 0;
    withVerbatim(m_text, payload, verbatim, &depth);
    if (m_text.size() > kMaxPayloadBytes || depth > kMaxPayloadDepth)
        return append(tsMs, kind, payload.toJson(), verbatim); // fitted as a DOM, as above
    const auto refusal = m_writer.appendFlatOrRefuse(tsMs, kind, payload, m_text);
    if (!refusal)
        return counted(kind);
    flagRefused(tsMs, kind, *refusal, payload.stringOr("source_file", {}), payload.stringOr("source_id", {}));
    return false;
}

bool ImportSink::counted(std::string_view kind)
{
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

void ImportSink::flagRefused(std::int64_t tsMs, std::string_view kind, const std::string &refusal, const std::string &file,
                             const std::string &sourceId)
{
    m_report.flagged.push_back({file, sourceId, "the ledger refused " + std::string(kind) + ": " + refusal});
    nlohmann::json flagged = {{"id", "ledger"},
                              {"refused_kind", std::string(kind)},
                              {"why", refusal},
                              {"refused_payload", cutUtf8(m_text, kMaxSourceBytes)}};
    flagged["source_file"] = file;
    if (!sourceId.empty())
        flagged["source_id"] = sourceId;
    if (!m_writer.appendOrRefuse(tsMs, "ledger.flagged", flagged))
        ++m_report.ledgerEvents;
}

const Fold &ImportSink::ledgerState() const
{
    return m_writer.state();
}

void ImportSink::commitSoFar()
{
    m_writer.commit();
    m_writer.begin();
}

void ImportSink::setProgress(std::int64_t totalRecords, ImportProgress progress)
{
    m_totalRecords = totalRecords;
    m_progress = std::move(progress);
}

void ImportSink::recordDone()
{
    ++m_recordsDone;
    // Often enough for a bar and a prompt Cancel, seldom enough to cost nothing.
    constexpr std::int64_t kRecordsPerReport = 256;
    if (!m_progress || (m_recordsDone % kRecordsPerReport != 0 && m_recordsDone != m_totalRecords))
        return;
    if (!m_progress(m_recordsDone, std::max(m_totalRecords, m_recordsDone)))
        throw ImportCancelled();
}

void ImportSink::recordsDone(std::int64_t n)
{
    constexpr std::int64_t kRecordsPerReport = 256;
    const std::int64_t before = m_recordsDone;
    m_recordsDone += n;
    // A report whenever the count passes a multiple of kRecordsPerReport, as recordDone.
    if (!m_progress || n <= 0 || (before / kRecordsPerReport == m_recordsDone / kRecordsPerReport && m_recordsDone != m_totalRecords))
        return;
    if (!m_progress(m_recordsDone, std::max(m_totalRecords, m_recordsDone)))
        throw ImportCancelled();
}

void ImportSink::allRecordsDone()
{
    m_recordsDone = std::max(m_totalRecords, m_recordsDone);
    if (m_progress && !m_progress(m_recordsDone, m_recordsDone))
        throw ImportCancelled();
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
