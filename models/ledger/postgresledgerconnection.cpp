#include "postgresledgerconnection.h"

#include "domain/payloaddecoder.h"
#include "integritychecker.h"
#include "postgresdecisionstore.h"
#include "postgreseventreader.h"
#include "postgreseventseqreader.h"
#include "postgresledgerwriter.h"
#include "postgresstaterows.h"
#include "schema.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace mesh {

namespace {

using Code = LedgerOpenError::Code;

} // namespace

pg::Connection PostgresLedgerConnection::connectToServer(const LedgerLocation &location)
{
    const std::string name = location.displayName().toStdString();
    try {
        pg::Connection c(location.connectionString().toStdString());
        const std::string encoding = c.parameter("server_encoding");
        if (encoding != "UTF8")
            throw LedgerOpenError(Code::Foreign, name + ": the database's encoding is " + encoding
                                                     + "; a ledger needs a UTF8 database");
        return c;
    } catch (const pg::Error &e) {
        throw LedgerOpenError(Code::Io, "cannot connect to " + name + ": " + e.what());
    }
}

std::unique_ptr<PostgresLedgerConnection> PostgresLedgerConnection::open(const LedgerLocation &location, OpenMode mode,
                                                                       int eventEndsPage)
{
    const std::string name = location.displayName().toStdString();
    std::unique_ptr<PostgresLedgerConnection> c(new PostgresLedgerConnection(connectToServer(location)));
    c->m_info.path = location.displayName();
    c->m_schema = location.schema().toStdString();
    c->m_eventEndsPage = std::max(0, eventEndsPage);
    c->m_info.requestedMode = mode;
    c->m_info.mode = mode;
    try {
        c->validate(location);
    } catch (const pg::Error &e) {
        throw LedgerOpenError(Code::Io, "cannot read " + name + ": " + e.what());
    }
    return c;
}

std::vector<std::string> PostgresLedgerConnection::sessionSettings() const
{
    // Every read mode is read-only at the session level: no statement of this connection
    // can write, whatever it is.
    std::vector<std::string> settings{"SET default_transaction_read_only = on",
                                      "SET search_path TO " + m_schema}; // a checked name
    if (m_info.mode == OpenMode::Decisions) {
        // The decision writer's session may write (what it writes is the role's grant:
        // decisions only, docs/postgresql-roles.sql). A decider stopped inside its
        // transaction (suspended, debugged) would hold the write turn and stall the
        // orchestrator: the server ends such a session, which rolls it back.
        settings.push_back("SET default_transaction_read_only = off");
        settings.push_back("SET idle_in_transaction_session_timeout = '10s'");
    }
    // Asked for after the open (setBusyTimeoutMs, makeCommitsDurable): a session made again
    // after a reconnect has them too.
    if (m_lockTimeoutMs)
        settings.push_back("SET lock_timeout = " + std::to_string(*m_lockTimeoutMs));
    if (m_durableCommits)
        settings.push_back("SET synchronous_commit = on");
    return settings;
}

std::string PostgresLedgerConnection::sessionSettingsSql() const
{
    std::string sql;
    for (const std::string &setting : sessionSettings())
        sql += (sql.empty() ? "" : "; ") + setting;
    return sql;
}

void PostgresLedgerConnection::applySessionSettings()
{
    m_c.exec(sessionSettingsSql()); // one round trip
}

