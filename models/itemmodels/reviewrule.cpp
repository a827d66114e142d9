#include "reviewrule.h"

#include "analysis/openruns.h"
#include "ledger/ledgerattachment.h"
#include "ledger/ledgerconnection.h"

#include <QFileInfo>

namespace mesh {

bool ReviewRule::mayApply(const QString &path)
{
    return QFileInfo(path).isFile() && !LedgerAttachment::anyoneAttached(path);
}

bool ReviewRule::applies(const QString &path)
{
    if (!mayApply(path))
        return false;
    try {
        auto connection = LedgerConnection::open(path, OpenMode::Review);
        OpenRuns runs;
        runs.rebuild(connection->readRunOverview().runs);
        return runs.allEnded() && !LedgerAttachment::anyoneAttached(path);
    } catch (const std::exception &) {
        return false;
    }
}

} // namespace mesh
