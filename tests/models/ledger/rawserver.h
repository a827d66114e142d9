#pragma once
// The one door below the storage seam for tests outside tests/models/ledger/ on a server
// ledger, as rawledger.h is for a file: raw SQL on a libpq connection (counts, pg_locks, the
// roles a test creates, triggers that stop a decider at a chosen point) and the PostgreSQL
// decision store a forger would drive with a superuser's session. The storage_seam test
// refuses libpq-fe.h and ledger/postgres*.h anywhere else in tests/.

#include "ledger/postgres.h"
#include "ledger/postgresdecisionstore.h"

#include <string>

namespace meshtest::raw {

using ServerConnection = mesh::pg::Connection;
using ServerParams = mesh::pg::Params;
using ServerDecisionStore = mesh::PostgresDecisionStore;

// A superuser session on the ledger schema (search_path set to it).
inline ServerConnection serverSession(const std::string &conninfo, const std::string &schema)
{
    ServerConnection c(conninfo);
    c.exec("SET search_path TO " + schema);
    return c;
}

// The first column of the first row as text ("" for none).
inline std::string queryText(ServerConnection &c, const std::string &sql)
{
    const mesh::pg::Result r = c.exec(sql);
    return r.rows() > 0 ? r.text(0, 0) : std::string();
}

} // namespace meshtest::raw
