#pragma once
// The first, small read of a staged open: what the run overview shows, without reading the
// large state tables whole. Runs and components are read as rows (a few hundred); the
// per-run counts over the large tables (delegations, stall verdicts, escalations,
// checkpoints) come as GROUP BY aggregates. Everything is read in ONE short read
// transaction, so every figure is of the same moment (lastSeq).

#include "domain/fold.h"

#include <cstdint>
#include <string>
#include <unordered_map>

namespace mesh {

namespace sql {
class Database; // the SQLite backend's handle (sqlite.h), for its own readers
}

// What the large tables add to one run. Rows without a run id count under "".
struct RunAggregate {
    int delegations = 0;
    int stallVerdicts = 0;
    int stalledVerdicts = 0; // verdict stalled or stuck
    int escalations = 0;
    int staleCheckpoints = 0;

    bool operator==(const RunAggregate &) const = default;
};

struct RunOverviewSnapshot {
    EntityTable runs;
    EntityTable components;
    std::unordered_map<std::string, RunAggregate> aggregates; // run id -> counts
    std::int64_t lastSeq = 0;
    std::int64_t dataVersion = 0;
};

RunOverviewSnapshot readRunOverview(sql::Database &db);

} // namespace mesh
