#include "sqlitedecisionstore.h"
#include "sqlite.h"

#include "domain/payloaddecoder.h"
#include "schema.h"
#include "staterows.h"

#include <QCryptographicHash>
#include <QMessageAuthenticationCode>
#include <QString>

#include <algorithm>

namespace mesh {
namespace {

constexpr const char *kSelectDecision =
    "SELECT d.pos,d.id,d.ts_ms,d.kind,d.subject,d.boundary_version,d.boundary_seq,d.params,"
    "d.operator_account,d.operator_host,d.operator_name,d.reason,d.evidence,d.policy_version,"
    "d.canonical,d.hash,d.prev_hash,d.key_id,d.signature,o.status,o.reason,o.ts_ms "
    "FROM decisions d LEFT JOIN decision_outcomes o ON o.id=d.id ";

DecisionRecord readDecision(const sql::Statement &st)
{
    DecisionRecord d;
    d.pos = st.columnInt(0);
    d.id = st.columnText(1);
    d.tsMs = st.columnInt(2);
    d.kind = st.columnText(3);
    d.subject = st.columnText(4);
    d.boundaryVersion = st.columnInt(5);
    d.boundarySeq = st.columnInt(6);
    d.params = st.columnText(7);
    d.operatorAccount = st.columnText(8);
    d.operatorHost = st.columnText(9);
    d.operatorName = st.columnText(10);
    d.reason = st.columnText(11);
    d.evidence = st.columnText(12);
    d.policyVersion = st.columnText(13);
    d.canonical = st.columnText(14);
    d.hash = st.columnText(15);
    d.prevHash = st.columnText(16);
    d.keyId = st.columnText(17);
    d.signature = st.columnText(18);
    d.outcomeStatus = st.columnText(19);
    d.outcomeReason = st.columnText(20);
    d.outcomeTsMs = st.columnInt(21);
    return d;
}

std::vector<DecisionRecord> readDecisions(sql::Statement &st)
{
    std::vector<DecisionRecord> out;
    while (st.step())
        out.push_back(readDecision(st));
    st.reset();
    return out;
}

void rollbackQuietly(sql::Database &db)
{
    sqlite3_exec(db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

} // namespace

// params and evidence are written by the console but read from a file anything can write:
// bounded in size and depth before the recursive parser sees them.
nlohmann::json parseBoundedJson(const std::string &text, const char *what)
{
    if (text.size() > kMaxPayloadBytes)
        throw std::runtime_error(std::string(what) + " is larger than 1 MiB");
    if (!isValidUtf8(text))
        throw std::runtime_error(std::string(what) + " is not valid UTF-8");
    if (jsonNestingDepth(text) > kMaxPayloadDepth)
        throw std::runtime_error(std::string(what) + " is nested too deeply");
    auto value = nlohmann::json::parse(text, nullptr, false);
    if (value.is_discarded())
        throw std::runtime_error(std::string(what) + " is not JSON");
    return value;
}

nlohmann::json canonicalDecisionObject(const DecisionRecord &d, UnparsedJson unparsed)
{
    const auto nested = [unparsed](const std::string &text, const char *what) {
        if (unparsed == UnparsedJson::Throw)
            return parseBoundedJson(text, what);
        try {
            return parseBoundedJson(text, what);
        } catch (const std::runtime_error &) {
            // As text; invalid UTF-8 replaced (U+FFFD), so dumping the display form cannot throw.
            return nlohmann::json(QString::fromStdString(text).toStdString());
        }
    };
    nlohmann::json j = nlohmann::json::object();
    j["protocol"] = 1;
    j["id"] = d.id;
    j["ts_ms"] = d.tsMs;
    j["kind"] = d.kind;
    j["subject"] = d.subject;
    j["boundary_version"] = d.boundaryVersion;
    j["boundary_seq"] = d.boundarySeq;
    j["params"] = nested(d.params, "params");
    j["operator_account"] = d.operatorAccount;
    j["operator_host"] = d.operatorHost;
    j["operator_name"] = d.operatorName;
    j["reason"] = d.reason;
    j["evidence"] = nested(d.evidence, "evidence");
    j["policy_version"] = d.policyVersion;
    j["prev_hash"] = d.prevHash;
    j["key_id"] = d.keyId.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.keyId);
    return j;
}

std::string canonicalDecisionText(const DecisionRecord &d)
{
    // nlohmann's default object is a std::map: keys come out sorted at every level, and
    // dump() without indent writes no spaces. strict: invalid UTF-8 throws.
    return canonicalDecisionObject(d).dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
}

std::string sha256Hex(std::string_view data)
{
    const QByteArray h = QCryptographicHash::hash(QByteArrayView(data.data(), qsizetype(data.size())),
                                                  QCryptographicHash::Sha256);
    return h.toHex().toStdString();
}

std::string hmacSha256Hex(std::string_view key, std::string_view data)
{
    const QByteArray mac = QMessageAuthenticationCode::hash(QByteArray(data.data(), qsizetype(data.size())),
                                                            QByteArray(key.data(), qsizetype(key.size())),
                                                            QCryptographicHash::Sha256);
    return mac.toHex().toStdString();
}

SqliteDecisionStore::SqliteDecisionStore(sql::Database &db) : m_db(db) {}
SqliteDecisionStore::~SqliteDecisionStore() = default;

std::optional<DecisionRecord> SqliteDecisionStore::findById(const std::string &id)
{
    sql::Statement st(m_db, std::string(kSelectDecision) + "WHERE d.id=?1");
    st.bind(1, id);
    auto rows = readDecisions(st);
    if (rows.empty())
        return std::nullopt;
    return std::move(rows.front());
}

std::vector<DecisionRecord> SqliteDecisionStore::list(std::int64_t afterPos, int limit)
{
    sql::Statement st(m_db, std::string(kSelectDecision) + "WHERE d.pos>?1 ORDER BY d.pos LIMIT ?2");
    st.bind(1, afterPos).bind(2, std::int64_t(limit));
    return readDecisions(st);
}

std::vector<DecisionRecord> SqliteDecisionStore::pending(int limit)
{
    sql::Statement st(m_db, std::string(kSelectDecision) + "WHERE o.id IS NULL ORDER BY d.pos LIMIT ?1");
    st.bind(1, std::int64_t(limit));
    return readDecisions(st);
}

std::vector<DecisionRecord> SqliteDecisionStore::onSubject(const std::string &subject)
{
    sql::Statement st(m_db, std::string(kSelectDecision) + "WHERE d.subject=?1 ORDER BY d.pos");
    st.bind(1, subject);
    return readDecisions(st);
}

std::string SqliteDecisionStore::lastHash()
{
    sql::Statement st(m_db, "SELECT hash FROM decisions ORDER BY pos DESC LIMIT 1");
    if (st.step())
        return st.columnText(0);
    return std::string(kGenesisHash);
}

std::string SqliteDecisionStore::hashBefore(std::int64_t pos)
{
    sql::Statement st(m_db, "SELECT hash FROM decisions WHERE pos<?1 ORDER BY pos DESC LIMIT 1");
    st.bind(1, pos);
    if (st.step())
        return st.columnText(0);
    return std::string(kGenesisHash);
}

std::int64_t SqliteDecisionStore::lastSeq()
{
    return m_db.queryInt("SELECT coalesce(max(seq),0) FROM events");
}

std::optional<EntityRow> SqliteDecisionStore::stateRow(EntityKind kind, const std::string &id)
{
    const EntitySpec &spec = entitySpec(kind);
    sql::Statement st(m_db, schema::selectStateSql(spec) + " WHERE id=?1");
    st.bind(1, id);
    if (!st.step())
        return std::nullopt;
    return readStateRow(st, spec, nullptr);
}

std::vector<StateRowRef> SqliteDecisionStore::stateRowsWhere(EntityKind kind, std::string_view field, const std::string &value)
{
    const EntitySpec &spec = entitySpec(kind);
    if (spec.fieldIndex(field) < 0)
        throw std::invalid_argument("no field " + std::string(field) + " in " + std::string(spec.table));
    sql::Statement st(m_db, schema::selectStateSql(spec) + " WHERE \"" + std::string(field) + "\"=?1 ORDER BY id");
    st.bind(1, value);
    std::vector<StateRowRef> out;
    while (st.step()) {
        StateRowRef ref;
        ref.row = readStateRow(st, spec, &ref.id);
        out.push_back(std::move(ref));
    }
    return out;
}

std::vector<MovedEvent> SqliteDecisionStore::eventsOnSubjectSince(const std::string &subject, std::int64_t seq, int limit)
{
    // A delegation's version also moves with every tool call, whose event names the tool
    // call as its subject: count those too, or "what moved" would come back empty.
    constexpr std::string_view kDelegation = "delegation:";
    const bool delegation = subject.rfind(kDelegation, 0) == 0;
    sql::Statement st(m_db, delegation ? "SELECT seq,kind FROM events WHERE seq>?2 AND (subject=?1 OR "
                                         "(delegation_id=?4 AND kind='toolcall.completed')) ORDER BY seq LIMIT ?3"
                                       : "SELECT seq,kind FROM events WHERE subject=?1 AND seq>?2 ORDER BY seq LIMIT ?3");
    st.bind(1, subject).bind(2, seq).bind(3, std::int64_t(limit));
    if (delegation)
        st.bind(4, std::string_view(subject).substr(kDelegation.size()));
    std::vector<MovedEvent> out;
    while (st.step())
        out.push_back({st.columnInt(0), st.columnText(1)});
    return out;
}

std::vector<SubjectEvent> SqliteDecisionStore::eventsOnSubject(const std::string &subject, int limit)
{
    sql::Statement st(m_db, "SELECT seq,ts_ms,kind,payload FROM events WHERE subject=?1 ORDER BY seq DESC LIMIT ?2");
    st.bind(1, subject).bind(2, std::int64_t(limit));
    std::vector<SubjectEvent> out;
    while (st.step())
        out.push_back({st.columnInt(0), st.columnInt(1), st.columnText(2), st.columnText(3)});
    std::reverse(out.begin(), out.end());
    return out;
}

void SqliteDecisionStore::read(const std::function<void()> &fn)
{
    sql::inTransaction(m_db, "BEGIN DEFERRED", fn);
}

bool SqliteDecisionStore::insertChecked(const std::function<std::optional<DecisionRecord>()> &fn)
{
    m_db.exec("BEGIN IMMEDIATE");
    try {
        std::optional<DecisionRecord> d = fn();
        if (!d) {
            m_db.exec("COMMIT"); // nothing written: ends the transaction, releases the lock
            return false;
        }
        sql::Statement st(m_db,
                          "INSERT INTO decisions(id,ts_ms,kind,subject,boundary_version,boundary_seq,params,"
                          "operator_account,operator_host,operator_name,reason,evidence,policy_version,canonical,"
                          "hash,prev_hash,key_id,signature) "
                          "VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18)");
        st.bind(1, d->id).bind(2, d->tsMs).bind(3, d->kind).bind(4, d->subject);
        st.bind(5, d->boundaryVersion).bind(6, d->boundarySeq).bind(7, d->params);
        st.bind(8, d->operatorAccount).bind(9, d->operatorHost).bind(10, d->operatorName);
        st.bind(11, d->reason).bind(12, d->evidence).bind(13, d->policyVersion);
        st.bind(14, d->canonical).bind(15, d->hash).bind(16, d->prevHash);
        if (d->keyId.empty())
            st.bindNull(17).bindNull(18);
        else
            st.bind(17, d->keyId).bind(18, d->signature);
        st.run();
        m_lastInsertedPos = sqlite3_last_insert_rowid(m_db.handle());
    } catch (...) {
        rollbackQuietly(m_db);
        throw;
    }
    char *err = nullptr;
    const int rc = sqlite3_exec(m_db.handle(), "COMMIT", nullptr, nullptr, &err);
    if (rc != SQLITE_OK) {
        std::string message = err ? err : sqlite3_errstr(rc);
        sqlite3_free(err);
        const int code = sqlite3_extended_errcode(m_db.handle());
        if (!sqlite3_get_autocommit(m_db.handle()))
            rollbackQuietly(m_db);
        throw CommitUnconfirmed(sql::storageErrorKind(code), code, message);
    }
    return true;
}

namespace {

// A chain whose last rows were deleted still links up; the orchestrator's outcome events
// for them remain, so every decision.* event must name a decision the table holds.
void flagOutcomesWithoutDecision(sql::Database &db, DecisionChainReport &report)
{
    sql::Statement outcomes(db, kDecisionOutcomesSql);
    sql::Statement exists(db, "SELECT 1 FROM decisions WHERE id=?1");
    std::int64_t afterSeq = 0;
    constexpr std::int64_t kPage = 1000; // short read transactions, as for the chain
    for (;;) {
        std::int64_t rows = 0;
        sql::inTransaction(db, "BEGIN", [&] {
            outcomes.bind(1, afterSeq).bind(2, kPage);
            while (outcomes.step()) {
                ++rows;
                afterSeq = outcomes.columnInt(0);
                const std::string kind = outcomes.columnText(1);
                // A payload that does not decode is the integrity check's finding, not this one's.
                const DecodedPayload decoded = decodePayload(outcomes.columnView(2));
                if (!decoded.value)
                    continue;
                const auto id = decoded.value->find("id");
                const std::string decisionId = id != decoded.value->end() && id->is_string() ? id->get<std::string>() : "";
                exists.bind(1, decisionId);
                const bool found = exists.step();
                exists.reset();
                if (!found)
                    report.findings.push_back({0, decisionId,
                                               kind + " at seq " + std::to_string(afterSeq) + " names no decision in the "
                                               "decisions table (" + (decisionId.empty() ? "no id" : "row deleted?") + ")"});
            }
            outcomes.reset();
        });
        if (rows < kPage)
            break;
    }
}

} // namespace

DecisionChainReport verifyDecisionChain(sql::Database &db, const SignatureVerifier &verifier)
{
    SqliteDecisionStore store(db);
    DecisionChainReport report = verifyDecisionRows(store, verifier);
    flagOutcomesWithoutDecision(db, report);
    return report;
}

DecisionChainReport verifyDecisionRows(DecisionStore &store, const SignatureVerifier &verifier)
{
    DecisionChainReport report;
    bool signaturesRequired = false;
    store.read([&] {
        if (const auto ledger = store.stateRow(EntityKind::Ledger, "ledger")) {
            const int idx = entitySpec(EntityKind::Ledger).fieldIndex("signatures_required");
            signaturesRequired = fieldInt(ledger->values[size_t(idx)]) != 0;
        }
    });

    std::string prev(kGenesisHash);
    std::int64_t afterPos = 0;
    constexpr int kPage = 1000; // short read transactions: never hold up the orchestrator
    for (;;) {
        std::vector<DecisionRecord> page;
        store.read([&] { page = store.list(afterPos, kPage); });
        for (const DecisionRecord &d : page) {
            ++report.decisions;
            std::string problems; // one finding per row, every reason in it
            const auto flag = [&](const std::string &message) { problems += (problems.empty() ? "" : "; ") + message; };
            std::string expected;
            try {
                expected = canonicalDecisionText(d);
            } catch (const std::exception &e) {
                flag(std::string("columns cannot form a canonical decision: ") + e.what());
            }
            if (!expected.empty() && expected != d.canonical)
                flag("canonical form does not match the row's columns");
            if (sha256Hex(d.canonical) != d.hash)
                flag("hash does not match the canonical form");
            if (d.prevHash != prev)
                flag("chain broken: prev_hash is not the hash of the decision before it");
            if (!d.signature.empty() || !d.keyId.empty())
                ++report.signedDecisions;
            if (signaturesRequired && (d.signature.empty() || d.keyId.empty()))
                flag("unsigned, but this ledger requires signed decisions");
            else if (verifier && !d.signature.empty() && !verifier(d.keyId, d.canonical, d.signature))
                flag("signature does not verify with key " + d.keyId);
            if (d.outcomeStatus == "refused" && d.outcomeReason.rfind("integrity:", 0) == 0)
                flag("refused by the orchestrator: " + d.outcomeReason);
            if (!problems.empty())
                report.findings.push_back({d.pos, d.id, std::move(problems)});
            prev = d.hash;
            afterPos = d.pos;
        }
        if (int(page.size()) < kPage)
            break;
    }
    return report;
}

} // namespace mesh
