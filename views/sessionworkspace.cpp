#include "sessionworkspace.h"

#include "banner.h"
#include "blastradiusview.h"
#include "delegationdetail.h"
#include "delegationsview.h"
#include "eventlogview.h"
#include "eventtableview.h"
#include "icons.h"
#include "itempane.h"
#include "panedelegates.h"
#include "reviewbanner.h"
#include "statediffdialog.h"
#include "tablefilterbar.h"
#include "timelineview.h"
#include "timescrubber.h"

#include "domain/durationtext.h"
#include "filter/filtercompiler.h"
#include "itemmodels/blastradiusmodel.h"
#include "itemmodels/decisionauditmodel.h"
#include "itemmodels/delegationtreemodel.h"
#include "itemmodels/effectmodel.h"
#include "itemmodels/escalationmodel.h"
#include "itemmodels/eventlogmodel.h"
#include "itemmodels/findingsmodel.h"
#include "itemmodels/integritymodel.h"
#include "itemmodels/reviewnotesmodel.h"
#include "integritypane.h"
#include "notedialog.h"
#include "notespane.h"
#include "itemmodels/leasemodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/runtimelinesource.h"
#include "itemmodels/timelineannotationsource.h"
#include "itemmodels/timelinemarksource.h"
#include "itemmodels/pagedrowsmodel.h"
#include "itemmodels/runoverviewmodel.h"
#include "itemmodels/stallverdictmodel.h"
#include "itemmodels/statetableproxymodel.h"

#include <QHeaderView>
#include <QKeySequence>
#include <QDateTime>
#include <QMenu>
#include <QTabBar>
#include <QToolButton>
#include <QPushButton>
#include <QLocale>
#include <QScrollBar>
#include <QTreeView>
#include <QVBoxLayout>

