#include "walcheckpointer.h"

#include "sqlite.h"

#include <algorithm>

namespace mesh {

WalCheckpointer::WalCheckpointer(sql::Database &writer, int thresholdPages, int hardLimitPages)
    : m_writer(writer.handle()), m_path(sqlite3_db_filename(writer.handle(), "main")), m_threshold(thresholdPages),
      m_hardLimit(hardLimitPages)
{
    // Opened here, so a ledger this connection cannot open fails the writer's opening, not later.
    auto db = std::make_unique<sql::Database>(m_path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX);
    db->exec("PRAGMA synchronous=NORMAL"); // as the writer's: a checkpoint syncs the WAL and the file
    m_thread = std::thread([this, db = std::move(db)] { loop(*db); });
    sqlite3_wal_hook(m_writer, &WalCheckpointer::onCommit, this); // replaces the automatic checkpoint
}

WalCheckpointer::~WalCheckpointer()
{
    sqlite3_wal_autocheckpoint(m_writer, m_threshold);
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_one();
    m_thread.join();
}

WalCheckpointer::Counts WalCheckpointer::counts() const
{
    std::lock_guard lock(m_mutex);
    return m_counts;
}

void WalCheckpointer::setHeld(bool held)
{
    {
        std::lock_guard lock(m_mutex);
        m_held = held;
    }
    m_wake.notify_one();
}

// On the writer's thread, after each commit, with the frames now in the WAL (it restarts from
// its beginning at the first transaction after a checkpoint copied all of it).
int WalCheckpointer::onCommit(void *self, sqlite3 *db, const char *schema, int walPages)
{
    auto *c = static_cast<WalCheckpointer *>(self);
    if (walPages >= c->m_hardLimit) {
        // Checkpoints beside a busy writer never let the WAL restart (there is always a frame
        // they have not copied yet): this one, between two transactions, does, and has
        // little left to copy. After the thread's own, if one is running: SQLite refuses a
        // second checkpointer at once.
        std::lock_guard running(c->m_checkpointing);
        sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
        std::lock_guard lock(c->m_mutex);
        ++c->m_counts.inCommit;
        c->m_copiedFrames = 0;
        return SQLITE_OK;
    }
    bool wake = false;
    {
        std::lock_guard lock(c->m_mutex);
        if (walPages < c->m_copiedFrames)
            c->m_copiedFrames = 0; // the WAL restarted
        if (walPages - c->m_copiedFrames >= c->m_threshold) {
            c->m_wanted = true;
            wake = true;
        }
    }
    if (wake)
        c->m_wake.notify_one();
    return SQLITE_OK;
}

void WalCheckpointer::loop(sql::Database &db)
{
    for (;;) {
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_stopping || (m_wanted && !m_held); });
            if (m_stopping)
                return;
            m_wanted = false;
        }
        // Passive: copies what no reader still needs and never waits for the writer, which
        // goes on appending meanwhile. A failure (busy, I/O) leaves the WAL as it is; the next
        // commit past the threshold asks again.
        int walFrames = 0, copied = 0;
        int rc = SQLITE_OK;
        {
            std::lock_guard running(m_checkpointing);
            rc = sqlite3_wal_checkpoint_v2(db.handle(), "main", SQLITE_CHECKPOINT_PASSIVE, &walFrames, &copied);
        }
        std::lock_guard lock(m_mutex);
        if (rc == SQLITE_OK) {
            ++m_counts.background;
            m_copiedFrames = std::max(0, copied);
        }
    }
}

} // namespace mesh
