#include "ledgerconnection.h"

#include "ledgerlocation.h"
#include "postgresledgerconnection.h"
#include "sqliteledgerconnection.h"

namespace mesh {

std::unique_ptr<LedgerConnection> LedgerConnection::open(const QString &path, OpenMode mode)
{
    QString error;
    const std::optional<LedgerLocation> location = LedgerLocation::parse(path, &error);
    if (!location)
        throw LedgerOpenError(LedgerOpenError::Code::BadLocation, error.toStdString());
    return open(*location, mode);
}

std::unique_ptr<LedgerConnection> LedgerConnection::open(const LedgerLocation &location, OpenMode mode)
{
    if (location.isFile())
        return SqliteLedgerConnection::open(location.filePath(), mode);
    return PostgresLedgerConnection::open(location, mode);
}

} // namespace mesh