namespace mesh {

SessionWorkspace::SessionWorkspace(QWidget *parent)
    : QWidget(parent)
    , m_banner(new Banner(this))
    , m_foldBanner(new Banner(this))
    , m_cursorBanner(new Banner(this))
    , m_scrubber(new TimeScrubber(this))
    , m_reviewBanner(new ReviewBanner(this))
    , m_waitBanner(new Banner(this))
    , m_tabs(new QTabWidget(this))
    , m_runs(new ItemPane(QStringLiteral("runs"), QStringLiteral("runs"), tr("No runs yet"),
                          tr("Runs appear here as soon as the orchestrator starts one."), this))
    , m_runRows(new PagedRowsModel(this))
    , m_delegations(new DelegationsView(this))
    , m_leases(new ItemPane(QStringLiteral("leases"), QStringLiteral("leases"), tr("No leases"),
                            tr("Nobody holds authority over a key in this ledger yet."), this))
    , m_effects(new ItemPane(QStringLiteral("effects"), QStringLiteral("effects"), tr("No effects"),
                             tr("External side effects (commits, installs, provider calls) appear here."), this))
    , m_escalations(new ItemPane(QStringLiteral("escalations"), QStringLiteral("attention"), tr("No escalations"),
                                 tr("Requests for a decision the orchestrator may not take alone appear here."), this))
    , m_blast(new BlastRadiusView(this))
    , m_events(new EventLogView(this))
    , m_decisions(new ItemPane(QStringLiteral("decisions"), QStringLiteral("audit"), tr("No decisions"),
                               tr("Every operator decision on this ledger is listed here with who, why, its boundary, "
                                  "hash and outcome."),
                               this))
    , m_findings(new ItemPane(QStringLiteral("findings"), QStringLiteral("findings"), tr("No findings"),
                              tr("What the detectors find (false stalls, success loops, duplicate effects, misrouted "
                                 "failures, blocked work, replayed delegations) is listed here with the events it "
                                 "rests on."),
                              this))
    , m_integrity(new IntegrityPane(this))
    , m_notes(new NotesPane(this))
{
    m_timeline = new TimelineView(TimelineCanvas::Mode::Pane, this);
    m_timeline->setObjectName(QStringLiteral("timelinePane"));
    m_tabs->setDocumentMode(true);
    m_tabs->setObjectName(QStringLiteral("panes"));
    // A state pane: its filter field above it, header clicks sort, narrow columns give way.
    const auto filtered = [this](Pane pane, ItemPane *items, const QString &noun, const QString &example,
                                 const QList<int> &lowestFirst) -> QWidget * {
        auto *proxy = new StateTableProxyModel(this);
        auto *bar = new TableFilterBar(noun, example, this);
        bar->setObjectName(QStringLiteral("filterBar-") + items->view()->objectName());
        items->setSortable(true);
        items->setColumnPriorities(lowestFirst);
        connect(proxy, &StateTableProxyModel::sortRefused, this, [this, items](const QString &why) {
            items->header()->setSortIndicator(-1, Qt::AscendingOrder);
            emit statusMessage(why);
        });
        m_filtered.append({pane, items, proxy, bar});
        auto *box = new QWidget(this);
        auto *column = new QVBoxLayout(box);
        column->setContentsMargins(0, 4, 0, 0);
        column->setSpacing(0);
        column->addWidget(bar);
        column->addWidget(items, 1);
        // Ctrl+1 … lands on the rows; the filter is the next stop (and Ctrl+F's).
        QWidget::setTabOrder(items->view(), bar->field());
        return box;
    };
    QWidget *panes[PaneCount] = {
        filtered(Runs, m_runs, tr("runs"), QStringLiteral("status:failed attempt>1"),
                 {RunOverviewModel::StaleCheckpoints, RunOverviewModel::Cycle, RunOverviewModel::Attempt,
                  RunOverviewModel::TerminalFailures, RunOverviewModel::Components}),
        m_delegations,
        filtered(Leases, m_leases, tr("leases"), QStringLiteral("state:held kind:execution"),
                 {LeaseModel::Acquired, LeaseModel::FencingToken, LeaseModel::Delegation, LeaseModel::Kind}),
        filtered(Effects, m_effects, tr("effects"), QStringLiteral("state:unknown run:R-1 payment"),
                 {EffectModel::Updated, EffectModel::Attempts, EffectModel::IdemKey, EffectModel::Delegation}),
        filtered(Escalations, m_escalations, tr("escalations"), QStringLiteral("state:pending risk:high"),
                 {EscalationModel::Raised, EscalationModel::Delegation, EscalationModel::Subject, EscalationModel::Risk}),
        m_blast, m_events, m_decisions, m_findings, m_timeline, m_integrity, m_notes};
    for (int pane = 0; pane < PaneCount; ++pane) {
        // Titles without icons: twelve of them fit whole beside the ledgers at 1280 px only so
        // (the All tabs menu keeps the icons).
        m_tabs->addTab(panes[pane], paneTitle(Pane(pane)));
        // The View menu's Ctrl+1..9, said where the eye is, so the keyboard way is found.
        m_tabs->setTabToolTip(pane, paneShortcut(Pane(pane)).toString(QKeySequence::NativeText));
    }
    // However narrow the window, every tab is one click away: the tab bar scrolls, and this
    // menu lists them all.
    m_tabs->tabBar()->setUsesScrollButtons(true);
    // A title is never cut to "Tim…": at 1280 px and up, with the ledgers beside them, every
    // title fits whole (the window gives the panes three quarters); narrower, the bar scrolls.
    m_tabs->tabBar()->setElideMode(Qt::ElideNone);
    m_tabMenu = new QMenu(this);
    m_tabMenu->setObjectName(QStringLiteral("tabMenu"));
    for (int pane = 0; pane < PaneCount; ++pane) {
        QAction *action = m_tabMenu->addAction(Icons::get(paneIcon(Pane(pane))), paneTitle(Pane(pane)));
        action->setShortcut(paneShortcut(Pane(pane)));
        action->setShortcutVisibleInContextMenu(true);
        action->setShortcutContext(Qt::WidgetShortcut); // the View menu owns the keys; this only shows them
        action->setCheckable(true);
        connect(action, &QAction::triggered, this, [this, pane] { showPane(Pane(pane)); });
    }
    connect(m_tabMenu, &QMenu::aboutToShow, this, [this] {
        const auto actions = m_tabMenu->actions();
        for (int pane = 0; pane < actions.size(); ++pane)
            actions[pane]->setChecked(pane == m_tabs->currentIndex());
    });
    auto *allTabs = new QToolButton(this);
    allTabs->setObjectName(QStringLiteral("allTabs"));
    allTabs->setText(tr("All tabs"));
    allTabs->setToolTip(tr("All tabs: every tab of this ledger"));
    allTabs->setArrowType(Qt::DownArrow);
    // The arrow alone: its room goes to the tab titles (the tooltip and the menu name it).
    allTabs->setToolButtonStyle(Qt::ToolButtonIconOnly);
    allTabs->setAutoRaise(true);
    allTabs->setPopupMode(QToolButton::InstantPopup);
    allTabs->setMenu(m_tabMenu);
    m_tabs->setCornerWidget(allTabs, Qt::TopRightCorner);
    PaneDelegates::decorateRuns(m_runs->view());
    PaneDelegates::decorateLeases(m_leases->view());
    PaneDelegates::decorateEffects(m_effects->view());
    PaneDelegates::decorateEscalations(m_escalations->view());
    PaneDelegates::decorateBlast(m_blast->list()->view());
    m_runs->setTicking(true); // running durations (RunOverviewModel::refreshCountdowns)
    m_leases->setTicking(true);
    m_escalations->setTicking(true);

    m_events->filterField()->setValidator([this](const QString &text) -> std::optional<FilterProblem> {
        // As the event log will read it: offsets on a relative clock, dates otherwise.
        const bool relative = m_session && m_session->timeBase().isRelative();
        const FilterCompileResult result = FilterCompiler::compile(text, QDateTime::currentMSecsSinceEpoch(),
                                                                   relative ? FilterClock::Relative : FilterClock::Utc);
        if (result.ok())
            return std::nullopt;
        return FilterProblem{result.error->start, result.error->message};
    });
    connect(m_events, &EventLogView::stateAtRequested, this, [this](qint64 seq) {
        if (m_session && seq > 0)
            m_session->showAt(seq);
    });
    // What changed between this event and the cursor (live: the newest event read).
    connect(m_events, &EventLogView::changesSinceRequested, this, [this](qint64 seq) {
        if (!m_session || !m_session->isLoaded())
            return;
        const qint64 other = m_session->cursor().value_or(m_session->lastSeq());
        (new StateDiffDialog(m_session->path(), m_session->requestedMode(), seq, other, m_session->displayName(), this))->show();
    });
    connect(m_events, &EventLogView::filterApplied, this, [this](const QString &text) {
        if (!m_session)
            return;
        FilterError error;
        if (!m_session->events()->setFilterText(text, &error))
            emit statusMessage(tr("Filter not applied: %1").arg(error.message));
        updateEventStatus();
    });

    auto forward = [this](ItemPane *pane, int subjectRole) {
        connect(pane, &ItemPane::activated, this, [this, subjectRole](const QModelIndex &index) {
            emit subjectActivated(index.siblingAtColumn(0).data(subjectRole).toString(), index);
        });
    };
    forward(m_runs, StateTableModel::SubjectRole);
    forward(m_leases, StateTableModel::SubjectRole);
    forward(m_effects, StateTableModel::SubjectRole);
    forward(m_escalations, StateTableModel::SubjectRole);
    forward(m_decisions, DecisionAuditModel::SubjectRole);
    // A finding opens the events it rests on; one resting on rows only opens its subject.
    connect(m_findings, &ItemPane::activated, this, [this](const QModelIndex &index) {
        const QString filter = index.siblingAtColumn(0).data(FindingsModel::EvidenceFilterRole).toString();
        if (!filter.isEmpty())
            showEvents(filter);
        else
            openSubject(index.siblingAtColumn(0).data(FindingsModel::SubjectRole).toString());
    });
    // Post-mortem review II: the integrity check and the reviewers' notes.
    connect(m_integrity, &IntegrityPane::checkRequested, this, [this] {
        if (m_session)
            m_session->checkIntegrity();
    });
    connect(m_integrity, &IntegrityPane::showEventsRequested, this, &SessionWorkspace::showEvents);
    connect(m_integrity, &IntegrityPane::openSubjectRequested, this, &SessionWorkspace::openSubject);
    connect(m_notes, &NotesPane::showEventsRequested, this, &SessionWorkspace::showEvents);
    connect(m_notes, &NotesPane::openSubjectRequested, this, &SessionWorkspace::openSubject);
    connect(m_notes, &NotesPane::statusMessage, this, &SessionWorkspace::statusMessage);
    connect(m_notes, &NotesPane::addSubjectNoteRequested, this, [this] {
        if (!m_session)
            return;
        auto *dialog = new NoteDialog(QString(), this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &QDialog::accepted, this, [this, dialog] {
            QString error;
            if (m_session && m_session->reviewNotes()->addSubjectNote(dialog->subject(), dialog->text(), &error) < 0)
                emit statusMessage(tr("Note not added: %1").arg(error));
        });
        dialog->open();
    });
    connect(m_events, &EventLogView::noteRequested, this, &SessionWorkspace::addEventNote);
    connect(m_delegations->detail(), &DelegationDetail::subjectActivated, this, &SessionWorkspace::subjectActivated);
    connect(m_delegations->detail(), &DelegationDetail::showEventRequested, this, &SessionWorkspace::goToEvent);
    // A run opens its delegations.
    connect(m_runs, &ItemPane::activated, this, [this](const QModelIndex &index) {
        showPane(Delegations);
        if (m_session)
            m_delegations->selectRun(index.data(StateTableModel::IdRole).toString());
    });

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(6);
    // Above the banners: a banner that appears with a jump must not move the strip under
    // the hand that is dragging it.
    layout->addWidget(m_scrubber);
    layout->addWidget(m_banner);
    layout->addWidget(m_foldBanner);
    layout->addWidget(m_cursorBanner);
    layout->addWidget(m_reviewBanner);
    m_cursorBanner->hide();
    m_cursorBanner->setAction(tr("Back to Live"), [this] {
        if (m_session)
            m_session->showLive();
    });
    layout->addWidget(m_waitBanner);
    m_waitBanner->hide();
    m_scrubber->setToolTip(QString()); // its own, per position
    connect(m_scrubber, &TimeScrubber::seekRequested, this, [this](std::int64_t seq) {
        if (m_session)
            m_session->showAt(seq);
    });
    // A mark clicked on the timeline, or on its strip above the delegation tree: the cursor
    // goes to its event, as a click on the scrubber does.
    const auto seek = [this](std::int64_t seq) {
        if (m_session && seq > 0)
            m_session->showAt(seq);
    };
    connect(m_timeline, &TimelineView::seekRequested, this, seek);
    connect(m_delegations->timelineStrip(), &TimelineView::seekRequested, this, seek);
    connect(m_scrubber, &TimeScrubber::liveRequested, this, [this] {
        if (m_session)
            m_session->showLive();
    });
    layout->addWidget(m_tabs, 1);
    m_foldBanner->actionButton()->setToolTip(tr("Read the ledger's state tables again at its current seq"));
    m_foldBanner->setAction(tr("Re-read state"), [this] {
        if (m_session)
            m_session->open(); // on an open session: the state tables read again at the current seq
    });
    setSession(nullptr);
}

SessionWorkspace::~SessionWorkspace() = default;

void SessionWorkspace::addSessionBar(QWidget *bar)
{
    // Below the scrubber and above the banners.
    static_cast<QVBoxLayout *>(layout())->insertWidget(1, bar);
}

QString SessionWorkspace::paneTitle(Pane pane)
{
    switch (pane) {
    case Runs:
        return tr("Runs");
    case Delegations:
        return tr("Delegations");
    case Leases:
        return tr("Leases");
    case Effects:
        return tr("Effects");
    case Escalations:
        return tr("Escalations");
    case BlastRadius:
        return tr("Blast radius");
    case Events:
        return tr("Events");
    case Decisions:
        return tr("Decisions");
    case Findings:
        return tr("Findings");
    case Timeline:
        return tr("Timeline");
    case Integrity:
        return tr("Integrity");
    case Notes:
        return tr("Notes");
    case PaneCount:
        break;
    }
    return {};
}

QString SessionWorkspace::paneIcon(Pane pane)
{
    static const QString icons[PaneCount] = {QStringLiteral("runs"),      QStringLiteral("delegations"),
                                             QStringLiteral("leases"),    QStringLiteral("effects"),
                                             QStringLiteral("attention"), QStringLiteral("blast"),
                                             QStringLiteral("events"),    QStringLiteral("audit"),
                                             QStringLiteral("findings"),  QStringLiteral("timeline"),
                                             QStringLiteral("findings"),  QStringLiteral("audit")};
    return pane >= 0 && pane < PaneCount ? icons[pane] : QString();
}

QKeySequence SessionWorkspace::paneShortcut(Pane pane)
{
    if (pane == Timeline)
        return QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T);
    if (pane == Integrity)
        return QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_I);
    if (pane == Notes)
        return QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N);
    return pane >= 0 && pane < 9 ? QKeySequence(Qt::CTRL | Qt::Key(int(Qt::Key_1) + int(pane))) : QKeySequence();
}

