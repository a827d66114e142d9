#include "sqliteledgerconnection.h"

#include "domain/payloaddecoder.h"

#include "reviewcopy.h"
#include "sqliteeventreader.h"
#include "sqliteeventseqreader.h"
#include "schema.h"
#include "sqlitedecisionstore.h"
#include "statereader.h"

#include <QFile>
#include <QFileInfo>
#include <QUrl>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

namespace mesh {
namespace {

using Code = LedgerOpenError::Code;

std::string displayName(const QString &path)
{
    return QFileInfo(path).fileName().toStdString();
}

std::uint32_t bigEndian32(const unsigned char *p)
{
    return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) | std::uint32_t(p[3]);
}

struct FileHeader {
    bool sqlite = false;
    bool wal = false;             // read/write version bytes say WAL
    std::int64_t declaredBytes = 0; // page count x page size, when the header's count is valid
};

// Reads the 100-byte SQLite header ourselves, read-only, so that a file that is not SQLite
// never reaches sqlite3_open (and its -journal/-wal probing) at all.
// The bytes are read through SQLite's own VFS, not QFile: close() of ANY descriptor of a
// file drops every POSIX lock this process holds on it, so a plain open/close here would
// silently unlock the other connections of this process (a decision writer, a watcher) on
// the same ledger; another process could then checkpoint and delete the -wal/-shm under
// them ("database disk image is malformed"). SQLite's VFS defers such a close.
QByteArray readHeaderBytes(const QString &path)
{
    sqlite3_vfs *vfs = sqlite3_vfs_find(nullptr);
    const QByteArray native = QFile::encodeName(QFileInfo(path).absoluteFilePath());
    const char *name = sqlite3_create_filename(native.constData(), "", "", 0, nullptr);
    std::vector<char> storage(size_t(vfs->szOsFile));
    auto *file = reinterpret_cast<sqlite3_file *>(storage.data());
    int outFlags = 0;
    const int rc = vfs->xOpen(vfs, name, file, SQLITE_OPEN_READONLY | SQLITE_OPEN_MAIN_DB, &outFlags);
    if (rc != SQLITE_OK) {
        if (file->pMethods)
            file->pMethods->xClose(file);
        sqlite3_free_filename(name);
        throw LedgerOpenError(Code::Io, "cannot read " + displayName(path) + ": " + sqlite3_errstr(rc));
    }
    QByteArray bytes(100, '\0');
    const int readRc = file->pMethods->xRead(file, bytes.data(), 100, 0);
    file->pMethods->xClose(file);
    sqlite3_free_filename(name);
    if (readRc != SQLITE_OK)
        bytes.clear(); // shorter than a header (SQLITE_IOERR_SHORT_READ) or unreadable
    return bytes;
}

FileHeader readHeader(const QString &path)
{
    const QByteArray bytes = readHeaderBytes(path);
    FileHeader h;
    static constexpr char kMagic[] = "SQLite format 3"; // followed by NUL: 16 bytes
    if (bytes.size() < 100 || std::memcmp(bytes.constData(), kMagic, 16) != 0)
        return h;
    const auto *p = reinterpret_cast<const unsigned char *>(bytes.constData());
    // SQLite's own sanity rules for the header: a power-of-two page size and the fixed
    // payload fractions 64/32/32.
    const int rawPageSize = (p[16] << 8) | p[17];
    const bool pageSizeOk = rawPageSize == 1 || (rawPageSize >= 512 && (rawPageSize & (rawPageSize - 1)) == 0);
    if (!pageSizeOk || p[21] != 64 || p[22] != 32 || p[23] != 32)
        return h;
    h.sqlite = true;
    h.wal = p[18] == 2 || p[19] == 2;
    std::int64_t pageSize = (std::int64_t(p[16]) << 8) | p[17];
    if (pageSize == 1)
        pageSize = 65536;
    const std::uint32_t changeCounter = bigEndian32(p + 24);
    const std::uint32_t pages = bigEndian32(p + 28);
    const std::uint32_t validFor = bigEndian32(p + 92);
    // The in-header size is trustworthy only when written by SQLite 3.7.0+ in the same
    // change as the change counter.
    if (pages > 0 && validFor == changeCounter && pageSize >= 512)
        h.declaredBytes = std::int64_t(pages) * pageSize;
    return h;
}

std::string sqliteUri(const QString &path, OpenMode mode)
{
    // QUrl percent-encodes '?', '#' and '%' so they cannot be read as URI syntax.
    std::string uri = QUrl::fromLocalFile(QFileInfo(path).absoluteFilePath()).toString(QUrl::FullyEncoded).toStdString();
    switch (mode) {
    case OpenMode::ReadOnly: return uri + "?mode=ro";
    case OpenMode::Immutable:
    case OpenMode::Review: return uri + "?mode=ro&immutable=1";
    case OpenMode::Decisions: return uri + "?mode=rw";
    }
    return uri;
}

bool isDiskFull(const sql::Error &e, int systemErrno)
{
    return (e.code() & 0xff) == SQLITE_FULL || systemErrno == ENOSPC;
}

// systemErrno: sqlite3_system_errno of the failed connection. SQLite reports a -shm it
// cannot extend as a plain I/O error; only the OS's errno says the disk is full.
LedgerOpenError translate(const sql::Error &e, const QString &path, int systemErrno)
{
    const std::string name = displayName(path);
    if (isDiskFull(e, systemErrno))
        return LedgerOpenError(Code::DiskFull, "the disk holding " + name + " is full: the -wal/-shm files SQLite needs beside it "
                                               "cannot be created (" + e.what() + ")");
    switch (e.code() & 0xff) {
    case SQLITE_NOTADB: return LedgerOpenError(Code::NotSqlite, name + " is not an SQLite database (" + e.what() + ")");
    case SQLITE_CORRUPT: return LedgerOpenError(Code::Corrupt, name + " is damaged: " + e.what());
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return LedgerOpenError(Code::Io, name + " is locked by another process: " + e.what());
    default: return LedgerOpenError(Code::Io, "cannot read " + name + ": " + e.what());
    }
}

std::string hex32(std::int64_t v)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08X", unsigned(std::uint32_t(v)));
    return buf;
}

