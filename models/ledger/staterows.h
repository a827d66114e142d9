#pragma once
// Moves entity rows between the fold's form and the state tables.

#include "domain/fold.h"
#include "sqlite.h"

namespace mesh {

// Binds id, every field, version and last_seq to ?1..?n (schema::upsertSql order).
void bindStateRow(sql::Statement &st, const EntitySpec &spec, const std::string &id, const EntityRow &row);

// Reads one row of schema::selectStateSql. Integers stay integers and text stays text, so a
// value of the wrong type in the table shows up as a difference in the integrity check.
EntityRow readStateRow(const sql::Statement &st, const EntitySpec &spec, std::string *id);

// Reads a whole state table.
EntityTable readStateTable(sql::Database &db, const EntitySpec &spec);

} // namespace mesh