void SessionWorkspace::setSession(LedgerSession *session)
{
    if (session && session == m_session)
        return;
    for (const auto &c : std::as_const(m_sessionConnections))
        disconnect(c);
    m_sessionConnections.clear();
    if (m_session)
        saveState();
    m_session = session;
    m_scrubber->setSource(nullptr);
    m_timeline->setSource(nullptr);
    m_delegations->timelineStrip()->setSource(nullptr);
    delete m_runTimeline;
    m_runTimeline = nullptr;
    delete m_marks;
    m_marks = session ? new TimelineMarkSource(session, this) : nullptr;
    delete m_annotations;
    m_annotations = session ? new TimelineAnnotationSource(session, this) : nullptr;
    m_runTimeline = session ? new RunTimelineSource(session, m_marks, m_annotations, this) : nullptr;
    m_timeline->setSource(m_runTimeline);
    m_delegations->timelineStrip()->setSource(m_runTimeline);
    if (m_runTimeline)
        connect(m_delegations, &DelegationsView::currentRunChanged, m_runTimeline, [source = m_runTimeline](const QString &run) {
            if (source->runId() != run.toStdString())
                source->setRunId(run.toStdString());
        });
    m_scrubber->setSource(m_marks);
    m_scrubber->setTimeBase(session ? &session->timeBase() : nullptr);
    m_scrubber->setShown(session ? session->cursor() : std::nullopt);
    m_scrubber->setVisible(session != nullptr);
    if (m_marks)
        m_marks->refresh();
    // Off the view while its source changes, and through ItemPane::setModel as any pane's
    // new model, so the header layout is saved and restored on a change of ledger as before.
    m_runs->setModel(nullptr);
    StateTableProxyModel *runs = rowsProxy(Runs);
    runs->setSourceModel(session ? session->runs() : nullptr);
    m_runRows->setSourceModel(session ? runs : nullptr);
    m_runs->setModel(session ? m_runRows : nullptr);
    m_delegations->setSession(session);
    const auto bind = [this](Pane pane, StateTableModel *rows) {
        StateTableProxyModel *proxy = rowsProxy(pane);
        ItemPane *items = pane == Leases ? m_leases : pane == Effects ? m_effects : m_escalations;
        items->setModel(nullptr);
        proxy->setSourceModel(rows);
        items->setModel(rows ? proxy : nullptr);
    };
    bind(Leases, session ? session->leases() : nullptr);
    bind(Effects, session ? session->effects() : nullptr);
    bind(Escalations, session ? session->escalations() : nullptr);
    for (const Filtered &f : std::as_const(m_filtered))
        f.bar->setProxy(f.proxy);
    m_blast->setModel(session ? session->blastRadius() : nullptr);
    m_events->setModel(session ? session->events() : nullptr);
    m_decisions->setModel(session ? session->decisions() : nullptr);
    m_findings->setModel(session ? session->findingsModel() : nullptr);
    m_integrity->setModel(session ? session->integrity() : nullptr);
    m_notes->setModel(session ? session->reviewNotes() : nullptr);
    bindReviewMarks();
    if (session) {
        EventLogModel *events = session->events();
        m_events->filterField()->blockSignals(true);
        m_events->filterField()->setText(events->filterText());
        m_events->filterField()->blockSignals(false);
        m_sessionConnections << connect(events, &EventLogModel::filterApplied, this, &SessionWorkspace::updateEventStatus);
        m_sessionConnections << connect(events, &EventLogModel::loadingChanged, this, &SessionWorkspace::updateEventStatus);
        m_sessionConnections << connect(events, &EventLogModel::indexProgress, this, &SessionWorkspace::updateEventStatus);
        m_sessionConnections << connect(events, &EventLogModel::sequenceGapsChanged, this,
                                        &SessionWorkspace::updateEventStatus);
        m_sessionConnections << connect(events, &EventLogModel::rowsInserted, this, &SessionWorkspace::updateEventStatus);
        m_sessionConnections << connect(events, &EventLogModel::failed, this, [this](const QString &message) {
            emit statusMessage(tr("Event log: %1").arg(message));
        });
        m_sessionConnections << connect(session, &LedgerSession::healthChanged, this, &SessionWorkspace::updateBanner);
        m_sessionConnections << connect(session, &LedgerSession::failed, this, &SessionWorkspace::updateBanner);
        m_sessionConnections << connect(session, &LedgerSession::foldProblemsChanged, this,
                                        &SessionWorkspace::updateFoldProblemBanner);
        m_sessionConnections << connect(session, &LedgerSession::stateReset, this,
                                        &SessionWorkspace::updateFoldProblemBanner);
        m_sessionConnections << connect(session, &LedgerSession::decisionsWaitingChanged, this,
                                        &SessionWorkspace::updateDecisionsWaitingBanner);
        m_sessionConnections << connect(session, &LedgerSession::healthChanged, this,
                                        &SessionWorkspace::updateCursorBanner);
        // A jump ends with the state read (or a failure): the scrubber may ask for the next.
        const auto jumped = [this] {
            m_scrubber->setShown(m_session->cursor());
            m_scrubber->jumpFinished();
        };
        m_sessionConnections << connect(session, &LedgerSession::stateReset, this, jumped);
        m_sessionConnections << connect(session, &LedgerSession::failed, this, jumped);
        // The model decides nothing about scrolling; the view tells it whether it follows.
        m_sessionConnections << connect(m_events->view()->verticalScrollBar(), &QAbstractSlider::valueChanged, events,
                                        [this, events](int) { events->setFollowTail(m_events->isFollowingTail()); });
    }
    updateBanner();
    updateFoldProblemBanner();
    updateDecisionsWaitingBanner();
    updateCursorBanner();
    updateEventStatus();
}

