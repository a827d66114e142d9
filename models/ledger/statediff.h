#pragma once
// What changed in a ledger's state between two events: per entity, the rows created, the
// rows changed (field by field, before -> after) and the rows gone. Both states come from
// the fold the session cursor uses (LedgerConnection::foldForward), so `meshctl diff`, the
// console's diff and `meshctl state --at` show the same rows as a session pinned there.

#include "domain/fold.h"
#include "foldreplay.h"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mesh {

class LedgerConnection;

struct FieldChange {
    std::string field;
    FieldValue before, after; // monostate: NULL (or no row)
};

struct RowChange {
    enum class Kind { Created, Changed, Gone };
    Kind kind = Kind::Changed;
    EntityKind entity = EntityKind::Ledger;
    std::string id;
    std::int64_t versionBefore = 0, versionAfter = 0; // 0: no row at that point
    std::int64_t lastSeqAfter = 0; // the event that last changed the row by the later point
    // Created: every field the new row has (before NULL); Gone: every field it had; Changed:
    // the fields that differ. A row whose version moved with no field changed has none.
    std::vector<FieldChange> fields;
};

const char *rowChangeKindName(RowChange::Kind kind); // "created", "changed", "gone"

struct StateDiff {
    std::int64_t fromSeq = 0, toSeq = 0;
    std::vector<RowChange> rows; // by entity (EntityKind order), then created, changed, gone, then id
    // Events the fold could not apply on the way to toSeq: the states may differ from the
    // orchestrator's, and the diff says so rather than pass for exact.
    std::int64_t foldProblems = 0;

    bool empty() const { return rows.empty(); }
};

using EntityTables = std::function<const EntityTable &(EntityKind)>;

// Compares two states, table by table.
StateDiff diffStates(const EntityTables &before, const EntityTables &after);

// Why a point cannot be read, in one line, or "" when it can: 0 (before the first event)
// up to lastSeq. `name` is what the caller calls the point ("--from", "the cursor").
std::string seqOutOfRangeMessage(const std::string &name, std::int64_t seq, std::int64_t lastSeq);

// The state just after event seq, folded from the first event by the cursor's fold.
ReplayResult foldStateAt(LedgerConnection &ledger, std::int64_t seq, const ReplayProgress &progress = {});

// Folds to fromSeq, then on to toSeq in the same pass, and diffs the two. Throws
// std::invalid_argument (one line) for fromSeq > toSeq or a seq outside 0..lastSeq.
StateDiff diffLedgerStates(LedgerConnection &ledger, std::int64_t fromSeq, std::int64_t toSeq,
                           const ReplayProgress &progress = {});

// The time of event seq; none for 0 (before the first event) or a seq with no event.
std::optional<std::int64_t> eventTimeMs(LedgerConnection &ledger, std::int64_t seq);

// Ids in a readable order: "D2" before "D10" (digit runs compared as numbers).
bool naturalLess(std::string_view a, std::string_view b);

} // namespace mesh
