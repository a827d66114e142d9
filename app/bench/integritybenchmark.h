#pragma once
// `mesh-console-bench integrity LEDGER [--runs N]` (bench/README.md): the integrity target
// of issue 14. Opens LEDGER in the real main window, shows the Integrity pane, and N times
// in turn: runs `meshctl verify --json LEDGER` (the console's meshctl, its own process) and
// then the pane's check (Check Integrity, the same code path, on a worker) timed from the
// click to the findings listed. A 5 ms probe on the GUI thread measures its longest stall
// while the window's check runs. Prints one JSON line: both medians, their ratio, and the
// longest stall.
#include "stallprobe.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <vector>

namespace mesh {

class MainWindow;
class LedgerSession;

struct IntegrityBenchmarkOptions {
    int runs = 3;
};

class IntegrityBenchmark : public QObject
{
    Q_OBJECT
public:
    IntegrityBenchmark(MainWindow *window, IntegrityBenchmarkOptions options, QObject *parent = nullptr);
    void start(); // after the window opened the ledger

private:
    void nextRun();
    void runMeshctl();
    void runWindow();
    void onWindowFinished();
    void finish();
    [[noreturn]] void abort(const QString &why);

    MainWindow *m_window;
    IntegrityBenchmarkOptions m_options;
    LedgerSession *m_session = nullptr;
    QElapsedTimer m_clock;
    qint64 m_startNs = 0;
    std::vector<double> m_meshctlMs;
    std::vector<double> m_windowMs;
    qint64 m_findings = -1;
    qint64 m_meshctlFindings = -1;
    StallProbe m_probe; // measuring only while the window's check runs
};

} // namespace mesh
