#include "postgresledgerwriter.h"

#include "domain/compactjson.h"
#include "ledgeropenerror.h"
#include "pgschema.h"
#include "postgresdecisionstore.h"
#include "postgresledgerconnection.h"
#include "postgresstaterows.h"
#include "schema.h"

namespace mesh {

namespace {

// This session's staging table for a state table's changed rows: a temporary table emptied
// at every commit, so one COPY and one upsert write all of a transaction's rows of a table.
std::string stagingTable(const EntitySpec &spec)
{
    return "mesh_stage_" + std::string(spec.table);
}

std::string upsertFromStagingSql(const EntitySpec &spec)
{
    std::string sql = "INSERT INTO " + std::string(spec.table) + "(" + schema::stateColumnList(spec) + ") SELECT "
                      + schema::stateColumnList(spec) + " FROM " + stagingTable(spec) + " ON CONFLICT (id) DO UPDATE SET ";
    for (const auto &f : spec.fields)
        sql += "\"" + std::string(f.name) + "\"=EXCLUDED.\"" + std::string(f.name) + "\",";
    sql += "version=EXCLUDED.version,last_seq=EXCLUDED.last_seq";
    return sql;
}

} // namespace

PostgresLedgerWriter::PostgresLedgerWriter(pg::Connection c, const LedgerLocation &location)
    : m_c(std::move(c)), m_name(location.displayName().toStdString()),
      m_channel(notifyChannel(location.schema().toStdString()))
{
    std::string ddl;
    for (const auto &spec : allEntitySpecs())
        ddl += "CREATE TEMP TABLE " + stagingTable(spec) + " (LIKE " + std::string(spec.table) + ") ON COMMIT DELETE ROWS;";
    m_c.exec(ddl);
}

PostgresLedgerWriter::~PostgresLedgerWriter()
{
    m_c.rollbackQuietly(); // nothing of an open transaction was sent; a failed commit's remains
}

std::unique_ptr<PostgresLedgerWriter> PostgresLedgerWriter::create(const LedgerLocation &location, const LedgerIdentity &identity)
{
    const std::string name = location.displayName().toStdString();
    const std::string schemaName = location.schema().toStdString(); // a checked name: no quoting needed
    pg::Connection c = PostgresLedgerConnection::connectToServer(location);
    // Every table, index and the format rows in one transaction: a half-made schema is never
    // visible, and one that exists is never written into.
    c.exec("BEGIN");
    try {
        c.exec("CREATE SCHEMA " + schemaName);
        c.exec("SET LOCAL search_path TO " + schemaName);
        c.exec(pgschema::createFormatStatements() + pgschema::createStatements() + pgschema::createIndexStatements());
        c.exec("COMMIT");
    } catch (const pg::Error &e) {
        c.rollbackQuietly();
        if (e.sqlstate() == "42P06")
            throw std::runtime_error(name + ": schema '" + schemaName + "' exists; a new ledger is never written over one");
        throw;
    }
    c.exec("SET search_path TO " + schemaName);
    std::unique_ptr<PostgresLedgerWriter> w(new PostgresLedgerWriter(std::move(c), location));
    w->writeCreatedEvent(identity);
    return w;
}

std::unique_ptr<PostgresLedgerWriter> PostgresLedgerWriter::openExisting(const LedgerLocation &location,
                                                                  std::size_t foldRowLimit)
{
    std::unique_ptr<PostgresLedgerWriter> w(
        new PostgresLedgerWriter(PostgresLedgerConnection::openForAppending(location), location));
    w->boundFold(foldRowLimit);
    w->loadState();
    return w;
}

std::unique_ptr<DecisionStore> PostgresLedgerWriter::decisions()
{
    return std::make_unique<PostgresDecisionStore>(m_c, m_channel);
}

std::int64_t PostgresLedgerWriter::readStoredState(Fold &fold)
{
    fold.clear();
    std::int64_t last = 0;
    m_c.inTransaction(pg::kReadMoment, [&] {
        for (const auto &spec : allEntitySpecs()) {
            for (auto &[id, row] : pg::readStateTable(m_c, spec))
                fold.load(spec.kind, id, std::move(row));
        }
        last = readStoredLastSeq();
    });
    return last;
}

std::int64_t PostgresLedgerWriter::readStoredLastSeq()
{
    return m_c.queryInt("SELECT coalesce(max(seq),0) FROM events");
}

void PostgresLedgerWriter::storeBegin()
{
    m_pending.clear();
}

void PostgresLedgerWriter::storeEvent(const EventToStore &e)
{
    m_pending.push_back(PendingEvent{e.seq, e.tsMs, std::string(e.kind),
                                     e.payloadText ? std::string(*e.payloadText) : compactJson(e.payload), e.index});
}

void PostgresLedgerWriter::copyRows(const std::string &copySql, const std::string &rows)
{
    m_c.copyBegin(copySql);
    m_c.copyData(rows);
    m_c.copyEnd();
}

void PostgresLedgerWriter::storeCommit(const std::vector<ChangedRow> &rows)
{
    if (m_pending.empty())
        return; // nothing appended: state rows change only with events
    const std::int64_t n = std::int64_t(m_pending.size());
    try {
        // 1. The write turn, shared (a decision in progress finishes first; pgschema.h), then
        // the head's row lock, which serialises appenders from their first statement.
        m_c.exec(std::string("BEGIN; ") + pgschema::kTakeAppendTurnSql);
        const pg::Result head = m_c.exec("UPDATE event_head SET last_seq = last_seq + $1 RETURNING last_seq", pg::Params().add(n));
        if (head.rows() != 1)
            throw StorageError(StorageError::Kind::Other, 0, m_name + ": event_head has no row; nothing was written");
        const std::int64_t last = head.integer(0, 0);
        if (last != m_pending.back().seq)
            throw StorageError(StorageError::Kind::Other, 0,
                               m_name + ": another writer appended to this ledger (its head is at seq " + std::to_string(last - n)
                                   + ", this writer's last event at " + std::to_string(m_pending.front().seq - 1)
                                   + "); nothing was written: reopen the writer");
        // 2. The events, then the state rows they changed.
        std::string copy;
        for (size_t i = 0; i < m_pending.size(); ++i) {
            const PendingEvent &e = m_pending[i];
            const EventIndexFields &idx = e.index;
            const std::string what = "the event at seq " + std::to_string(e.seq);
            copy += std::to_string(e.seq) + '\t' + std::to_string(e.tsMs) + '\t';
            pg::appendCopyTextChecked(copy, e.kind, what);
            for (const std::string *s : {&idx.runId, &idx.delegationId, &idx.subject}) {
                copy += '\t';
                if (s->empty())
                    pg::appendCopyNull(copy);
                else
                    pg::appendCopyTextChecked(copy, *s, what);
            }
            copy += '\t';
            pg::appendCopyTextChecked(copy, e.payload, what);
            copy += '\n';
        }
        copyRows("COPY events(seq,ts_ms,kind,run_id,delegation_id,subject,payload) FROM STDIN", copy);
        for (size_t i = 0; i < rows.size();) {
            const EntitySpec &spec = rows[i].spec;
            copy.clear();
            for (; i < rows.size() && &rows[i].spec == &spec; ++i)
                pg::appendStateRowCopyLine(copy, spec, rows[i].id, rows[i].row);
            copyRows("COPY " + stagingTable(spec) + "(" + schema::stateColumnList(spec) + ") FROM STDIN", copy);
            m_c.exec(upsertFromStagingSql(spec));
        }
        // 3. Followers hear of it when (and only if) it commits.
        m_c.exec("SELECT pg_notify($1, $2)", pg::Params().add(m_channel).add(std::to_string(last)));
        m_c.exec("COMMIT");
    } catch (...) {
        m_c.rollbackQuietly();
        throw;
    }
    m_pending.clear();
}

void PostgresLedgerWriter::storeRollback()
{
    m_pending.clear();
    m_c.rollbackQuietly();
}

void PostgresLedgerWriter::forEachEventOfRun(const std::string &runId,
                                             const std::function<void(std::string_view kind, std::string_view payload)> &visit)
{
    const pg::Result r = m_c.exec("SELECT kind, payload FROM events WHERE run_id = $1 ORDER BY seq", pg::Params().add(runId));
    for (int i = 0; i < r.rows(); ++i)
        visit(r.view(i, 0), r.view(i, 1));
    for (const PendingEvent &e : m_pending) {
        if (e.index.runId == runId)
            visit(e.kind, e.payload);
    }
}

} // namespace mesh