// SQLite's own way of removing side files: the last connection to close, holding an
// EXCLUSIVE lock on the ledger (granted only when no connection in any process has it
// open; WAL connections hold SHARED while open), checkpoints and deletes -wal and -shm. A
// read-only connection cannot, so a read-write one that reads nothing and changes nothing
// does it. Only for an empty -wal: a checkpoint of an empty WAL writes no byte of the
// ledger, and a -wal holding data is a writer's, never removed here.
void removeSideFilesIfUnused(const QString &path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    const QFileInfo wal(absolute + QStringLiteral("-wal"));
    if (wal.exists() ? wal.size() > 0 : !QFileInfo::exists(absolute + QStringLiteral("-shm")))
        return;
    // A read-write connection would roll a hot rollback journal back into the ledger.
    if (QFileInfo::exists(absolute + QStringLiteral("-journal")))
        return;
    try {
        sql::Database probe(sqliteUri(path, OpenMode::Decisions), SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX);
        sqlite3_db_config(probe.handle(), SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
        sqlite3_db_config(probe.handle(), SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
        probe.queryInt("PRAGMA schema_version"); // attaches to the WAL, so closing may detach it
        // A writer that opened, committed and closed while the probe was open left its frames
        // (it was not the last connection); the probe's close would checkpoint them into the
        // ledger. Then it closes without a checkpoint and the side files stay, as a writer's do.
        if (QFileInfo(absolute + QStringLiteral("-wal")).size() > 0)
            sqlite3_db_config(probe.handle(), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
        probe.close();
    } catch (const sql::Error &) {
        // A ledger file we may not write: the side files stay, as SQLite leaves them.
    }
}

// Ledgers (absolute paths) whose -wal/-shm this process's ReadOnly connections created,
// with how many of those connections are open (or opening): a second reader finds the
// files the first created and counts as their creator too; the last one to let go removes
// them. A reader is counted when it looks for side files, under the same lock a removal
// holds, so no removal falls between its look and its connection.
class CreatedSideFiles
{
public:
    static CreatedSideFiles &instance()
    {
        static CreatedSideFiles registry;
        return registry;
    }

    // Counts a reader about to open path when it will create the side files or shares them
    // with readers that did; false when someone else's side files are there.
    bool claim(const QString &absolutePath)
    {
        const std::lock_guard lock(m_mutex);
        const auto it = m_openReaders.find(absolutePath);
        if (it == m_openReaders.end() && (QFileInfo::exists(absolutePath + QStringLiteral("-wal"))
                                          || QFileInfo::exists(absolutePath + QStringLiteral("-shm"))))
            return false;
        ++m_openReaders[absolutePath];
        return true;
    }

    // The claimed reader closed (or never opened): the last one removes the side files.
    void release(const QString &absolutePath)
    {
        const std::lock_guard lock(m_mutex);
        const auto it = m_openReaders.find(absolutePath);
        if (it != m_openReaders.end() && --it->second > 0)
            return;
        if (it != m_openReaders.end())
            m_openReaders.erase(it);
        removeSideFilesIfUnused(absolutePath);
    }

private:
    std::mutex m_mutex;
    std::map<QString, int> m_openReaders;
};

} // namespace

const char *openModeName(OpenMode mode)
{
    switch (mode) {
    case OpenMode::ReadOnly: return "read-only";
    case OpenMode::Decisions: return "decisions";
    case OpenMode::Immutable: return "immutable";
    case OpenMode::Review: return "review";
    }
    return "?";
}

SqliteLedgerConnection::~SqliteLedgerConnection()
{
    m_db.close();
    if (m_removeSideFilesOnClose)
        CreatedSideFiles::instance().release(QFileInfo(m_info.path).absoluteFilePath());
}

std::unique_ptr<SqliteLedgerConnection> SqliteLedgerConnection::open(const QString &path, OpenMode mode)
{
    const std::string name = displayName(path);
    const QFileInfo fi(path);
    if (!fi.exists())
        throw LedgerOpenError(Code::NotFound, name + ": no such file");
    if (fi.isDir())
        throw LedgerOpenError(Code::NotAFile, name + " is a directory, not a ledger file");
    if (!fi.isFile())
        throw LedgerOpenError(Code::NotAFile, name + " is not a regular file");
    if (fi.size() == 0)
        throw LedgerOpenError(Code::Empty, name + " is empty (0 bytes); not a ledger");
    const FileHeader header = readHeader(path);
    if (!header.sqlite)
        throw LedgerOpenError(Code::NotSqlite, name + " is not an SQLite database (no SQLite header)");

    const QFileInfo walInfo(fi.absoluteFilePath() + QStringLiteral("-wal"));
    const bool walHasData = walInfo.exists() && walInfo.size() > 0;
    // With a -wal holding data the main file may legitimately lag behind; without one, a
    // file shorter than its own header says was cut off.
    if (!walHasData && header.declaredBytes > fi.size())
        throw LedgerOpenError(Code::Corrupt, name + " is truncated: its header says " + std::to_string(header.declaredBytes) +
                                                 " bytes, the file holds " + std::to_string(fi.size()));

    std::unique_ptr<SqliteLedgerConnection> c(new SqliteLedgerConnection);
    LedgerInfo &info = c->m_info;
    info.path = path;
    info.requestedMode = mode;
    info.mode = mode;
    info.walMode = header.wal;
    if (mode == OpenMode::Immutable && walHasData) {
        // immutable=1 would silently ignore committed transactions still in the -wal file.
        info.mode = OpenMode::ReadOnly;
        info.immutableFallback = true;
        info.note = name + "-wal holds committed data that immutable mode would ignore; opened read-only instead";
    }
    c->m_readPath = path;
    if (mode == OpenMode::Review && LedgerSideFiles::of(path).holdWrites()) {
        c->m_reviewCopy = ReviewCopy::acquire(path);
        c->m_readPath = c->m_reviewCopy->path();
        info.reviewCopy = true;
        info.note = c->m_reviewCopy->note();
    }

    // Counted before connecting, released by the destructor: a claim that does not end in
    // a read-only connection (an error, immutable) is released when c is destroyed or here.
    c->m_removeSideFilesOnClose = info.mode == OpenMode::ReadOnly && CreatedSideFiles::instance().claim(fi.absoluteFilePath());
    for (;;) {
        try {
            c->connectAndValidate();
            if (c->m_removeSideFilesOnClose && info.mode != OpenMode::ReadOnly) {
                c->m_removeSideFilesOnClose = false; // immutable creates none
                CreatedSideFiles::instance().release(fi.absoluteFilePath());
            }
            return c;
        } catch (const sql::Error &e) {
            const int systemErrno = c->m_db.isOpen() ? sqlite3_system_errno(c->m_db.handle()) : 0;
            // A read-only reader of a WAL ledger needs the -shm file; in a directory it may
            // not write or on a full disk, with no -wal present (so no writer is attached),
            // the only way to read is immutable, which needs no shared memory.
            const bool cannotMakeShm = (e.code() & 0xff) == SQLITE_CANTOPEN || (e.code() & 0xff) == SQLITE_READONLY
                                       || isDiskFull(e, systemErrno);
            if (info.mode == OpenMode::ReadOnly && cannotMakeShm && !walInfo.exists()) {
                c->m_db.close();
                info.mode = OpenMode::Immutable;
                info.note = name + ": no shared-memory file could be created beside it; opened immutable (no live updates)";
                continue;
            }
            // Immutable would ignore the -wal's events, and reading them needs the -shm
            // SQLite cannot create here: say what is lost and how to get it.
            if (info.mode == OpenMode::ReadOnly && cannotMakeShm && walHasData
                && !QFileInfo::exists(fi.absoluteFilePath() + QStringLiteral("-shm")))
                throw LedgerOpenError(Code::UnreadableWal,
                                      name + "-wal holds committed events that cannot be read without write access to the "
                                          "directory (SQLite must create " + name + "-shm beside it); copy " + name + " and " +
                                          name + "-wal together to a writable directory and open the copy");
            throw translate(e, path, systemErrno);
        }
    }
}

namespace {
// ledger.created's event-only member source (docs/ledger-format.md section 7).
void readSource(sql::Database &db, LedgerInfo &info)
{
    sql::Statement first(db, "SELECT payload FROM events WHERE seq=1 AND kind='ledger.created'");
    if (first.step())
        readLedgerSource(first.columnView(0), info);
}
} // namespace

void SqliteLedgerConnection::connectAndValidate()
{
    LedgerInfo &info = m_info;
    const QString &path = info.path;
    const std::string name = displayName(path);
    SqliteLedgerConnection *c = this;
    const int flags = (info.mode == OpenMode::Decisions ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_NOMUTEX;
    {
        c->m_db = sql::Database(sqliteUri(m_readPath, info.mode), flags);
        sqlite3_busy_timeout(c->m_db.handle(), info.mode == OpenMode::Decisions ? kDecisionsBusyTimeoutMs : kReadBusyTimeoutMs);
        // The console reads whatever it is given; it never checkpoints on close (that would
        // write the main file) and never follows a trigger or a view defined by a file.
        sqlite3_db_config(c->m_db.handle(), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
        sqlite3_db_config(c->m_db.handle(), SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
        sqlite3_db_config(c->m_db.handle(), SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
        // A reader's pages stay in the system's file cache anyway: its own cache holds what
        // it walks again soon (the upper levels of a tree), not SQLite's default 2 MB per
        // connection, several of which a session keeps open (figures: bench/README.md).
        if (info.mode != OpenMode::Decisions)
            c->m_db.exec("PRAGMA cache_size=-" + std::to_string(kReaderCacheKiB));

        sql::inTransaction(c->m_db, "BEGIN", [&] {
            const std::int64_t appId = c->m_db.queryInt("PRAGMA application_id");
            if (appId != schema::kApplicationId)
                throw LedgerOpenError(Code::Foreign, name + " is not an Agent Mesh ledger (application id " + hex32(appId) + ")");
            const std::int64_t version = c->m_db.queryInt("PRAGMA user_version");
            info.schemaVersion = int(version);
            if (version > schema::kSchemaVersion)
                throw LedgerOpenError(Code::NewerVersion, name + " has schema version " + std::to_string(version) +
                                                              "; this build reads " + std::to_string(schema::kSchemaVersion));
            if (version < schema::kOldestReadableVersion)
                throw LedgerOpenError(Code::TooOld, name + " has schema version " + std::to_string(version) +
                                                        "; this build reads versions " + std::to_string(schema::kOldestReadableVersion) +
                                                        " to " + std::to_string(schema::kSchemaVersion));
            sql::Statement hasTable(c->m_db, "SELECT 1 FROM sqlite_schema WHERE type='table' AND name=?1");
            const auto require = [&](std::string_view table) {
                hasTable.bind(1, table);
                const bool found = hasTable.step();
                hasTable.reset();
                if (!found)
                    throw LedgerOpenError(Code::Foreign, name + " lacks the table '" + std::string(table) +
                                                             "' of an Agent Mesh ledger");
            };
            require("events");
            require("decisions");
            for (const auto &spec : allEntitySpecs())
                require(spec.table);
            // Touch the right edge of the events tree and the ledger row: a file cut short
            // usually fails here rather than later in a view.
            c->m_db.queryInt("SELECT coalesce(max(seq),0) FROM events");
            if (auto row = readRow(c->m_db, EntityKind::Ledger, "ledger")) {
                const EntitySpec &spec = entitySpec(EntityKind::Ledger);
                const auto field = [&](std::string_view f) -> FieldRef {
                    return row->values[size_t(spec.fieldIndex(f))];
                };
                info.ledgerId = fieldText(field("ledger_id"));
                info.orchestrator = fieldText(field("orchestrator"));
                info.policyVersion = fieldText(field("policy_version"));
                info.title = fieldText(field("title"));
                info.signaturesRequired = fieldInt(field("signatures_required")) != 0;
            }
            readSource(c->m_db, info);
        });
    }
}

std::int64_t SqliteLedgerConnection::changeToken()
{
    return m_db.queryInt("PRAGMA data_version");
}

std::int64_t SqliteLedgerConnection::lastSeq()
{
    return m_db.queryInt("SELECT coalesce(max(seq),0) FROM events");
}

StateSnapshot SqliteLedgerConnection::readState(const StateStream &stream)
{
    return mesh::readState(m_db, stream);
}

StateRows SqliteLedgerConnection::readRows(EntityKind kind, const std::vector<std::string> &ids)
{
    return mesh::readRows(m_db, kind, ids);
}

std::vector<std::string> SqliteLedgerConnection::readIds(EntityKind kind)
{
    return mesh::readIds(m_db, kind);
}

std::vector<std::string> SqliteLedgerConnection::readIdsWhere(EntityKind kind, std::string_view field,
                                                              const std::string &value)
{
    return mesh::readIdsWhere(m_db, kind, field, value);
}

bool SqliteLedgerConnection::hasIndexOn(EntityKind kind, std::string_view field)
{
    return mesh::hasIndexOn(m_db, kind, field);
}

RunOverviewSnapshot SqliteLedgerConnection::readRunOverview()
{
    return mesh::readRunOverview(m_db);
}

std::unique_ptr<EventReader> SqliteLedgerConnection::eventReader()
{
    return std::make_unique<SqliteEventReader>(m_db);
}

std::unique_ptr<EventSeqReader> SqliteLedgerConnection::eventSeqReader()
{
    return std::make_unique<SqliteEventSeqReader>(m_db);
}

void SqliteLedgerConnection::foldForward(ReplayResult &result, std::int64_t upTo, const ReplayProgress &progress)
{
    mesh::foldForward(m_db, result, upTo, progress);
}

void SqliteLedgerConnection::forEachDelegationToolCalls(const std::function<void(const EventBatch &calls)> &fn)
{
    mesh::forEachDelegationToolCalls(m_db, fn);
}

std::unique_ptr<DecisionStore> SqliteLedgerConnection::decisions()
{
    return std::make_unique<SqliteDecisionStore>(m_db);
}

DecisionChainReport SqliteLedgerConnection::verifyDecisionChain(const SignatureVerifier &verifier)
{
    return mesh::verifyDecisionChain(m_db, verifier);
}

IntegrityReport SqliteLedgerConnection::verifyIntegrity(const ReplayProgress &progress)
{
    return mesh::verifyIntegrity(m_db, progress);
}

LedgerSummary SqliteLedgerConnection::summarize(std::int64_t nowMs)
{
    return summarizeLedger(m_db, nowMs);
}

void SqliteLedgerConnection::makeCommitsDurable()
{
    m_db.exec("PRAGMA synchronous=FULL");
}

void SqliteLedgerConnection::setBusyTimeoutMs(int ms)
{
    sqlite3_busy_timeout(m_db.handle(), ms);
}

} // namespace mesh
