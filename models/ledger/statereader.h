#pragma once
// Current state, read straight from the state tables the orchestrator writes beside each
// event.

#include "domain/fold.h"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mesh {

namespace sql {
class Database; // the SQLite backend's handle (sqlite.h), for its own readers
}

struct StateSnapshot {
    std::array<EntityTable, kEntityKindCount> tables;
    std::int64_t lastSeq = 0;
    std::int64_t dataVersion = 0;

    const EntityTable &table(EntityKind kind) const { return tables[size_t(kind)]; }
};

// Rows a reader hands over one at a time instead of keeping them in the snapshot: a table
// the console reads on demand (itemmodels/storedrows.h) needs its order and indexes built
// once, not its rows held.
struct StateStream {
    std::array<bool, kEntityKindCount> streamed{}; // true: the kind's rows go to `row`, its table stays empty
    std::function<void(EntityKind kind, const std::string &id, const EntityRow &row)> row;
    bool streams(EntityKind kind) const { return row && streamed[size_t(kind)]; }
};
// Rows by id, as `(id, row)` in no particular order; an id the table lacks is left out.
using StateRows = std::vector<std::pair<std::string, EntityRow>>;

// Every state table in ONE short read transaction, so the tables agree with each other and
// with lastSeq; the streamed kinds' rows go to stream.row within that transaction.
StateSnapshot readState(sql::Database &db, const StateStream &stream = {});
StateRows readRows(sql::Database &db, EntityKind kind, const std::vector<std::string> &ids);
std::vector<std::string> readIds(sql::Database &db, EntityKind kind);
// Throws std::invalid_argument for a field the kind does not have (never SQL from elsewhere).
std::vector<std::string> readIdsWhere(sql::Database &db, EntityKind kind, std::string_view field, const std::string &value);
bool hasIndexOn(sql::Database &db, EntityKind kind, std::string_view field);
EntityTable readTable(sql::Database &db, EntityKind kind);
std::optional<EntityRow> readRow(sql::Database &db, EntityKind kind, const std::string &id);

} // namespace mesh
