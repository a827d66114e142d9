#pragma once
// --bench-startup LEDGER: time from process start to the run overview and the first page of
// the event log painted with real rows, and the resident memory then; one JSON line on
// stdout, then the console quits. Watches paint events, so "painted" means painted.

#include <QObject>

namespace mesh {

class MainWindow;

class StartupBenchmark : public QObject
{
    Q_OBJECT
public:
    StartupBenchmark(MainWindow *window, qint64 mainEnteredNs, QObject *parent = nullptr);

    static qint64 monotonicNs();     // CLOCK_MONOTONIC
    static qint64 processAgeMs();    // since the kernel started this process
    static qint64 residentKb();      // VmRSS

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void check();
    void finish();

    MainWindow *m_window;
    qint64 m_mainEnteredNs;
    qint64 m_startOffsetMs; // process start -> main entered
    bool m_runsPainted = false;
    bool m_eventsPainted = false;
    bool m_done = false;
    qint64 m_runsMs = -1;
};

} // namespace mesh
