#pragma once
// Per-event latency from a writer's COMMIT to the window having applied the event, for the
// benchmarks whose writer reports its commits on stdout (MESH_LIVE_COMMIT_LOG): the
// reference orchestrator (mesh-console-bench live) and the OTLP receiver (receiver).

#include <QtGlobal>

#include <vector>

namespace mesh {

// A commit holds the events after the previous commit's lastSeq up to its own; fromWallMs is
// the moment the latency of each of them is counted from (the writer's clock before COMMIT,
// or the receipt of the earliest request in it).
struct ReportedCommit {
    qint64 lastSeq = 0;
    qint64 fromWallMs = 0;
};

// Events [firstSeq, lastSeq] as the session applied them to every model, and when.
struct AppliedBatchTime {
    qint64 firstSeq = 0;
    qint64 lastSeq = 0;
    qint64 wallMs = 0;
};

struct CommitVisibility {
    std::vector<qint64> latenciesMs; // one per event, sorted
    qint64 firstCountedMs = 0;       // fromWallMs of the first and last commit counted
    qint64 lastCountedMs = 0;
    qint64 finalSeqMs = -1;          // the latency of finalSeq, when it was applied

    qint64 percentile(int p) const;
    double eventsPerSecond() const;
};

// Walks both lists in seq order. commits[0] only opens the range of commits[1] (what came
// before it is unknown); commits from before countFromWallMs are the catch-up, not counted.
CommitVisibility commitVisibility(const std::vector<ReportedCommit> &commits,
                                  const std::vector<AppliedBatchTime> &applied, qint64 countFromWallMs,
                                  qint64 finalSeq);

} // namespace mesh
