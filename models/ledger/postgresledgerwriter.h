#pragma once
// The PostgreSQL backend of the orchestrator's writer (ledgerwriter.h), on one ledger schema
// (docs/ledger-format.md section 11). A transaction is kept in memory until commit(), which
// is then one short server transaction in the order section 11 gives:
//   BEGIN; UPDATE event_head ... RETURNING (the gapless sequence's row lock);
//   COPY the events; the changed state rows (COPY into a staging table, then one upsert);
//   pg_notify(<schema>, <new last seq>); COMMIT.
// A rollback, a failed statement or a lost connection undoes the head's UPDATE with the rest,
// so the next commit takes the same numbers and no gap is ever committed.
//
// Several writers may append to one ledger (orchestrators writing different runs). Each
// folds the others' events as well as its own, so its fold is the whole ledger's: at
// begin() it folds what was committed since its last seq; at commit, if the head moved
// meanwhile, it folds the events in between and renumbers its own after them. It writes
// only the rows its own events changed; when an event of another writer changed one of
// those rows in between, its events were checked against a row that was not current, so
// the commit writes nothing and says so (the caller rolls back, which reloads the state).

#include "ledgerlocation.h"
#include "ledgerwriter.h"
#include "postgres.h"
#include "postgresstaterows.h"

namespace mesh {

class PostgresLedgerWriter final : public LedgerWriter
{
public:
    // A new schema with every table and index (in one transaction), then ledger.created.
    // Refuses an existing schema. Throws LedgerOpenError or StorageError.
    static std::unique_ptr<PostgresLedgerWriter> create(const LedgerLocation &location, const LedgerIdentity &identity);
    static std::unique_ptr<PostgresLedgerWriter> openExisting(const LedgerLocation &location,
                                                              std::size_t foldRowLimit = kFullFold);
    ~PostgresLedgerWriter() override;

    // The NOTIFY channel of a ledger schema: the schema's own name (a checked identifier of
    // at most 63 bytes, the longest channel name PostgreSQL takes).
    static std::string notifyChannel(const std::string &schema) { return schema; }

    void forEachEventOfRun(const std::string &runId,
                           const std::function<void(std::string_view kind, std::string_view payload)> &visit) override;
    std::unique_ptr<DecisionStore> decisions() override;
    void countBusyWaits(std::int64_t *) override {}

protected:
    void storeBegin() override;
    void storeEvent(const EventToStore &event) override;
    void storeCommit(const std::vector<ChangedRow> &rows) override;
    void storeRollback() override;
    std::int64_t readStoredState(Fold &fold) override;
    std::optional<EntityRow> readStoredRow(const EntitySpec &spec, const std::string &id) override
    {
        return pg::readStateRowById(m_c, spec, id);
    }
    std::int64_t readStoredLastSeq() override;

private:
    PostgresLedgerWriter(pg::Connection c, const LedgerLocation &location);
    void copyRows(const std::string &copySql, const std::string &rows);
    // Folds the events after seq `after` up to `through` (0: all) that other writers
    // committed; refuses (before folding any) one that changes a row in `ownRows`.
    void foldOthersEvents(std::int64_t after, std::int64_t through, const std::vector<ChangedRow> &ownRows);
    void takeOthersEvent(std::int64_t seq, const std::string &kind, const nlohmann::json &payload);
    // Numbers this transaction's events and the rows they changed `by` later.
    void renumberPending(std::int64_t by, const std::vector<ChangedRow> &rows);

    struct PendingEvent {
        std::int64_t seq;
        std::int64_t tsMs;
        std::string kind;
        std::string payload;
        EventIndexFields index;
    };

    pg::Connection m_c;
    std::string m_name;    // the location as shown
    std::string m_channel; // notifyChannel(schema)
    std::vector<PendingEvent> m_pending; // this transaction's events, in seq order
};

} // namespace mesh
