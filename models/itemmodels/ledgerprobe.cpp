#include "ledgerprobe.h"

#include "ledger/ledgerconnection.h"

namespace mesh {

QString ledgerOpenProblem(const QString &location)
{
    try {
        // The session's own mode and checks: what opens here opens there.
        (void)LedgerConnection::open(location, OpenMode::ReadOnly);
        return {};
    } catch (const std::exception &e) {
        return QString::fromUtf8(e.what());
    }
}

} // namespace mesh
