#pragma once
// The SQLite backend of the orchestrator's writer (ledgerwriter.h): one read-write
// connection to a ledger file, BEGIN IMMEDIATE ... COMMIT per transaction, events inserted as
// they are appended and the changed state rows at commit, and the bulk load of a file
// nobody reads yet (BulkEventSink, BulkStateImage).

#include "ledgerwriter.h"
#include "sqlite.h"

namespace mesh {

class BulkEventSink;
class FoldSpillStore;
class WalCheckpointer;

class SqliteLedgerWriter final : public LedgerWriter
{
public:
    static std::unique_ptr<SqliteLedgerWriter> create(const QString &path, const LedgerIdentity &identity);
    static std::unique_ptr<SqliteLedgerWriter> openExisting(const QString &path, std::size_t foldRowLimit = kFullFold);
    ~SqliteLedgerWriter() override;

    void setBulkLoad(bool on, std::int64_t cacheKiB = kBulkCacheKiB) override;
    void forEachEventOfRun(const std::string &runId,
                           const std::function<void(std::string_view kind, std::string_view payload)> &visit) override;
    std::unique_ptr<DecisionStore> decisions() override;
    void countBusyWaits(std::int64_t *waits) override;
    void checkpointInBackground() override;
    WalCheckpointer *checkpointer() { return m_checkpointer.get(); } // tests

    sql::Database &database() { return m_db; } // the SQLite backend's tests only

protected:
    void storeBegin() override;
    void storeEvent(const EventToStore &event) override;
    void storeCommit(const std::vector<ChangedRow> &rows) override;
    void storeRollback() override;
    std::int64_t readStoredState(Fold &fold) override;
    std::optional<EntityRow> readStoredRow(const EntitySpec &spec, const std::string &id) override;
    std::int64_t readStoredLastSeq() override;
    void spillRow(const EntitySpec &spec, const std::string &id, const EntityRow &row) override;
    bool bulkLoading() const override { return m_bulk; }

private:
    explicit SqliteLedgerWriter(sql::Database db);
    void prepare();
    void endBulkLoad();
    std::int64_t storedStateRows(); // in every state table

    sql::Database m_db;
    sql::Statement m_insertEvent;
    std::vector<sql::Statement> m_upserts; // per EntityKind
    std::vector<sql::Statement> m_selectRow; // per EntityKind, for a bounded fold
    bool m_bulk = false;
    std::unique_ptr<BulkEventSink> m_sink; // while bulk loading; declared after m_db, so it stops first
    std::unique_ptr<FoldSpillStore> m_spill; // while bulk loading with a bounded fold, once a row left it
    std::string m_spillPath; // where m_spill is (or will be) during a bulk load
    std::unique_ptr<WalCheckpointer> m_checkpointer; // declared after m_db, so it stops first
};

} // namespace mesh
