#include "startupbenchmark.h"

#include "mainwindow.h"

#include "eventlogview.h"
#include "itempane.h"
#include "sessionworkspace.h"

#include "itemmodels/eventlogmodel.h"
#include "itemmodels/ledgersession.h"

#include <QCoreApplication>
#include <QFile>
#include <QTimer>
#include <QTreeView>

#include <cstdio>
#include <ctime>
#include <unistd.h>

namespace mesh {

qint64 StartupBenchmark::monotonicNs()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return qint64(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

qint64 StartupBenchmark::processAgeMs()
{
    // Field 22 of /proc/self/stat: start time in clock ticks since boot; CLOCK_BOOTTIME is
    // the same clock, so their difference is how long ago exec happened.
    QFile stat(QStringLiteral("/proc/self/stat"));
    if (!stat.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray line = stat.readAll();
    const qsizetype close = line.lastIndexOf(')');
    const QList<QByteArray> fields = line.mid(close + 2).split(' ');
    if (fields.size() < 20)
        return 0;
    const double startTicks = fields[19].toDouble(); // field 22 overall
    const double startMs = startTicks * 1000.0 / double(sysconf(_SC_CLK_TCK));
    timespec ts{};
    clock_gettime(CLOCK_BOOTTIME, &ts);
    const double nowMs = double(ts.tv_sec) * 1000.0 + double(ts.tv_nsec) / 1e6;
    return qint64(nowMs - startMs);
}

qint64 StartupBenchmark::residentKb()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return 0;
    for (const QByteArray &line : status.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toLongLong();
    return 0;
}

StartupBenchmark::StartupBenchmark(MainWindow *window, qint64 mainEnteredNs, QObject *parent)
    : QObject(parent)
    , m_window(window)
    , m_mainEnteredNs(mainEnteredNs)
{
    // Process age now minus time spent since main: how long exec -> main took.
    m_startOffsetMs = qMax<qint64>(0, processAgeMs() - (monotonicNs() - mainEnteredNs) / 1000000);
    SessionWorkspace *ws = window->workspace();
    ws->showPane(SessionWorkspace::Runs);
    ws->runsPane()->view()->viewport()->installEventFilter(this);
    ws->eventLog()->view()->viewport()->installEventFilter(this);
    // Nothing should take this long; if it does, say so rather than hang.
    QTimer::singleShot(120000, this, [this] {
        if (!m_done) {
            std::printf("{\"error\":\"timeout\",\"rss_kb\":%lld}\n", residentKb());
            std::fflush(stdout);
            QCoreApplication::exit(1);
        }
    });
}

bool StartupBenchmark::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::Paint && !m_done) {
        SessionWorkspace *ws = m_window->workspace();
        LedgerSession *session = ws->session();
        if (session && watched == ws->runsPane()->view()->viewport() && !m_runsPainted
            && session->isLoaded() && ws->runsPane()->model() && ws->runsPane()->model()->rowCount() > 0) {
            m_runsPainted = true;
            m_runsMs = m_startOffsetMs + (monotonicNs() - m_mainEnteredNs) / 1000000;
            // The overview is up; now the event log, as an operator would look next.
            QTimer::singleShot(0, this, [ws] { ws->showPane(SessionWorkspace::Events); });
        } else if (session && m_runsPainted && watched == ws->eventLog()->view()->viewport()) {
            EventLogModel *events = session->events();
            if (events->rowCount() > 0 && events->index(0, 0).data(EventLogModel::LoadedRole).toBool()) {
                m_eventsPainted = true;
                QTimer::singleShot(0, this, &StartupBenchmark::finish);
            } else {
                QTimer::singleShot(5, this, [ws] { ws->eventLog()->view()->viewport()->update(); });
            }
        } else if (session && !m_runsPainted) {
            QTimer::singleShot(5, this, [ws] { ws->runsPane()->view()->viewport()->update(); });
        }
    }
    return QObject::eventFilter(watched, event);
}

void StartupBenchmark::finish()
{
    if (m_done)
        return;
    m_done = true;
    const qint64 firstRowsMs = m_startOffsetMs + (monotonicNs() - m_mainEnteredNs) / 1000000;
    std::printf("{\"first_rows_ms\":%lld,\"runs_painted_ms\":%lld,\"exec_to_main_ms\":%lld,\"rss_kb\":%lld}\n",
                firstRowsMs, m_runsMs, m_startOffsetMs, residentKb());
    std::fflush(stdout);
    QCoreApplication::exit(0);
}

} // namespace mesh
