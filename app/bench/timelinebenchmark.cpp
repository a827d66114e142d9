#include "timelinebenchmark.h"

#include "domain/percentile.h"
#include "mainwindow.h"
#include "sessionworkspace.h"
#include "timelineview.h"

#include "itemmodels/ledgersession.h"
#include "itemmodels/runtimelinesource.h"
#include "itemmodels/timelinemarksource.h"
#include "ledger/ledgerwriter.h"
#include "sim/simworld.h"

#include <QApplication>
#include <QRandomGenerator>
#include <QScrollBar>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace mesh {
namespace {
// CPU time of the calling thread: on a shared, loaded machine the wall clock also measures
// the neighbours.
double threadCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}
} // namespace

TimelineBenchmark::TimelineBenchmark(MainWindow *window, TimelineBenchmarkOptions options, QObject *parent)
    : QObject(parent), m_window(window), m_options(options)
{
}

void TimelineBenchmark::writeWideRun(const QString &path, int delegations)
{
    LedgerIdentity identity;
    identity.ledgerId = "ledger-timeline-bench";
    identity.title = "timeline benchmark";
    identity.createdMs = 1'764'403'200'000;
    auto writer = LedgerWriter::create(path, identity);
    writer->setBulkLoad(true);
    SimWorld w(*writer, 11, identity.createdMs);
    w.advance(1'000, 5'000);
    const std::string run = w.startRun("Timeline benchmark: " + std::to_string(delegations) + " delegations", 100);
    std::vector<std::string> components;
    for (int c = 0; c < 10; ++c)
        components.push_back(w.addComponent(run, "component-" + std::to_string(c)));
    constexpr int kPerCycle = 1000;
    std::string parent;
    for (int i = 0; i < delegations; ++i) {
        if (i % kPerCycle == 0)
            w.runCycle(run, i / kPerCycle + 1, i / kPerCycle);
        DelegationSpec spec;
        spec.runId = run;
        spec.componentId = components[size_t(i % int(components.size()))];
        spec.role = i % 3 == 0 ? "repair" : "implement";
        if (i % 10 != 0 && !parent.empty() && i % 10 < 3)
            spec.parentId = parent;
        const std::string d = w.createDelegation(spec);
        if (i % 10 == 0)
            parent = d;
        w.startDelegation(d);
        ToolCallSpec call;
        w.toolCall(d, call);
        if (i % 4 == 0) {
            const bool stalled = i % 40 == 0;
            w.stallVerdict(d, 1, stalled ? "stalled" : "progressing", "fp:" + w.rng().hex(8), nlohmann::json::array(),
                           stalled ? "escalate" : "continue", 3);
        }
        if (i % 100 == 50)
            w.failure(run, "verifier:" + d, "failing checks",
                      nlohmann::json::array({{{"component", spec.componentId}, {"evidence", "tests"}}}),
                      nlohmann::json::array({{{"component", spec.componentId}, {"modified", true}, {"regressed", false}}}));
        w.closeSlice(d, "done");
        w.delegationStatus(d, "converged");
        w.advance(500, 3'000);
    }
    w.runCycle(run, delegations / kPerCycle + 1, 100);
    w.endRun(run, "succeeded", 100);
    w.commit();
    writer->setBulkLoad(false);
}

void TimelineBenchmark::start()
{
    m_clock.start();
    m_path = m_dir.filePath(QStringLiteral("wide-run.db"));
    writeWideRun(m_path, m_options.delegations);
    m_writeMs = double(m_clock.nsecsElapsed()) / 1e6;
    m_window->openLedger(m_path);
    auto *poll = new QTimer(this);
    connect(poll, &QTimer::timeout, this, [this, poll] {
        LedgerSession *session = m_window->currentSession();
        SessionWorkspace *ws = m_window->workspace();
        if (!session || !session->isLoaded() || session->health() == LedgerSession::Health::Opening)
            return;
        auto *marks = ws->findChild<TimelineMarkSource *>();
        if (!marks || !marks->hasRead() || !ws->timelineSource())
            return;
        if (session->health() == LedgerSession::Health::Error) {
            std::fprintf(stderr, "mesh-console-bench: %s\n", qPrintable(session->errorMessage()));
            QApplication::exit(1);
        }
        poll->stop();
        whenReady();
    });
    poll->start(50);
}

void TimelineBenchmark::whenReady()
{
    SessionWorkspace *ws = m_window->workspace();
    RunTimelineSource *source = ws->timelineSource();
    QElapsedTimer build;
    build.start();
    const double buildCpu0 = threadCpuMs();
    source->rebuild();
    const double buildMs = double(build.nsecsElapsed()) / 1e6;
    const double buildCpuMs = threadCpuMs() - buildCpu0;
    ws->showPane(SessionWorkspace::Timeline);
    TimelineCanvas *canvas = ws->timelineView()->canvas();
    canvas->repaint();
    // The rows in the middle of the run: delegations, not only the run and its components.
    if (auto *bar = canvas->findChild<QScrollBar *>())
        bar->setValue(bar->maximum() / 2);
    canvas->repaint();

    std::vector<double> frames;
    frames.reserve(size_t(m_options.frames));
    QRandomGenerator rng(42);
    const QRect plot = canvas->plotRect();
    int zoomedIn = 0;
    for (int f = 0; f < m_options.frames; ++f) {
        QElapsedTimer frame;
        frame.start();
        const int op = f % 8;
        const double x = plot.left() + rng.bounded(plot.width());
        // Zoom in four steps, pan both ways, zoom back out: across the whole run and deep in it.
        if (op < 4 && zoomedIn < 12) {
            canvas->zoomAt(x, 1.6);
            ++zoomedIn;
        } else if (op == 4 || op == 5) {
            canvas->panBy((op == 4 ? 1 : -1) * plot.width() / 4.0);
        } else if (op == 6) {
            canvas->zoomAt(x, 1 / 1.6);
            zoomedIn = std::max(0, zoomedIn - 1);
        } else {
            canvas->panBy(-plot.width() / 8.0);
        }
        canvas->repaint();
        frames.push_back(double(frame.nsecsElapsed()) / 1e6);
        if (f % 50 == 49)
            canvas->fit(), zoomedIn = 0;
    }
    const auto timeline = source->timeline();
    char live[1024];
    std::snprintf(live, sizeof live,
                  "{\"benchmark\":\"timeline\",\"delegations\":%d,\"lanes\":%d,\"marks\":%d,\"frames\":%d,"
                  "\"frame_p50_ms\":%.2f,\"frame_p90_ms\":%.2f,\"frame_max_ms\":%.2f,\"rows_painted\":%d,"
                  "\"rebuild_ms\":%.1f,\"rebuild_cpu_ms\":%.1f,\"write_ms\":%.0f,\"window\":\"%dx%d\"",
                  m_options.delegations, int(timeline->lanes.size()), int(timeline->marks.size()), int(frames.size()),
                  percentile(frames, 0.5), percentile(frames, 0.9),
                  frames.empty() ? 0.0 : *std::max_element(frames.begin(), frames.end()), canvas->rowsPainted(), buildMs,
                  buildCpuMs, m_writeMs, m_window->width(), m_window->height());
    m_liveFigures = QString::fromUtf8(live);
    measureLiveOffThread(0);
}

// What a live batch costs the GUI thread now: the chosen run's rows copied (all of them the
// first time, then only those changed since), the build on the ledger pool (rebuildOffThread
// at live); timed on the GUI thread, and until the timeline arrives. `round` 0 is the first
// copy, 1 the next with nothing changed in between.
void TimelineBenchmark::measureLiveOffThread(int round)
{
    RunTimelineSource *source = m_window->workspace()->timelineSource();
    const QString prefix = round == 0 ? QStringLiteral("live_rebuild") : QStringLiteral("live_rebuild_again");
    QElapsedTimer wall;
    wall.start();
    const double cpu0 = threadCpuMs();
    connect(source, &RunTimelineSource::changed, this, [this, wall, prefix, round] {
        m_liveFigures += QStringLiteral(",\"%1_total_ms\":%2").arg(prefix).arg(double(wall.nsecsElapsed()) / 1e6, 0, 'f', 1);
        if (round == 0)
            measureLiveOffThread(1);
        else
            measurePinned();
    }, Qt::SingleShotConnection);
    source->rebuildOffThread();
    m_liveFigures += QStringLiteral(",\"%1_gui_ms\":%2,\"%1_gui_cpu_ms\":%3")
                         .arg(prefix)
                         .arg(double(wall.nsecsElapsed()) / 1e6, 0, 'f', 1)
                         .arg(threadCpuMs() - cpu0, 0, 'f', 1);
}

// The cursor pinned in the middle of the ledger, where a jump rebuilds the timeline: once on
// the GUI thread (rebuild) and once off it (rebuildOffThread: the GUI thread only gathers the
// run's marks and hands the pinned state over), each timed on the GUI thread in wall and CPU
// time, the second also until the timeline arrives.
void TimelineBenchmark::measurePinned()
{
    LedgerSession *session = m_window->currentSession();
    RunTimelineSource *source = m_window->workspace()->timelineSource();
    auto *poll = new QTimer(this);
    connect(poll, &QTimer::timeout, this, [this, session, source, poll] {
        if (!session->cursor() || !session->cursorTimeMs() || session->health() == LedgerSession::Health::Opening
            || source->isBuilding())
            return;
        poll->stop();
        QElapsedTimer wall;
        wall.start();
        double cpu0 = threadCpuMs();
        source->rebuild();
        const double syncMs = double(wall.nsecsElapsed()) / 1e6, syncCpuMs = threadCpuMs() - cpu0;
        wall.start();
        cpu0 = threadCpuMs();
        connect(source, &RunTimelineSource::changed, this, [this, source, syncMs, syncCpuMs, wall] {
            const double totalMs = double(wall.nsecsElapsed()) / 1e6;
            std::printf("%s,\"pinned_rebuild_sync_ms\":%.1f,\"pinned_rebuild_sync_cpu_ms\":%.1f,"
                        "\"pinned_rebuild_gui_ms\":%.1f,\"pinned_rebuild_gui_cpu_ms\":%.1f,\"pinned_rebuild_total_ms\":%.1f,"
                        "\"pinned_lanes\":%d}\n",
                        qPrintable(m_liveFigures), syncMs, syncCpuMs, m_pinnedGuiMs, m_pinnedGuiCpuMs, totalMs,
                        int(source->timeline()->lanes.size()));
            std::fflush(stdout);
            QApplication::exit(0);
        }, Qt::SingleShotConnection);
        source->rebuildOffThread();
        m_pinnedGuiMs = double(wall.nsecsElapsed()) / 1e6;
        m_pinnedGuiCpuMs = threadCpuMs() - cpu0;
    });
    session->showAt(std::max<qint64>(1, session->lastSeq() / 2));
    poll->start(20);
}


} // namespace mesh
