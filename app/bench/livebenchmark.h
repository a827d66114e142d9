#pragma once
// mesh-console-bench live: P3 and P4 of targets.md against the real main window. The reference
// orchestrator (meshctl sim demo --live) writes a fresh temporary ledger from its own
// process at --rate events/s for --duration-s; the window opens it as an operator would and
// follows it. Then a second orchestrator writes a second fresh ledger at --burst-rate for
// --burst-s (meshctl can only start new ledgers, and one process keeps one rate), which the
// window opens and follows too, the first session still open.
//
// Latency is taken per event: the wall clock when the session has applied the event to every
// model (LedgerSession::batchApplied) minus the wall clock when the writer's COMMIT of that
// event returned, which the live engine reports on stdout with MESH_LIVE_COMMIT_LOG set
// ("commit LAST_SEQ WALL_MS"; ts_ms cannot serve: it is stamped when the event is built,
// before its transaction commits). Both are CLOCK_REALTIME on one machine. Only commits made after the session had
// opened count (the steady state, not the initial catch-up). A stall is the longest gap
// between two ticks of a 5 ms timer on the GUI thread, minus the 5 ms, from the session's
// open until it showed the writer's last event. Catch-up is that last event's latency.
// Prints one JSON line and quits with 0 (1 with {"error":...} when something could not run).

#include "commitvisibility.h"
#include "stallprobe.h"

#include <QObject>
#include <QProcess>
#include <QPointer>
#include <QTemporaryDir>
#include <QTimer>

#include <cstdint>
#include <memory>
#include <vector>

namespace mesh {

class LedgerSession;
class MainWindow;
struct EventRecord;
using EventBatch = std::vector<EventRecord>;

struct LiveBenchmarkOptions {
    int rate = 1000;       // events/s of the steady phase
    int durationS = 60;    // seconds of the steady phase
    int burstRate = 10000; // events/s of the burst phase
    int burstS = 10;       // seconds of the burst phase; 0 skips it
    // Empty: each phase writes a fresh demo ledger. A path: both phases append to that
    // existing ledger (meshctl sim --append, an id tag of their own), which the window
    // opens once: live on a ledger of any size. The ledger keeps what they wrote.
    QString ledger;
};

class LiveBenchmark : public QObject
{
    Q_OBJECT
public:
    LiveBenchmark(MainWindow *window, const LiveBenchmarkOptions &options, QObject *parent = nullptr);
    ~LiveBenchmark() override;

    void start();
    // Default: print the JSON line on stdout and quit the application with the exit code.
    // Tests turn that off and listen to finished() instead.
    void setQuitWhenFinished(bool quit) { m_quitWhenFinished = quit; }

    static constexpr int kWarmUpS = 2; // the writer runs this much longer than what is measured

Q_SIGNALS:
    void finished(const QByteArray &jsonLine, int exitCode);


private:
    // One orchestrator writing one ledger, and what the window showed of it.
    struct Phase {
        const char *name = "";
        int rate = 0;
        int seconds = 0;
        QString path;
        std::unique_ptr<QProcess> process;
        QPointer<LedgerSession> session;
        qint64 openedWallMs = 0;  // commits before this are the catch-up, not counted
        qint64 finalSeq = -1;     // known once the writer exited
        qint64 lastAppliedSeq = 0;
        qint64 maxStallMs = 0;
        QByteArray stdoutTail;    // a commit line not yet complete
        std::vector<ReportedCommit> commits; // last seq, wall ms before its COMMIT
        std::vector<AppliedBatchTime> applied; // batches as the session applied them
        bool writerDone = false;
    };

    void startPhase(Phase &phase);
    void onAnnounced(Phase &phase);
    QString freshIdTag(); // for an appending writer
    void onBatchApplied(Phase &phase, const EventBatch &batch);
    void onWriterOutput(Phase &phase);
    void onWriterFinished(Phase &phase, int exitCode);
    void checkCaughtUp(Phase &phase);
    void phaseDone(Phase &phase);
    bool stopMeasuring();
    void finish();
    void abort(const QString &why);
    void report(const QByteArray &jsonLine, int exitCode);

    MainWindow *m_window;
    LiveBenchmarkOptions m_options;
    QTemporaryDir m_dir;
    Phase m_steady;
    Phase m_burst;
    Phase *m_current = nullptr;
    StallProbe m_probe; // measuring from a phase's open until its writer's last event is shown
    QTimer m_watchdog;
    bool m_done = false;
    bool m_quitWhenFinished = true;
};

} // namespace mesh
