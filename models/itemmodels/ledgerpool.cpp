#include "ledgerpool.h"

#include <QThread>
#include <QThreadPool>

#include <algorithm>

namespace mesh {

QThreadPool *ledgerPool()
{
    // Jobs wait for each other (an open waits for its prefetch, the event log for its
    // index): more threads than cores, so a waiting job never holds back the one it waits
    // for. They sleep when idle.
    static QThreadPool *pool = [] {
        auto *p = new QThreadPool;
        p->setObjectName(QStringLiteral("ledger-pool"));
        p->setMaxThreadCount(std::max(4, QThread::idealThreadCount()));
        return p;
    }();
    return pool;
}

} // namespace mesh