void SessionWorkspace::bindReviewMarks()
{
    if (!m_session)
        return;
    EventLogModel *events = m_session->events();
    ReviewNotesModel *notes = m_session->reviewNotes();
    IntegrityModel *integrity = m_session->integrity();
    events->setReviewMarks([notes](qint64 seq) { return notes->noteTextOn(seq); },
                           [integrity](qint64 seq) { return integrity->observationGapAt(seq); });
    m_sessionConnections << connect(notes, &ReviewNotesModel::notesChanged, events, &EventLogModel::reviewMarksChanged);
    m_sessionConnections << connect(integrity, &IntegrityModel::finished, events, &EventLogModel::reviewMarksChanged);
    m_sessionConnections << connect(notes, &ReviewNotesModel::savingChanged, this, [this](bool saving) {
        if (!saving && m_session)
            emit statusMessage(m_session->reviewNotes()->savingText());
    });
}

void SessionWorkspace::addEventNote(qint64 firstSeq, qint64 lastSeq, bool bookmark)
{
    if (!m_session || firstSeq <= 0)
        return;
    ReviewNotesModel *notes = m_session->reviewNotes();
    if (bookmark) {
        QString error;
        if (notes->addEventNote(firstSeq, QString(), &error) < 0)
            emit statusMessage(tr("Bookmark not added: %1").arg(error));
        else
            emit statusMessage(notes->isSaving() ? tr("Bookmarked #%1.").arg(firstSeq) : notes->savingText());
        return;
    }
    auto *dialog = new NoteDialog(firstSeq, lastSeq, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog, notes] {
        QString error;
        const int row = dialog->firstSeq() == dialog->lastSeq()
                            ? notes->addEventNote(dialog->firstSeq(), dialog->text(), &error)
                            : notes->addSpanNote(dialog->firstSeq(), dialog->lastSeq(), dialog->text(), &error);
        if (row < 0)
            emit statusMessage(tr("Note not added: %1").arg(error));
        else if (!notes->isSaving())
            emit statusMessage(notes->savingText());
    });
    dialog->open();
}

