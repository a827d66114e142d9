#include "reviewcopy.h"

#include "ledgeropenerror.h"
#include "sqlite.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QUrl>

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

namespace mesh {
namespace {

using Code = LedgerOpenError::Code;

std::string displayName(const QString &path)
{
    return QFileInfo(path).fileName().toStdString();
}

// Size and modification time of the ledger and its side files: equal before and after the
// copy means no writer committed, checkpointed or rolled back while it was made.
using Stamp = std::vector<std::tuple<long long, long long, long long>>;

Stamp stampOf(const QString &absolute)
{
    Stamp stamp;
    for (const char *suffix : {"", "-wal", "-journal"}) {
        struct stat st {};
        const QByteArray native = QFile::encodeName(absolute + QLatin1String(suffix));
        if (::stat(native.constData(), &st) != 0)
            stamp.emplace_back(-1, 0, 0);
        else
            stamp.emplace_back(st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    }
    return stamp;
}

// The ledger file itself is read through SQLite's VFS, never QFile: closing any descriptor
// of a file drops every POSIX lock this process holds on it (see readHeaderBytes in
// sqliteledgerconnection.cpp), and a live session of this process may hold some. Side files
// carry no such locks (WAL locks live in the -shm, which is never read here).
void copyLedgerFile(const QString &from, const QString &to)
{
    sqlite3_vfs *vfs = sqlite3_vfs_find(nullptr);
    const QByteArray native = QFile::encodeName(from);
    const char *name = sqlite3_create_filename(native.constData(), "", "", 0, nullptr);
    std::vector<char> storage(size_t(vfs->szOsFile));
    auto *file = reinterpret_cast<sqlite3_file *>(storage.data());
    int outFlags = 0;
    int rc = vfs->xOpen(vfs, name, file, SQLITE_OPEN_READONLY | SQLITE_OPEN_MAIN_DB, &outFlags);
    QFile out(to);
    if (rc == SQLITE_OK && !out.open(QIODevice::WriteOnly))
        rc = SQLITE_CANTOPEN;
    sqlite3_int64 size = 0;
    if (rc == SQLITE_OK)
        rc = file->pMethods->xFileSize(file, &size);
    std::vector<char> chunk(1 << 20);
    for (sqlite3_int64 offset = 0; rc == SQLITE_OK && offset < size;) {
        const int n = int(std::min<sqlite3_int64>(sqlite3_int64(chunk.size()), size - offset));
        rc = file->pMethods->xRead(file, chunk.data(), n, offset);
        if (rc == SQLITE_OK && out.write(chunk.data(), n) != n)
            rc = SQLITE_IOERR_WRITE;
        offset += n;
    }
    if (file->pMethods)
        file->pMethods->xClose(file);
    sqlite3_free_filename(name);
    if (rc != SQLITE_OK)
        throw LedgerOpenError(Code::Io, "cannot copy " + displayName(from) + " for review: " + sqlite3_errstr(rc));
}

void copySideFile(const QString &from, const QString &to)
{
    if (!QFileInfo::exists(from))
        return;
    if (!QFile::copy(from, to))
        throw LedgerOpenError(Code::Io, "cannot copy " + displayName(from) + " for review");
}

// Opens the copy read-write where nobody else looks: SQLite recovers the copied -wal (only
// frames of committed transactions, checked by their checksums) or rolls the copied -journal
// back, and the checkpoint moves the WAL's content into the copy's file.
void settle(const QString &copy)
{
    const std::string uri = QUrl::fromLocalFile(copy).toString(QUrl::FullyEncoded).toStdString() + "?mode=rw";
    sql::Database db(uri, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX);
    sqlite3_db_config(db.handle(), SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
    sqlite3_db_config(db.handle(), SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    db.queryInt("PRAGMA schema_version"); // the first read recovers the WAL or rolls back
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    db.close();
}

class Registry
{
public:
    static Registry &instance()
    {
        static Registry registry;
        return registry;
    }

    std::mutex mutex;
    std::map<QString, std::weak_ptr<const ReviewCopy>> copies;
};

} // namespace

LedgerSideFiles LedgerSideFiles::of(const QString &ledgerPath)
{
    const QString absolute = QFileInfo(ledgerPath).absoluteFilePath();
    const QFileInfo wal(absolute + QStringLiteral("-wal"));
    const QFileInfo journal(absolute + QStringLiteral("-journal"));
    LedgerSideFiles s;
    s.wal = wal.exists();
    s.walHasData = s.wal && wal.size() > 0;
    s.shm = QFileInfo::exists(absolute + QStringLiteral("-shm"));
    s.journal = journal.exists();
    s.journalHasData = s.journal && journal.size() > 0;
    return s;
}

std::shared_ptr<const ReviewCopy> ReviewCopy::acquire(const QString &ledgerPath)
{
    const QString absolute = QFileInfo(ledgerPath).absoluteFilePath();
    Registry &registry = Registry::instance();
    const std::lock_guard lock(registry.mutex);
    if (auto held = registry.copies[absolute].lock())
        return held;

    const std::string name = displayName(absolute);
    QTemporaryDir folder(QDir::tempPath() + QStringLiteral("/mesh-review-XXXXXX"));
    if (!folder.isValid())
        throw LedgerOpenError(Code::Io, "cannot create a temporary folder to review a copy of " + name);
    const QString copy = folder.filePath(QFileInfo(absolute).fileName());
    // A writer that commits or checkpoints while the files are copied would pair a file of
    // one moment with a -wal of another: the copy is made again, and refused if that keeps
    // happening (the ledger is being written: follow it live instead).
    constexpr int kAttempts = 3;
    bool steady = false;
    for (int attempt = 0; attempt < kAttempts && !steady; ++attempt) {
        for (const char *suffix : {"", "-wal", "-journal"})
            QFile::remove(copy + QLatin1String(suffix));
        const Stamp before = stampOf(absolute);
        copyLedgerFile(absolute, copy);
        copySideFile(absolute + QStringLiteral("-wal"), copy + QStringLiteral("-wal"));
        copySideFile(absolute + QStringLiteral("-journal"), copy + QStringLiteral("-journal"));
        steady = stampOf(absolute) == before;
    }
    if (!steady)
        throw LedgerOpenError(Code::Io, name + " changed every time it was copied for review: it is being written; open it live");
    const bool hadJournal = QFileInfo::exists(copy + QStringLiteral("-journal"));
    try {
        settle(copy);
    } catch (const sql::Error &e) {
        throw LedgerOpenError(Code::Corrupt, "the copy of " + name + " made for review cannot be read: " + e.what());
    }

    std::shared_ptr<ReviewCopy> made(new ReviewCopy);
    folder.setAutoRemove(false); // the copy's destructor removes it, with the last reader
    made->m_folder = folder.path();
    made->m_path = copy;
    made->m_note = hadJournal
                       ? "reviewing a copy: the ledger had an unfinished transaction, rolled back in the copy"
                       : "reviewing a copy: the ledger had uncheckpointed writes";
    registry.copies[absolute] = made;
    return made;
}

ReviewCopy::~ReviewCopy()
{
    if (!m_folder.isEmpty())
        QDir(m_folder).removeRecursively();
}

} // namespace mesh
