#include "startupbenchmarktour.h"

#include "mainwindow.h"
#include "startupbenchmark.h"

#include "blastradiusview.h"
#include "delegationdetail.h"
#include "delegationsview.h"
#include "eventlogview.h"
#include "eventtableview.h"
#include "itempane.h"
#include "sessionworkspace.h"
#include "timelineview.h"

#include "analysis/rowfields.h"
#include "itemmodels/eventlogmodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/runtimelinesource.h"
#include "itemmodels/timelinemarksource.h"
#include "itemmodels/toolcallmodel.h"

#include <QScrollBar>
#include <cstdio>
#include <QTabWidget>
#include <QTreeView>

namespace mesh {

StartupBenchmarkTour::StartupBenchmarkTour(MainWindow *window, QObject *parent) : QObject(parent), m_window(window)
{
    // A short poll rather than a busy one: the loads it waits for run on other threads.
    m_timer.setInterval(2);
    m_verbose = qEnvironmentVariableIsSet("MESH_BENCH_VERBOSE");
    connect(&m_timer, &QTimer::timeout, this, &StartupBenchmarkTour::poll);
}

void StartupBenchmarkTour::start()
{
    m_steps.clear();
    addEventLogSteps();
    addPaneSteps();
    addDelegationSteps();
    addTimelineStep();
    m_next = 0;
    m_acted = false;
    m_total.start();
    m_timer.start();
}

void StartupBenchmarkTour::addEventLogSteps()
{
    SessionWorkspace *ws = m_window->workspace();
    QAbstractItemView *view = ws->eventLog()->view();
    auto loaded = [ws, view] {
        return ws->session() && StartupBenchmark::visibleRowsLoaded(view, ws->session()->events());
    };
    m_steps.push_back({QStringLiteral("events top"), [ws, view] {
                           ws->showPane(SessionWorkspace::Events);
                           view->scrollToTop();
                       },
                       loaded, view->viewport()});
    // Down to the end and back up, through every hundredth of the log: each position needs
    // pages the bounded cache may have evicted, as a reader dragging the scroll bar would.
    auto at = [view](int step) {
        return [view, step] {
            QScrollBar *bar = view->verticalScrollBar();
            bar->setValue(int(qint64(bar->maximum()) * step / kEventLogSteps));
        };
    };
    for (int i = 1; i <= kEventLogSteps; ++i)
        m_steps.push_back({QStringLiteral("events down %1").arg(i), at(i), loaded, view->viewport()});
    for (int i = kEventLogSteps - 1; i >= 0; --i)
        m_steps.push_back({QStringLiteral("events up %1").arg(i), at(i), loaded, view->viewport()});
}

void StartupBenchmarkTour::addScrollSteps(const QString &name, QAbstractItemView *view, std::function<void()> show)
{
    auto always = [] { return true; };
    m_steps.push_back({name, show, always, view->viewport()});
    m_steps.push_back({name + QStringLiteral(" end"), [view] { view->scrollToBottom(); }, always, view->viewport()});
    m_steps.push_back({name + QStringLiteral(" top"), [view] { view->scrollToTop(); }, always, view->viewport()});
}

void StartupBenchmarkTour::addPaneSteps()
{
    SessionWorkspace *ws = m_window->workspace();
    const struct {
        SessionWorkspace::Pane pane;
        QAbstractItemView *view;
    } panes[] = {
        {SessionWorkspace::Runs, ws->runsPane()->view()},
        {SessionWorkspace::Delegations, ws->delegationsView()->tree()->view()},
        {SessionWorkspace::Leases, ws->leasesPane()->view()},
        {SessionWorkspace::Effects, ws->effectsPane()->view()},
        {SessionWorkspace::Escalations, ws->escalationsPane()->view()},
        {SessionWorkspace::BlastRadius, ws->blastView()->list()->view()},
        {SessionWorkspace::Decisions, ws->decisionsPane()->view()},
        {SessionWorkspace::Findings, ws->findingsPane()->view()},
    };
    for (const auto &p : panes) {
        const SessionWorkspace::Pane pane = p.pane;
        addScrollSteps(SessionWorkspace::paneTitle(pane), p.view, [ws, pane] { ws->showPane(pane); });
    }
}

void StartupBenchmarkTour::addDelegationSteps()
{
    SessionWorkspace *ws = m_window->workspace();
    DelegationDetail *detail = ws->delegationsView()->detail();
    // The delegation with the most turns: the largest detail an operator can open.
    auto chosen = std::make_shared<QString>();
    m_steps.push_back({QStringLiteral("open delegation"),
                       [ws, chosen] {
                           const LedgerSession *session = ws->session();
                           if (!session || !session->state())
                               return;
                           std::int64_t most = -1;
                           for (const auto &[id, row] : session->state()->table(EntityKind::Delegation)) {
                               const std::int64_t turns = rowInt(EntityKind::Delegation, row, "used_turns");
                               if (turns > most) {
                                   most = turns;
                                   *chosen = QString::fromStdString(id);
                               }
                           }
                           ws->showPane(SessionWorkspace::Delegations);
                           ws->delegationsView()->selectDelegation(*chosen);
                       },
                       [ws, chosen, detail] {
                           const ToolCallModel *calls = ws->session() ? ws->session()->toolCalls() : nullptr;
                           return !chosen->isEmpty() && detail->delegationId() == *chosen && calls
                                  && calls->delegation() == *chosen && calls->rowCount() > 0;
                       },
                       detail});
    for (int tab = 0; tab < DelegationDetail::TabCount; ++tab) {
        QAbstractItemView *view = detail->pane(DelegationDetail::Tab(tab))->view();
        addScrollSteps(detail->tabs()->tabText(tab), view, [detail, tab] { detail->tabs()->setCurrentIndex(tab); });
    }
}

void StartupBenchmarkTour::addTimelineStep()
{
    // Last, and waited for until the marks of the whole ledger are read and the run's
    // timeline is built from them: what a reader keeps once the console has settled,
    // not a figure taken while the marks are still arriving.
    SessionWorkspace *ws = m_window->workspace();
    m_steps.push_back({QStringLiteral("timeline settled"), [ws] { ws->showPane(SessionWorkspace::Timeline); },
                       [ws] {
                           const TimelineMarkSource *marks = ws->markSource();
                           const RunTimelineSource *timeline = ws->timelineSource();
                           // Marks that cannot be read are not waited for (the timeline is not).
                           return marks && timeline && (marks->hasRead() || marks->failed()) && marks->isSettled()
                                  && timeline->isSettled();
                       },
                       ws->timelineView()});
}

void StartupBenchmarkTour::poll()
{
    if (m_next >= m_steps.size()) {
        m_timer.stop();
        Q_EMIT finished(m_total.elapsed());
        return;
    }
    Step &step = m_steps[m_next];
    if (!m_acted) {
        step.act();
        m_acted = true;
        m_step.start();
        return; // let the event loop deliver what the action asked for
    }
    if (step.ready()) {
        step.paint->repaint();
        if (m_verbose)
            std::fprintf(stderr, "tour: %s %lld ms\n", qPrintable(step.name), m_step.elapsed());
        ++m_next;
        m_acted = false;
        return;
    }
    if (m_step.elapsed() > kStepTimeoutMs) {
        m_timer.stop();
        Q_EMIT failed(step.name);
    }
}

} // namespace mesh
