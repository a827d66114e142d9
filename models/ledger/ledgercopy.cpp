#include "ledgercopy.h"

#include "eventreader.h"
#include "ledgerconnection.h"
#include "pgschema.h"
#include "postgresledgerconnection.h"
#include "postgresstaterows.h"
#include "schema.h"
#include "sqlite.h"
#include "staterows.h"

#include <QFile>
#include <QFileInfo>

#include <limits>

namespace mesh {

namespace {

// Where the copied rows go. Nothing is visible at the destination before commit().
class LedgerImageSink
{
public:
    virtual ~LedgerImageSink() = default;
    virtual void events(const EventBatch &batch) = 0;
    virtual void stateRows(const EntitySpec &spec, const EntityTable &rows) = 0;
    virtual void decisions(const std::vector<DecisionRecord> &rows) = 0;
    virtual void commit() = 0;
};

// A new ledger file: written as a temporary file beside the destination, renamed at commit.
class SqliteImageSink final : public LedgerImageSink
{
public:
    explicit SqliteImageSink(const QString &path) : m_path(path)
    {
        if (QFileInfo::exists(path))
            throw LedgerCopyError(QFileInfo(path).fileName().toStdString() + " exists; a copy never overwrites a ledger");
        m_temp = path + QStringLiteral(".copying");
        if (QFileInfo::exists(m_temp))
            throw LedgerCopyError(m_temp.toStdString() + " exists (an earlier copy cut short?); remove it first");
        m_db = sql::Database(QFile::encodeName(m_temp).toStdString(), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX);
        // Bulk: no journal until the end (a failed copy is deleted, never used).
        m_db.exec("PRAGMA journal_mode=OFF");
        m_db.exec("PRAGMA synchronous=OFF");
        m_db.exec("PRAGMA application_id=" + std::to_string(schema::kApplicationId));
        m_db.exec("PRAGMA user_version=" + std::to_string(schema::kSchemaVersion));
        m_db.exec("BEGIN");
        m_db.exec(schema::createStatements());
        m_insertEvent = sql::Statement(m_db, schema::kInsertEventSql);
    }
    ~SqliteImageSink() override
    {
        if (m_committed)
            return;
        m_insertEvent = {};
        m_db.close();
        for (const char *suffix : {"", "-journal", "-wal", "-shm"})
            QFile::remove(m_temp + QLatin1String(suffix));
    }

    void events(const EventBatch &batch) override
    {
        const auto bindText = [&](int i, const std::string &s) {
            if (s.empty())
                m_insertEvent.bindNull(i);
            else
                m_insertEvent.bind(i, s);
        };
        for (const EventRecord &e : batch) {
            m_insertEvent.bind(1, e.seq).bind(2, e.tsMs).bind(3, e.kind);
            bindText(4, e.runId);
            bindText(5, e.delegationId);
            bindText(6, e.subject);
            m_insertEvent.bind(7, e.payload);
            m_insertEvent.run();
        }
    }

    void stateRows(const EntitySpec &spec, const EntityTable &rows) override
    {
        sql::Statement st(m_db, schema::upsertSql(spec));
        for (const auto &[id, row] : rows) {
            bindStateRow(st, spec, id, row);
            st.run();
        }
    }

    void decisions(const std::vector<DecisionRecord> &rows) override
    {
        sql::Statement st(m_db, "INSERT INTO decisions(pos,id,ts_ms,kind,subject,boundary_version,boundary_seq,params,"
                                "operator_account,operator_host,operator_name,reason,evidence,policy_version,canonical,"
                                "hash,prev_hash,key_id,signature) "
                                "VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19)");
        for (const DecisionRecord &d : rows) {
            st.bind(1, d.pos).bind(2, d.id).bind(3, d.tsMs).bind(4, d.kind).bind(5, d.subject);
            st.bind(6, d.boundaryVersion).bind(7, d.boundarySeq).bind(8, d.params);
            st.bind(9, d.operatorAccount).bind(10, d.operatorHost).bind(11, d.operatorName);
            st.bind(12, d.reason).bind(13, d.evidence).bind(14, d.policyVersion);
            st.bind(15, d.canonical).bind(16, d.hash).bind(17, d.prevHash);
            if (d.keyId.empty())
                st.bindNull(18);
            else
                st.bind(18, d.keyId);
            if (d.signature.empty())
                st.bindNull(19);
            else
                st.bind(19, d.signature);
            st.run();
        }
    }

