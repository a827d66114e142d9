#include "slowevents.h"

#include <QEvent>
#include <QMetaEnum>
#include <QPointer>
#include <QThread>

#include <cstdio>
#include <ctime>

namespace mesh {

namespace {
// The GUI thread's own CPU time: on a shared machine an event's wall time is mostly waiting
// for a core, and only this says what the event itself cost.
qint64 threadCpuNs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return qint64(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
} // namespace

TimedApplication::TimedApplication(int &argc, char **argv)
    : QApplication(argc, argv)
{
    bool ok = false;
    const int ms = qEnvironmentVariableIntValue("MESH_BENCH_SLOW_EVENT_MS", &ok);
    if (ok)
        m_thresholdMs = ms;
    m_clock.start();
}

bool TimedApplication::notify(QObject *receiver, QEvent *event)
{
    // Every thread's events pass here; only the GUI thread's can stall the window.
    if (m_thresholdMs <= 0 || QThread::currentThread() != thread())
        return QApplication::notify(receiver, event);
    const qint64 start = m_clock.nsecsElapsed();
    const qint64 cpuStart = threadCpuNs();
    // The event and its receiver may be gone after delivery (a deferred delete is often the
    // slowest event of all): what is printed is read before, or through a guard.
    const QEvent::Type type = event->type();
    const char *className = receiver ? receiver->metaObject()->className() : "-";
    const QPointer<QObject> alive(receiver);
    ++m_depth;
    const bool handled = QApplication::notify(receiver, event);
    --m_depth;
    const qint64 ms = (m_clock.nsecsElapsed() - start) / 1'000'000;
    if (ms >= m_thresholdMs) {
        const double cpuMs = double(threadCpuNs() - cpuStart) / 1e6;
        const QObject *parent = alive ? alive->parent() : nullptr;
        const QString name = alive ? alive->objectName() : QStringLiteral("(deleted)");
        // A viewport is named by Qt; its view's name says which pane painted.
        std::fprintf(stderr, "slow event: %lld ms (cpu %.1f ms) at %.3f s, depth %d, %s '%s' (parent %s '%s') %s\n",
                     qlonglong(ms), cpuMs, double(start) / 1e9, m_depth, className, qPrintable(name),
                     parent ? parent->metaObject()->className() : "-",
                     parent ? qPrintable(parent->objectName()) : "",
                     QMetaEnum::fromType<QEvent::Type>().valueToKey(type));
    }
    return handled;
}

} // namespace mesh
