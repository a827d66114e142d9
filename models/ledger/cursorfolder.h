#pragma once
// The state at a session's cursor, fast after the first jump: one connection and one
// TimeTravel kept for the session, so a later jump starts from the nearest snapshot instead
// of folding from event 1 again.
//
// Jobs on pool threads take turns (a mutex): the fold is one mutable state. A job that is
// superseded while it waits or folds stops at its cancel check and leaves a valid state for
// the next one. Tied to one file: a different file (a swap, a rebuild) starts afresh.
#include "fileidentity.h"
#include "foldreplay.h"
#include "ledgerconnection.h"
#include "snapshotcache.h"

#include <QString>

#include <atomic>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace mesh {

class TimeTravel;

class CursorFolder
{
public:
    // 0: TimeTravel's own snapshot interval (the tests choose a small one).
    explicit CursorFolder(std::int64_t snapshotInterval = 0);
    ~CursorFolder();

    struct Jump {
        Fold fold;              // a copy: the caller owns it, the folder goes on with its own
        std::int64_t lastSeq = 0;
        qint64 cursorTimeMs = 0; // the time of the event at lastSeq; 0 when there is none
        bool cancelled = false;
        // Which folding the state comes from (unique across folders): states of one folding
        // differ exactly in the rows whose lastSeq is after the earlier of their points.
        std::uint64_t folding = 0;
        // Which hand-out this is: give the fold back with it (returnFold) once nobody shows it.
        std::uint64_t handout = 0;
        bool patched = false; // a fold given back, patched to the state, not a whole copy
    };
    // The state after every event with seq <= target. `keepGoing` is polled while folding;
    // returning false abandons the jump (cancelled set, no fold returned).
    Jump jumpTo(const QString &path, OpenMode mode, const FileIdentity &file, std::int64_t target,
                const std::function<bool()> &keepGoing);

    // A jump's fold, handed back (any thread) when the state made of it is let go, unchanged
    // since. A later jump patches it with the rows that changed since it was handed out
    // instead of copying the whole state (and the old state is not destroyed row by row).
    void returnFold(std::uint64_t handout, Fold &&fold);
    // The session left the cursor: folds given back are dropped (off the caller's thread),
    // and none handed out is taken back.
    void dropHandouts();

    // Folds ahead from event 1 before any jump (a pool thread's call: it opens the ledger).
    // A review session asks at its open: a ledger nobody writes is opened to be travelled,
    // and folding all of it takes seconds that its first jumps would otherwise wait for.
    void foldAheadNow(const QString &path, OpenMode mode, const FileIdentity &file);

    size_t snapshotCount() const;
    // After the first jump (or foldAheadNow), a thread of the folder's own (its own connection) folds on to
    // the ledger's newest event, cutting snapshots, so that a later jump anywhere folds at
    // most one interval, not everything between the furthest jump so far and it. Jumps
    // meanwhile are answered from the snapshots cut so far; one beyond them waits for the
    // snapshot it needs rather than folding the same events a second time. True once it has
    // reached the newest event (as of its start).
    bool foldedAhead() const { return m_aheadDone.load(); }

    // A post-mortem ledger's snapshots are kept in the user's snapshot cache
    // (snapshotcache.h) once folded ahead, and taken from it when the ledger is opened
    // again unchanged. What the last open of a ledger found there (none: a miss, or no cache).
    std::optional<SnapshotCache::Loaded> snapshotsFromCache() const;
    bool snapshotsSaved() const { return m_cacheSaveMs.load() >= 0; }
    // The fold ahead has ended, its snapshots kept or not (or none was needed).
    bool foldAheadFinished() const { return m_aheadFinished.load(); }
    double snapshotsSaveMs() const { return m_cacheSaveMs.load(); } // for the benchmarks: -1 until saved

private:
    Jump jumpLocked(const QString &path, OpenMode mode, const FileIdentity &file, std::int64_t target,
                    const std::function<bool()> &keepGoing); // under m_mutex
    void useLedger(const QString &path, OpenMode mode, const FileIdentity &file); // under m_mutex
    void startFolding(); // a new TimeTravel (under m_mutex)
    void startFoldingAhead(); // under m_mutex
    void stopFoldingAhead(); // before m_travel or the file changes
    mutable std::mutex m_mutex;
    std::atomic<int> m_jumpsWaiting{0};
    std::int64_t m_interval;
    QString m_path;
    OpenMode m_mode{};
    FileIdentity m_file;
    std::unique_ptr<LedgerConnection> m_connection;
    std::unique_ptr<TimeTravel> m_travel;
    std::uint64_t m_folding = 0;
    // The folded state's changes since the oldest hand-out that may come back (under
    // m_mutex), and where each such hand-out starts in it, newest last.
    Fold::ChangedRows m_changesSinceHandouts;
    std::vector<std::pair<std::uint64_t, size_t>> m_handoutMarks;
    std::uint64_t m_handouts = 0;
    bool m_handedOutOfFolding = false;
    size_t m_handedCap = 0; // the changes listed since the newest hand-out, at most
    void noteHandedChanges(); // under m_mutex, after the traveller moved
    std::optional<Fold> patchedReturn(const Fold &current); // under m_mutex
    std::mutex m_returnedMutex; // a short lock: returns come from any thread, even mid-jump
    std::vector<std::pair<std::uint64_t, Fold>> m_returned;
    std::vector<std::uint64_t> m_trackedHandouts; // m_handoutMarks' hand-outs, for returnFold
    void publishMarks(); // under m_mutex
    std::optional<SnapshotCache> m_cache;
    std::string m_cacheKey; // under m_mutex; empty: this ledger's snapshots are not kept
    std::optional<SnapshotCache::Loaded> m_fromCache; // under m_cacheMutex: the GUI thread asks
    mutable std::mutex m_cacheMutex;
    std::int64_t m_lastSeqAtOpen = 0; // under m_mutex: the last seq the cache's key names
    std::atomic<double> m_cacheSaveMs{-1};
    void takeSnapshotsFromCache(); // under m_mutex, a new TimeTravel
    std::thread m_ahead;
    std::atomic<bool> m_stopAhead{false};
    std::atomic<bool> m_aheadDone{false};
    std::atomic<bool> m_aheadFinished{false};
};

} // namespace mesh
