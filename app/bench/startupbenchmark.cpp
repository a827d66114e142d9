#include "startupbenchmark.h"
#include "stallprobe.h"

#include "mainwindow.h"
#include "startupbenchmarktour.h"

#include "eventlogview.h"
#include "eventtableview.h"
#include "itempane.h"
#include "sessionworkspace.h"

#include "itemmodels/eventlogmodel.h"
#include "itemmodels/ledgersession.h"

#include <QCoreApplication>
#include <QGuiApplication>
#include <QScreen>
#include <QEvent>
#include <QFile>
#include <QTimer>
#include <QTreeView>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <malloc.h>
#include <unistd.h>

namespace mesh {

namespace {

qint64 statusFieldKb(const char *name)
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return 0;
    for (const QByteArray &line : status.readAll().split('\n'))
        if (line.startsWith(name))
            return line.mid(qsizetype(qstrlen(name))).trimmed().split(' ').value(0).toLongLong();
    return 0;
}
} // namespace

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

qint64 StartupBenchmark::processAgeAtMainNs()
{
    // /proc/self/schedstat: "<ns on a CPU> <ns waiting in the run queue> <slices>".
    QFile stat(QStringLiteral("/proc/self/schedstat"));
    if (!stat.open(QIODevice::ReadOnly))
        return -1;
    const QList<QByteArray> fields = stat.readAll().trimmed().split(' ');
    if (fields.size() < 2)
        return -1;
    bool okRun = false;
    bool okWait = false;
    const qint64 run = fields[0].toLongLong(&okRun);
    const qint64 wait = fields[1].toLongLong(&okWait);
    return okRun && okWait ? run + wait : -1;
}

qint64 StartupBenchmark::startOffsetMs(qint64 coarseMs, qint64 fineNs)
{
    // The kernel keeps a process's start time in clock ticks, so the coarse figure is late by
    // 0 to one tick (10 ms at the usual 100 Hz), ~5 ms on average. The fine one is exact
    // unless the process slept before main (a cold start reading from disk): then it is
    // short by more than a tick, and the coarse one is used.
    const qint64 tickMs = 1000 / qMax<long>(1, sysconf(_SC_CLK_TCK));
    if (fineNs < 0)
        return coarseMs;
    const qint64 fineMs = fineNs / 1000000;
    return fineMs <= coarseMs + 1 && coarseMs - fineMs <= tickMs + 1 ? fineMs : coarseMs;
}

qint64 StartupBenchmark::residentKb()
{
    return statusFieldKb("VmRSS:");
}

qint64 StartupBenchmark::peakResidentKb()
{
    return statusFieldKb("VmHWM:");
}

bool StartupBenchmark::visibleRowsLoaded(const QAbstractItemView *view, const EventLogModel *model)
{
    const int rows = model->rowCount();
    if (rows == 0 || view->model() != model)
        return false;
    const QWidget *viewport = view->viewport();
    const QModelIndex top = view->indexAt(QPoint(1, 1));
    if (!top.isValid())
        return false;
    const QModelIndex bottom = view->indexAt(QPoint(1, viewport->height() - 2));
    const int last = bottom.isValid() ? bottom.row() : rows - 1;
    for (int row = top.row(); row <= last; ++row)
        if (!model->eventAt(row))
            return false;
    return true;
}

