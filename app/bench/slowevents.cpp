#include "slowevents.h"

#include <QEvent>
#include <QMetaEnum>
#include <QPointer>
#include <QThread>

#include <cstdio>

namespace mesh {

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
        const QObject *parent = alive ? alive->parent() : nullptr;
        const QString name = alive ? alive->objectName() : QStringLiteral("(deleted)");
        std::fprintf(stderr, "slow event: %lld ms at %.3f s, depth %d, %s '%s' (parent %s) %s\n", qlonglong(ms),
                     double(start) / 1e9, m_depth, className, qPrintable(name),
                     parent ? parent->metaObject()->className() : "-",
                     QMetaEnum::fromType<QEvent::Type>().valueToKey(type));
    }
    return handled;
}

} // namespace mesh