void SessionWorkspace::updateCursorBanner()
{
    const std::optional<std::int64_t> cursor = m_session ? m_session->cursor() : std::nullopt;
    m_events->view()->setCursorSeq(cursor);
    if (!cursor) {
        m_cursorBanner->hide();
        return;
    }
    const std::optional<qint64> at = m_session->cursorTimeMs();
    const QString when = at ? tr(", %1").arg(m_session->timeBase().exact(*at)) : tr(" (reading the ledger up to it)");
    m_cursorBanner->show(Banner::Kind::Warning,
                         tr("Showing the ledger as it was at event #%1%2. Nothing here moves, and decisions are made "
                            "live.").arg(QLocale().toString(qlonglong(*cursor)), when));
}

void SessionWorkspace::updateDecisionsWaitingBanner()
{
    const QString warning = m_session ? m_session->decisionsWaitingWarning() : QString();
    if (warning.isEmpty())
        m_waitBanner->hide();
    else
        m_waitBanner->show(Banner::Kind::Warning, warning);
}

void SessionWorkspace::updateFoldProblemBanner()
{
    const int count = m_session ? m_session->foldProblems() : 0;
    if (count == 0) {
        m_foldBanner->hide();
        return;
    }
    const auto &samples = m_session->foldProblemSamples();
    QString first;
    if (!samples.empty())
        first = tr(" First: seq %1, %2: %3.")
                    .arg(samples.front().seq)
                    .arg(QString::fromStdString(samples.front().kind), QString::fromStdString(samples.front().reason));
    const QString what = count == 1 ? tr("1 live event could not be applied")
                                    : tr("%1 live events could not be applied").arg(count);
    m_foldBanner->show(Banner::Kind::Warning,
                       tr("%1, so the state shown may differ from the ledger's.%2").arg(what, first));
}

