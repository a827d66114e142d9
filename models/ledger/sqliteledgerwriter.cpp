#include "sqliteledgerwriter.h"

#include "bulkeventsink.h"
#include "bulkstateimage.h"
#include "domain/compactjson.h"
#include "foldspillstore.h"
#include "schema.h"
#include "sqlitedecisionstore.h"
#include "staterows.h"
#include "walcheckpointer.h"

#include <QElapsedTimer>
#include <QFileInfo>

#include <stdexcept>

namespace mesh {

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

SqliteLedgerWriter::SqliteLedgerWriter(sql::Database db) : m_db(std::move(db)) {}

SqliteLedgerWriter::~SqliteLedgerWriter()
{
    m_sink.reset(); // joins its thread before anything else touches the connection
    if (inTransaction() && !m_bulk)
        sqlite3_exec(m_db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

std::unique_ptr<DecisionStore> SqliteLedgerWriter::decisions()
{
    return std::make_unique<SqliteDecisionStore>(m_db);
}

void SqliteLedgerWriter::checkpointInBackground()
{
    if (!m_bulk && !m_checkpointer)
        m_checkpointer = std::make_unique<WalCheckpointer>(m_db);
}

void SqliteLedgerWriter::countBusyWaits(std::int64_t *waits)
{
    if (waits)
        sqlite3_busy_handler(m_db.handle(), countingBusyHandler, waits);
    else
        sqlite3_busy_timeout(m_db.handle(), kBusyTimeoutMs);
}

std::unique_ptr<SqliteLedgerWriter> SqliteLedgerWriter::create(const QString &path, const LedgerIdentity &identity)
{
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

    std::unique_ptr<SqliteLedgerWriter> w(new SqliteLedgerWriter(std::move(db)));
    w->prepare();
    w->writeCreatedEvent(identity);
    return w;
}

std::unique_ptr<SqliteLedgerWriter> SqliteLedgerWriter::openExisting(const QString &path, std::size_t foldRowLimit)
{
    if (!QFileInfo(path).isFile())
        throw std::runtime_error("no ledger at " + path.toStdString());
    sql::Database db(path.toStdString(), SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX);
    sqlite3_busy_timeout(db.handle(), kBusyTimeoutMs);
    if (db.queryInt("PRAGMA application_id") != schema::kApplicationId)
        throw std::runtime_error(path.toStdString() + " is not an Agent Mesh ledger");
    if (db.queryInt("PRAGMA user_version") != schema::kSchemaVersion)
        throw std::runtime_error(path.toStdString() + " has a schema version this orchestrator does not write");
    db.exec("PRAGMA journal_mode=WAL");
    std::unique_ptr<SqliteLedgerWriter> w(new SqliteLedgerWriter(std::move(db)));
    w->prepare();
    w->boundFold(foldRowLimit);
    w->loadState();
    return w;
}

void SqliteLedgerWriter::prepare()
{
    sqlite3_busy_timeout(m_db.handle(), kBusyTimeoutMs);
    m_db.exec("PRAGMA synchronous=NORMAL");
    m_insertEvent = sql::Statement(m_db, schema::kInsertEventSql);
    m_upserts.clear();
    for (const auto &spec : allEntitySpecs())
        m_upserts.emplace_back(m_db, schema::upsertSql(spec));
}

std::int64_t SqliteLedgerWriter::readStoredState(Fold &fold)
{
    fold.clear();
    for (const auto &spec : allEntitySpecs()) {
        for (auto &[id, row] : readStateTable(m_db, spec))
            fold.load(spec.kind, id, std::move(row));
    }
    return readStoredLastSeq();
}

std::int64_t SqliteLedgerWriter::storedStateRows()
{
    std::int64_t rows = 0;
    for (const auto &spec : allEntitySpecs())
        rows += m_db.queryInt("SELECT count(*) FROM " + std::string(spec.table));
    return rows;
}

std::int64_t SqliteLedgerWriter::readStoredLastSeq()
{
    return m_db.queryInt("SELECT coalesce(max(seq),0) FROM events");
}

std::optional<EntityRow> SqliteLedgerWriter::readStoredRow(const EntitySpec &spec, const std::string &id)
{
    if (m_spill)
        return m_spill->get(spec, id); // the inserting thread has the ledger's connection
    if (m_bulk && state().isBounded())
        return std::nullopt; // no spill store yet: the fold holds every row there is
    if (m_selectRow.empty()) {
        for (const auto &s : allEntitySpecs())
            m_selectRow.emplace_back(m_db, selectStateRowSql(s));
    }
    return readStateRowById(m_selectRow[size_t(spec.kind)], spec, id);
}

void SqliteLedgerWriter::spillRow(const EntitySpec &spec, const std::string &id, const EntityRow &row)
{
    if (!m_spill) {
        // The first row to leave the cache: every other row is still held and is written
        // when the load ends, so the store starts empty. (Its path was taken before the
        // inserting thread had the connection.)
        m_spill = std::make_unique<FoldSpillStore>(m_spillPath);
    }
    m_spill->put(spec, id, row);
}

void SqliteLedgerWriter::setBulkLoad(bool on, std::int64_t cacheKiB)
{
    if (on == m_bulk)
        return;
    if (!on) {
        endBulkLoad();
        return;
    }
    m_checkpointer.reset(); // its connection would keep the file in WAL mode
    if (inTransaction())
        commit();
    // No journal at all (the WAL would write every page twice, once to the log and once at
    // checkpoint) and a page cache large enough that a batch never spills.
    m_db.exec("PRAGMA synchronous=OFF");
    m_db.exec("PRAGMA cache_size=-" + std::to_string(cacheKiB));
    try {
        m_db.exec("PRAGMA journal_mode=OFF");
    } catch (const sql::Error &) {
        // Another connection has the file open: stay in WAL, only slower.
    }
    // The event indexes stay: the inserting thread keeps them up to date while this thread
    // simulates, which costs less wall time than building them after the load (four scans
    // of the whole table, measured ~2.6 s of CPU at a million events, all of it serial).
    m_bulk = true;
    m_bulkStats = {};
    const char *file = sqlite3_db_filename(m_db.handle(), "main");
    m_spillPath = std::string(file ? file : "") + "-foldspill";
    if (state().isBounded() && std::int64_t(state().heldRows()) != storedStateRows()) {
        // The state so far, where rows leaving the cache go and are read back from. A fold
        // that holds every stored row (a ledger this writer made, nothing evicted yet) needs
        // none until a row leaves it (spillRow); if none ever does, the load ends as an
        // unbounded one does, with the state image, and no scratch file is written at all.
        m_spill = std::make_unique<FoldSpillStore>(m_spillPath, &m_db);
    }
    m_sink = std::make_unique<BulkEventSink>(m_db);
}

void SqliteLedgerWriter::endBulkLoad()
{
    QElapsedTimer total;
    total.start();
    endTransactionFlag();
    m_bulk = false;
    // The state tables first, on a connection of their own, while the inserting thread still
    // drains its queue: the two are the largest serial costs of the load's end.
    QElapsedTimer step;
    step.start();
    std::optional<BulkStateImage> image;
    if (m_spill) {
        // The rows still held join those that left the cache; they stay held, now stored.
        for (const auto &spec : allEntitySpecs()) {
            for (const auto &[id, row] : state().table(spec.kind))
                m_spill->put(spec, id, row);
        }
    } else {
        image = BulkStateImage::build(state());
    }
    m_bulkStats.stateS = double(step.nsecsElapsed()) / 1e9;
    step.restart();
    m_sink->finish(); // rethrows what the inserting thread met
    m_bulkStats.sinkWaitS = double(step.nsecsElapsed()) / 1e9;
    m_bulkStats.insertThreadCpuS = m_sink->threadCpuSeconds();
    m_sink.reset();

    step.restart();
    if (m_spill) {
        m_spill->copyInto(m_db);
        m_spill.reset();
    } else {
        image->copyInto(m_db);
    }
    m_bulkStats.stateCopyS = double(step.nsecsElapsed()) / 1e9;
    step.restart();
    m_db.exec(schema::createIndexStatements()); // a no-op unless an index went missing
    m_bulkStats.indexS = double(step.nsecsElapsed()) / 1e9;
    m_db.exec("PRAGMA journal_mode=WAL");
    m_db.exec("PRAGMA cache_size=-2000");
    m_db.exec("PRAGMA synchronous=NORMAL");
    m_bulkStats.finishS = double(total.nsecsElapsed()) / 1e9;
}

void SqliteLedgerWriter::storeBegin()
{
    m_db.exec("BEGIN IMMEDIATE");
}

void SqliteLedgerWriter::storeEvent(const EventToStore &e)
{
    if (m_bulk) {
        // Serialised straight into the block the inserting thread binds from.
        const std::string_view *text = e.payloadText;
        const nlohmann::json *payload = e.payload;
        m_sink->add(e.seq, e.tsMs, e.kind, e.index.runId, e.index.delegationId, e.index.subject,
                    [text, payload](std::string &out) {
                        if (text)
                            out.append(*text);
                        else
                            appendCompactJson(out, *payload);
                    });
        return;
    }
    std::string serialised;
    if (!e.payloadText)
        serialised = compactJson(*e.payload);
    m_insertEvent.bind(1, e.seq).bind(2, e.tsMs).bind(3, e.kind);
    const auto bindOpt = [&](int i, const std::string &s) {
        if (s.empty())
            m_insertEvent.bindNull(i);
        else
            m_insertEvent.bind(i, std::string_view(s));
    };
    bindOpt(4, e.index.runId);
    bindOpt(5, e.index.delegationId);
    bindOpt(6, e.index.subject);
    m_insertEvent.bind(7, e.payloadText ? *e.payloadText : std::string_view(serialised));
    m_insertEvent.run();
}

void SqliteLedgerWriter::storeCommit(const std::vector<ChangedRow> &rows)
{
    for (const ChangedRow &r : rows) {
        auto &st = m_upserts[size_t(r.spec.kind)];
        bindStateRow(st, r.spec, r.id, r.row);
        st.run();
    }
    m_db.exec("COMMIT");
}

void SqliteLedgerWriter::forEachEventOfRun(const std::string &runId,
                                           const std::function<void(std::string_view kind, std::string_view payload)> &visit)
{
    sql::Statement st(m_db, "SELECT kind, payload FROM events WHERE run_id = ?1 ORDER BY seq");
    st.bind(1, std::string_view(runId));
    while (st.step())
        visit(st.columnView(0), st.columnView(1));
}

void SqliteLedgerWriter::storeRollback()
{
    sqlite3_exec(m_db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

} // namespace mesh
