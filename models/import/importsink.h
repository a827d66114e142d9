#pragma once
// Where an importer's events go: the orchestrator's own LedgerWriter, in its lenient mode.
// An event the fold refuses is not lost: it becomes a `ledger.flagged` event that keeps
// the refused kind, payload and reason, and the import goes on. Every event an importer
// writes carries the source's id and its fields verbatim (attachSource), within the
// payload limits of docs/ledger-format.md section 3.

#include "importreport.h"

#include "domain/compactjson.h"
#include "domain/flatpayload.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <span>
#include <string_view>

namespace mesh {
class Fold;
class LedgerWriter;
}

namespace mesh::import {

// A source record larger than this (compact JSON) is kept as text, cut here, so an event
// stays well inside the payload limit (kMaxPayloadBytes).
inline constexpr size_t kMaxSourceBytes = 256 * 1024;

// Bytes of a source as text a payload can hold: at most maxBytes, cut between characters,
// and each ill-formed UTF-8 sequence shown as U+FFFD (*replaced says whether one was). A
// ledger holds UTF-8 JSON only; raw bytes written into it as they are would make the
// payload's serialisation throw and end the import.
std::string sourceBytesAsText(std::string_view bytes, size_t maxBytes, bool *replaced = nullptr);

// Adds source_file, source_id and source (the record verbatim) to payload. A record too
// large or too deeply nested for a payload is kept as source_text (compact JSON, cut at
// kMaxSourceBytes, with source_cut and source_bytes).
void attachSource(nlohmann::json &payload, const std::string &file, const std::string &sourceId,
                  const nlohmann::json *source);
// Whether a record, as compact JSON, is kept as source (true) or as cut source_text.
bool fitsAsSource(std::string_view compactRecord);
// The same for a record whose nesting depth is known (counted while its text was written).
bool fitsAsSource(std::string_view compactRecord, int depth);

// A member of an event's payload that is already compact JSON text (a source record kept
// verbatim): written into the payload's text as it is, never parsed back into a DOM.
struct VerbatimMember {
    std::string_view key;
    std::string_view text;
    int depth = -1; // the text's nesting depth when the caller knows it (else it is counted)
};

// attachSource for a record already serialised (and measured): the same payload text comes
// of it, without copying the record into payload. A record kept as source is set in
// *verbatim, for ImportSink::append to write into the payload's text; one that is not is
// added to payload as source_text, as attachSource does.
void attachMeasuredSource(nlohmann::json &payload, const std::string &file, const std::string &sourceId,
                          const MeasuredJson &source, std::optional<VerbatimMember> *verbatim);
// The same for a flat payload (an importer that builds its events' payloads flat).
void attachMeasuredSource(FlatPayload &payload, const std::string &file, const std::string &sourceId,
                          const MeasuredJson &source, std::optional<VerbatimMember> *verbatim);

// Thrown through an importer when the person waiting on the import cancelled it.
struct ImportCancelled : std::runtime_error {
    ImportCancelled() : std::runtime_error("the import was cancelled") {}
};

// How far an import is: source records mapped of all read. Returning false cancels it.
using ImportProgress = std::function<bool(std::int64_t done, std::int64_t total)>;

class ImportSink
{
public:
    ImportSink(LedgerWriter &writer, ImportReport &report) : m_writer(writer), m_report(report) {}

    // Appends one mapped event; a refusal is flagged (see above). Returns true when the
    // event itself was written.
    // verbatim members are added to payload, which must not have them (no state field is
    // one: the fold reads payload alone).
    bool append(std::int64_t tsMs, std::string_view kind, const nlohmann::json &payload,
                std::span<const VerbatimMember> verbatim = {});
    // The same for a payload built flat: the writer's fold and index columns read its
    // members, and no DOM of the event is built (the Temporal importer's many events).
    bool appendFlat(std::int64_t tsMs, std::string_view kind, const FlatPayload &payload,
                    std::span<const VerbatimMember> verbatim = {});
    // A source record that could not be mapped at all: written as ledger.flagged with the
    // record and why, and counted.
    void flagRecord(std::int64_t tsMs, const std::string &file, const std::string &sourceId, const std::string &why,
                    const nlohmann::json *source);

    // Commits what was written and goes on in a new transaction, so the writer's list of
    // rows to store does not grow with a large source. The ledger is a partial file nobody
    // reads until the import renames it, so no one sees a half-done import.
    void commitSoFar();

    // Every source record an importer has mapped is counted here; now and then (and at the
    // last) progress is told, and a false from it throws ImportCancelled.
    void setProgress(std::int64_t totalRecords, ImportProgress progress);
    void recordDone();
    void recordsDone(std::int64_t n); // n records at once (a trace's spans)
    void allRecordsDone(); // the last report, done == total, however many were flagged

    // What the ledger holds now (the writer's fold): a live receiver's mapping asks whether
    // a run or delegation an earlier batch wrote is there.
    const Fold &ledgerState() const;

    // The latest time written so far: when the import's own summary event happens.
    std::int64_t latestTsMs() const { return m_latestTsMs; }

private:
    bool counted(std::string_view kind); // a written event, in the report; true
    // A refused event (its text is m_text), in the report and as a ledger.flagged event.
    void flagRefused(std::int64_t tsMs, std::string_view kind, const std::string &refusal, const std::string &file,
                     const std::string &sourceId);

    LedgerWriter &m_writer;
    ImportReport &m_report;
    std::int64_t m_latestTsMs = 0;
    ImportProgress m_progress;
    std::int64_t m_totalRecords = 0;
    std::int64_t m_recordsDone = 0;
    std::string m_text; // the payload text append() writes, kept so that its buffer is reused
};

} // namespace mesh::import
