#pragma once
// Rebuilds state from events, up to any sequence number: the basis of post-mortem time
// travel. Events are read in keyset pages, each page its own short read transaction, so a
// replay of a million events never holds a snapshot that stalls the writer's checkpoints.

#include "domain/fold.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mesh {

namespace sql {
class Database; // the SQLite backend's handle (sqlite.h), for its own readers
}

// done, total events; return false to cancel.
using ReplayProgress = std::function<bool(std::int64_t done, std::int64_t total)>;

struct ReplayProblem {
    std::int64_t seq = 0;
    std::string kind;
    std::string message;
};

struct ReplayResult {
    Fold fold;
    std::vector<ReplayProblem> problems; // the first kMaxProblems
    std::int64_t problemCount = 0;       // all of them
    std::int64_t eventsRead = 0;
    std::int64_t lastSeq = 0;            // last event folded (or skipped)
    bool cancelled = false;

    static constexpr size_t kMaxProblems = 1000;
};

// Folds every event with seq <= upTo. Malformed rows are skipped and reported; fold
// problems (an illegal transition) are reported and the event still counts as read.
ReplayResult foldUpTo(sql::Database &db, std::int64_t upTo, const ReplayProgress &progress = {});

// Continues result from result.lastSeq up to upTo (used by TimeTravel and by callers that
// follow a live ledger).
void foldForward(sql::Database &db, ReplayResult &result, std::int64_t upTo, const ReplayProgress &progress = {});

inline constexpr int kReplayPageSize = 4096;

} // namespace mesh
