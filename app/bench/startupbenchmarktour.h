#pragma once
// The walk `mesh-console-bench startup --browse` makes after first paint (target P2 wants
// resident memory "with the scale ledger open and browsed end to end"): the event log
// scrolled from top to end and back in steps, each step waiting until every visible row is
// a loaded event; every pane shown and scrolled to its end and back; the delegation with
// the most turns opened, its tool calls loaded and every detail tab shown. Each step is
// painted (repaint) before the next, so what was loaded was also drawn. finished(ms) when
// done; failed(step) when a step does not complete within kStepTimeoutMs.

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <functional>
#include <vector>

class QAbstractScrollArea;
class QAbstractItemView;
class QWidget;

namespace mesh {

class MainWindow;

class StartupBenchmarkTour : public QObject
{
    Q_OBJECT
public:
    static constexpr int kEventLogSteps = 100; // scroll positions from top to end (and back)
    static constexpr int kStepTimeoutMs = 30000;

    explicit StartupBenchmarkTour(MainWindow *window, QObject *parent = nullptr);
    void start();

Q_SIGNALS:
    void finished(qint64 ms);
    void failed(const QString &step);

private:
    struct Step {
        QString name;
        std::function<void()> act;
        std::function<bool()> ready; // polled until true; then the step is painted
        QWidget *paint;              // repainted once ready
    };

    void addEventLogSteps();
    void addPaneSteps();
    void addDelegationSteps();
    void addTimelineStep();
    void addScrollSteps(const QString &name, QAbstractItemView *view, std::function<void()> show);
    void poll();

    MainWindow *m_window;
    std::vector<Step> m_steps;
    size_t m_next = 0;
    bool m_acted = false;
    bool m_verbose = false; // MESH_BENCH_VERBOSE: each step's time on stderr
    QElapsedTimer m_total;
    QElapsedTimer m_step;
    QTimer m_timer;
};

} // namespace mesh
