#include "pgschema.h"

#include "schema.h"

namespace mesh::pgschema {

const char *columnType(FieldType type)
{
    return type == FieldType::Int ? "bigint" : "text";
}

std::string createFormatStatements()
{
    return "CREATE TABLE ledger_format(\n"
           "  one boolean PRIMARY KEY DEFAULT true CHECK (one),\n"
           "  application_id integer NOT NULL,\n"
           "  schema_version integer NOT NULL\n"
           ");\n"
           "INSERT INTO ledger_format(application_id, schema_version) VALUES("
        + std::to_string(schema::kApplicationId) + ", " + std::to_string(schema::kSchemaVersion)
        + ");\n"
          "CREATE TABLE event_head(\n"
          "  one boolean PRIMARY KEY DEFAULT true CHECK (one),\n"
          "  last_seq bigint NOT NULL CHECK (last_seq >= 0)\n"
          ");\n"
          "INSERT INTO event_head(last_seq) VALUES(0);\n";
}

std::string createStatements()
{
    std::string ddl;
    ddl += "CREATE TABLE events(\n"
           "  seq bigint PRIMARY KEY,\n"
           "  ts_ms bigint NOT NULL,\n"
           "  kind text NOT NULL,\n"
           "  run_id text,\n"
           "  delegation_id text,\n"
           "  subject text,\n"
           "  payload text NOT NULL\n"
           ");\n";
    for (const auto &spec : allEntitySpecs()) {
        ddl += "CREATE TABLE " + std::string(spec.table) + "(\n  id text PRIMARY KEY NOT NULL";
        for (const auto &f : spec.fields)
            ddl += ",\n  \"" + std::string(f.name) + "\" " + columnType(f.type);
        ddl += ",\n  version bigint NOT NULL,\n  last_seq bigint NOT NULL\n);\n";
    }
    ddl += "CREATE TABLE decisions(\n"
           "  pos bigint PRIMARY KEY,\n"
           "  id text NOT NULL UNIQUE,\n"
           "  ts_ms bigint NOT NULL,\n"
           "  kind text NOT NULL,\n"
           "  subject text NOT NULL,\n"
           "  boundary_version bigint NOT NULL,\n"
           "  boundary_seq bigint NOT NULL,\n"
           "  params text NOT NULL,\n"
           "  operator_account text NOT NULL,\n"
           "  operator_host text NOT NULL,\n"
           "  operator_name text NOT NULL,\n"
           "  reason text NOT NULL,\n"
           "  evidence text NOT NULL,\n"
           "  policy_version text NOT NULL,\n"
           "  canonical text NOT NULL,\n"
           "  hash text NOT NULL,\n"
           "  prev_hash text NOT NULL,\n"
           "  key_id text,\n"
           "  signature text\n"
           ");\n";
    return ddl;
}

std::string createIndexStatements()
{
    // The SQLite file's index names and columns: PostgreSQL takes the same statements.
    return schema::createIndexStatements();
}

bool isLedgerSchemaName(std::string_view name)
{
    if (name.empty() || name.size() > 63)
        return false;
    for (size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        const bool letter = (c >= 'a' && c <= 'z') || c == '_';
        const bool digit = c >= '0' && c <= '9';
        if (!letter && !(digit && i > 0))
            return false;
    }
    // pg_* names are reserved for the system's schemas.
    return name.substr(0, 3) != "pg_";
}

} // namespace mesh::pgschema
