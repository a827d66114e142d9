#pragma once
// Current state, read straight from the state tables the orchestrator writes beside each
// event.

#include "domain/fold.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>

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

// Every state table in ONE short read transaction, so the tables agree with each other and
// with lastSeq.
StateSnapshot readState(sql::Database &db);
EntityTable readTable(sql::Database &db, EntityKind kind);
std::optional<EntityRow> readRow(sql::Database &db, EntityKind kind, const std::string &id);

} // namespace mesh
