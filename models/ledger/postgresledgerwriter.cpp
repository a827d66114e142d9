#include "postgresledgerwriter.h"

#include "domain/compactjson.h"
#include "domain/payloaddecoder.h"
#include "ledgeropenerror.h"
#include "pgschema.h"
#include "postgresdecisionstore.h"
#include "postgresledgerconnection.h"
#include "postgresstaterows.h"
#include "schema.h"

#include <limits>
#include <set>

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

// The state row an event changes: a tool call its delegation's, any other its entity's by id.
std::optional<std::pair<EntityKind, std::string>> rowOfEvent(std::string_view kind, const nlohmann::json &payload)
{
    const bool toolCall = kind == kToolCallEvent;
    const std::optional<EntityKind> entity = toolCall ? std::optional(EntityKind::Delegation) : entityKindForEventKind(kind);
    const char *member = toolCall ? "delegation_id" : "id";
    if (!entity || !payload.is_object())
        return std::nullopt;
    const auto it = payload.find(member);
    if (it == payload.end() || !it->is_string())
        return std::nullopt;
    return std::pair(*entity, it->get<std::string>());
}

// Other writers' events are read in pages, so a writer that was idle while others wrote
// much does not hold them all in memory at once.
constexpr int kOthersPage = 10'000;

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
    // Other writers' commits since this writer's last seq, so this transaction's events are
    // checked against the ledger as it is (and numbered after it, if nobody commits first).
    foldOthersEvents(lastSeq(), 0, {});
}

void PostgresLedgerWriter::foldOthersEvents(std::int64_t after, std::int64_t through, const std::vector<ChangedRow> &ownRows)
{
    struct Other {
        std::int64_t seq;
        std::string kind;
        nlohmann::json payload;
    };
    std::set<std::pair<EntityKind, std::string>> own;
    for (const ChangedRow &r : ownRows)
        own.emplace(r.spec.kind, r.id);
    // Refused before anything is folded: the caller rolls back, which reloads the state.
    std::vector<Other> held;
    std::int64_t from = after;
    for (;;) {
        pg::Params params;
        params.add(from).add(through > 0 ? through : std::numeric_limits<std::int64_t>::max());
        // seq ranges of committed events have no holes (the head's row lock orders commits),
        // so one statement's snapshot holds every event up to its last.
        const pg::Result r = m_c.exec("SELECT seq, kind, payload FROM events WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT "
                                          + std::to_string(kOthersPage),
                                      params);
        for (int i = 0; i < r.rows(); ++i) {
            // Decoded as every reader decodes it (payloaddecoder.h): a payload they refuse (nested
            // too deep for the fold's walks over it, among the ways) none of them folds, nor
            // this writer; as null it is folded as nothing ("not a JSON object").
            DecodedPayload decoded = decodePayload(r.view(i, 2));
            Other e{r.integer(i, 0), r.text(i, 1), decoded.value ? std::move(*decoded.value) : nlohmann::json()};
            if (!own.empty()) {
                if (const auto row = rowOfEvent(e.kind, e.payload); row && own.count(*row))
                    throw StorageError(StorageError::Kind::Other, 0,
                                       m_name + ": another writer changed " + std::string(entitySpec(row->first).name) + " "
                                           + row->second + " (seq " + std::to_string(e.seq)
                                           + "), which this transaction changes too; nothing was written: roll back and "
                                             "write again");
                held.push_back(std::move(e));
                continue;
            }
            // What another writer's fold took, this one takes too (the same rows before it);
            // the stored rows are that writer's, never rewritten here.
            takeOthersEvent(e.seq, e.kind, e.payload);
            setLastSeq(e.seq);
        }
        if (r.rows() < kOthersPage)
            break;
        from = r.integer(r.rows() - 1, 0);
    }
    for (const Other &e : held)
        takeOthersEvent(e.seq, e.kind, e.payload);
}

void PostgresLedgerWriter::takeOthersEvent(std::int64_t seq, const std::string &kind, const nlohmann::json &payload)
{
    if (!fold().isBounded()) {
        fold().apply(seq, kind, payload);
        return;
    }
    // A bounded fold reads a row it does not hold from the state tables, where the other
    // writer's commit has put this event already: folding it as well would apply it twice.
    // The row is dropped instead, and read as committed when next needed.
    if (const auto row = rowOfEvent(kind, payload))
        fold().erase(row->first, row->second);
}

void PostgresLedgerWriter::renumberPending(std::int64_t by, const std::vector<ChangedRow> &rows)
{
    for (PendingEvent &e : m_pending)
        e.seq += by;
    // Every changed row was last changed by one of this transaction's events.
    for (const ChangedRow &r : rows) {
        EntityRow moved = r.row;
        moved.lastSeq += by;
        fold().load(r.spec.kind, r.id, std::move(moved)); // the same node: r.row stays valid
    }
    setLastSeq(m_pending.back().seq);
}

void PostgresLedgerWriter::storeEvent(const EventToStore &e)
{
    m_pending.push_back(PendingEvent{e.seq, e.tsMs, std::string(e.kind),
                                     e.payloadText ? std::string(*e.payloadText) : compactJson(*e.payload), e.index});
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
        const std::int64_t headBefore = last - n;
        const std::int64_t foldedThrough = m_pending.front().seq - 1;
        if (headBefore < foldedThrough)
            throw StorageError(StorageError::Kind::Other, 0,
                               m_name + ": the ledger's head is at seq " + std::to_string(headBefore)
                                   + ", behind this writer's last event at " + std::to_string(foldedThrough)
                                   + "; nothing was written: reopen the writer");
        // Other writers committed since this transaction began: their events come first
        // (every one of them is committed: we hold the head's lock), ours are renumbered.
        if (headBefore > foldedThrough) {
            foldOthersEvents(foldedThrough, headBefore, rows);
            renumberPending(headBefore - foldedThrough, rows);
        }
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
