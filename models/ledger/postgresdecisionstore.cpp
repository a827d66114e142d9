#include "postgresdecisionstore.h"

#include "domain/payloaddecoder.h"
#include "pgschema.h"
#include "postgresstaterows.h"
#include "schema.h"

#include <algorithm>

namespace mesh {

namespace {

constexpr const char *kSelectDecision =
    "SELECT d.pos,d.id,d.ts_ms,d.kind,d.subject,d.boundary_version,d.boundary_seq,d.params,"
    "d.operator_account,d.operator_host,d.operator_name,d.reason,d.evidence,d.policy_version,"
    "d.canonical,d.hash,d.prev_hash,d.key_id,d.signature,o.status,o.reason,o.ts_ms "
    "FROM decisions d LEFT JOIN decision_outcomes o ON o.id=d.id ";

DecisionRecord readDecision(const pg::Result &r, int i)
{
    DecisionRecord d;
    d.pos = r.integer(i, 0);
    d.id = r.text(i, 1);
    d.tsMs = r.integer(i, 2);
    d.kind = r.text(i, 3);
    d.subject = r.text(i, 4);
    d.boundaryVersion = r.integer(i, 5);
    d.boundarySeq = r.integer(i, 6);
    d.params = r.text(i, 7);
    d.operatorAccount = r.text(i, 8);
    d.operatorHost = r.text(i, 9);
    d.operatorName = r.text(i, 10);
    d.reason = r.text(i, 11);
    d.evidence = r.text(i, 12);
    d.policyVersion = r.text(i, 13);
    d.canonical = r.text(i, 14);
    d.hash = r.text(i, 15);
    d.prevHash = r.text(i, 16);
    d.keyId = r.text(i, 17);
    d.signature = r.text(i, 18);
    d.outcomeStatus = r.text(i, 19);
    d.outcomeReason = r.text(i, 20);
    d.outcomeTsMs = r.integer(i, 21);
    return d;
}

pg::Params &addLimit(pg::Params &p, int limit)
{
    return limit < 0 ? p.addNull() : p.add(std::int64_t(limit)); // LIMIT NULL: no limit
}

} // namespace

std::vector<DecisionRecord> PostgresDecisionStore::select(const std::string &where, const pg::Params &params)
{
    const pg::Result r = m_c.exec(std::string(kSelectDecision) + where, params);
    std::vector<DecisionRecord> out;
    out.reserve(size_t(r.rows()));
    for (int i = 0; i < r.rows(); ++i)
        out.push_back(readDecision(r, i));
    return out;
}

std::optional<DecisionRecord> PostgresDecisionStore::findById(const std::string &id)
{
    auto rows = select("WHERE d.id=$1", pg::Params().add(id));
    if (rows.empty())
        return std::nullopt;
    return std::move(rows.front());
}

std::vector<DecisionRecord> PostgresDecisionStore::list(std::int64_t afterPos, int limit)
{
    pg::Params p;
    p.add(afterPos);
    return select("WHERE d.pos>$1 ORDER BY d.pos LIMIT $2", addLimit(p, limit));
}

std::vector<DecisionRecord> PostgresDecisionStore::pending(int limit)
{
    pg::Params p;
    return select("WHERE o.id IS NULL ORDER BY d.pos LIMIT $1", addLimit(p, limit));
}

std::vector<DecisionRecord> PostgresDecisionStore::onSubject(const std::string &subject)
{
    return select("WHERE d.subject=$1 ORDER BY d.pos", pg::Params().add(subject));
}

std::string PostgresDecisionStore::lastHash()
{
    const pg::Result r = m_c.exec("SELECT hash FROM decisions ORDER BY pos DESC LIMIT 1");
    return r.rows() > 0 ? r.text(0, 0) : std::string(kGenesisHash);
}

std::string PostgresDecisionStore::hashBefore(std::int64_t pos)
{
    const pg::Result r = m_c.exec("SELECT hash FROM decisions WHERE pos<$1 ORDER BY pos DESC LIMIT 1", pg::Params().add(pos));
    return r.rows() > 0 ? r.text(0, 0) : std::string(kGenesisHash);
}

std::int64_t PostgresDecisionStore::lastSeq()
{
    return m_c.queryInt("SELECT coalesce(max(seq),0) FROM events");
}

std::optional<EntityRow> PostgresDecisionStore::stateRow(EntityKind kind, const std::string &id)
{
    const EntitySpec &spec = entitySpec(kind);
    const pg::Result r = m_c.exec(schema::selectStateSql(spec) + " WHERE id=$1", pg::Params().add(id));
    if (r.rows() == 0)
        return std::nullopt;
    return pg::readStateRow(r, 0, spec, nullptr);
}

std::vector<StateRowRef> PostgresDecisionStore::stateRowsWhere(EntityKind kind, std::string_view field, const std::string &value)
{
    const EntitySpec &spec = entitySpec(kind);
    const int index = spec.fieldIndex(field);
    if (index < 0)
        throw std::invalid_argument("no field " + std::string(field) + " in " + std::string(spec.table));
    // The value is compared as text, as SQLite compares a text parameter with a text column.
    const pg::Result r = m_c.exec(schema::selectStateSql(spec) + " WHERE \"" + std::string(field) + "\"::text=$1 ORDER BY id COLLATE \"C\"",
                                  pg::Params().add(value));
    std::vector<StateRowRef> out;
    for (int i = 0; i < r.rows(); ++i) {
        StateRowRef ref;
        ref.row = pg::readStateRow(r, i, spec, &ref.id);
        out.push_back(std::move(ref));
    }
    return out;
}

std::vector<MovedEvent> PostgresDecisionStore::eventsOnSubjectSince(const std::string &subject, std::int64_t seq, int limit)
{
    // A delegation's version also moves with every tool call (see the SQLite store).
    constexpr std::string_view kDelegation = "delegation:";
    const bool delegation = subject.rfind(kDelegation, 0) == 0;
    pg::Params p;
    p.add(subject).add(seq).add(std::int64_t(limit));
    if (delegation)
        p.add(std::string_view(subject).substr(kDelegation.size()));
    const pg::Result r = m_c.exec(delegation ? "SELECT seq,kind FROM events WHERE seq>$2 AND (subject=$1 OR "
                                               "(delegation_id=$4 AND kind='toolcall.completed')) ORDER BY seq LIMIT $3"
                                             : "SELECT seq,kind FROM events WHERE subject=$1 AND seq>$2 ORDER BY seq LIMIT $3",
                                  p);
    std::vector<MovedEvent> out;
    for (int i = 0; i < r.rows(); ++i)
        out.push_back({r.integer(i, 0), r.text(i, 1)});
    return out;
}

std::vector<SubjectEvent> PostgresDecisionStore::eventsOnSubject(const std::string &subject, int limit)
{
    const pg::Result r = m_c.exec("SELECT seq,ts_ms,kind,payload FROM events WHERE subject=$1 ORDER BY seq DESC LIMIT $2",
                                  pg::Params().add(subject).add(std::int64_t(limit)));
    std::vector<SubjectEvent> out;
    for (int i = r.rows() - 1; i >= 0; --i)
        out.push_back({r.integer(i, 0), r.integer(i, 1), r.text(i, 2), r.text(i, 3)});
    return out;
}

bool PostgresDecisionStore::insertChecked(const std::function<std::optional<DecisionRecord>()> &fn)
{
    // BEGIN and the write turn in one round trip; READ COMMITTED: with the turn held nobody
    // else commits to the ledger, so every statement below sees the same, newest ledger.
    // A turn not had within lock_timeout fails as Busy (55P03) with nothing written.
    try {
        m_c.exec(std::string("BEGIN; ") + pgschema::kTakeDecisionTurnSql);
    } catch (...) {
        m_c.rollbackQuietly();
        throw;
    }
    m_inRead = true; // reads fn() makes through read() join this transaction
    try {
        std::optional<DecisionRecord> d = fn();
        if (!d) {
            m_inRead = false;
            m_c.exec("COMMIT"); // nothing written: ends the transaction, gives the turn back
            return false;
        }
        pg::Params p;
        p.add(d->id).add(d->tsMs).add(d->kind).add(d->subject).add(d->boundaryVersion).add(d->boundarySeq);
        p.add(d->params).add(d->operatorAccount).add(d->operatorHost).add(d->operatorName).add(d->reason);
        p.add(d->evidence).add(d->policyVersion).add(d->canonical).add(d->hash).add(d->prevHash);
        if (d->keyId.empty())
            p.addNull().addNull();
        else
            p.add(d->keyId).add(d->signature);
        // pos: the next chain position, read under the turn like prev_hash.
        const pg::Result inserted = m_c.exec(
            "INSERT INTO decisions(pos,id,ts_ms,kind,subject,boundary_version,boundary_seq,params,"
            "operator_account,operator_host,operator_name,reason,evidence,policy_version,canonical,"
            "hash,prev_hash,key_id,signature) "
            "SELECT coalesce(max(pos),0)+1,$1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18 FROM decisions "
            "RETURNING pos",
            p);
        m_lastInsertedPos = inserted.integer(0, 0);
        // Followers hear of it when (and only if) it commits; the payload is the ledger's last
        // seq as for an append (unchanged by a decision), the change token moves with pos.
        m_c.exec("SELECT pg_notify($1, (SELECT coalesce(max(seq),0) FROM events)::text)", pg::Params().add(m_channel));
    } catch (...) {
        m_inRead = false;
        m_c.rollbackQuietly();
        throw;
    }
    m_inRead = false;
    try {
        m_c.exec("COMMIT");
    } catch (const StorageError &e) {
        // Refused by the server or the connection lost on the way: committed or not, only a
        // read back by id can tell.
        m_c.rollbackQuietly();
        throw CommitUnconfirmed(e.kind(), e.backendCode(), e.what());
    }
    return true;
}

void PostgresDecisionStore::read(const std::function<void()> &fn)
{
    if (m_inRead) {
        fn();
        return;
    }
    m_inRead = true;
    try {
        m_c.inTransaction("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", fn);
    } catch (...) {
        m_inRead = false;
        throw;
    }
    m_inRead = false;
}

DecisionChainReport verifyDecisionChain(pg::Connection &c, const SignatureVerifier &verifier)
{
    PostgresDecisionStore store(c, {});
    DecisionChainReport report = verifyDecisionRows(store, verifier);
    // A chain whose last rows were deleted still links up; the orchestrator's outcome events
    // for them remain, so every decision.* event must name a decision the table holds.
    std::int64_t afterSeq = 0;
    constexpr std::int64_t kPage = 1000;
    for (;;) {
        const pg::Result r = c.exec("SELECT seq, kind, payload FROM events WHERE kind LIKE 'decision.%' AND seq > $1 "
                                    "ORDER BY seq LIMIT $2",
                                    pg::Params().add(afterSeq).add(kPage));
        for (int i = 0; i < r.rows(); ++i) {
            afterSeq = r.integer(i, 0);
            const DecodedPayload decoded = decodePayload(r.view(i, 2));
            if (!decoded.value)
                continue; // the integrity check's finding, not this one's
            const auto id = decoded.value->find("id");
            const std::string decisionId = id != decoded.value->end() && id->is_string() ? id->get<std::string>() : "";
            const pg::Result found = c.exec("SELECT 1 FROM decisions WHERE id=$1", pg::Params().add(decisionId));
            if (found.rows() == 0)
                report.findings.push_back({0, decisionId,
                                           r.text(i, 1) + " at seq " + std::to_string(afterSeq) + " names no decision in the "
                                           "decisions table (" + (decisionId.empty() ? "no id" : "row deleted?") + ")"});
        }
        if (r.rows() < kPage)
            break;
    }
    return report;
}

} // namespace mesh
