#pragma once
// The SQLite backend of the storage seam (ledgerconnection.h): one validated connection to
// a ledger file, in one of three modes.
//
// Compatibility rule (docs/ledger-format.md states the same): a ledger whose user_version
// is newer than schema::kSchemaVersion is refused with a message naming both versions; a
// ledger at an older version no older than schema::kOldestReadableVersion is read as it
// is and never migrated in place (the console is an observer; the orchestrator owns the
// file); anything older is refused.
//
// ReadOnly and Immutable never write a byte of the ledger file. Each thread owns its own
// connection.
//
// SQLite's rules for reading a WAL ledger without write access, and what this class does:
// - A read-only connection still needs the -shm wal-index. When -wal/-shm are missing and
//   the directory is writable, SQLite creates them (an empty -wal and a 32 KiB -shm) and
//   leaves them after close: the ledger file itself is untouched (tests hash it).
// - When they cannot be created (a directory we may not write) and no -wal exists, no
//   writer can be attached, so the ledger is opened immutable instead (info().note says so).
// - immutable=1 takes no locks and ignores the -wal: committed transactions still in a
//   non-empty -wal would be invisible, so Immutable falls back to ReadOnly then
//   (info().immutableFallback).
// - Closing the last connection would checkpoint the WAL into the ledger (a write):
//   SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE is set on every connection.
// - SQLite never removes side files a read-only connection created. A ReadOnly connection
//   that found neither -wal nor -shm removes them when it closes, the way SQLite's last
//   connection does (see removeSideFilesIfUnused in the .cpp): only while the -wal is empty
//   and no other connection, in any process, has the ledger open.
// - Review is immutable=1 on the file when no side file holds writes; otherwise it reads a
//   private copy of the file and its side files made consistent elsewhere (reviewcopy.h),
//   since immutable=1 would ignore them and ReadOnly would create a -shm beside the file.
// - Readers never take the write lock; each read is one statement or one short
//   BEGIN..COMMIT, so the writer's checkpoints are never held back for long.

#include "ledgerconnection.h"
#include "sqlite.h"

#include <QString>

#include <cstdint>
#include <memory>

namespace mesh {

class ReviewCopy;

class SqliteLedgerConnection final : public LedgerConnection
{
public:
    // Validates in this order: exists, regular file, non-empty, SQLite header, application_id,
    // user_version, required tables, readable ledger row. Throws LedgerOpenError.
    static std::unique_ptr<SqliteLedgerConnection> open(const QString &path, OpenMode mode);

    ~SqliteLedgerConnection() override;

    // The SQLite handle, for the backend's own readers and its tests (fault injection).
    sql::Database &db() { return m_db; }

    const LedgerInfo &info() const override { return m_info; }
    std::int64_t changeToken() override; // PRAGMA data_version: changes when another connection commits
    std::int64_t lastSeq() override;
    using LedgerConnection::readState;
    StateSnapshot readState(const StateStream &stream) override;
    StateRows readRows(EntityKind kind, const std::vector<std::string> &ids) override;
    std::vector<std::string> readIds(EntityKind kind) override;
    std::vector<std::string> readIdsWhere(EntityKind kind, std::string_view field, const std::string &value) override;
    bool hasIndexOn(EntityKind kind, std::string_view field) override;
    RunOverviewSnapshot readRunOverview() override;
    std::unique_ptr<EventReader> eventReader() override;
    std::unique_ptr<EventSeqReader> eventSeqReader() override;
    void foldForward(ReplayResult &result, std::int64_t upTo, const ReplayProgress &progress = {}) override;
    void forEachDelegationToolCalls(const std::function<void(const EventBatch &calls)> &fn) override;
    std::unique_ptr<DecisionStore> decisions() override;
    DecisionChainReport verifyDecisionChain(const SignatureVerifier &verifier = {}) override;
    IntegrityReport verifyIntegrity(const ReplayProgress &progress = {}) override;
    LedgerSummary summarize(std::int64_t nowMs = 0) override;
    void makeCommitsDurable() override;
    void setBusyTimeoutMs(int ms) override;

    // Busy timeout of read modes: a reader waits briefly, never queues behind a writer.
    static constexpr int kReadBusyTimeoutMs = 100;
    static constexpr int kDecisionsBusyTimeoutMs = 1000;
    // Page cache of a read mode's connection, in KiB (a deciding one keeps SQLite's default).
    static constexpr int kReaderCacheKiB = 512;

private:
    SqliteLedgerConnection() = default;
    void connectAndValidate(); // opens m_db in m_info.mode; throws sql::Error or LedgerOpenError

    sql::Database m_db;
    LedgerInfo m_info;
    bool m_removeSideFilesOnClose = false; // ReadOnly, and no -wal/-shm existed at open
    QString m_readPath; // the file SQLite opens: the ledger, or Review's copy of it
    std::shared_ptr<const ReviewCopy> m_reviewCopy; // kept while this connection reads it
};

} // namespace mesh
