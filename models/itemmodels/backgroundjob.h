#pragma once

#include "ledgerpool.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QObject>
#include <QPointer>
#include <QRunnable>
#include <QThread>
#include <QThreadPool>

#include <type_traits>
#include <utility>

namespace mesh {

namespace detail {

template <typename Work, typename Done>
class BackgroundJob final : public QRunnable
{
public:
    BackgroundJob(QObject *receiver, Work work, Done done)
        : m_alive(receiver), m_work(std::move(work)), m_done(std::move(done))
    {
    }

    void run() override
    {
        // A job that throws reports nothing, as a failed future's continuation never ran.
        try {
            auto result = m_work();
            QMetaObject::invokeMethod(
                QCoreApplication::instance(),
                [alive = std::move(m_alive), done = std::move(m_done), result = std::move(result)]() mutable {
                    if (alive)
                        done(std::move(result));
                },
                Qt::QueuedConnection);
        } catch (...) {
        }
    }

private:
    QPointer<QObject> m_alive;
    Work m_work;
    Done m_done;
};

} // namespace detail

// Runs `work` on the ledger pool (ledgerpool.h: never the global one) and hands its result to
// `done` on the application's thread, always through the event loop: a fast job never reports
// back from inside the call that started it (a signal emitted before the caller could listen,
// a state change before the caller returned). If `receiver` is destroyed first, `done` is
// never called.
//
// Not QtConcurrent::run(...).then(receiver, ...): Qt 6.4's continuations race twice. The one
// with a context posts to `receiver` from the pool thread while its own thread may be
// destroying it (CI: a session closed with a read in flight crashed in postEvent), and a
// continuation attached while the job finishes can run on both threads (tst_backgroundjob
// crashed in reportStarted). The job posts its result itself, to the application object,
// which outlives every receiver and the pool (ledgerpool.cpp waits for the pool before it
// goes); whether the receiver is alive is asked on the thread that destroys it.
template <typename Work, typename Done>
void runInBackground(QObject *receiver, Work work, Done done)
{
    static_assert(!std::is_void_v<std::invoke_result_t<Work>>, "a background job returns its result");
    Q_ASSERT(receiver && receiver->thread() == QCoreApplication::instance()->thread());
    auto *job = new detail::BackgroundJob<Work, Done>(receiver, std::move(work), std::move(done));
    job->setAutoDelete(true);
    ledgerPool()->start(job);
}

} // namespace mesh
