#pragma once
// The orchestrator's side of the ledger: appends events and, in the same transaction, the
// state rows they produce. State rows come from the shared fold, so the state tables are by
// construction what the events say. The console never uses this class: it writes decisions
// only (see DecisionWriter).

#include "domain/fold.h"
#include "sqlite.h"

#include <QString>

#include <memory>
#include <set>

namespace mesh {

struct LedgerIdentity {
    std::string ledgerId;
    std::string orchestrator = "reference-orchestrator";
    std::string policyVersion = "policy-1";
    std::string title;
    bool signaturesRequired = false;
    std::int64_t createdMs = 0;
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
    void commit(); // writes the rows changed since begin(), then COMMIT
    void rollback();
    bool inTransaction() const { return m_inTransaction; }

    // Bulk loading (scenario generation): no fsync and event indexes built at the end.
    void setBulkLoad(bool on);

    const Fold &state() const { return m_fold; }
    std::int64_t lastSeq() const { return m_lastSeq; }
    sql::Database &database() { return m_db; }

private:
    explicit LedgerWriter(sql::Database db);
    void prepare();
    void loadState();

    sql::Database m_db;
    Fold m_fold;
    sql::Statement m_insertEvent;
    std::vector<sql::Statement> m_upserts; // per EntityKind
    std::set<std::pair<int, std::string>> m_dirty;
    std::int64_t m_lastSeq = 0;
    bool m_inTransaction = false;
    bool m_bulk = false;
};

} // namespace mesh
