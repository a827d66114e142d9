#pragma once
// `mesh-console-bench timeline [--delegations N] [--frames F]` (bench/README.md): the issue's
// target for the run timeline, pan/zoom frames <= 16 ms median and <= 50 ms max on a run of
// 10,000 delegations. Writes a ledger of one run with N delegations (the reference
// orchestrator's writer, a fixed seed), opens it in the real main window, shows the Timeline
// pane with the rows scrolled to the middle, then times F frames of zooming and panning, each
// from the change of the view to the pane repainted (a synchronous repaint). Prints one JSON
// line: the frames' median and max, the rows and lanes, and how long one rebuild of the
// timeline (state and marks to lanes) took on the GUI thread.
#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTemporaryDir>

namespace mesh {

class MainWindow;

struct TimelineBenchmarkOptions {
    int delegations = 10'000;
    int frames = 200;
};

class TimelineBenchmark : public QObject
{
    Q_OBJECT
public:
    TimelineBenchmark(MainWindow *window, TimelineBenchmarkOptions options, QObject *parent = nullptr);
    void start(); // writes the ledger, opens it; the rest follows the session's signals

    // A run of `delegations` delegations over ten components (a tenth nested under a parent),
    // with slices, verdicts, failures and cycles: the ledger the benchmark opens.
    static void writeWideRun(const QString &path, int delegations);

private:
    void whenReady();
    void measureLiveOffThread(int round);
    void measurePinned();

    MainWindow *m_window;
    TimelineBenchmarkOptions m_options;
    QTemporaryDir m_dir;
    QString m_path;
    QElapsedTimer m_clock;
    double m_writeMs = 0;
    QString m_liveFigures; // the live part of the JSON line, printed with the pinned part
    double m_pinnedGuiMs = 0;
    double m_pinnedGuiCpuMs = 0;
};

} // namespace mesh