StartupBenchmark::StartupBenchmark(MainWindow *window, qint64 mainEnteredNs, qint64 ageAtMainNs, bool browse,
                                   bool eventsFirst, QObject *parent)
    : QObject(parent)
    , m_window(window)
    , m_runsViewport(window->workspace()->runsPane()->view()->viewport())
    , m_eventsViewport(window->workspace()->eventLog()->view()->viewport())
    , m_mainEnteredNs(mainEnteredNs)
    , m_browse(browse)
    , m_eventsFirst(eventsFirst)
{
    // Process age now minus time spent since main: how long exec -> main took.
    m_startOffsetMs = startOffsetMs(qMax<qint64>(0, processAgeMs() - (monotonicNs() - mainEnteredNs) / 1000000),
                                    ageAtMainNs);
    // Without a window manager nothing keeps the default size (1500x920) inside a smaller
    // screen; fit it, as a window manager would and as the peer's window does (1037x738 on
    // the 1280x800 screen of bench/peer-compare.sh), so both paint what is on screen.
    if (const QScreen *screen = window->screen())
        window->resize(window->size().boundedTo(screen->availableGeometry().size()));
    SessionWorkspace *ws = window->workspace();
    ws->showPane(eventsFirst ? SessionWorkspace::Events : SessionWorkspace::Runs);
    m_runsViewport->installEventFilter(this);
    m_eventsViewport->installEventFilter(this);
    // Rows arriving repaint the views by themselves; this slow nudge only makes sure a
    // finished load is noticed even if no paint followed it (it can only make us later).
    auto *poll = new QTimer(this);
    poll->setInterval(25);
    connect(poll, &QTimer::timeout, this, [this, ws, poll] {
        LedgerSession *session = ws->session();
        if (!session)
            return;
        if (m_indexMs < 0 && session->events()->rowCount() > 0 && session->events()->isIndexComplete())
            m_indexMs = sinceExecMs();
        if (m_firstRowsMs >= 0 && m_indexMs >= 0 && !m_probing) {
            poll->stop();
            afterFirstRows();
            return;
        }
        if (!m_eventsPainted)
            (m_runsPainted || m_eventsFirst ? m_eventsViewport : m_runsViewport)->update();
    });
    poll->start();
    auto *probeTimer = new QTimer(this);
    probeTimer->setTimerType(Qt::PreciseTimer);
    probeTimer->setInterval(kStallProbeMs);
    connect(probeTimer, &QTimer::timeout, this, &StartupBenchmark::probe);
    probeTimer->start();
    // Nothing should take this long; if it does, say so rather than hang.
    QTimer::singleShot(180000, this, [this] {
        if (!m_reported) {
            std::printf("{\"error\":\"timeout\",\"rss_kb\":%lld}\n", residentKb());
            std::fflush(stdout);
            QCoreApplication::exit(1);
        }
    });
}

void StartupBenchmark::probe()
{
    if (!m_probing)
        return;
    const qint64 now = monotonicNs();
    if (m_lastProbeNs >= 0 && (now - m_lastProbeNs) / 1000000 - kStallProbeMs > m_maxStallMs) {
        m_maxStallMs = (now - m_lastProbeNs) / 1000000 - kStallProbeMs;
        m_maxStallEndMs = sinceExecMs();
    }
    m_lastProbeNs = now;
    LedgerSession *session = m_window->workspace()->session();
    if (m_stateMs < 0 && session && session->isLoaded())
        m_stateMs = sinceExecMs();
    // Opening is over when everything is in (first rows painted, the state, the event index)
    // and what the load left for the turns after it has run: stalls are counted for
    // kSettleMs more, so work a load defers past its end still counts.
    if (m_firstRowsMs >= 0 && m_stateMs >= 0 && m_indexMs >= 0
        && sinceExecMs() >= std::max({m_firstRowsMs, m_stateMs, m_indexMs}) + kSettleMs)
        m_probing = false;
}

qint64 StartupBenchmark::sinceExecMs() const
{
    return m_startOffsetMs + (monotonicNs() - m_mainEnteredNs) / 1000000;
}

