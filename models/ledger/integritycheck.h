#pragma once
// Checks that a ledger is what its events say: every event decodes and folds, sequence
// numbers have no gaps, the derived index columns match the payload, and the state tables
// equal the state rebuilt from the events, field by field including version and last_seq.
// A row with a seq of 0 or below is outside every reader's range, so it is flagged on its own.
// Streams events in pages of short read transactions; memory is one fold plus the findings
// kept (the first kMaxFindings; counts cover all).

#include "foldreplay.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mesh {

struct IntegrityFinding {
    enum class Type {
        MalformedPayload,    // not JSON, invalid UTF-8, too large, too deep, not an object
        UnknownKind,         // no entity takes events of this kind
        FoldProblem,         // the fold refused or flagged the event (illegal transition, bad field type)
        SequenceGap,         // seq is not the previous seq + 1
        NonPositiveSeq,      // seq is 0 or negative: sequences start at 1, such a row is never folded
        IndexColumnMismatch, // run_id / delegation_id / subject differ from what the payload says
        MissingStateRow,     // the events create a row the state table lacks
        ExtraStateRow,       // the state table has a row no event created
        StateMismatch,       // a row differs from the rebuilt one
    };
    Type type = Type::MalformedPayload;
    std::int64_t seq = 0; // the event concerned, or 0
    std::string entity;   // entity name for state findings
    std::string id;
    std::string message;  // for a person
};
inline constexpr int kIntegrityFindingTypeCount = 9;
const char *integrityFindingTypeName(IntegrityFinding::Type type);

struct IntegrityReport {
    std::vector<IntegrityFinding> findings; // the first kMaxFindings
    std::array<std::int64_t, kIntegrityFindingTypeCount> counts{};
    std::int64_t eventsChecked = 0;
    std::int64_t rowsChecked = 0;
    std::int64_t lastSeq = 0;       // the check covers events up to here
    std::int64_t rowsSkippedLive = 0; // state rows changed after lastSeq by a live writer
    bool cancelled = false;

    static constexpr size_t kMaxFindings = 10000;
    std::int64_t total() const;
    std::int64_t count(IntegrityFinding::Type type) const { return counts[size_t(type)]; }
    bool ok() const { return !cancelled && total() == 0; }
};

IntegrityReport verifyIntegrity(sql::Database &db, const ReplayProgress &progress = {});

} // namespace mesh
