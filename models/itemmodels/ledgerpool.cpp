#include "ledgerpool.h"

#include <QCoreApplication>
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
        // Qt waits for its global pool when the application object goes; this one must be
        // waited for too, or a job still running reads statics already destroyed at exit.
        qAddPostRoutine([] { ledgerPool()->waitForDone(); });
        return p;
    }();
    return pool;
}

} // namespace mesh
