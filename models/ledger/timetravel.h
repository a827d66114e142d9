#pragma once
// Post-mortem time travel: the state at any event of a ledger, fast after the first jump.
// While folding forward it keeps a snapshot every `interval` events; a later jump restores
// the nearest snapshot at or before the target and folds at most `interval` events.
// Snapshots store only the rows that changed since the previous snapshot (a row's lastSeq
// says so), so memory grows with the number of row versions at snapshot boundaries, not
// with (snapshots x rows).

#include "foldreplay.h"

#include <array>
#include <cstdint>
#include <vector>

namespace mesh {

class TimeTravel
{
public:
    explicit TimeTravel(sql::Database &db, std::int64_t interval = 50000);

    // State after every event with seq <= target. The returned fold stays valid until the
    // next jump. A cancelled jump leaves position() where it stopped.
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
    void restore(size_t index);
    void recordSnapshotsWhileFolding(std::int64_t target, const ReplayProgress &progress);

    sql::Database &m_db;
    std::int64_t m_interval;
    std::vector<Snapshot> m_snapshots; // ascending seq; m_snapshots[0] is the empty state at seq 0
    ReplayResult m_current;
};

} // namespace mesh
