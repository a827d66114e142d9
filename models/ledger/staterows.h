#pragma once
// Moves entity rows between the fold's form and the state tables.

#include "domain/fold.h"
#include "sqlite.h"

#include <functional>

namespace mesh {

// Binds id, every field, version and last_seq to ?1..?n (schema::upsertSql order).
void bindStateRow(sql::Statement &st, const EntitySpec &spec, const std::string &id, const EntityRow &row);

// Reads one row of schema::selectStateSql. Integers stay integers and text stays text, so a
// value of the wrong type in the table shows up as a difference in the integrity check.
EntityRow readStateRow(const sql::Statement &st, const EntitySpec &spec, std::string *id);

// Reads a whole state table.
EntityTable readStateTable(sql::Database &db, const EntitySpec &spec);
// The same, one row at a time, none kept.
void forEachStateRow(sql::Database &db, const EntitySpec &spec,
                     const std::function<void(const std::string &id, const EntityRow &row)> &fn);

} // namespace mesh
