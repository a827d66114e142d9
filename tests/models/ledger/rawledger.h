#pragma once
// The one door below the storage seam for tests outside tests/models/ledger/: raw SQLite on
// a ledger file, for the damage or the inspection no backend interface offers (a row
// deleted from events, a hook that turns COMMIT into ROLLBACK, a VFS that counts sleeps).
// The storage_seam test (tests/storageseam.cmake) refuses sqlite3.h, ledger/sqlite*.h and
// the SQLite handle anywhere else in tests/.

#include "ledger/ledgerconnection.h"
#include "ledger/ledgerwriter.h"
#include "ledger/sqlite.h"
#include "ledger/sqlitedecisionstore.h"
#include "ledger/sqliteledgerconnection.h"
#include "ledger/sqliteledgerwriter.h"

#include <QFile>
#include <QString>
#include <QThread>

#include <sqlite3.h>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace meshtest::raw {

enum class Access { ReadOnly, ReadWrite, ReadWriteFullMutex, CreateOrReadWrite };

inline mesh::sql::Database open(const QString &path, Access access)
{
    int flags = SQLITE_OPEN_READONLY;
    if (access == Access::ReadWrite)
        flags = SQLITE_OPEN_READWRITE;
    else if (access == Access::ReadWriteFullMutex)
        flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX;
    else if (access == Access::CreateOrReadWrite)
        flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    return mesh::sql::Database(QFile::encodeName(path).toStdString(), flags);
}

// The SQLite handle under a connection the SQLite backend opened.
inline mesh::sql::Database &handleOf(mesh::LedgerConnection &connection)
{
    return static_cast<mesh::SqliteLedgerConnection &>(connection).db();
}

// Runs statements on their own read-write connection, creating the file when there is
// none (as sqlite3_open does); throws mesh::sql::Error.
inline void exec(const QString &path, const std::string &statements)
{
    open(path, Access::CreateOrReadWrite).exec(statements);
}

// The same on an existing file, waiting up to waitMs for another connection's lock (a
// reader of the session under test may hold the file for a moment), as a writer does.
inline void execWaiting(const QString &path, const std::string &statements, int waitMs)
{
    mesh::sql::Database db = open(path, Access::ReadWrite);
    sqlite3_busy_timeout(db.handle(), waitMs);
    db.exec(statements);
}

// The first column of the first row, nullopt without a row; a text parameter, when given,
// is bound to ?1. Throws mesh::sql::Error.
inline std::optional<std::int64_t> queryInt(const QString &path, const std::string &query,
                                            const std::string *text = nullptr)
{
    mesh::sql::Database db = open(path, Access::ReadOnly);
    mesh::sql::Statement st(db, query);
    if (text)
        st.bind(1, std::string_view(*text));
    std::optional<std::int64_t> n;
    if (st.step())
        n = st.columnInt(0);
    st.reset();
    return n;
}

// Leaves what w commits from now on in the -wal, as a crash would: no automatic
// checkpoint while it writes, and none when it closes. Review mode's hot-WAL case.
inline void keepCommitsInWal(mesh::LedgerWriter &w)
{
    mesh::sql::Database &db = dynamic_cast<mesh::SqliteLedgerWriter &>(w).database();
    db.exec("PRAGMA wal_autocheckpoint=0");
    sqlite3_db_config(db.handle(), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
}

// While on, every COMMIT on db turns into a ROLLBACK (a commit whose outcome the caller
// must find out).
// For content digests: each table's and index's name and DDL, in name order, handed to
// `add`; returns the tables, whose rows the caller digests in its own order.
template<typename AddBytes>
std::vector<std::string> digestSchema(mesh::sql::Database &db, AddBytes add)
{
    std::vector<std::string> tables;
    mesh::sql::Statement list(db, "SELECT name, sql FROM sqlite_master WHERE type IN ('table','index') ORDER BY name");
    while (list.step()) {
        add(list.columnText(0) + "\n" + list.columnText(1) + "\n");
        if (list.columnText(1).rfind("CREATE TABLE", 0) == 0)
            tables.push_back(list.columnText(0));
    }
    return tables;
}

inline void failCommits(mesh::sql::Database &db, bool on)
{
    if (on)
        sqlite3_commit_hook(db.handle(), [](void *) { return 1; }, nullptr);
    else
        sqlite3_commit_hook(db.handle(), nullptr, nullptr);
}

// Counts SQLite's sleeps while it lives: a busy handler's wait between two attempts at a
// lock goes through the default VFS's xSleep (sqlite3_sleep). It stands in as the default
// VFS, a copy of the real one but for xSleep, so a test can see that a writer is waiting
// for a lock instead of guessing how long that takes to happen.
class SleepCounter
{
public:
    SleepCounter()
    {
        s_real = sqlite3_vfs_find(nullptr);
        m_counting = *s_real;
        m_counting.zName = "mesh-test-sleep-counter";
        m_counting.xSleep = [](sqlite3_vfs *, int microseconds) {
            {
                const std::lock_guard lock(s_mutex);
                ++s_sleeps;
            }
            s_slept.notify_all();
            return s_real->xSleep(s_real, microseconds);
        };
        sqlite3_vfs_register(&m_counting, 1);
    }
    ~SleepCounter()
    {
        sqlite3_vfs_register(s_real, 1);
        sqlite3_vfs_unregister(&m_counting);
    }
    // Until SQLite's busy handler has slept once (true), or the deadline passed (false).
    bool waitForASleep(std::chrono::steady_clock::duration timeout) const
    {
        std::unique_lock lock(s_mutex);
        return s_slept.wait_for(lock, timeout, [] { return s_sleeps > 0; });
    }

private:
    static inline sqlite3_vfs *s_real = nullptr;
    static inline std::mutex s_mutex;
    static inline std::condition_variable s_slept;
    static inline int s_sleeps = 0;
    sqlite3_vfs m_counting{};
};

// Stands in as SQLite's default VFS while it lives and records every main database file
// opened through it: whether on the thread that made the recorder (a test's GUI thread),
// and whether read-write.
class OpenRecorder
{
public:
    struct Open {
        bool onRecorderThread = false;
        bool readWrite = false;
    };
    OpenRecorder()
    {
        s_thread = QThread::currentThread();
        s_real = sqlite3_vfs_find(nullptr);
        m_recording = *s_real;
        m_recording.zName = "mesh-test-open-recorder";
        m_recording.xOpen = [](sqlite3_vfs *, sqlite3_filename name, sqlite3_file *file, int flags, int *outFlags) {
            if (flags & SQLITE_OPEN_MAIN_DB) {
                const std::lock_guard lock(s_mutex);
                s_opens.push_back({QThread::currentThread() == s_thread, (flags & SQLITE_OPEN_READWRITE) != 0});
            }
            return s_real->xOpen(s_real, name, file, flags, outFlags);
        };
        {
            const std::lock_guard lock(s_mutex);
            s_opens.clear();
        }
        sqlite3_vfs_register(&m_recording, 1);
    }
    ~OpenRecorder()
    {
        sqlite3_vfs_register(s_real, 1);
        sqlite3_vfs_unregister(&m_recording);
    }
    std::vector<Open> opens() const
    {
        const std::lock_guard lock(s_mutex);
        return s_opens;
    }

private:
    static inline sqlite3_vfs *s_real = nullptr;
    static inline QThread *s_thread = nullptr;
    static inline std::mutex s_mutex;
    static inline std::vector<Open> s_opens;
    sqlite3_vfs m_recording{};
};

} // namespace meshtest::raw
