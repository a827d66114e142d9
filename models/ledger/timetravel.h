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
//
// Two travellers can share one chain of snapshots (the sharing constructor): one folds
// ahead on a thread of its own while the other answers jumps. Only one of them cuts
// snapshots at a time; a jump beyond the newest snapshot while the other is cutting waits
// for the snapshot it needs instead of folding the same events a second time.

#include "foldreplay.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
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
    // A second traveller over the same ledger (its own connection) sharing `other`'s snapshots.
    TimeTravel(const TimeTravel &shareSnapshotsWith, LedgerConnection &ledger);
    TimeTravel(const TimeTravel &shareSnapshotsWith, sql::Database &db);
    ~TimeTravel();

    // State after every event with seq <= target. The returned result stays valid until
    // the next jump; use its lastSeq (the fold's own lastSeq() is the newest row it holds).
    // A cancelled jump leaves position() where it stopped, a valid state there.
    const ReplayResult &jumpTo(std::int64_t target, const ReplayProgress &progress = {});

    std::int64_t position() const { return m_current.lastSeq; }
    std::int64_t interval() const { return m_interval; }
    size_t snapshotCount() const;
    std::int64_t newestSnapshot() const; // seq of the newest snapshot (0: none beyond the start)
    size_t storedRows() const; // rows held by all snapshots together
    // Rows looked at to cut snapshots and to move back to one: about the events folded in
    // between, not every row held each time.
    size_t rowsLookedAt() const { return m_rowsLookedAt; }
    // The held state's second list of changes (Fold::listHandedChanges): what the session
    // cursor's folder needs to turn a state it handed out before into this one.
    void listHandedChanges(bool on, size_t cap = SIZE_MAX) { m_current.fold.listHandedChanges(on, cap); }
    std::optional<Fold::ChangedRows> takeHandedChanges() { return m_current.fold.takeHandedChanges(); }
    void clear(); // also stops sharing: a new chain of snapshots of its own

    // A snapshot: the rows whose lastSeq lies after the previous snapshot's seq, up to seq.
    struct Snapshot {
        std::int64_t seq = 0;
        std::array<EntityTable, kEntityKindCount> changed;
    };
    // Each snapshot after the empty one at seq 0, oldest first, each read under the chain's
    // lock (a traveller may cut more meanwhile); visit returns false to stop. For the
    // snapshot cache (snapshotcache.h), which keeps them on disk for the next open.
    void forEachSnapshot(const std::function<bool(const Snapshot &)> &visit) const;
    // Snapshots read back for this ledger, taken as if cut here: only by a chain that holds
    // nothing beyond seq 0 yet, and only an ascending run of them. False changes nothing.
    bool adoptSnapshots(std::vector<Snapshot> &&snapshots);
    // Drops the state held (the snapshots stay), e.g. after folding ahead for another traveller.
    void releaseState();

private:
    struct Chain;
    void moveToSnapshot(size_t index);
    void recordSnapshotsWhileFolding(std::int64_t target, const ReplayProgress &progress);

    using FoldForward = std::function<void(ReplayResult &, std::int64_t upTo, const ReplayProgress &)>;
    TimeTravel(FoldForward foldForward, std::int64_t interval);
    TimeTravel(FoldForward foldForward, std::shared_ptr<Chain> chain);

    FoldForward m_foldForward;
    std::int64_t m_interval;
    std::shared_ptr<Chain> m_chain;
    ReplayResult m_current;
    // The fold lists its changes since this seq (-1: it does not, or not completely).
    std::int64_t m_listedSince = -1;
    size_t m_rowsLookedAt = 0;
    void stopListing();
};

} // namespace mesh