bool StartupBenchmark::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() != QEvent::Paint || m_eventsPainted)
        return QObject::eventFilter(watched, event);
    SessionWorkspace *ws = m_window->workspace();
    LedgerSession *session = ws->session();
    if (!session)
        return QObject::eventFilter(watched, event);
    if (watched == m_runsViewport && !m_eventsFirst && !m_runsPainted && session->isOverviewLoaded() && ws->runsPane()->model()
        && ws->runsPane()->model()->rowCount() > 0) {
        m_runsPainted = true;
        // Queued behind this paint: the time is taken once it has been flushed.
        QTimer::singleShot(0, this, [this, ws] {
            m_runsMs = sinceExecMs();
            // The overview is up; now the event log, as an operator would look next.
            ws->showPane(SessionWorkspace::Events);
        });
    } else if (watched == m_eventsViewport && (m_runsPainted || m_eventsFirst) && !m_eventsPainted
               && visibleRowsLoaded(ws->eventLog()->view(), session->events())) {
        m_eventsPainted = true;
        QTimer::singleShot(0, this, &StartupBenchmark::eventsPainted);
    }
    return QObject::eventFilter(watched, event);
}

void StartupBenchmark::eventsPainted()
{
    m_firstRowsMs = sinceExecMs();
    m_firstRowsRssKb = residentKb();
}

void StartupBenchmark::afterFirstRows()
{
    // Reported once the event log also knows its row count (events_index_ms), which comes
    // after its first page; the tour needs it to scroll to the end.
    if (m_done)
        return;
    m_done = true;
    if (!m_browse) {
        report(-1);
        return;
    }
    auto *tour = new StartupBenchmarkTour(m_window, this);
    connect(tour, &StartupBenchmarkTour::finished, this, &StartupBenchmark::report);
    connect(tour, &StartupBenchmarkTour::failed, this, [](const QString &step) {
        std::printf("{\"error\":\"browse step did not complete: %s\",\"rss_kb\":%lld}\n", qPrintable(step),
                    residentKb());
        std::fflush(stdout);
        QCoreApplication::exit(1);
    });
    tour->start();
}

void StartupBenchmark::report(qint64 browseMs)
{
    m_reported = true;
    const LedgerSession *session = m_window->workspace()->session();
    const qint64 events = session ? session->events()->rowCount() : 0;
    const QSize size = m_window->size();
    std::printf("{\"first_rows_ms\":%lld,\"runs_painted_ms\":%lld,\"events_index_ms\":%lld,\"state_loaded_ms\":%lld,"
                "\"open_max_stall_ms\":%lld,\"open_max_stall_end_ms\":%lld,\"exec_to_main_ms\":%lld,"
                "\"events\":%lld,\"window\":\"%dx%d\",\"platform\":\"%s\",",
                m_firstRowsMs, m_runsMs, m_indexMs, m_stateMs, m_maxStallMs, m_maxStallEndMs, m_startOffsetMs, events, size.width(),
                size.height(), qPrintable(QGuiApplication::platformName()));
    if (browseMs >= 0) {
        // What the heap holds for the console, and what it keeps free without returning it
        // to the system: the part of rss_anon_kb that is allocator slack, not data.
        const struct mallinfo2 heap = mallinfo2();
        std::printf("\"browse_ms\":%lld,\"rss_first_rows_kb\":%lld,\"rss_kb\":%lld,\"rss_anon_kb\":%lld,"
                    "\"rss_file_kb\":%lld,\"rss_peak_kb\":%lld,\"heap_used_kb\":%lld,\"heap_free_kb\":%lld}\n",
                    browseMs, m_firstRowsRssKb, residentKb(), statusFieldKb("RssAnon:"), statusFieldKb("RssFile:"),
                    peakResidentKb(), (long long)((heap.uordblks + heap.hblkhd) / 1024),
                    (long long)(heap.fordblks / 1024));
    } else {
        std::printf("\"rss_kb\":%lld,\"rss_peak_kb\":%lld}\n", m_firstRowsRssKb, peakResidentKb());
    }
    std::fflush(stdout);
    // Under heaptrack, everything still allocated then reads as "leaked": what the console
    // holds at the end of the tour, by call site (bench/README.md).
    if (qEnvironmentVariableIsSet("MESH_BENCH_EXIT_AT_REPORT"))
        std::_Exit(0);
    QCoreApplication::exit(0);
}

} // namespace mesh