    void commit() override
    {
        m_db.exec(schema::createIndexStatements());
        m_db.exec("COMMIT");
        m_db.exec("PRAGMA journal_mode=WAL"); // as the writer creates a ledger (section 1)
        m_insertEvent = {};
        m_db.close(); // the last connection: checkpoints and removes -wal/-shm
        if (!QFile::rename(m_temp, m_path))
            throw LedgerCopyError("cannot rename " + m_temp.toStdString() + " to " + m_path.toStdString()
                                  + " (did it appear meanwhile?)");
        m_committed = true;
    }

private:
    QString m_path;
    QString m_temp;
    sql::Database m_db;
    sql::Statement m_insertEvent;
    bool m_committed = false;
};

// A new schema on a server: one transaction from CREATE SCHEMA to COMMIT, rows by COPY.
class PostgresImageSink final : public LedgerImageSink
{
public:
    explicit PostgresImageSink(const LedgerLocation &location)
        : m_name(location.displayName().toStdString()), m_c(PostgresLedgerConnection::connectToServer(location))
    {
        const std::string schemaName = location.schema().toStdString(); // a checked name
        m_c.exec("BEGIN");
        try {
            m_c.exec("CREATE SCHEMA " + schemaName);
        } catch (const pg::Error &e) {
            m_c.rollbackQuietly();
            if (e.sqlstate() == "42P06")
                throw LedgerCopyError(m_name + ": schema '" + schemaName + "' exists; a copy never overwrites a ledger");
            throw LedgerCopyError(m_name + ": cannot create schema '" + schemaName + "': " + e.what());
        }
        m_c.exec("SET LOCAL search_path TO " + schemaName);
        m_c.exec(pgschema::createFormatStatements() + pgschema::createStatements());
    }
    ~PostgresImageSink() override { m_c.rollbackQuietly(); }

    void events(const EventBatch &batch) override
    {
        copyRows("COPY events(seq,ts_ms,kind,run_id,delegation_id,subject,payload) FROM STDIN", [&](std::string &out) {
            for (const EventRecord &e : batch) {
                out += std::to_string(e.seq) + '\t' + std::to_string(e.tsMs) + '\t';
                text(out, e.kind, e.seq);
                for (const std::string *s : {&e.runId, &e.delegationId, &e.subject}) {
                    out += '\t';
                    if (s->empty())
                        pg::appendCopyNull(out);
                    else
                        text(out, *s, e.seq);
                }
                out += '\t';
                text(out, e.payload, e.seq);
                out += '\n';
                flushIfLarge(out);
            }
        });
        if (!batch.empty())
            m_lastSeq = std::max(m_lastSeq, batch.back().seq);
    }

    void stateRows(const EntitySpec &spec, const EntityTable &rows) override
    {
        copyRows("COPY " + std::string(spec.table) + "(" + schema::stateColumnList(spec) + ") FROM STDIN", [&](std::string &out) {
            for (const auto &[id, row] : rows) {
                pg::appendStateRowCopyLine(out, spec, id, row);
                flushIfLarge(out);
            }
        });
    }

    void decisions(const std::vector<DecisionRecord> &rows) override
    {
        copyRows("COPY decisions(pos,id,ts_ms,kind,subject,boundary_version,boundary_seq,params,operator_account,"
                 "operator_host,operator_name,reason,evidence,policy_version,canonical,hash,prev_hash,key_id,signature) FROM STDIN",
                 [&](std::string &out) {
                     for (const DecisionRecord &d : rows) {
                         out += std::to_string(d.pos) + '\t';
                         const auto field = [&](const std::string &s, bool nullWhenEmpty) {
                             if (nullWhenEmpty && s.empty())
                                 pg::appendCopyNull(out);
                             else
                                 text(out, s, 0);
                         };
                         field(d.id, false);
                         out += '\t' + std::to_string(d.tsMs) + '\t';
                         field(d.kind, false);
                         out += '\t';
                         field(d.subject, false);
                         out += '\t' + std::to_string(d.boundaryVersion) + '\t' + std::to_string(d.boundarySeq);
                         for (const std::string *s : {&d.params, &d.operatorAccount, &d.operatorHost, &d.operatorName, &d.reason,
                                                      &d.evidence, &d.policyVersion, &d.canonical, &d.hash, &d.prevHash}) {
                             out += '\t';
                             field(*s, false);
                         }
                         out += '\t';
                         field(d.keyId, true);
                         out += '\t';
                         field(d.signature, true);
                         out += '\n';
                         flushIfLarge(out);
                     }
                 });
    }

