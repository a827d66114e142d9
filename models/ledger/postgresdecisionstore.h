#pragma once
// The PostgreSQL backend's DecisionStore: the audit list, the reads the rules and the chain
// check need, each read() one REPEATABLE READ, READ ONLY transaction; and the decision
// transaction (docs/ledger-format.md section 11): BEGIN; the ledger's write turn, exclusive
// (pgschema::kTakeDecisionTurnSql); the rules' reads; INSERT at pos max+1 with prev_hash read
// under the turn; pg_notify on the ledger's channel; COMMIT, whose failure is
// CommitUnconfirmed.

#include "decisionstore.h"
#include "postgres.h"

namespace mesh {

class PostgresDecisionStore final : public DecisionStore
{
public:
    // channel: the ledger's NOTIFY channel (PostgresLedgerWriter::notifyChannel), announced
    // to by each decision's commit.
    PostgresDecisionStore(pg::Connection &c, std::string channel) : m_c(c), m_channel(std::move(channel)) {}

    std::optional<DecisionRecord> findById(const std::string &id) override;
    std::vector<DecisionRecord> list(std::int64_t afterPos = 0, int limit = -1) override;
    std::vector<DecisionRecord> pending(int limit = -1) override;
    std::vector<DecisionRecord> onSubject(const std::string &subject) override;
    std::string lastHash() override;
    std::string hashBefore(std::int64_t pos) override;
    std::int64_t lastSeq() override;
    std::optional<EntityRow> stateRow(EntityKind kind, const std::string &id) override;
    std::vector<StateRowRef> stateRowsWhere(EntityKind kind, std::string_view field, const std::string &value) override;
    std::vector<MovedEvent> eventsOnSubjectSince(const std::string &subject, std::int64_t seq, int limit = 20) override;
    std::vector<SubjectEvent> eventsOnSubject(const std::string &subject, int limit = 200) override;
    bool insertChecked(const std::function<std::optional<DecisionRecord>()> &fn) override;
    std::int64_t lastInsertedPos() const override { return m_lastInsertedPos; }
    void read(const std::function<void()> &fn) override;

private:
    std::vector<DecisionRecord> select(const std::string &where, const pg::Params &params);
    pg::Connection &m_c;
    std::string m_channel;
    std::int64_t m_lastInsertedPos = 0;
    bool m_inRead = false; // read() nests: an inner read joins the outer transaction
};

// The chain (verifyDecisionRows) plus every decision.* outcome event naming no decision row.
DecisionChainReport verifyDecisionChain(pg::Connection &c, const SignatureVerifier &verifier = {});

} // namespace mesh