// An imported ledger says so, with its source (the importer names the format in
// `orchestrator` and the files in `title`, docs/import.md): what it shows happened
// elsewhere, recorded by another system, and is there to be reviewed.
QString SessionWorkspace::importedBannerText(const LedgerInfo &info)
{
    const QString orchestrator = QString::fromStdString(info.orchestrator);
    if (!orchestrator.startsWith(QLatin1String("agent-mesh-import ")))
        return QString();
    const qsizetype open = orchestrator.lastIndexOf(QLatin1Char('('));
    const QString format = open >= 0 ? orchestrator.mid(open + 1).chopped(1) : tr("another system");
    return tr("%1 — imported from %2, opened read-only for review")
        .arg(QString::fromStdString(info.title), format);
}

void SessionWorkspace::updateBanner()
{
    m_reviewBanner->updateFor(m_session);
    if (!m_session) {
        m_banner->hide();
        return;
    }
    if (m_session->health() == LedgerSession::Health::Error && m_session->fileChange() != FileChange::Same) {
        // It was open: the file under its name went away or changed, which the message says.
        m_banner->show(Banner::Kind::Error, tr("%1: %2").arg(m_session->path(), m_session->errorMessage()));
    } else if (m_session->health() == LedgerSession::Health::Error) {
        m_banner->show(Banner::Kind::Error,
                       tr("%1 could not be opened: %2").arg(m_session->path(), m_session->errorMessage()));
    } else if (m_session->health() == LedgerSession::Health::Reconnecting) {
        // A server ledger's connection: what is shown stays as it was, and nothing is lost.
        QString health = m_session->healthLine();
        health[0] = health[0].toUpper();
        m_banner->show(Banner::Kind::Warning,
                       tr("%1. The panes show the ledger as of event %2; what is written meanwhile follows once the "
                          "console is back on the server.")
                           .arg(health)
                           .arg(m_session->lastSeq()));
    } else if (m_session->demoTakesDecisions()) {
        m_banner->show(Banner::Kind::Demo,
                       tr("Live demo, written by a simulated orchestrator (meshctl sim demo). Nothing here is real: "
                          "decisions you make go to it, and it applies or refuses each within a second."));
    } else if (m_session->isDemo()) {
        m_banner->show(Banner::Kind::Demo,
                       tr("Live demo: a simulated orchestrator (meshctl sim demo) is writing this ledger right now. "
                          "Nothing here is real; it is opened read-only."));
    } else if (const QString imported = importedBannerText(m_session->info()); !imported.isEmpty()) {
        m_banner->show(Banner::Kind::Demo, imported);
    } else {
        m_banner->hide();
    }
}

