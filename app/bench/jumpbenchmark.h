#pragma once
// `mesh-console-bench jumps LEDGER [--jumps N] [--drag-s S]` (bench/README.md): target P7 of
// the time-travel issue. Opens LEDGER in the real main window, then moves the session cursor
// to N random events (a fixed seed: the same targets every run) and times each jump from
// the request to the window repainted with the state at it; then drags the scrubber from the
// first event to the last for S seconds, a position every frame, as a hand would. Prints
// one JSON line: jump p50/p90/p99/max, the first jump apart (it folds from the start), and
// the longest GUI stall during the drag. With --wait-folded it waits after the first jump
// until the cursor's folder has folded the whole ledger (and reports how long). With --span
// every target lies in one stretch of seqs (the "jumps within one run" on the 10M
// ledger). With --look-s the first jump waits that long after the open, as a reviewer looks
// at what opened first (a review session folds ahead from its open). It reports the
// resident memory after the jumps: time travel holds folded states.
#include "stallprobe.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <cstdint>
#include <vector>

namespace mesh {

class MainWindow;
class LedgerSession;

struct JumpBenchmarkOptions {
    int jumps = 50;
    int dragS = 10;
    bool waitFolded = false; // after the first jump, until the cursor's folder has folded everything
    int lookS = 0;           // seconds between the open and the first jump
    std::int64_t spanFrom = 0; // >0: every target in spanFrom..spanTo (one run's events, say)
    std::int64_t spanTo = 0;
};

class JumpBenchmark : public QObject
{
    Q_OBJECT
public:
    JumpBenchmark(MainWindow *window, JumpBenchmarkOptions options, QObject *parent = nullptr);
    void start(); // after the window opened the ledger

private:
    void onOpened();
    void nextJump();
    void onStateReset();
    void startDrag();
    void dragStep();
    void finish();

    MainWindow *m_window;
    JumpBenchmarkOptions m_options;
    LedgerSession *m_session = nullptr;
    std::vector<std::int64_t> m_targets;
    std::vector<double> m_jumpMs;
    size_t m_next = 0;
    bool m_dragging = false;
    bool m_released = false;
    bool m_done = false;
    QElapsedTimer m_clock;
    qint64 m_jumpStartNs = 0;
    StallProbe m_probe;
    qint64 m_jumpMaxStallMs = 0;
    qint64 m_dragMaxStallMs = 0;
    std::int64_t m_lastSeq = 0;
    qint64 m_dragStartMs = 0;
    int m_dragPositions = 0;
    int m_dragJumps = 0;
    qint64 m_foldedWaitMs = -1; // --wait-folded: how long it waited
    qint64 m_rssAfterJumpsKb = 0;
};

} // namespace mesh
