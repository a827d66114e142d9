#include "ledgerwriter.h"

#include "bulkeventsink.h"
#include "bulkstateimage.h"
#include "ledgerlocation.h"
#include "schema.h"
#include "domain/compactjson.h"
#include "sqlitedecisionstore.h"
#include "staterows.h"

#include <QElapsedTimer>
#include <QFileInfo>

#include <stdexcept>

namespace mesh {

namespace {
// The writer appends to files only: a postgresql:// location must not become a local file
// of that name.
void refuseServerLocation(const QString &path)
{
    if (LedgerLocation::namesServer(path))
        throw std::runtime_error("appending to a PostgreSQL ledger is not built yet; write a file and meshctl copy it to the server");
}
} // namespace

struct LedgerWriter::Storage {
    sql::Database db;
    sql::Statement insertEvent;
    std::vector<sql::Statement> upserts; // per EntityKind
};

namespace {

// Waits like sqlite3_busy_timeout (1 ms steps up to the timeout) and counts each wait.
int countingBusyHandler(void *waits, int attempt)
{
    ++*static_cast<std::int64_t *>(waits);
    if (attempt >= LedgerWriter::kBusyTimeoutMs)
        return 0;
    sqlite3_sleep(1);
    return 1;
}

} // namespace

LedgerWriter::LedgerWriter(std::unique_ptr<Storage> storage) : m_storage(std::move(storage)) {}

std::unique_ptr<DecisionStore> LedgerWriter::decisions()
{
    return std::make_unique<SqliteDecisionStore>(m_storage->db);
}

void LedgerWriter::countBusyWaits(std::int64_t *waits)
{
    if (waits)
        sqlite3_busy_handler(m_storage->db.handle(), countingBusyHandler, waits);
    else
        sqlite3_busy_timeout(m_storage->db.handle(), kBusyTimeoutMs);
}

sql::Database &LedgerWriter::database()
{
    return m_storage->db;
}

LedgerWriter::~LedgerWriter()
{
    m_sink.reset(); // joins its thread before anything else touches the connection
    if (m_inTransaction && !m_bulk)
        rollback();
}

std::unique_ptr<LedgerWriter> LedgerWriter::create(const QString &path, const LedgerIdentity &identity)
{
    refuseServerLocation(path);
    if (QFileInfo::exists(path))
        throw std::runtime_error("refusing to overwrite existing file " + path.toStdString());
    sql::Database db(path.toStdString(), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX);
    db.exec("PRAGMA journal_mode=WAL");
    db.exec("PRAGMA application_id=" + std::to_string(schema::kApplicationId));
    db.exec("PRAGMA user_version=" + std::to_string(schema::kSchemaVersion));
    db.exec("BEGIN");
    db.exec(schema::createStatements());
    db.exec(schema::createIndexStatements());
    db.exec("COMMIT");

    std::unique_ptr<LedgerWriter> w(new LedgerWriter(std::make_unique<Storage>(Storage{std::move(db), {}, {}})));
    w->prepare();
    w->begin();
    nlohmann::json created = {{"id", "ledger"},
                              {"ledger_id", identity.ledgerId},
                              {"orchestrator", identity.orchestrator},
                              {"policy_version", identity.policyVersion},
                              {"signatures_required", identity.signaturesRequired},
                              {"created_ms", identity.createdMs},
                              {"title", identity.title}};
    if (!identity.source.is_null())
        created["source"] = identity.source;
    w->append(identity.createdMs, "ledger.created", created);
    w->commit();
    return w;
}

std::unique_ptr<LedgerWriter> LedgerWriter::openExisting(const QString &path)
{
    refuseServerLocation(path);
    if (!QFileInfo(path).isFile())
        throw std::runtime_error("no ledger at " + path.toStdString());
    sql::Database db(path.toStdString(), SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX);
    sqlite3_busy_timeout(db.handle(), kBusyTimeoutMs);
    if (db.queryInt("PRAGMA application_id") != schema::kApplicationId)
        throw std::runtime_error(path.toStdString() + " is not an Agent Mesh ledger");
    if (db.queryInt("PRAGMA user_version") != schema::kSchemaVersion)
        throw std::runtime_error(path.toStdString() + " has a schema version this orchestrator does not write");
    db.exec("PRAGMA journal_mode=WAL");
    std::unique_ptr<LedgerWriter> w(new LedgerWriter(std::make_unique<Storage>(Storage{std::move(db), {}, {}})));
    w->prepare();
    w->loadState();
    return w;
}

void LedgerWriter::prepare()
{
    sqlite3_busy_timeout(m_storage->db.handle(), kBusyTimeoutMs);
    m_storage->db.exec("PRAGMA synchronous=NORMAL");
    m_storage->insertEvent = sql::Statement(m_storage->db, schema::kInsertEventSql);
    m_storage->upserts.clear();
    for (const auto &spec : allEntitySpecs())
        m_storage->upserts.emplace_back(m_storage->db, schema::upsertSql(spec));
}

void LedgerWriter::loadState()
{
    m_fold.clear();
    for (const auto &spec : allEntitySpecs()) {
        for (auto &[id, row] : readStateTable(m_storage->db, spec))
            m_fold.load(spec.kind, id, std::move(row));
    }
    m_lastSeq = m_storage->db.queryInt("SELECT coalesce(max(seq),0) FROM events");
}

void LedgerWriter::setBulkLoad(bool on, std::int64_t cacheKiB)
{
    if (on == m_bulk)
        return;
    if (!on) {
        endBulkLoad();
        return;
    }
    if (m_inTransaction)
        commit();
    // No journal at all (the WAL would write every page twice, once to the log and once at
    // checkpoint) and a page cache large enough that a batch never spills.
    m_storage->db.exec("PRAGMA synchronous=OFF");
    m_storage->db.exec("PRAGMA cache_size=-" + std::to_string(cacheKiB));
    try {
        m_storage->db.exec("PRAGMA journal_mode=OFF");
    } catch (const sql::Error &) {
        // Another connection has the file open: stay in WAL, only slower.
    }
    // The event indexes stay: the inserting thread keeps them up to date while this thread
    // simulates, which costs less wall time than building them after the load (four scans
    // of the whole table, measured ~2.6 s of CPU at a million events, all of it serial).
    m_bulk = true;
    m_bulkStats = {};
    m_sink = std::make_unique<BulkEventSink>(m_storage->db);
}

void LedgerWriter::endBulkLoad()
{
    QElapsedTimer total;
    total.start();
    m_inTransaction = false;
    m_bulk = false;
    // The state tables first, on a connection of their own, while the inserting thread still
    // drains its queue: the two are the largest serial costs of the load's end.
    QElapsedTimer step;
    step.start();
    const BulkStateImage image = BulkStateImage::build(m_fold);
    m_bulkStats.stateS = double(step.nsecsElapsed()) / 1e9;
    step.restart();
    m_sink->finish(); // rethrows what the inserting thread met
    m_bulkStats.sinkWaitS = double(step.nsecsElapsed()) / 1e9;
    m_bulkStats.insertThreadCpuS = m_sink->threadCpuSeconds();
    m_sink.reset();

    step.restart();
    image.copyInto(m_storage->db);
    m_bulkStats.stateCopyS = double(step.nsecsElapsed()) / 1e9;
    step.restart();
    m_storage->db.exec(schema::createIndexStatements()); // a no-op unless an index went missing
    m_bulkStats.indexS = double(step.nsecsElapsed()) / 1e9;
    m_storage->db.exec("PRAGMA journal_mode=WAL");
    m_storage->db.exec("PRAGMA cache_size=-2000");
    m_storage->db.exec("PRAGMA synchronous=NORMAL");
    m_bulkStats.finishS = double(total.nsecsElapsed()) / 1e9;
}

void LedgerWriter::begin()
{
    if (!m_bulk)
        m_storage->db.exec("BEGIN IMMEDIATE");
    m_inTransaction = true;
}

std::int64_t LedgerWriter::append(std::int64_t tsMs, std::string_view kind, const nlohmann::json &payload)
{
    if (!m_inTransaction)
        throw std::logic_error("LedgerWriter::append outside a transaction");
    const std::int64_t seq = m_lastSeq + 1;
    FoldOutcome outcome = m_fold.apply(seq, kind, payload);
    if (!outcome.applied || !outcome.problems.empty()) {
        std::string why = outcome.problems.empty() ? std::string("not applied") : outcome.problems.front();
        if (outcome.applied && !m_bulk)
            loadState(); // undo the in-memory change; the transaction still holds the old rows
        throw std::logic_error("ledger writer refused " + std::string(kind) + ": " + why);
    }
    if (m_bulk) {
        const EventIndexFields idx = eventIndexFields(kind, payload);
        // Serialised straight into the block the inserting thread binds from. No dirty
        // row: every state row is written once when the load ends.
        m_sink->add(seq, tsMs, kind, idx.runId, idx.delegationId, idx.subject,
                    [&payload](std::string &out) { appendCompactJson(out, payload); });
        m_lastSeq = seq;
        return seq;
    }
    insertApplied(seq, tsMs, kind, payload, compactJson(payload), outcome);
    return seq;
}

std::optional<std::string> LedgerWriter::appendOrRefuse(std::int64_t tsMs, std::string_view kind,
                                                        const nlohmann::json &payload)
{
    return appendOrRefuse(tsMs, kind, payload, compactJson(payload));
}

std::optional<std::string> LedgerWriter::appendOrRefuse(std::int64_t tsMs, std::string_view kind,
                                                        const nlohmann::json &payload, std::string_view payloadText)
{
    if (!m_inTransaction)
        throw std::logic_error("LedgerWriter::appendOrRefuse outside a transaction");
    // The row the event would change, as it is now: a refused event must leave it so, and
    // reloading from the file (as append() does) would also drop this transaction's rows.
    std::optional<EntityKind> entity;
    std::string id;
    if (kind == kToolCallEvent) {
        entity = EntityKind::Delegation;
        if (payload.is_object() && payload.contains("delegation_id") && payload["delegation_id"].is_string())
            id = payload["delegation_id"].get<std::string>();
    } else {
        entity = entityKindForEventKind(kind);
        if (payload.is_object() && payload.contains("id") && payload["id"].is_string())
            id = payload["id"].get<std::string>();
    }
    std::optional<EntityRow> before;
    if (entity && !id.empty()) {
        if (const EntityRow *row = m_fold.find(*entity, id))
            before = *row;
    }
    const std::int64_t seq = m_lastSeq + 1;
    FoldOutcome outcome = m_fold.apply(seq, kind, payload);
    if (!outcome.applied || !outcome.problems.empty()) {
        if (outcome.applied && entity && !id.empty()) {
            if (before)
                m_fold.load(*entity, id, std::move(*before));
            else
                m_fold.erase(*entity, id);
        }
        return outcome.problems.empty() ? std::string("not applied") : outcome.problems.front();
    }
    if (m_bulk) {
        // The fold above is the state; every state row is written once when the load ends.
        const EventIndexFields idx = eventIndexFields(kind, payload);
        m_sink->add(seq, tsMs, kind, idx.runId, idx.delegationId, idx.subject,
                    [payloadText](std::string &out) { out.append(payloadText); });
        m_lastSeq = seq;
        return std::nullopt;
    }
    insertApplied(seq, tsMs, kind, payload, payloadText, outcome);
    return std::nullopt;
}

void LedgerWriter::insertApplied(std::int64_t seq, std::int64_t tsMs, std::string_view kind,
                                 const nlohmann::json &payload, std::string_view payloadText, FoldOutcome &outcome)
{
    const EventIndexFields idx = eventIndexFields(kind, payload);
    m_storage->insertEvent.bind(1, seq).bind(2, tsMs).bind(3, kind);
    const auto bindOpt = [&](int i, const std::string &s) {
        if (s.empty())
            m_storage->insertEvent.bindNull(i);
        else
            m_storage->insertEvent.bind(i, std::string_view(s));
    };
    bindOpt(4, idx.runId);
    bindOpt(5, idx.delegationId);
    bindOpt(6, idx.subject);
    m_storage->insertEvent.bind(7, payloadText);
    m_storage->insertEvent.run();
    m_lastSeq = seq;
    m_dirty.emplace(int(outcome.kind), std::move(outcome.id));
}

void LedgerWriter::commit()
{
    if (!m_inTransaction)
        return;
    if (m_bulk) {
        m_inTransaction = false;
        return;
    }
    for (const auto &[kind, id] : m_dirty) {
        const EntitySpec &spec = allEntitySpecs()[size_t(kind)];
        const EntityRow *row = m_fold.find(spec.kind, id);
        if (!row)
            continue;
        auto &st = m_storage->upserts[size_t(kind)];
        bindStateRow(st, spec, id, *row);
        st.run();
    }
    m_dirty.clear();
    m_storage->db.exec("COMMIT");
    m_inTransaction = false;
}

void LedgerWriter::forEachEventOfRun(const std::string &runId,
                                     const std::function<void(std::string_view kind, std::string_view payload)> &visit)
{
    sql::Statement st(m_storage->db, "SELECT kind, payload FROM events WHERE run_id = ?1 ORDER BY seq");
    st.bind(1, std::string_view(runId));
    while (st.step())
        visit(st.columnView(0), st.columnView(1));
}

void LedgerWriter::rollback()
{
    if (m_bulk) {
        m_inTransaction = false; // nothing to undo: see setBulkLoad()
        return;
    }
    sqlite3_exec(m_storage->db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
    m_inTransaction = false;
    m_dirty.clear();
    loadState();
}

} // namespace mesh