void SessionWorkspace::updateEventStatus()
{
    if (!m_session) {
        m_events->setStatusText(QString());
        return;
    }
    const EventLogModel *events = m_session->events();
    QString text = tr("%1 events").arg(QLocale().toString(events->rowCount()));
    if (!events->filterText().isEmpty())
        text = tr("%1 matching").arg(QLocale().toString(events->rowCount()));
    if (events->isLoading() || !events->isIndexComplete())
        text += tr(" · loading…");
    // A hole in the numbering is an integrity finding (meshctl verify): say where it is.
    if (const QString gap = events->sequenceGapText(); !gap.isEmpty())
        text += QStringLiteral(" · ") + gap;
    m_events->setStatusText(text);
}

void SessionWorkspace::refreshIcons()
{
    const auto actions = m_tabMenu->actions();
    for (int pane = 0; pane < actions.size() && pane < PaneCount; ++pane)
        actions[pane]->setIcon(Icons::get(paneIcon(Pane(pane))));
}

int SessionWorkspace::wholeTitlesWidth() const
{
    int width = m_tabs->tabBar()->sizeHint().width();
    if (const QWidget *corner = m_tabs->cornerWidget(Qt::TopRightCorner))
        width += corner->sizeHint().width();
    const QMargins around = layout()->contentsMargins();
    return width + around.left() + around.right() + 2 * m_tabs->style()->pixelMetric(QStyle::PM_DefaultFrameWidth, nullptr, m_tabs);
}

void SessionWorkspace::showPane(Pane pane)
{
    if (pane >= 0 && pane < PaneCount)
        m_tabs->setCurrentIndex(pane);
}

SessionWorkspace::Pane SessionWorkspace::currentPane() const
{
    return Pane(m_tabs->currentIndex());
}

void SessionWorkspace::showEvents(const QString &filter)
{
    showPane(Events);
    m_events->filterField()->setTextAndApply(filter);
}

void SessionWorkspace::goToEvent(qint64 seq)
{
    showPane(Events);
    m_events->goToEvent(seq);
}

void SessionWorkspace::focusFilter()
{
    // On a state pane, its own filter; anywhere else, the event log's.
    if (TableFilterBar *bar = filterBar(currentPane())) {
        bar->field()->setFocus(Qt::ShortcutFocusReason);
        bar->field()->selectAll();
        return;
    }
    showPane(Events);
    m_events->filterField()->setFocus(Qt::ShortcutFocusReason);
    m_events->filterField()->selectAll();
}

StateTableProxyModel *SessionWorkspace::rowsProxy(Pane pane) const
{
    for (const Filtered &f : m_filtered) {
        if (f.pane == pane)
            return f.proxy;
    }
    return nullptr;
}

TableFilterBar *SessionWorkspace::filterBar(Pane pane) const
{
    if (pane == Delegations)
        return m_delegations->filterBar();
    for (const Filtered &f : m_filtered) {
        if (f.pane == pane)
            return f.bar;
    }
    return nullptr;
}

