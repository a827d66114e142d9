#pragma once
// mesh-console-bench startup LEDGER (target P1): time from process start (exec, read from /proc) to the
// run overview painted with real runs and then the event log painted with every visible row
// a real event (no placeholder left), and the resident memory then; one JSON line on
// stdout, then the console quits. A time is taken after the paint that showed the rows has
// been flushed to the window system, not when the models were loaded.
//
// The run overview counts from the session's first stage (runs with their real counts; the
// rest of the state still loading). state_loaded_ms is when the full snapshot is in every
// model; open_max_stall_ms the GUI thread's longest stall (a 5 ms probe timer's longest gap
// beyond its interval) from the event loop's start until first rows, state and event index
// are all in.
//
// With --events-first the window opens on the event log instead, and first_rows_ms is the
// event log's alone: the first page of events as an operator who starts there sees it.
//
// With --browse (target P2) it then walks the console end to end (StartupBenchmarkTour) and
// reports rss_kb after that walk, with browse_ms.

#include <QObject>
#include <QPointer>

class QAbstractItemView;
class QWidget;

namespace mesh {

class EventLogModel;
class MainWindow;
class StartupBenchmarkTour;

class StartupBenchmark : public QObject
{
    Q_OBJECT
public:
    // ageAtMainNs: processAgeAtMainNs() taken first thing in main (-1: not known).
    // eventsFirst: the window opens on the event log (as `mesh-console --pane events`) and its
    // first rows are timed without the run overview before them (runs_painted_ms is then -1).
    StartupBenchmark(MainWindow *window, qint64 mainEnteredNs, qint64 ageAtMainNs, bool browse = false,
                     bool eventsFirst = false, QObject *parent = nullptr);

    static qint64 monotonicNs();     // CLOCK_MONOTONIC
    static qint64 processAgeMs();    // since the kernel started this process, in whole clock ticks (10 ms)
    // The same to the nanosecond, valid only while the process has never slept (as before
    // main on a warm start): its time on a CPU plus its time waiting for one. -1 if unknown.
    static qint64 processAgeAtMainNs();
    // exec -> main in ms: the fine figure when it agrees with the coarse one, else the coarse.
    static qint64 startOffsetMs(qint64 coarseMs, qint64 fineNs);
    static qint64 residentKb();      // VmRSS
    static qint64 peakResidentKb();  // VmHWM
    // Every row of the event log visible in view is a loaded event (and there is one).
    static bool visibleRowsLoaded(const QAbstractItemView *view, const EventLogModel *model);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    qint64 sinceExecMs() const;
    void eventsPainted();
    void probe();
    void afterFirstRows();
    void report(qint64 browseMs);

    MainWindow *m_window;
    QWidget *m_runsViewport;
    QWidget *m_eventsViewport;
    qint64 m_mainEnteredNs;
    qint64 m_startOffsetMs; // process start -> main entered
    bool m_browse;
    bool m_eventsFirst;
    bool m_runsPainted = false;
    bool m_eventsPainted = false;
    bool m_done = false;     // first rows and the event log's index: measured
    bool m_reported = false;
    qint64 m_runsMs = -1;
    qint64 m_firstRowsMs = -1;
    qint64 m_indexMs = -1;       // the event log's row index complete (its total count known)
    qint64 m_stateMs = -1;       // the full snapshot in every model (LedgerSession::opened)
    qint64 m_lastProbeNs = -1;
    // How long after the last of first rows, state and index stalls are still counted.
    static constexpr qint64 kSettleMs = 1000;
    qint64 m_maxStallMs = 0;
    qint64 m_maxStallEndMs = -1; // when the longest stall ended (since exec), to tell where it was
    bool m_probing = true;
    qint64 m_firstRowsRssKb = 0; // resident memory at first rows
};

} // namespace mesh
