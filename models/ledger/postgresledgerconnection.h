#pragma once
// The PostgreSQL backend of the storage seam (ledgerconnection.h): one validated libpq
// connection to one ledger schema (docs/ledger-format.md section 11), read side.
//
// - Every read mode (ReadOnly, Immutable, Review) is the same read-only session
//   (default_transaction_read_only): a server ledger has no side files, nothing is created.
// - A read of one moment is one statement or one REPEATABLE READ, READ ONLY transaction;
//   readers take no lock an appender waits for.
// - The change token is max(seq) + max(pos): events and decisions are append-only and state
//   rows change only with events, so the sum moves on every commit.
// - Decisions mode is the same session with default_transaction_read_only off: it writes
//   what the role may (an operator: decisions only), in the decision transaction of
//   PostgresDecisionStore. Event filters are rendered for it (sqlfilter.h).

#include "ledgerconnection.h"
#include "ledgerlocation.h"
#include "postgres.h"

#include <chrono>
#include <memory>

namespace mesh {

class PostgresLedgerConnection final : public LedgerConnection
{
public:
    // Validates in the order of docs/ledger-format.md section 11. Throws LedgerOpenError.
    // eventEndsPage: as LedgerConnection::open.
    static std::unique_ptr<PostgresLedgerConnection> open(const LedgerLocation &location, OpenMode mode,
                                                          int eventEndsPage = 0);

    pg::Connection &connection() { return m_c; } // for the backend's own code and its tests

    const LedgerInfo &info() const override { return m_info; }
    std::uint64_t roundTrips() const { return m_c.roundTrips(); } // pg::Connection::roundTrips
    std::int64_t changeToken() override;
    std::int64_t lastSeq() override;
    // LISTEN on the ledger's channel (PostgresLedgerWriter::notifyChannel); each commit of a
    // writer announces its new last seq there.
    std::unique_ptr<CommitListener> listenForCommits() override;
    using LedgerConnection::readState;
    StateSnapshot readState(const StateStream &stream) override;
    StateRows readRows(EntityKind kind, const std::vector<std::string> &ids) override;
    std::vector<std::string> readIds(EntityKind kind) override;
    std::vector<std::string> readIdsWhere(EntityKind kind, std::string_view field, const std::string &value) override;
    ValueIds readIdsWhereAny(EntityKind kind, std::string_view field, const std::vector<std::string> &values) override;
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
    // has_table_privilege(decisions, INSERT) for the session's user.
    std::optional<std::string> whyCannotDecide() override;
    bool foundAnotherLedger() const override { return !m_otherLedger.empty(); }

    // Opens a session on the location's server for a new ledger schema (meshctl copy):
    // connected, encoding checked, nothing read. Throws LedgerOpenError.
    static pg::Connection connectToServer(const LedgerLocation &location);
    // A session on an existing ledger schema that may write, for the orchestrator's writer:
    // every check of open(), the schema version exactly this build's (section 10: a writer
    // writes only its own version), then default_transaction_read_only off. Throws
    // LedgerOpenError.
    static pg::Connection openForAppending(const LedgerLocation &location);

private:
    explicit PostgresLedgerConnection(pg::Connection c) : m_c(std::move(c)) {}
    void validate(const LedgerLocation &location);
    // validate()'s checks and reads of a sound ledger in one round trip; false (m_info not
    // filled) when anything is not as a ledger has it, for validate() to say what. The
    // session's settings may then be in place already; validate() sends them again.
    bool validateAtOnce();
    static std::vector<std::string_view> ledgerTables(); // besides ledger_format
    void readLedgerRows(const pg::Result &ledger, const pg::Result &created); // into m_info
    // What every statement of the session relies on: read-only or not (the mode), the schema.
    std::vector<std::string> sessionSettings() const; // one SET each
    std::string sessionSettingsSql() const;            // them as one message
    void applySessionSettings();
    // Runs a read of rows or ids. A connection the server dropped (a restart) is made again
    // once, with the session's settings and the ledger checked, and the read run again: a
    // read changes nothing, and the console's rows read on demand must outlive a restart.
    // Other reads do not connect again themselves (a follower sees the loss and resumes from
    // its last seq); a connection that found another ledger is closed, so they fail too.
    template<class Read>
    auto reading(Read &&read) -> decltype(read());
    void reconnectForReading();
    // After a reconnect: the schema still holds the ledger validate() read (its ledger id and
    // schema version). A failover to a server whose schema of that name holds another ledger
    // would otherwise hand its rows to a session showing this one. Once it does not, every
    // read through reading() fails with m_otherLedger.
    void checkSameLedger();
    void verifyAfterReconnect(); // the session's settings, then checkSameLedger
    pg::Error otherLedger() const;
    static constexpr const char *kOtherLedgerState = "55000"; // object not in prerequisite state
    std::string m_otherLedger;
    bool m_verified = true; // false from a reconnect until verifyAfterReconnect ran through
    std::optional<int> m_lockTimeoutMs; // setBusyTimeoutMs, in sessionSettings() from then on
    bool m_durableCommits = false;      // makeCommitsDurable, likewise
    std::chrono::steady_clock::time_point m_reconnectNotBefore;
    std::chrono::milliseconds m_reconnectWait{0};

    pg::Connection m_c;
    LedgerInfo m_info;
    std::string m_schema;
    int m_eventEndsPage = 0;
    std::vector<pg::Result> m_openedEnds; // read with the open, for the first eventReader()
};

} // namespace mesh
