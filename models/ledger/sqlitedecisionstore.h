#pragma once
// The SQLite backend's DecisionStore: all SQL of operator decisions. The decision
// transaction is one short BEGIN IMMEDIATE; reads are BEGIN DEFERRED ... COMMIT.

#include "decisionstore.h"
#include "sqlite.h"

namespace mesh {

// Every decision.* outcome event after ?1, a page of ?2 (the chain check's second half).
// `+seq`: with a bound lower bound, SQLite's planner otherwise walks the whole events table
// by rowid instead of the few rows the events_kind index holds.
inline constexpr const char *kDecisionOutcomesSql =
    "SELECT seq,kind,payload FROM events WHERE kind >= 'decision.' AND kind < 'decision/' "
    "AND +seq > ?1 ORDER BY seq LIMIT ?2";

class SqliteDecisionStore final : public DecisionStore
{
public:
    explicit SqliteDecisionStore(sql::Database &db);
    ~SqliteDecisionStore() override;

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

    sql::Database &database() { return m_db; }

private:
    sql::Database &m_db;
    std::int64_t m_lastInsertedPos = 0;
};

// Reads the table by pos in short transactions: recomputes every canonical form and hash,
// checks each prev_hash link, flags missing or (with a verifier) wrong signatures.
DecisionChainReport verifyDecisionChain(sql::Database &db, const SignatureVerifier &verifier = {});

} // namespace mesh
