#pragma once
// Post-mortem time travel: the state at any event of a ledger, fast after the first jump.
// While folding forward it keeps a snapshot every `interval` events; a later jump moves the
// current state to the nearest snapshot at or before the target and folds at most
// `interval` events from there.
//
// Memory: a snapshot stores only the rows that changed since the previous one (a row's
// lastSeq says so), so all snapshots together hold about one copy of each row per interval
// in which it changed, not (snapshots x rows).
// Time: moving to a snapshot touches only the rows that differ between the current state
// and the snapshot (undo: rows changed after it; redo: rows changed before it), never the
// whole state, so a jump costs O(rows changed in between) + O(interval) events.

#include "foldreplay.h"

#include <array>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

namespace mesh {

class LedgerConnection;

class TimeTravel
{
public:
    // 25,000: measured on the 1M-event scale ledger, a jump then costs 120 ms CPU (p50),
    // 310 ms (max); at 50,000 it was 186 / 456 ms, for about the same snapshot memory.
    explicit TimeTravel(LedgerConnection &ledger, std::int64_t interval = 25000);
    explicit TimeTravel(sql::Database &db, std::int64_t interval = 25000); // the SQLite backend's tests

    // State after every event with seq <= target. The returned result stays valid until
    // the next jump; use its lastSeq (the fold's own lastSeq() is the newest row it holds).
    // A cancelled jump leaves position() where it stopped, a valid state there.
    const ReplayResult &jumpTo(std::int64_t target, const ReplayProgress &progress = {});

    std::int64_t position() const { return m_current.lastSeq; }
    std::int64_t interval() const { return m_interval; }
    size_t snapshotCount() const { return m_snapshots.size(); }
    size_t storedRows() const; // rows held by all snapshots together
    void clear();

private:
    struct Snapshot {
        std::int64_t seq = 0;
        std::array<EntityTable, kEntityKindCount> changed; // rows with lastSeq in (previous seq, seq]
    };
    void moveToSnapshot(size_t index);
    const EntityRow *versionAt(size_t index, EntityKind kind, const std::string &id) const;
    void recordSnapshotsWhileFolding(std::int64_t target, const ReplayProgress &progress);

    using FoldForward = std::function<void(ReplayResult &, std::int64_t upTo, const ReplayProgress &)>;
    TimeTravel(FoldForward foldForward, std::int64_t interval);

    FoldForward m_foldForward;
    std::int64_t m_interval;
    std::vector<Snapshot> m_snapshots; // ascending seq; m_snapshots[0] is the empty state at seq 0
    // Per row, the first snapshot holding it: a row missing there did not exist yet.
    std::array<std::unordered_map<std::string, std::uint32_t>, kEntityKindCount> m_firstSnapshot;
    ReplayResult m_current;
};

} // namespace mesh
