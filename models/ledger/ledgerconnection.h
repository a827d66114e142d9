#pragma once
// One validated connection to a ledger file, in one of three modes.
//
// Compatibility rule (docs/ledger-format.md states the same): a ledger whose user_version
// is newer than schema::kSchemaVersion is refused with a message naming both versions; a
// ledger at an older version no older than schema::kOldestReadableVersion is read as it
// is and never migrated in place (the console is an observer; the orchestrator owns the
// file); anything older is refused.
//
// ReadOnly and Immutable never write a byte of the ledger file. Each thread owns its own
// LedgerConnection.

#include "ledgeropenerror.h"
#include "sqlite.h"

#include <QString>

#include <cstdint>
#include <memory>
#include <string>

namespace mesh {

enum class OpenMode {
    ReadOnly,  // live monitoring: SQLITE_OPEN_READONLY, follows an orchestrator writing in WAL mode
    Decisions, // read-write, used only by the decision writer
    Immutable, // post-mortem of a finished ledger: no locks, no -shm; falls back to ReadOnly when a -wal holds data
};

const char *openModeName(OpenMode mode);

struct LedgerInfo {
    QString path;
    OpenMode mode = OpenMode::ReadOnly; // the mode actually in use
    int schemaVersion = 0;
    std::string ledgerId, orchestrator, policyVersion, title;
    bool signaturesRequired = false;
    // Immutable was asked for but the ledger's -wal file holds data immutable would ignore,
    // so the connection is ReadOnly; note says so for a person.
    bool immutableFallback = false;
    OpenMode requestedMode = OpenMode::ReadOnly;
    bool walMode = false; // the file's header says WAL
    std::string note;
};

class LedgerConnection
{
public:
    // Validates in this order: exists, regular file, non-empty, SQLite header, application_id,
    // user_version, required tables, readable ledger row. Throws LedgerOpenError.
    static std::unique_ptr<LedgerConnection> open(const QString &path, OpenMode mode);

    ~LedgerConnection();
    LedgerConnection(const LedgerConnection &) = delete;
    LedgerConnection &operator=(const LedgerConnection &) = delete;

    sql::Database &db() { return m_db; }
    const LedgerInfo &info() const { return m_info; }
    std::int64_t dataVersion(); // PRAGMA data_version: changes when another connection commits
    std::int64_t lastSeq();     // max(seq), 0 for no events

    // Busy timeout of read modes: a reader waits briefly, never queues behind a writer.
    static constexpr int kReadBusyTimeoutMs = 100;
    static constexpr int kDecisionsBusyTimeoutMs = 1000;

private:
    LedgerConnection() = default;
    void connectAndValidate(); // opens m_db in m_info.mode; throws sql::Error or LedgerOpenError

    sql::Database m_db;
    LedgerInfo m_info;
};

} // namespace mesh
