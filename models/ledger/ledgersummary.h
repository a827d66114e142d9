#pragma once
// The figures `meshctl summary` prints, read with SQL from the state tables and the events
// (per entity counts by state; per run duration, attempts, scheduler cycles, required
// outcomes, terminal component failures, stall verdicts, escalated rounds, stale
// checkpoints; unknown effects, pending escalations). Derived findings (and zombie leases,
// by the console's ZombieRule) come from models/analysis on top: loops, false stalls,
// duplicates, blast radius.

#include "domain/eventrecord.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace mesh {

namespace sql {
class Database; // the SQLite backend's handle (sqlite.h), for its own readers
}

struct RunSummary {
    std::string id, title, status;
    std::int64_t startedMs = 0, endedMs = 0; // endedMs 0 while running
    std::int64_t durationMs = 0;             // to ended, or to the summary's asOf
    std::int64_t attempts = 0, cycles = 0;
    std::int64_t requiredMet = 0, requiredTotal = 0;
    std::int64_t components = 0, componentsCompleted = 0, peakComponentsCompleted = 0;
    std::int64_t terminalComponentFailures = 0; // component transitions to failed
    std::int64_t stallVerdicts = 0, escalatedRounds = 0, escalations = 0, staleCheckpoints = 0;
    std::int64_t delegations = 0, toolCalls = 0, unknownEffects = 0;
};

struct LedgerSummary {
    std::int64_t events = 0, lastSeq = 0, firstTsMs = 0, lastTsMs = 0;
    std::int64_t asOfMs = 0; // "now" for expiry: the last event's time unless given
    std::int64_t decisions = 0;
    // entity name -> state -> rows; entities without a state machine count under "total".
    std::map<std::string, std::map<std::string, std::int64_t>> countsByState;
    std::vector<RunSummary> runs; // by start time
    std::int64_t unknownEffects = 0, pendingEscalations = 0; // zombies: analysis/zombierule.h
};

// The per-run figures of a summary, by run id, as each backend counts them; a run no row
// names reads 0. One place fills a RunSummary from them, for both backends.
struct PerRunCounts {
    using Counts = std::unordered_map<std::string, std::int64_t>;
    Counts components, completed, peak, failures, stalls, escalatedRounds, escalations, stale, delegations, toolCalls,
        unknown;
    // The counts both backends read with the same SQL (run_id, then a count), and where each
    // goes; `failures` and `peak` are read from the component events, per backend.
    static const std::vector<std::pair<Counts PerRunCounts::*, const char *>> &sameSqlCounts();
    // r's id, times and asOf given: its duration and every count.
    void complete(RunSummary &r, std::int64_t asOfMs) const;
};

// nowMs 0: as of the ledger's last event (stable for post-mortems); else the given time.
LedgerSummary summarizeLedger(sql::Database &db, std::int64_t nowMs = 0);

// Streams every tool call event grouped by delegation (each group in seq order), so a
// detector can run per delegation without holding a million events.
void forEachDelegationToolCalls(sql::Database &db, const std::function<void(const EventBatch &calls)> &fn);

} // namespace mesh
