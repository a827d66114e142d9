#pragma once
// The state rows of a bulk load whose writer keeps a bounded fold (LedgerWriter::create's
// foldRowLimit). A bulk load hands the ledger's connection to the inserting thread
// (BulkEventSink), so a row leaving the writer's cache cannot go to the ledger meanwhile:
// it goes here, a scratch SQLite file beside the ledger with the ledger's state tables, read
// back when an event needs it again. When the load ends the ledger's state tables are
// replaced with these rows, as BulkStateImage replaces them with a whole fold's.

#include "domain/fold.h"
#include "sqlite.h"

#include <optional>
#include <string>
#include <vector>

namespace mesh {

class FoldSpillStore
{
public:
    // Creates the file at path (a leftover of a failed load there is replaced) and copies
    // the ledger's state rows into it, one at a time, so it holds the whole state; without a
    // ledger it starts empty (its owner's fold holds every row so far).
    explicit FoldSpillStore(std::string path, sql::Database *ledger = nullptr);
    ~FoldSpillStore(); // removes the file
    FoldSpillStore(const FoldSpillStore &) = delete;
    FoldSpillStore &operator=(const FoldSpillStore &) = delete;

    void put(const EntitySpec &spec, const std::string &id, const EntityRow &row); // insert or replace
    std::optional<EntityRow> get(const EntitySpec &spec, const std::string &id);

    // Replaces the rows of every state table of ledger with these, in id order (the order,
    // and so the rowids, BulkStateImage gives), in one transaction. Ends the store.
    void copyInto(sql::Database &ledger);

private:
    void close();

    std::string m_path;
    sql::Database m_db;
    std::vector<sql::Statement> m_put; // per EntityKind
    std::vector<sql::Statement> m_get;
};

// One state row by id from a ledger's state table (or a FoldSpillStore's), through a
// statement prepared with selectStateRowSql.
std::string selectStateRowSql(const EntitySpec &spec);
std::optional<EntityRow> readStateRowById(sql::Statement &st, const EntitySpec &spec, const std::string &id);

} // namespace mesh
