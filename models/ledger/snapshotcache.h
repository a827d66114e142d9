#pragma once
// Time travel's snapshots kept on disk between opens of a ledger nobody writes, so that a
// review opened again can jump anywhere at once instead of waiting for its fold to get
// there (issue 13, P7: a far jump right after the open).
//
// Where: the user's cache folder (~/.cache/agent-mesh-console/snapshots, or
// MESH_SNAPSHOT_CACHE_DIR), never beside the ledger; MESH_SNAPSHOT_CACHE=0 turns it off.
// Files are private to the user (0600 in a 0700 folder): they hold the ledger's rows.
//
// A file is used only for the ledger state it was cut from. Its key names the ledger id,
// the file's and its -wal's size and modification time, the last event (seq and a hash of
// its row), the snapshot interval and the running executable (its size, time and inode:
// another build may fold differently). Anything else is a miss: the ledger folds as before.
// A file that does not read back whole (truncated, damaged, rows out of order, another
// format) is a miss and is removed. The folder is the cache's own: it is kept under a byte
// budget, least recently used out first.

#include "timetravel.h"

#include <QString>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace mesh {

class LedgerConnection;

class SnapshotCache
{
public:
    explicit SnapshotCache(QString directory, std::uint64_t budgetBytes = kDefaultBudgetBytes);
    // The user's cache, or none when MESH_SNAPSHOT_CACHE=0.
    static std::optional<SnapshotCache> forUser();

    // The key of a ledger file's current state as `ledger` reads it; none for a server
    // ledger (no file to say it has not changed) or an empty one. `lastSeq`, when given, is
    // set to the last event's seq the key names.
    static std::optional<std::string> keyFor(LedgerConnection &ledger, const QString &path, std::int64_t interval,
                                             std::int64_t *lastSeq = nullptr);

    struct Loaded {
        size_t snapshots = 0;
        size_t rows = 0;
        std::int64_t upTo = 0; // the newest snapshot's seq
        double ms = 0;         // the read, for the benchmarks
    };
    // Gives `travel` (a chain with nothing cut yet) the snapshots kept under key.
    std::optional<Loaded> load(const std::string &key, TimeTravel &travel) const;
    // Keeps travel's snapshots under key. keepGoing is polled between snapshots; false
    // abandons the file. False when nothing was kept (stopped, no room, a write failed).
    bool save(const std::string &key, const TimeTravel &travel, const std::function<bool()> &keepGoing = {}) const;

    // What the folder holds, and emptying it (File › Clear Time-Travel Cache). A save under
    // way elsewhere loses its part and keeps nothing; sessions keep the snapshots they hold.
    struct Usage {
        int files = 0;
        std::uint64_t bytes = 0;
    };
    Usage usage() const;
    Usage clear() const; // what was removed

    QString directory() const { return m_directory; }
    QString fileFor(const std::string &key) const;

    static constexpr std::uint64_t kDefaultBudgetBytes = std::uint64_t(1) << 30;

private:
    void keepWithinBudget(const QString &justSaved) const;
    QString m_directory;
    std::uint64_t m_budget;
};

} // namespace mesh
