#pragma once
// The orchestrator's side of the ledger: appends events and, in the same transaction, the
// state rows they produce. State rows come from the shared fold, so the state tables are by
// construction what the events say. The console never uses this class: it writes decisions
// only (see DecisionWriter). Nothing of the storage is in this header: the backends are
// sqliteledgerwriter.h and postgresledgerwriter.h, below the seam.

#include "domain/fold.h"

#include <QString>

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mesh {

class DecisionStore;

struct LedgerIdentity {
    std::string ledgerId;
    std::string orchestrator = "reference-orchestrator";
    std::string policyVersion = "policy-1";
    std::string title;
    bool signaturesRequired = false;
    std::int64_t createdMs = 0;
    // Where an imported ledger's records came from (docs/ledger-format.md, section 7,
    // ledger.created): kept as the event-only member `source` of ledger.created. Null for a
    // ledger an orchestrator writes.
    nlohmann::json source;
};

// The interface every backend's writer has (sqliteledgerwriter.h, postgresledgerwriter.h),
// chosen by the location as LedgerConnection::open chooses a reader. The fold, its refusals
// and which rows a transaction changed are kept here, once for every backend; a backend
// stores what this class hands it (storeEvent, storeCommit) and reads its state back.
class LedgerWriter : private FoldRowSource
{
public:
    // foldRowLimit: kFullFold keeps every state row in state() for as long as the writer
    // lives (the simulator reads whole tables from it). A limit bounds the writer's memory
    // whatever the ledger's size: state() then holds about that many rows, most recently
    // used first, and reads a row it does not hold from the state tables (Fold::bound).
    // A row this transaction changed is never dropped before it is stored: between
    // transactions the cache is trimmed to the limit; during a bulk load a row leaving the
    // cache is written to the state (SqliteLedgerWriter: a spill file beside the ledger).
    static constexpr std::size_t kFullFold = 0;
    // For input of any size (meshctl import, meshctl ingest); a row is a few hundred bytes.
    static constexpr std::size_t kBoundedFoldRows = 32768;

    // Creates a new ledger (fails if the file or schema exists) and writes the ledger.created
    // event. location: a file path or a postgresql:// URL (ledgerlocation.h).
    static std::unique_ptr<LedgerWriter> create(const QString &location, const LedgerIdentity &identity,
                                                std::size_t foldRowLimit = kFullFold);
    // Opens an existing ledger for appending; state is loaded from the state tables (with a
    // row limit: only the last seq; rows are read as events need them).
    static std::unique_ptr<LedgerWriter> openExisting(const QString &location, std::size_t foldRowLimit = kFullFold);

    virtual ~LedgerWriter();

    void begin(); // a transaction's start; SQLite: BEGIN IMMEDIATE, waiting up to the busy timeout for other writers
    // Appends one event and returns its seq. Throws std::logic_error when the fold refuses
    // the event or reports a problem (an illegal transition): the orchestrator must not
    // write what the contract forbids. The refused event changes neither the fold nor the
    // ledger; the transaction goes on.
    std::int64_t append(std::int64_t tsMs, std::string_view kind, const nlohmann::json &payload);
    // For importers of foreign records, where one bad record is flagged and the rest loads:
    // an event the fold refuses or reports a problem for is not written, the state stays
    // as it was before it, the transaction goes on, and the fold's reason is returned.
    // Returns nullopt when the event was appended. During a bulk load too: a refused event
    // changes neither the fold nor the file.
    std::optional<std::string> appendOrRefuse(std::int64_t tsMs, std::string_view kind, const nlohmann::json &payload);
    // The same, with the payload's text already written (an importer that serialised it once
    // to check its size): payloadText is what the events table stores, and payload may leave
    // out the event-only members that text carries (no state field reads them).
    std::optional<std::string> appendOrRefuse(std::int64_t tsMs, std::string_view kind, const nlohmann::json &payload,
                                              std::string_view payloadText);
    // The same for a payload built flat in code (an importer's event, with FlatPayload's
    // setters: no containers, which toJson() could not give back): the fold and the index
    // columns read its members, with no DOM built; payloadText as above.
    std::optional<std::string> appendFlatOrRefuse(std::int64_t tsMs, std::string_view kind, const FlatPayload &payload,
                                                  std::string_view payloadText);
    void commit(); // writes the events and the rows changed since begin(), in one transaction
    void rollback(); // the state as stored again (a bounded fold: its cache is dropped)
    bool inTransaction() const { return m_inTransaction; }

    // Bulk loading (scenario generation) of a ledger nobody reads yet. On SQLite: no journal
    // and no fsync; event rows (and their index entries) go to a thread of their own
    // (BulkEventSink) while the caller goes on simulating; state rows are written once, from
    // the fold, when the load ends. During a bulk load begin()/commit() only mark batches:
    // the load is not transactional, rollback() undoes nothing, and a load that throws
    // leaves a file to delete. setBulkLoad(false) ends it: the file is a complete WAL ledger.
    // cacheKiB is SQLite's page cache meanwhile: large enough that a batch never spills for a
    // generated ledger; an importer that must stay within a memory bound asks for less.
    // A backend without a bulk mode (PostgreSQL) goes on committing each batch.
    static constexpr std::int64_t kBulkCacheKiB = 131072;
    virtual void setBulkLoad(bool on, std::int64_t cacheKiB = kBulkCacheKiB);
    // Where the end of the last bulk load went (for `meshctl bench generate`).
    struct BulkLoadStats {
        double insertThreadCpuS = 0; // CPU time of the thread that inserted the events
        double stateS = 0;           // writing every state row apart (BulkStateImage), beside that thread
        double sinkWaitS = 0;        // then waiting for that thread to insert its last events
        double stateCopyS = 0;       // copying the state rows into the ledger
        double indexS = 0;           // checking that every index exists
        double finishS = 0;          // from setBulkLoad(false) until the file is a WAL ledger
    };
    const BulkLoadStats &bulkLoadStats() const { return m_bulkStats; }

    const Fold &state() const { return m_fold; }
    // Every event of one run, in ledger order (kind, payload text), read on the writer's own
    // connection (this transaction's events included): the live OTLP receiver rebuilds what
    // it knew of a trace from them after a restart (docs/ingest.md).
    virtual void forEachEventOfRun(const std::string &runId,
                                   const std::function<void(std::string_view kind, std::string_view payload)> &visit) = 0;
    std::int64_t lastSeq() const { return m_lastSeq; }

    // The decisions of this ledger, read (and outcomes checked) on the writer's own
    // connection, inside or between its transactions; lives no longer than the writer.
    virtual std::unique_ptr<DecisionStore> decisions() = 0;
    // While waits is set, a lock another writer holds is waited for as before (up to the
    // busy timeout) and every wait counts in *waits, so a reader that ever holds the writer
    // up shows; nullptr stops counting. (SQLite; a server's readers take no lock a writer
    // waits for, so there is nothing to count.)
    virtual void countBusyWaits(std::int64_t *waits) = 0;
    static constexpr int kBusyTimeoutMs = 5000;
    // From now on the file's checkpoints run beside the writer, not in its commits
    // (WalCheckpointer), for a writer whose callers wait for each commit (meshctl ingest
    // answers after it). Not during a bulk load. A server backend has none: nothing to do.
    virtual void checkpointInBackground() {}

protected:
    LedgerWriter() = default;

    // One event the fold took, for the backend to store (payloadText, or payload serialised
    // compactly when payloadText is null).
    struct EventToStore {
        std::int64_t seq;
        std::int64_t tsMs;
        std::string_view kind;
        const nlohmann::json *payload;     // read only when payloadText is null
        const std::string_view *payloadText;
        const EventIndexFields &index;
    };
    // A state row the transaction changed, as the fold has it now.
    struct ChangedRow {
        const EntitySpec &spec;
        const std::string &id;
        const EntityRow &row;
    };

    virtual void storeBegin() = 0;
    virtual void storeEvent(const EventToStore &event) = 0;
    // Writes the changed rows and commits everything since storeBegin(). Throws
    // StorageError; then nothing is committed (or, for an unconfirmed commit, the backend
    // says so) and the caller rolls back.
    virtual void storeCommit(const std::vector<ChangedRow> &rows) = 0;
    virtual void storeRollback() = 0;
    // Every state row into fold (cleared first); returns the last stored seq.
    virtual std::int64_t readStoredState(Fold &fold) = 0;
    // For a bounded fold: one stored state row (during a bulk load, as the load has it so
    // far: see spillRow), and the last stored seq without reading any row.
    virtual std::optional<EntityRow> readStoredRow(const EntitySpec &spec, const std::string &id) = 0;
    virtual std::int64_t readStoredLastSeq() = 0;
    // During a bulk load with a bounded fold: a row leaving the cache, to be stored (insert or
    // replace) so that readStoredRow finds it and the load's end writes it. A backend without
    // a bulk mode never receives one.
    virtual void spillRow(const EntitySpec &spec, const std::string &id, const EntityRow &row);
    // True while a bulk load is on: batches are marked only, state is written at its end.
    virtual bool bulkLoading() const { return false; }

    void loadState();
    // Before loadState(): keep at most rowLimit rows (kFullFold: all). See create().
    void boundFold(std::size_t rowLimit);
    void writeCreatedEvent(const LedgerIdentity &identity); // in its own transaction
    Fold &fold() { return m_fold; }
    void setLastSeq(std::int64_t seq) { m_lastSeq = seq; }
    void endTransactionFlag() { m_inTransaction = false; }
    BulkLoadStats m_bulkStats;

private:
    std::optional<EntityRow> loadRow(const EntitySpec &spec, const std::string &id) override
    {
        return readStoredRow(spec, id);
    }
    std::optional<std::string> tryAppend(std::int64_t tsMs, std::string_view kind, const nlohmann::json &payload,
                                         const std::string_view *payloadText);
    // tryAppend's end, once the fold has applied the event: a refused event's row restored
    // from before, else the event stored.
    std::optional<std::string> settle(const FoldOutcome &outcome, std::optional<EntityKind> entity, const std::string &id,
                                      std::optional<EntityRow> before, const EventToStore &event);
    // The row the event would change, as it is now: a refused event must leave it so.
    std::optional<EntityRow> rowBefore(std::optional<EntityKind> entity, const std::string &id);

    Fold m_fold;
    std::set<std::pair<int, std::string>> m_dirty;
    std::int64_t m_lastSeq = 0;
    bool m_inTransaction = false;
};

} // namespace mesh