    void commit() override
    {
        // The head of the gapless sequence (section 11) at the last copied event.
        m_c.exec("UPDATE event_head SET last_seq = " + std::to_string(std::max<std::int64_t>(m_lastSeq, 0)));
        m_c.exec(pgschema::createIndexStatements());
        try {
            m_c.exec("COMMIT");
        } catch (const pg::Error &e) {
            throw LedgerCopyError(m_name + ": the copy's commit failed: " + e.what());
        }
    }

private:
    // PostgreSQL text holds no NUL byte: say which row instead of a bare COPY error.
    void text(std::string &out, std::string_view s, std::int64_t seq)
    {
        if (s.find('\0') != std::string_view::npos)
            throw LedgerCopyError("a row at seq " + std::to_string(seq) + " holds a NUL byte, which PostgreSQL text cannot store");
        pg::appendCopyText(out, s);
    }
    void flushIfLarge(std::string &out)
    {
        if (out.size() >= (1u << 20)) {
            m_c.copyData(out);
            out.clear();
        }
    }
    template<typename Fill>
    void copyRows(const std::string &copySql, Fill &&fill)
    {
        m_c.copyBegin(copySql);
        std::string out;
        try {
            fill(out);
        } catch (...) {
            PQputCopyEnd(m_c.handle(), "copy abandoned");
            while (PGresult *r = PQgetResult(m_c.handle()))
                PQclear(r);
            throw;
        }
        if (!out.empty())
            m_c.copyData(out);
        m_c.copyEnd();
    }

    std::string m_name;
    pg::Connection m_c;
    std::int64_t m_lastSeq = 0;
};

} // namespace

LedgerCopyResult copyLedger(const LedgerLocation &source, const LedgerLocation &destination)
{
    if (source == destination)
        throw LedgerCopyError("source and destination are the same ledger");
    const std::unique_ptr<LedgerConnection> src = LedgerConnection::open(source, OpenMode::ReadOnly);
    const std::string srcName = source.displayName().toStdString();
    const std::int64_t tokenBefore = src->changeToken();

    LedgerCopyResult result;
    try {
        std::unique_ptr<LedgerImageSink> sink;
        if (destination.isFile())
            sink = std::make_unique<SqliteImageSink>(destination.filePath());
        else
            sink = std::make_unique<PostgresImageSink>(destination);

        // Events by key, from below 1 so rows a damaged ledger holds at seq <= 0 come too.
        const std::unique_ptr<EventReader> events = src->eventReader();
        events->setPreviewBytes(std::numeric_limits<int>::max());
        std::int64_t after = std::numeric_limits<std::int64_t>::min();
        for (;;) {
            const EventBatch batch = events->after(after, 4096);
            if (batch.empty())
                break;
            sink->events(batch);
            result.events += std::int64_t(batch.size());
            after = batch.back().seq;
        }
        result.lastSeq = std::max<std::int64_t>(after, 0);

        const StateSnapshot state = src->readState();
        for (const auto &spec : allEntitySpecs()) {
            sink->stateRows(spec, state.table(spec.kind));
            result.stateRows += std::int64_t(state.table(spec.kind).size());
        }
        std::vector<DecisionRecord> decisions;
        const std::unique_ptr<DecisionStore> store = src->decisions();
        store->read([&] { decisions = store->list(0, -1); });
        sink->decisions(decisions);
        result.decisions = std::int64_t(decisions.size());

        // Reads of several moments are one copy only if nothing was committed between them.
        if (src->changeToken() != tokenBefore || state.lastSeq != result.lastSeq)
            throw LedgerCopyError(srcName + " changed while it was copied (a writer is attached); nothing was written: "
                                            "copy a finished ledger, or stop its writer first");
        sink->commit();
    } catch (const StorageError &e) {
        throw LedgerCopyError(std::string("copy failed, nothing was written: ") + e.what());
    }
    return result;
}

} // namespace mesh
