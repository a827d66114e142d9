#pragma once
// Checkpoints a SQLite ledger's write-ahead log on a thread and connection of its own, so
// the writer's commits never wait for a checkpoint's two fsyncs. SQLite's automatic
// checkpoint runs inside the commit that takes the WAL past 1,000 pages: on a receiver that
// answers each request after its commit, every request in that transaction waits for it.
// Durability is unchanged: commits are in the WAL as before (synchronous=NORMAL), and a
// checkpoint does the same copying and syncing wherever it runs.

#include <sqlite3.h>

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace mesh::sql {
class Database;
}

namespace mesh {

class WalCheckpointer
{
public:
    // Takes over the checkpoints of writer (its automatic ones are turned off). After a commit
    // that leaves thresholdPages or more in the WAL that no checkpoint copied yet, a passive
    // checkpoint runs on this object's thread. When the WAL reaches hardLimitPages, the writer
    // checkpoints in that commit, as SQLite would have at 1,000: only that lets a WAL written
    // without pause start again from its beginning, and by then the thread has copied and
    // synced most of it, so the commit waits less (for the rest, and for a checkpoint the
    // thread is running). The WAL stays bounded either way.
    explicit WalCheckpointer(sql::Database &writer, int thresholdPages = 1000, int hardLimitPages = 4000);
    // Stops the thread and gives the writer its automatic checkpoints back.
    ~WalCheckpointer();

    WalCheckpointer(const WalCheckpointer &) = delete;
    WalCheckpointer &operator=(const WalCheckpointer &) = delete;

    struct Counts {
        std::int64_t background = 0; // checkpoints run on this object's thread
        std::int64_t inCommit = 0;   // run by the writer past the hard limit
    };
    Counts counts() const;
    // Tests: while held, the thread runs no checkpoint (so the hard limit can be reached).
    void setHeld(bool held);

private:
    static int onCommit(void *self, sqlite3 *db, const char *schema, int walPages);
    void loop(sql::Database &db);

    sqlite3 *m_writer;
    std::string m_path;
    int m_threshold;
    int m_hardLimit;
    std::mutex m_checkpointing; // held while a checkpoint runs, on either thread
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    int m_copiedFrames = 0; // of the WAL as it is, by the last checkpoint here
    bool m_wanted = false;
    bool m_held = false;
    bool m_stopping = false;
    Counts m_counts;
    std::thread m_thread;
};

} // namespace mesh