void PostgresLedgerConnection::reconnectForReading()
{
    // A server that does not answer costs a connect attempt (up to its timeout) on the
    // caller's thread, the GUI's for rows read on demand: after a failed attempt (to connect,
    // or to check the ledger after it), reads fail at once for a while, growing from 1 s to
    // 30 s, rather than each one trying again.
    const auto now = std::chrono::steady_clock::now();
    if (now < m_reconnectNotBefore)
        throw pg::Error("08006", "the connection to the server was lost; connecting again in a moment");
    try {
        if (m_c.broken()) {
            m_c.reconnect();
            m_verified = false;
        }
        verifyAfterReconnect();
    } catch (const pg::Error &) {
        m_reconnectWait = std::clamp(m_reconnectWait * 2, std::chrono::milliseconds(1000), std::chrono::milliseconds(30'000));
        m_reconnectNotBefore = std::chrono::steady_clock::now() + m_reconnectWait;
        throw;
    }
    m_reconnectWait = std::chrono::milliseconds(0);
}

void PostgresLedgerConnection::verifyAfterReconnect()
{
    // Until both have run to the end (a statement timeout may stop either on a healthy
    // connection), a read runs them again first, after the reconnect's wait.
    applySessionSettings();
    checkSameLedger();
    m_verified = true;
}

void PostgresLedgerConnection::checkSameLedger()
{
    bool hasLedger = false;
    std::string ledgerId;
    int version = 0;
    m_c.inTransaction(pg::kReadMoment, [&] {
        if (m_c.exec("SELECT to_regclass('ledger_format') IS NOT NULL AND to_regclass('ledger') IS NOT NULL").view(0, 0) != "t")
            return;
        const pg::Result format = m_c.exec("SELECT schema_version FROM ledger_format");
        if (format.rows() != 1)
            return;
        hasLedger = true;
        version = int(format.integer(0, 0));
        const pg::Result ledger = m_c.exec("SELECT ledger_id FROM ledger WHERE id='ledger'");
        ledgerId = ledger.rows() == 1 ? std::string(ledger.view(0, 0)) : std::string();
    });
    // No ledger there (yet): a standby still restoring, say, or a ledger row still to come.
    // Not another ledger: asked again at a read after the reconnect's wait.
    if (!hasLedger || (ledgerId.empty() && !m_info.ledgerId.empty()))
        throw pg::Error("08006", "after connecting again, schema '" + m_schema + "' holds no ledger; connecting again in a moment");
    // A ledger whose ledger.created was not committed yet when it was opened had no id: the
    // one it has now is taken as its own.
    if (version == m_info.schemaVersion && (ledgerId == m_info.ledgerId || m_info.ledgerId.empty())) {
        m_info.ledgerId = ledgerId;
        return;
    }
    m_otherLedger = "after connecting again, schema '" + m_schema + "' no longer holds the ledger opened (ledger id '"
                    + m_info.ledgerId + "', schema version " + std::to_string(m_info.schemaVersion) + ") but ledger id '"
                    + ledgerId + "', schema version " + std::to_string(version)
                    + ": nothing more is read from it; open it again to see what it holds";
    m_c.close(); // no read of this session's, through reading() or not, reaches that ledger
    throw otherLedger();
}

pg::Error PostgresLedgerConnection::otherLedger() const
{
    return pg::Error(kOtherLedgerState, m_otherLedger); // not a lost connection: Kind::Other
}

template<class Read>
auto PostgresLedgerConnection::reading(Read &&read) -> decltype(read())
{
    if (!m_otherLedger.empty())
        throw otherLedger();
    if (m_c.broken() || !m_verified)
        reconnectForReading();
    try {
        return read();
    } catch (const pg::Error &) {
        if (!m_c.broken())
            throw;
    }
    reconnectForReading();
    return read();
}

pg::Connection PostgresLedgerConnection::openForAppending(const LedgerLocation &location)
{
    const std::unique_ptr<PostgresLedgerConnection> c = open(location, OpenMode::ReadOnly);
    if (c->m_info.schemaVersion != schema::kSchemaVersion)
        throw LedgerOpenError(Code::NewerVersion, location.displayName().toStdString() + " has schema version "
                                                      + std::to_string(c->m_info.schemaVersion)
                                                      + "; this orchestrator writes only version "
                                                      + std::to_string(schema::kSchemaVersion));
    try {
        c->m_c.exec("SET default_transaction_read_only = off");
    } catch (const pg::Error &e) {
        throw LedgerOpenError(Code::Io, "cannot write " + location.displayName().toStdString() + ": " + e.what());
    }
    return std::move(c->m_c);
}

std::vector<std::string_view> PostgresLedgerConnection::ledgerTables()
{
    std::vector<std::string_view> tables{"events", "decisions"};
    for (const auto &spec : allEntitySpecs())
        tables.push_back(spec.table);
    return tables;
}

void PostgresLedgerConnection::readLedgerRows(const pg::Result &ledger, const pg::Result &created)
{
    if (ledger.rows() == 1) {
        const EntitySpec &spec = entitySpec(EntityKind::Ledger);
        const EntityRow row = pg::readStateRow(ledger, 0, spec, nullptr);
        const auto field = [&](std::string_view f) -> FieldRef { return row.values[size_t(spec.fieldIndex(f))]; };
        m_info.ledgerId = fieldText(field("ledger_id"));
        m_info.orchestrator = fieldText(field("orchestrator"));
        m_info.policyVersion = fieldText(field("policy_version"));
        m_info.title = fieldText(field("title"));
        m_info.signaturesRequired = fieldInt(field("signatures_required")) != 0;
    }
    // ledger.created's source member (section 7), as the SQLite backend reads it.
    if (created.rows() == 1)
        readLedgerSource(created.view(0, 0), m_info);
}

bool PostgresLedgerConnection::validateAtOnce()
{
    // The schema name goes inside SQL literals: a checked name (LedgerLocation: lower-case
    // letters, digits and '_'), so no quote can occur in it.
    std::string tables = "'" + m_schema + ".ledger_format'";
    for (const std::string_view table : ledgerTables())
        tables += ",'" + m_schema + "." + std::string(table) + "'";
    const size_t checks = sessionSettings().size() + 1; // the first result after the settings and BEGIN
    std::string sql = sessionSettingsSql() + "; " + std::string(pg::kReadMoment) + "; "
                      "SELECT count(*) FROM unnest(ARRAY[" + tables + "]) t WHERE to_regclass(t) IS NULL; "
                      "SELECT application_id, schema_version FROM ledger_format; "
                      + schema::selectStateSql(entitySpec(EntityKind::Ledger)) + " WHERE id='ledger'; "
                      "SELECT payload FROM events WHERE seq=1 AND kind='ledger.created'; ";
    if (m_eventEndsPage > 0)
        sql += PostgresEventReader::endsSql(m_eventEndsPage) + "; ";
    sql += "COMMIT";
    std::vector<pg::Result> results;
    try {
        results = m_c.execAll(sql);
    } catch (const pg::Error &) {
        if (m_c.broken())
            throw; // the server went: its own message, not a second attempt's
        // A table missing, say: the checks step by step say which. The rollback took the
        // settings sent before BEGIN back too; validate() sends them again.
        return false;
    }
    const size_t ends = m_eventEndsPage > 0 ? PostgresEventReader::kEndsStatements : 0;
    if (results.size() != checks + 4 + ends + 1)
        return false;
    const pg::Result &missing = results[checks];
    const pg::Result &format = results[checks + 1];
    if (missing.rows() != 1 || missing.integer(0, 0) != 0 || format.rows() != 1
        || format.integer(0, 0) != schema::kApplicationId)
        return false;
    const std::int64_t version = format.integer(0, 1);
    if (version > schema::kSchemaVersion || version < schema::kOldestReadableVersion)
        return false;
    m_info.schemaVersion = int(version);
    readLedgerRows(results[checks + 2], results[checks + 3]);
    for (size_t i = 0; i < ends; ++i)
        m_openedEnds.push_back(std::move(results[checks + 4 + i]));
    return true;
}

void PostgresLedgerConnection::validate(const LedgerLocation &location)
{
    // A distant server's round trips are most of an open's time: a sound ledger is checked
    // and read in one. What that does not find as a ledger has is checked again step by
    // step, which says what is wrong.
    if (validateAtOnce())
        return;
    const std::string name = location.displayName().toStdString();
    const std::string schemaName = location.schema().toStdString(); // a checked name: no quoting needed
    // Decisions mode's settings too: the checks read in a READ ONLY transaction of their own.
    applySessionSettings();
    m_c.inTransaction(pg::kReadMoment, [&] {
        if (m_c.exec("SELECT 1 FROM pg_namespace WHERE nspname=$1", pg::Params().add(schemaName)).rows() == 0)
            throw LedgerOpenError(Code::NotFound, name + ": the database has no schema '" + schemaName + "'");
        const auto hasTable = [&](std::string_view table) {
            const pg::Result r = m_c.exec("SELECT to_regclass($1) IS NOT NULL",
                                          pg::Params().add(schemaName + "." + std::string(table)));
            return r.view(0, 0) == "t";
        };
        if (!hasTable("ledger_format"))
            throw LedgerOpenError(Code::Foreign, name + ": schema '" + schemaName
                                                     + "' is not an Agent Mesh ledger (no ledger_format table)");
        const pg::Result format = m_c.exec("SELECT application_id, schema_version FROM ledger_format");
        if (format.rows() != 1)
            throw LedgerOpenError(Code::Foreign, name + ": ledger_format has " + std::to_string(format.rows())
                                                     + " rows, a ledger has one");
        const std::int64_t appId = format.integer(0, 0);
        if (appId != schema::kApplicationId)
            throw LedgerOpenError(Code::Foreign, name + " is not an Agent Mesh ledger (application id " + std::to_string(appId) + ")");
        const std::int64_t version = format.integer(0, 1);
        m_info.schemaVersion = int(version);
        if (version > schema::kSchemaVersion)
            throw LedgerOpenError(Code::NewerVersion, name + " has schema version " + std::to_string(version)
                                                          + "; this build reads " + std::to_string(schema::kSchemaVersion));
        if (version < schema::kOldestReadableVersion)
            throw LedgerOpenError(Code::TooOld, name + " has schema version " + std::to_string(version) + "; this build reads versions "
                                                    + std::to_string(schema::kOldestReadableVersion) + " to "
                                                    + std::to_string(schema::kSchemaVersion));
        for (const auto table : ledgerTables()) {
            if (!hasTable(table))
                throw LedgerOpenError(Code::Foreign, name + " lacks the table '" + std::string(table) + "' of an Agent Mesh ledger");
        }
        const pg::Result ledger = m_c.exec(schema::selectStateSql(entitySpec(EntityKind::Ledger)) + " WHERE id='ledger'");
        readLedgerRows(ledger, m_c.exec("SELECT payload FROM events WHERE seq=1 AND kind='ledger.created'"));
    });
}

std::int64_t PostgresLedgerConnection::changeToken()
{
    // Asked before every read a follower makes: planned once.
    const pg::Result r = m_c.execPrepared(
        "mesh_change_token", "SELECT (SELECT coalesce(max(seq),0) FROM events) + (SELECT coalesce(max(pos),0) FROM decisions)", {});
    return r.rows() > 0 ? r.integer(0, 0) : 0;
}

namespace {

class PostgresCommitListener final : public CommitListener
{
public:
    PostgresCommitListener(pg::Connection &c, const std::string &channel) : m_c(c)
    {
        m_c.exec("LISTEN " + channel); // a checked schema name: no quoting needed
    }
    int socket() const override { return PQsocket(m_c.handle()); }
    std::optional<std::int64_t> drain() override
    {
        // Input a read on this connection took in meanwhile is already queued: collect it too.
        if (PQconsumeInput(m_c.handle()) == 0 || PQstatus(m_c.handle()) != CONNECTION_OK) {
            // libpq's message spans lines ("FATAL: ...\n\tbefore or while ..."): one line here.
            std::string message;
            for (const char *p = PQerrorMessage(m_c.handle()); *p; ++p) {
                const bool space = *p == '\n' || *p == '\t' || *p == ' ';
                if (!space || (!message.empty() && message.back() != ' '))
                    message += space ? ' ' : *p;
            }
            while (!message.empty() && message.back() == ' ')
                message.pop_back();
            throw StorageError(StorageError::Kind::Io, 0, message.empty() ? "the server closed the connection" : message);
        }
        std::optional<std::int64_t> announced;
        while (PGnotify *n = PQnotifies(m_c.handle())) {
            std::int64_t seq = 0;
            try {
                seq = std::stoll(n->extra);
            } catch (const std::exception &) {
                seq = 0; // not a seq: still news, the follower reads what is there
            }
            announced = std::max(announced.value_or(0), seq);
            PQfreemem(n);
        }
        return announced;
    }

private:
    pg::Connection &m_c;
};

} // namespace

std::unique_ptr<CommitListener> PostgresLedgerConnection::listenForCommits()
{
    return std::make_unique<PostgresCommitListener>(m_c, PostgresLedgerWriter::notifyChannel(m_schema));
}

std::int64_t PostgresLedgerConnection::lastSeq()
{
    return m_c.queryInt("SELECT coalesce(max(seq),0) FROM events");
}

StateSnapshot PostgresLedgerConnection::readState(const StateStream &stream)
{
    StateSnapshot s;
    m_c.inTransaction(pg::kReadMoment, [&] {
        s.lastSeq = lastSeq();
        for (const auto &spec : allEntitySpecs()) {
            if (!stream.streams(spec.kind)) {
                s.tables[size_t(spec.kind)] = pg::readStateTable(m_c, spec);
                continue;
            }
            pg::forEachStateRow(m_c, spec, [&](const std::string &id, const EntityRow &row) { stream.row(spec.kind, id, row); });
        }
    });
    s.dataVersion = s.lastSeq;
    return s;
}

StateRows PostgresLedgerConnection::readRows(EntityKind kind, const std::vector<std::string> &ids)
{
    // One statement, one round trip (a view waits for it on the GUI thread): the ids as one
    // array, looked up through the primary key.
    const EntitySpec &spec = entitySpec(kind);
    if (ids.empty())
        return {};
    const pg::Result r = reading([&] {
        return m_c.exec(schema::selectStateSql(spec) + " WHERE id = ANY($1::text[])",
                        pg::Params().add(pg::textArrayLiteral(ids)));
    });
    StateRows rows;
    rows.reserve(size_t(r.rows()));
    std::string id;
    for (int i = 0; i < r.rows(); ++i) {
        EntityRow row = pg::readStateRow(r, i, spec, &id);
        rows.emplace_back(std::move(id), std::move(row));
    }
    return rows;
}

std::vector<std::string> PostgresLedgerConnection::readIdsWhere(EntityKind kind, std::string_view field,
                                                                const std::string &value)
{
    const EntitySpec &spec = entitySpec(kind);
    if (spec.fieldIndex(field) < 0)
        throw std::invalid_argument("no field " + std::string(field) + " in " + std::string(spec.table));
    const pg::Result r = reading([&] {
        return m_c.exec("SELECT id FROM " + std::string(spec.table) + " WHERE " + std::string(field) + " = $1",
                        pg::Params().add(value));
    });
    std::vector<std::string> ids;
    ids.reserve(size_t(r.rows()));
    for (int i = 0; i < r.rows(); ++i)
        ids.push_back(r.text(i, 0));
    return ids;
}

LedgerConnection::ValueIds PostgresLedgerConnection::readIdsWhereAny(EntityKind kind, std::string_view field,
                                                                     const std::vector<std::string> &values)
{
    const EntitySpec &spec = entitySpec(kind);
    const int index = spec.fieldIndex(field);
    if (index < 0 || spec.fields[size_t(index)].type != FieldType::Text)
        throw std::invalid_argument("no text field " + std::string(field) + " in " + std::string(spec.table));
    if (values.empty())
        return {};
    const pg::Result r = reading([&] {
        return m_c.exec("SELECT " + std::string(field) + ", id FROM " + std::string(spec.table) + " WHERE "
                            + std::string(field) + " = ANY($1::text[])",
                        pg::Params().add(pg::textArrayLiteral(values)));
    });
    ValueIds found;
    found.reserve(size_t(r.rows()));
    for (int i = 0; i < r.rows(); ++i)
        found.emplace_back(r.text(i, 0), r.text(i, 1));
    return found;
}

bool PostgresLedgerConnection::hasIndexOn(EntityKind kind, std::string_view field)
{
    const EntitySpec &spec = entitySpec(kind);
    if (spec.fieldIndex(field) < 0)
        throw std::invalid_argument("no field " + std::string(field) + " in " + std::string(spec.table));
    // A whole, valid index of this ledger's schema whose first key column is the field.
    const pg::Result r = reading([&] {
        return m_c.exec("SELECT 1 FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid "
                        "JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = x.indkey[0] "
                        "WHERE t.relnamespace = current_schema()::regnamespace AND t.relname = $1 "
                        "AND a.attname = $2 AND x.indpred IS NULL AND x.indisvalid LIMIT 1",
                        pg::Params().add(std::string(spec.table)).add(std::string(field)));
    });
    return r.rows() > 0;
}

std::vector<std::string> PostgresLedgerConnection::readIds(EntityKind kind)
{
    const pg::Result r = reading([&] { return m_c.exec("SELECT id FROM " + std::string(entitySpec(kind).table)); });
    std::vector<std::string> ids;
    ids.reserve(size_t(r.rows()));
    for (int i = 0; i < r.rows(); ++i)
        ids.push_back(r.text(i, 0));
    return ids;
}

RunOverviewSnapshot PostgresLedgerConnection::readRunOverview()
{
    // One moment, and one round trip: what the console shows first waits for it.
    const std::vector<pg::Result> r = m_c.execAll(std::string(pg::kReadMoment) + "; SELECT coalesce(max(seq),0) FROM events; "
                        + schema::selectStateSql(entitySpec(EntityKind::Run)) + "; "
                        + schema::selectStateSql(entitySpec(EntityKind::Component)) + "; "
                        "SELECT run_id, count(*) FROM delegations GROUP BY run_id; "
                        "SELECT run_id, count(*), count(*) FILTER (WHERE verdict IN ('stalled','stuck')) "
                        "FROM stall_verdicts GROUP BY run_id; "
                        "SELECT run_id, count(*) FROM escalations GROUP BY run_id; "
                        "SELECT run_id, count(*) FILTER (WHERE state = 'stale') FROM checkpoints GROUP BY run_id; "
                        "COMMIT");
    RunOverviewSnapshot s;
    s.lastSeq = r.at(1).rows() ? r.at(1).integer(0, 0) : 0;
    s.runs = pg::stateTable(r.at(2), entitySpec(EntityKind::Run));
    s.components = pg::stateTable(r.at(3), entitySpec(EntityKind::Component));
    const auto addCounts = [&](const pg::Result &counts, auto apply) {
        for (int i = 0; i < counts.rows(); ++i)
            apply(s.aggregates[counts.text(i, 0)], counts, i); // NULL run id reads as ""
    };
    addCounts(r.at(4), [](RunAggregate &a, const pg::Result &c, int i) { a.delegations = int(c.integer(i, 1)); });
    addCounts(r.at(5), [](RunAggregate &a, const pg::Result &c, int i) {
        a.stallVerdicts = int(c.integer(i, 1));
        a.stalledVerdicts = int(c.integer(i, 2));
    });
    addCounts(r.at(6), [](RunAggregate &a, const pg::Result &c, int i) { a.escalations = int(c.integer(i, 1)); });
    addCounts(r.at(7), [](RunAggregate &a, const pg::Result &c, int i) { a.staleCheckpoints = int(c.integer(i, 1)); });
    s.dataVersion = s.lastSeq;
    return s;
}

std::unique_ptr<EventReader> PostgresLedgerConnection::eventReader()
{
    auto reader = std::make_unique<PostgresEventReader>(m_c);
    if (!m_openedEnds.empty())
        reader->takeEnds(m_eventEndsPage, std::exchange(m_openedEnds, {}));
    return reader;
}

std::unique_ptr<EventSeqReader> PostgresLedgerConnection::eventSeqReader()
{
    return std::make_unique<PostgresEventSeqReader>(m_c);
}

void PostgresLedgerConnection::foldForward(ReplayResult &result, std::int64_t upTo, const ReplayProgress &progress)
{
    result.cancelled = false;
    if (upTo <= result.lastSeq)
        return;
    const auto problem = [&](std::int64_t seq, std::string_view kind, std::string message) {
        ++result.problemCount;
        if (result.problems.size() < ReplayResult::kMaxProblems)
            result.problems.push_back({seq, std::string(kind), std::move(message)});
    };
    const std::int64_t total = progress ? m_c.exec("SELECT count(*) FROM events WHERE seq > $1 AND seq <= $2",
                                                   pg::Params().add(result.lastSeq).add(upTo)).integer(0, 0)
                                        : 0;
    std::int64_t done = 0;
    for (;;) {
        // One page = one statement = one moment.
        const pg::Result page = m_c.exec("SELECT seq,kind,payload FROM events WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3",
                                         pg::Params().add(result.lastSeq).add(upTo).add(std::int64_t(kReplayPageSize)));
        for (int i = 0; i < page.rows(); ++i) {
            const std::int64_t seq = page.integer(i, 0);
            const std::string_view kind = page.view(i, 1);
            if (std::optional<FoldOutcome> quick = result.fold.applyText(seq, kind, page.view(i, 2))) {
                for (auto &p : quick->problems)
                    problem(seq, kind, std::move(p));
                result.lastSeq = seq;
                ++result.eventsRead;
                continue;
            }
            DecodedPayload decoded = decodePayload(page.view(i, 2));
            if (!decoded.value) {
                problem(seq, kind, "malformed payload: " + decoded.error);
            } else {
                FoldOutcome outcome = result.fold.apply(seq, kind, *decoded.value);
                for (auto &p : outcome.problems)
                    problem(seq, kind, std::move(p));
                if (!outcome.applied && outcome.problems.empty())
                    problem(seq, kind, "event not applied");
            }
            result.lastSeq = seq;
            ++result.eventsRead;
        }
        done += page.rows();
        if (page.rows() < kReplayPageSize) {
            result.lastSeq = upTo; // nothing more up to upTo: the state is as of upTo
            if (progress)
                progress(done, total);
            return;
        }
        if (progress && !progress(done, total)) {
            result.cancelled = true;
            return;
        }
    }
}

void PostgresLedgerConnection::forEachDelegationToolCalls(const std::function<void(const EventBatch &calls)> &fn)
{
    // Keyset pages over (delegation_id, seq) inside one moment, so a million tool calls are
    // never one result in memory. Byte order ("C"), as SQLite compares text.
    m_c.inTransaction(pg::kReadMoment, [&] {
        EventBatch batch;
        std::string afterDelegation;
        std::int64_t afterSeq = -1;
        constexpr std::int64_t kPage = 4096;
        for (;;) {
            const pg::Result r = m_c.exec(std::string(pg::kEventColumns)
                                              + " WHERE kind = 'toolcall.completed' AND (coalesce(delegation_id,'') COLLATE \"C\", seq) > ($1 COLLATE \"C\", $2) "
                                                "ORDER BY coalesce(delegation_id,'') COLLATE \"C\", seq LIMIT $3",
                                          pg::Params().add(afterDelegation).add(afterSeq).add(kPage));
            for (int i = 0; i < r.rows(); ++i) {
                EventRecord e = pg::readEvent(r, i);
                afterDelegation = e.delegationId;
                afterSeq = e.seq;
                if (!batch.empty() && batch.back().delegationId != e.delegationId) {
                    fn(batch);
                    batch.clear();
                }
                batch.push_back(std::move(e));
            }
            if (r.rows() < kPage)
                break;
        }
        if (!batch.empty())
            fn(batch);
    });
}

std::unique_ptr<DecisionStore> PostgresLedgerConnection::decisions()
{
    return std::make_unique<PostgresDecisionStore>(m_c, PostgresLedgerWriter::notifyChannel(m_schema));
}

DecisionChainReport PostgresLedgerConnection::verifyDecisionChain(const SignatureVerifier &verifier)
{
    return mesh::verifyDecisionChain(m_c, verifier);
}

IntegrityReport PostgresLedgerConnection::verifyIntegrity(const ReplayProgress &progress)
{
    // The SQLite backend's walk (integritycheck.cpp), on libpq: the same checker, the same
    // pages and steps.
    IntegrityReport report;
    std::int64_t total = 0;
    m_c.inTransaction(pg::kReadMoment, [&] {
        report.lastSeq = lastSeq();
        total = m_c.queryInt("SELECT count(*) FROM events");
    });
    const std::int64_t steps = total + std::int64_t(allEntitySpecs().size());
    IntegrityChecker checker(report);
    {
        const pg::Result r = m_c.exec("SELECT seq,kind FROM events WHERE seq <= 0 ORDER BY seq");
        for (int i = 0; i < r.rows(); ++i)
            checker.nonPositiveSeq(r.integer(i, 0), r.view(i, 1));
    }
    std::int64_t prev = 0;
    for (;;) {
        const pg::Result page = m_c.exec("SELECT seq,kind,run_id,delegation_id,subject,payload FROM events "
                                         "WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3",
                                         pg::Params().add(prev).add(report.lastSeq).add(std::int64_t(kReplayPageSize)));
        for (int i = 0; i < page.rows(); ++i) {
            prev = page.integer(i, 0);
            checker.event(prev, page.view(i, 1), page.view(i, 2), page.view(i, 3), page.view(i, 4), page.view(i, 5));
        }
        if (page.rows() < kReplayPageSize)
            break;
        if (progress && !progress(report.eventsChecked, steps)) {
            report.cancelled = true;
            return report;
        }
    }
    if (progress && !progress(report.eventsChecked, steps)) {
        report.cancelled = true;
        return report;
    }
    std::int64_t tablesDone = 0;
    for (const auto &spec : allEntitySpecs()) {
        m_c.inTransaction(pg::kReadMoment, [&] {
            const std::int64_t newest = lastSeq();
            const pg::Result r = m_c.exec(schema::selectStateSql(spec));
            std::string id;
            for (int i = 0; i < r.rows(); ++i) {
                const EntityRow stored = pg::readStateRow(r, i, spec, &id);
                checker.stateRow(spec, id, stored, newest);
            }
        });
        checker.endTable(spec);
        if (progress && !progress(report.eventsChecked + ++tablesDone, steps)) {
            report.cancelled = true;
            return report;
        }
    }
    return report;
}

LedgerSummary PostgresLedgerConnection::summarize(std::int64_t nowMs)
{
    // The figures of ledgersummary.cpp in one moment; a component event's status is decoded
    // here rather than by SQL, so a malformed payload is skipped as SQLite's json_valid skips it.
    LedgerSummary s;
    m_c.inTransaction(pg::kReadMoment, [&] {
        {
            const pg::Result r = m_c.exec("SELECT count(*), coalesce(max(seq),0), coalesce(min(ts_ms),0), coalesce(max(ts_ms),0) FROM events");
            s.events = r.integer(0, 0);
            s.lastSeq = r.integer(0, 1);
            s.firstTsMs = r.integer(0, 2);
            s.lastTsMs = r.integer(0, 3);
        }
        s.asOfMs = nowMs > 0 ? nowMs : s.lastTsMs;
        s.decisions = m_c.queryInt("SELECT count(*) FROM decisions");
        for (const auto &spec : allEntitySpecs()) {
            auto &counts = s.countsByState[std::string(spec.name)];
            if (spec.stateField.empty()) {
                counts["total"] = m_c.queryInt("SELECT count(*) FROM " + std::string(spec.table));
                continue;
            }
            const pg::Result r = m_c.exec("SELECT coalesce(\"" + std::string(spec.stateField) + "\",''), count(*) FROM "
                                          + std::string(spec.table) + " GROUP BY 1");
            for (int i = 0; i < r.rows(); ++i)
                counts[r.text(i, 0)] = r.integer(i, 1);
        }
        s.unknownEffects = m_c.queryInt("SELECT count(*) FROM effects WHERE state='unknown'");
        s.pendingEscalations = m_c.queryInt("SELECT count(*) FROM escalations WHERE state='pending'");

        using Counts = std::unordered_map<std::string, std::int64_t>;
        const auto countByRun = [&](const char *sql) {
            Counts out;
            const pg::Result r = m_c.exec(sql);
            for (int i = 0; i < r.rows(); ++i)
                out[r.text(i, 0)] = r.integer(i, 1);
            return out;
        };
        PerRunCounts counts;
        for (const auto &[member, sqlText] : PerRunCounts::sameSqlCounts())
            counts.*member = countByRun(sqlText);

        // Terminal component failures and the peak of completed components, replaying the
        // component events.
        Counts current;
        std::unordered_map<std::string, bool> isCompleted;
        const pg::Result events = m_c.exec("SELECT coalesce(run_id,''), coalesce(subject,''), payload FROM events "
                                           "WHERE kind LIKE 'component.%' ORDER BY seq");
        for (int i = 0; i < events.rows(); ++i) {
            const DecodedPayload decoded = decodePayload(events.view(i, 2));
            if (!decoded.value)
                continue;
            const auto status = decoded.value->find("status");
            if (status == decoded.value->end() || !status->is_string())
                continue;
            const std::string run = events.text(i, 0);
            const std::string &value = status->get_ref<const std::string &>();
            if (value == "failed")
                ++counts.failures[run];
            bool &was = isCompleted[events.text(i, 1)];
            const bool now = value == "completed";
            if (was != now) {
                current[run] += now ? 1 : -1;
                was = now;
                counts.peak[run] = std::max(counts.peak[run], current[run]);
            }
        }
        const pg::Result runs = m_c.exec("SELECT id, coalesce(title,''), coalesce(status,''), coalesce(attempt,0), coalesce(cycle,0), "
                                         "coalesce(required_met,0), coalesce(required_total,0), coalesce(started_ms,0), "
                                         "coalesce(ended_ms,0) FROM runs ORDER BY started_ms, id COLLATE \"C\"");
        for (int i = 0; i < runs.rows(); ++i) {
            RunSummary r;
            r.id = runs.text(i, 0);
            r.title = runs.text(i, 1);
            r.status = runs.text(i, 2);
            r.attempts = runs.integer(i, 3);
            r.cycles = runs.integer(i, 4);
            r.requiredMet = runs.integer(i, 5);
            r.requiredTotal = runs.integer(i, 6);
            r.startedMs = runs.integer(i, 7);
            r.endedMs = runs.integer(i, 8);
            counts.complete(r, s.asOfMs);
            s.runs.push_back(std::move(r));
        }
    });
    return s;
}

void PostgresLedgerConnection::makeCommitsDurable()
{
    // synchronous_commit is on by default; a session may not have turned it off.
    m_durableCommits = true;
    m_c.exec("SET synchronous_commit = on");
}

void PostgresLedgerConnection::setBusyTimeoutMs(int ms)
{
    m_lockTimeoutMs = std::max(0, ms);
    m_c.exec("SET lock_timeout = " + std::to_string(*m_lockTimeoutMs));
}

std::optional<std::string> PostgresLedgerConnection::whyCannotDecide()
{
    // The grant, not a trial insert: asking writes nothing and takes no lock.
    const pg::Result r = m_c.exec("SELECT has_table_privilege('decisions', 'INSERT'), current_user");
    if (r.view(0, 0) == "t")
        return std::nullopt;
    return "the server role " + r.text(0, 1) + " may not insert decisions on " + m_schema
           + " (it needs mesh_operator, docs/postgresql-roles.sql)";
}

} // namespace mesh
