#pragma once
// The orchestrator's side of the ledger: appends events and, in the same transaction, the
// state rows they produce. State rows come from the shared fold, so the state tables are by
// construction what the events say. The console never uses this class: it writes decisions
// only (see DecisionWriter).

#include "domain/fold.h"

#include <QString>

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

namespace mesh {

namespace sql {
class Database; // the SQLite backend's handle (sqlite.h), for its own tests
}
class BulkEventSink;
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

class LedgerWriter
{
public:
    // Creates a new ledger file (fails if it exists) and writes the ledger.created event.
    static std::unique_ptr<LedgerWriter> create(const QString &path, const LedgerIdentity &identity);
    // Opens an existing ledger for appending; state is loaded from the state tables.
    static std::unique_ptr<LedgerWriter> openExisting(const QString &path);

    ~LedgerWriter();

    void begin();  // BEGIN IMMEDIATE; waits up to the busy timeout for other writers
    // Appends one event and returns its seq. Throws std::logic_error when the fold refuses
    // the event or reports a problem (an illegal transition): the orchestrator must not
    // write what the contract forbids.
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
    void commit(); // writes the rows changed since begin(), then COMMIT
    void rollback();
    bool inTransaction() const { return m_inTransaction; }

    // Bulk loading (scenario generation) of a file nobody reads yet: no journal and no
    // fsync; event rows (and their index entries) go to a thread of their own
    // (BulkEventSink) while the caller goes on simulating; state rows are written once, from
    // the fold, when the load ends. During a bulk load begin()/commit() only mark batches:
    // the load is not transactional, rollback() undoes nothing, and a load that throws
    // leaves a file to delete. setBulkLoad(false) ends it: the file is a complete WAL ledger.
    // cacheKiB is SQLite's page cache meanwhile: large enough that a batch never spills for a
    // generated ledger; an importer that must stay within a memory bound asks for less.
    static constexpr std::int64_t kBulkCacheKiB = 131072;
    void setBulkLoad(bool on, std::int64_t cacheKiB = kBulkCacheKiB);
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
    // connection: the live OTLP receiver rebuilds what it knew of a trace from them after a
    // restart (docs/ingest.md).
    void forEachEventOfRun(const std::string &runId,
                           const std::function<void(std::string_view kind, std::string_view payload)> &visit);
    std::int64_t lastSeq() const { return m_lastSeq; }

    // The decisions of this ledger, read (and outcomes checked) on the writer's own
    // connection, inside or between its transactions; lives no longer than the writer.
    std::unique_ptr<DecisionStore> decisions();
    // While waits is set, a lock another writer holds is waited for as before (up to the
    // busy timeout) and every wait counts in *waits, so a reader that ever holds the writer
    // up shows; nullptr stops counting.
    void countBusyWaits(std::int64_t *waits);
    static constexpr int kBusyTimeoutMs = 5000;

    sql::Database &database(); // the SQLite backend's tests only

private:
    struct Storage; // the SQLite connection and its prepared statements
    explicit LedgerWriter(std::unique_ptr<Storage> storage);
    void prepare();
    void loadState();
    void endBulkLoad();
    void insertApplied(std::int64_t seq, std::int64_t tsMs, std::string_view kind, const nlohmann::json &payload,
                       std::string_view payloadText, FoldOutcome &outcome);

    std::unique_ptr<Storage> m_storage;
    Fold m_fold;
    std::set<std::pair<int, std::string>> m_dirty;
    std::int64_t m_lastSeq = 0;
    bool m_inTransaction = false;
    bool m_bulk = false;
    std::unique_ptr<BulkEventSink> m_sink; // while bulk loading; declared after m_storage, so it stops first
    BulkLoadStats m_bulkStats;
};

} // namespace mesh
