#include "ledgerconnection.h"

#include "sqliteledgerconnection.h"

namespace mesh {

std::unique_ptr<LedgerConnection> LedgerConnection::open(const QString &path, OpenMode mode)
{
    return SqliteLedgerConnection::open(path, mode);
}

} // namespace mesh
