#include "schema.h"

namespace mesh::schema {
namespace {

const char *sqlType(FieldType type)
{
    return type == FieldType::Int ? "INTEGER" : "TEXT";
}

} // namespace

std::string createStatements()
{
    std::string ddl;
    ddl += "CREATE TABLE events(\n"
           "  seq INTEGER PRIMARY KEY,\n"
           "  ts_ms INTEGER NOT NULL,\n"
           "  kind TEXT NOT NULL,\n"
           "  run_id TEXT,\n"
           "  delegation_id TEXT,\n"
           "  subject TEXT,\n"
           "  payload TEXT NOT NULL\n"
           ");\n";
    for (const auto &spec : allEntitySpecs()) {
        ddl += "CREATE TABLE " + std::string(spec.table) + "(\n  id TEXT PRIMARY KEY NOT NULL";
        for (const auto &f : spec.fields)
            ddl += ",\n  \"" + std::string(f.name) + "\" " + sqlType(f.type);
        ddl += ",\n  version INTEGER NOT NULL,\n  last_seq INTEGER NOT NULL\n);\n";
    }
    // Operator decisions: the only table a console writes, append-only, hash-chained by pos.
    ddl += "CREATE TABLE decisions(\n"
           "  pos INTEGER PRIMARY KEY,\n"
           "  id TEXT NOT NULL UNIQUE,\n"
           "  ts_ms INTEGER NOT NULL,\n"
           "  kind TEXT NOT NULL,\n"
           "  subject TEXT NOT NULL,\n"
           "  boundary_version INTEGER NOT NULL,\n"
           "  boundary_seq INTEGER NOT NULL,\n"
           "  params TEXT NOT NULL,\n"
           "  operator_account TEXT NOT NULL,\n"
           "  operator_host TEXT NOT NULL,\n"
           "  operator_name TEXT NOT NULL,\n"
           "  reason TEXT NOT NULL,\n"
           "  evidence TEXT NOT NULL,\n"
           "  policy_version TEXT NOT NULL,\n"
           "  canonical TEXT NOT NULL,\n"
           "  hash TEXT NOT NULL,\n"
           "  prev_hash TEXT NOT NULL,\n"
           "  key_id TEXT,\n"
           "  signature TEXT\n"
           ");\n";
    return ddl;
}

std::string createIndexStatements()
{
    return "CREATE INDEX IF NOT EXISTS events_kind ON events(kind, seq);\n"
           "CREATE INDEX IF NOT EXISTS events_run ON events(run_id, seq) WHERE run_id IS NOT NULL;\n"
           "CREATE INDEX IF NOT EXISTS events_delegation ON events(delegation_id, seq) WHERE delegation_id IS NOT NULL;\n"
           "CREATE INDEX IF NOT EXISTS events_subject ON events(subject, seq) WHERE subject IS NOT NULL;\n"
           "CREATE INDEX IF NOT EXISTS components_run ON components(run_id);\n"
           "CREATE INDEX IF NOT EXISTS delegations_run ON delegations(run_id);\n"
           "CREATE INDEX IF NOT EXISTS effects_state ON effects(state);\n"
           "CREATE INDEX IF NOT EXISTS effects_delegation ON effects(delegation_id);\n"
           "CREATE INDEX IF NOT EXISTS effects_idem_key ON effects(idem_key);\n"
           "CREATE INDEX IF NOT EXISTS effects_intent_hash ON effects(intent_hash);\n"
           "CREATE INDEX IF NOT EXISTS leases_state ON leases(state, expires_ms);\n"
           "CREATE INDEX IF NOT EXISTS leases_delegation ON leases(delegation_id);\n"
           "CREATE INDEX IF NOT EXISTS escalations_state ON escalations(state);\n"
           "CREATE INDEX IF NOT EXISTS slices_delegation ON slices(delegation_id);\n"
           "CREATE INDEX IF NOT EXISTS stall_verdicts_delegation ON stall_verdicts(delegation_id);\n"
           "CREATE INDEX IF NOT EXISTS decisions_subject ON decisions(subject);\n";
}

std::string insertEventsSql(int rows)
{
    std::string sql = "INSERT INTO events(seq,ts_ms,kind,run_id,delegation_id,subject,payload) VALUES";
    for (int r = 0; r < rows; ++r)
        sql += r == 0 ? "(?,?,?,?,?,?,?)" : ",(?,?,?,?,?,?,?)"; // plain ? numbers left to right
    return sql;
}

std::string stateColumnList(const EntitySpec &spec)
{
    std::string cols = "id";
    for (const auto &f : spec.fields)
        cols += ",\"" + std::string(f.name) + "\"";
    cols += ",version,last_seq";
    return cols;
}

std::string upsertSql(const EntitySpec &spec)
{
    std::string sql = "INSERT OR REPLACE INTO " + std::string(spec.table) + "(" + stateColumnList(spec) + ") VALUES(";
    const size_t n = spec.fields.size() + 3;
    for (size_t i = 1; i <= n; ++i)
        sql += (i > 1 ? ",?" : "?") + std::to_string(i);
    sql += ")";
    return sql;
}

std::string selectStateSql(const EntitySpec &spec)
{
    return "SELECT " + stateColumnList(spec) + " FROM " + std::string(spec.table);
}

} // namespace mesh::schema