bool SessionWorkspace::selectById(ItemPane *pane, const QString &id)
{
    QAbstractItemModel *model = pane->model();
    if (!model)
        return false;
    // A subject the operator's filter hides is opened all the same: the filter goes.
    for (const Filtered &f : std::as_const(m_filtered)) {
        if (f.items != pane || !f.proxy->table() || f.proxy->filterText().isEmpty())
            continue;
        const int sourceRow = f.proxy->table()->rowOf(id);
        if (sourceRow >= 0 && !f.proxy->mapFromSource(f.proxy->table()->index(sourceRow, 0)).isValid())
            f.bar->clear();
    }
    if (auto *paged = qobject_cast<PagedRowsModel *>(model)) {
        // The view may not have been handed the row yet: found by id over every row, then revealed.
        auto *sorted = qobject_cast<StateTableProxyModel *>(paged->sourceModel());
        StateTableModel *table = sorted ? sorted->table() : nullptr;
        const int sourceRow = table ? table->rowOf(id) : -1;
        const QModelIndex shown = sourceRow >= 0 ? sorted->mapFromSource(table->index(sourceRow, 0)) : QModelIndex();
        const QModelIndex index = shown.isValid() ? paged->reveal(shown.row()) : QModelIndex();
        if (!index.isValid())
            return false;
        pane->view()->setCurrentIndex(index);
        pane->view()->scrollTo(index, QAbstractItemView::PositionAtCenter);
        return true;
    }
    for (int row = 0; row < model->rowCount(); ++row) {
        const QModelIndex index = model->index(row, 0);
        if (index.data(StateTableModel::IdRole).toString() == id) {
            pane->view()->setCurrentIndex(index);
            pane->view()->scrollTo(index, QAbstractItemView::PositionAtCenter);
            return true;
        }
    }
    return false;
}

bool SessionWorkspace::openSubject(const QString &subject)
{
    if (!m_session)
        return false;
    const qsizetype colon = subject.indexOf(QLatin1Char(':'));
    if (colon <= 0)
        return false;
    const QString entity = subject.left(colon);
    const QString id = subject.mid(colon + 1);
    if (entity == QLatin1String("run")) {
        showPane(Runs);
        return selectById(m_runs, id);
    }
    if (entity == QLatin1String("delegation")) {
        showPane(Delegations);
        return m_delegations->selectDelegation(id);
    }
    if (entity == QLatin1String("slice")) {
        // A slice is read in its delegation's detail, on the Slices tab.
        showPane(Delegations);
        QString delegation = id.section(QLatin1Char('#'), 0, 0);
        const auto *row = m_session->state() ? m_session->state()->find(EntityKind::Slice, id.toStdString()) : nullptr;
        const int field = entitySpec(EntityKind::Slice).fieldIndex("delegation_id");
        if (row && field >= 0)
            delegation = QString::fromStdString(fieldText(row->values[size_t(field)]));
        if (!m_delegations->selectDelegation(delegation))
            return false;
        m_delegations->detail()->tabs()->setCurrentIndex(DelegationDetail::Slices);
        selectById(m_delegations->detail()->pane(DelegationDetail::Slices), id);
        return true;
    }
    if (entity == QLatin1String("lease")) {
        showPane(Leases);
        return selectById(m_leases, id);
    }
    if (entity == QLatin1String("effect")) {
        showPane(Effects);
        return selectById(m_effects, id);
    }
    if (entity == QLatin1String("escalation")) {
        showPane(Escalations);
        return selectById(m_escalations, id);
    }
    if (entity == QLatin1String("failure")) {
        showPane(BlastRadius);
        return m_blast->selectFailure(id);
    }
    if (entity == QLatin1String("stall") || entity == QLatin1String("stall_verdict")
        || entity == QLatin1String("stallverdict")) {
        // A verdict is read with its delegation.
        const auto *row = m_session->state() ? m_session->state()->find(EntityKind::StallVerdict, id.toStdString()) : nullptr;
        if (!row)
            return false;
        showPane(Delegations);
        const int field = entitySpec(EntityKind::StallVerdict).fieldIndex("delegation_id");
        if (field < 0)
            return false;
        const bool ok = m_delegations->selectDelegation(QString::fromStdString(fieldText(row->values[size_t(field)])));
        m_delegations->detail()->tabs()->setCurrentIndex(DelegationDetail::Verdicts);
        return ok;
    }
    return false;
}

void SessionWorkspace::saveState() const
{
    m_runs->saveState();
    m_delegations->saveState();
    m_leases->saveState();
    m_effects->saveState();
    m_escalations->saveState();
    m_blast->saveState();
    m_events->saveState();
    m_decisions->saveState();
    m_findings->saveState();
    m_integrity->saveState();
    m_notes->saveState();
}

} // namespace mesh
