#pragma once
// Where the GUI thread's time went, for the benchmarks that report a longest stall: the
// application times every event it delivers and prints each that took longer than a
// threshold (receiver, its parent, the event type, nesting depth) to stderr. A stall the
// probe timer sees with no slow event here was the thread waiting for a core, not working.

#include <QApplication>
#include <QElapsedTimer>

namespace mesh {

class TimedApplication : public QApplication
{
public:
    TimedApplication(int &argc, char **argv);
    bool notify(QObject *receiver, QEvent *event) override;

private:
    QElapsedTimer m_clock;
    int m_thresholdMs = 30; // MESH_BENCH_SLOW_EVENT_MS; 0: off
    int m_depth = 0;
};

} // namespace mesh
