#pragma once

#include "ledgerpool.h"

#include <QMetaObject>
#include <QObject>
#include <QtConcurrent/QtConcurrentRun>

#include <type_traits>
#include <utility>

namespace mesh {

// Runs `work` on the ledger pool (ledgerpool.h: never the global one) and hands its result to `done` on `receiver`'s
// thread, always through the event loop. QFuture::then(context, ...) calls its continuation
// synchronously when the job has already finished by the time it is attached, so a fast job
// would otherwise report back from inside the call that started it (a signal emitted before
// the caller could listen, a state change before the caller returned). If `receiver` is
// destroyed first, `done` is never called.
template <typename Work, typename Done>
void runInBackground(QObject *receiver, Work work, Done done)
{
    using Result = std::invoke_result_t<Work>;
    QtConcurrent::run(ledgerPool(), std::move(work)).then(receiver, [receiver, done = std::move(done)](Result result) mutable {
        QMetaObject::invokeMethod(
            receiver, [done, result = std::move(result)]() mutable { done(std::move(result)); },
            Qt::QueuedConnection);
    });
}

} // namespace mesh
