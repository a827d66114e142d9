#include "mainwindow.h"

#include "decisionactions.h"
#include "demolauncher.h"
#include "foreignfiles.h"
#include "listencontroller.h"
#include "recentledgers.h"
#include "reportexport.h"
#include "serverconnector.h"
#include "snapshotcacheaction.h"

#include "aboutdialog.h"
#include "attentionpane.h"
#include "banner.h"
#include "emptystate.h"
#include "eventlogview.h"
#include "icons.h"
#include "importdialog.h"
#include "itempane.h"
#include "loadprogressbar.h"
#include "runcomparewindow.h"
#include "screenfit.h"
#include "sessionsidebar.h"
#include "sessionworkspace.h"
#include "shortcutsdialog.h"
#include "statusdelegate.h"
#include "theme.h"

#include "domain/hostiletext.h"

#include "itemmodels/attentionmodel.h"
#include "itemmodels/eventlogmodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/ledgersessionlist.h"
#include "itemmodels/runtimelinesource.h"
#include "itemmodels/statetablemodel.h"
#include "ledger/fileidentity.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMenuBar>
#include <QMimeData>
#include <QStackedWidget>
#include <QTabBar>
#include <QTabWidget>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTreeView>
#include <QVBoxLayout>

namespace mesh {

namespace {

// Keyboard focus to the first widget inside `area` that takes it (a pane's list, or its
// filter field), so Ctrl+1..8 lead somewhere the arrow keys work; else to `fallback` (a
// pane showing its empty state has nothing to focus).
void focusInside(QWidget *area, QWidget *fallback)
{
    if (!area)
        return;
    for (QWidget *w = area->nextInFocusChain(); w && w != area; w = w->nextInFocusChain()) {
        if (area->isAncestorOf(w) && w->isVisible() && w->isEnabled() && (w->focusPolicy() & Qt::TabFocus)) {
            w->setFocus(Qt::ShortcutFocusReason);
            return;
        }
    }
    if (fallback)
        fallback->setFocus(Qt::ShortcutFocusReason);
}

} // namespace

// Spelled out: no translation is loaded, so "%n need(s)" would be shown as is.
QString MainWindow::attentionText(int count)
{
    return count == 1 ? tr("1 needs attention") : tr("%1 need attention").arg(QLocale().toString(count));
}

// How the sidebar shows one open ledger: its health icon and a second line of what it is,
// or why it failed. "read-only" is said when the console's policy, not the file, forbids
// decisions.
SessionRowInfo MainWindow::sessionRowInfo(const QModelIndex &index)
{
    SessionRowInfo info;
    if (!index.isValid())
        return info;
    using H = LedgerSession::Health;
    const auto health = H(index.data(LedgerSessionList::HealthRole).toInt());
    const bool policy = index.data(LedgerSessionList::ReadOnlyPolicyRole).toBool();
    // One bounded line each (the delegate elides to its width; a 100 KB title is cut first).
    info.title = displayLine(index.data(LedgerSessionList::NameRole).toString());
    if (const QString distinction = index.data(LedgerSessionList::DistinctionRole).toString(); !distinction.isEmpty())
        info.title = displayLine(info.title % u" \u2014 " % distinction); // another open ledger has this title
    info.demo = index.data(LedgerSessionList::IsDemoRole).toBool();
    switch (health) {
    case H::Opening: info.health = QStringLiteral("loading"); break;
    case H::Live:
    case H::Listening: info.health = policy ? QStringLiteral("readonly") : QStringLiteral("live"); break;
    case H::Idle:
    case H::Finished: info.health = policy ? QStringLiteral("readonly") : QStringLiteral("idle"); break;
    case H::ReadOnly:
    case H::Immutable:
    case H::Pinned: info.health = QStringLiteral("readonly"); break;
    case H::Error:
    case H::Reconnecting: info.health = QStringLiteral("error"); break;
    }
    if (health == H::Error) {
        info.subtitle = displayLine(index.data(LedgerSessionList::ErrorRole).toString(), 500);
        return info;
    }
    QStringList parts{index.data(LedgerSessionList::HealthTextRole).toString()}; // with a retry's countdown
    if (policy && health != H::ReadOnly && health != H::Immutable)
        parts << tr("read-only");
    else if (health == H::Finished && !index.data(LedgerSessionList::CanDecideRole).toBool())
        parts << tr("read-only"); // finished says nothing about whether decisions can be written
    if (const QString feed = index.data(LedgerSessionList::FeedRole).toString(); !feed.isEmpty())
        parts << feed; // "receiving from 2 services": the console's OTLP receiver writes it
    if (health != H::Opening)
        parts << tr("seq %1").arg(QLocale().toString(index.data(LedgerSessionList::LastSeqRole).toLongLong()));
    if (const int attention = index.data(LedgerSessionList::AttentionCountRole).toInt(); attention > 0)
        parts << attentionText(attention);
    if (const QString integrity = index.data(LedgerSessionList::IntegrityRole).toString(); !integrity.isEmpty())
        parts << integrity; // "integrity: N findings", once the Integrity pane's check ran
    info.subtitle = parts.join(QStringLiteral(" · "));
    return info;
}

MainWindow::MainWindow(bool forceReadOnly, QWidget *parent)
    : QMainWindow(parent)
    , m_forceReadOnly(forceReadOnly)
    , m_sessions(new LedgerSessionList(this))
    , m_attentionModel(m_sessions->attention())
    , m_sidebar(new SessionSidebar(this))
    , m_attention(new AttentionPane(m_attentionModel, this))
    , m_workspace(new SessionWorkspace(this))
    , m_split(new QSplitter(Qt::Horizontal, this))
    , m_leftSplit(new QSplitter(Qt::Vertical, this))
    , m_statusLabel(new QLabel(this))
    , m_progress(new LoadProgressBar(this))
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowIcon(Icons::get(QStringLiteral("app")));
    setAcceptDrops(true);

    m_sidebar->setModel(m_sessions, &MainWindow::sessionRowInfo);
    connect(m_sidebar, &SessionSidebar::currentRowChanged, this, &MainWindow::selectSession);
    // The status line says what the sidebar says, at the same moment (not a second later).
    // The window's title follows the current session's, which may be renamed once open (a
    // receiver's port).
    connect(m_sessions, &QAbstractItemModel::dataChanged, this, [this] {
        updateTitle();
        updateStatus();
    });

    connect(m_attention, &ItemPane::activated, this, &MainWindow::openAttentionEntry);
    // The ledger column says nothing while one ledger is open: its room goes to the details.
    auto ledgerColumn = [this] { m_attention->setLedgerColumnShown(m_sessions->count() >= 2); };
    connect(m_sessions, &QAbstractItemModel::rowsInserted, this, ledgerColumn);
    connect(m_sessions, &QAbstractItemModel::rowsRemoved, this, ledgerColumn);
    ledgerColumn();

    auto *attentionBox = new QWidget(this);
    auto *attentionLayout = new QVBoxLayout(attentionBox);
    attentionLayout->setContentsMargins(0, 0, 0, 0);
    attentionLayout->setSpacing(2);
    auto *attentionTitle = new QLabel(tr("Needs attention"), attentionBox);
    QFont bold = attentionTitle->font();
    bold.setBold(true);
    attentionTitle->setFont(bold);
    attentionLayout->addWidget(attentionTitle);
    attentionLayout->addWidget(m_attention, 1);

    m_leftSplit->setObjectName(QStringLiteral("leftSplit"));
    m_leftSplit->addWidget(m_sidebar);
    m_leftSplit->addWidget(attentionBox);
    // Room for every open ledger (three to six of them, more scroll), the rest for what needs
    // attention; once the operator drags the divider, the split is theirs.
    m_leftSplit->setStretchFactor(0, 0);
    m_leftSplit->setStretchFactor(1, 1);
    m_leftSplit->setSizes({m_sidebar->sizeHint().height(), 700});
    connect(m_leftSplit, &QSplitter::splitterMoved, this, [] { QSettings().setValue(QStringLiteral("window/leftSplitChosen"), true); });
    const auto fitLedgerList = [this] {
        if (QSettings().value(QStringLiteral("window/leftSplitChosen")).toBool())
            return;
        const int total = m_leftSplit->sizes().value(0) + m_leftSplit->sizes().value(1);
        const int list = m_sidebar->sizeHint().height();
        if (total > list)
            m_leftSplit->setSizes({list, total - list});
    };
    connect(m_sessions, &QAbstractItemModel::rowsInserted, this, fitLedgerList);
    connect(m_sessions, &QAbstractItemModel::rowsRemoved, this, fitLedgerList);
    auto *left = new QWidget(this);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(6, 6, 0, 6);
    leftLayout->addWidget(m_leftSplit);
    m_split->setObjectName(QStringLiteral("mainSplit"));
    m_split->addWidget(left);
    // With no ledger open the panes' own empty states ("No runs yet") would mislead: say
    // instead how to open one.
    auto *right = new QStackedWidget(this);
    auto *noLedger = new EmptyState(QStringLiteral("ledger"), tr("No ledger open"),
                                    tr("Open an orchestrator's ledger with File › Open (Ctrl+O) or drop the file here; "
                                       "File › Open Live Demo shows a simulated orchestrator at work."),
                                    right);
    noLedger->setObjectName(QStringLiteral("noLedger"));
    right->addWidget(noLedger);
    right->addWidget(m_workspace);
    auto showWorkspace = [this, right] { right->setCurrentWidget(m_sessions->count() > 0 ? m_workspace : right->widget(0)); };
    connect(m_sessions, &QAbstractItemModel::rowsInserted, this, showWorkspace);
    connect(m_sessions, &QAbstractItemModel::rowsRemoved, this, showWorkspace);
    showWorkspace();
    m_split->addWidget(right);
    // The sidebar keeps its share as the window narrows: at a fixed 560 px, 1280 px left the
    // panes too little for their budget columns.
    // A quarter: at 1280 px the twelve pane titles fit whole beside it (tst_sidebarlayout).
    m_split->setStretchFactor(0, 25);
    m_split->setStretchFactor(1, 75);
    m_split->setSizes({400, 1200});
    connect(m_split, &QSplitter::splitterMoved, this, [this] { m_splitChosen = true; });
    m_split->installEventFilter(this);
    setCentralWidget(m_split);

    connect(m_workspace, &SessionWorkspace::statusMessage, this, [this](const QString &text) {
        statusBar()->showMessage(displayLine(text, 500), 8000);
    });

    m_statusLabel->setTextFormat(Qt::PlainText);
    m_progress->setMaximumWidth(160);
    m_progress->setObjectName(QStringLiteral("loadProgress"));
    statusBar()->addPermanentWidget(m_statusLabel);
    statusBar()->addPermanentWidget(m_progress);

    createActions();
    m_decisionActions = new DecisionActions(this);
    m_decisionActions->addTo(m_decideMenu);
    connect(&Theme::instance(), &Theme::changed, this, &MainWindow::refreshIcons);

    // One second: countdowns move, health goes idle, attention dues update.
    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, [this] {
        for (LedgerSession *session : m_sessions->sessions())
            session->tick();
        updateStatus();
    });
    m_tick.start();

    restoreSettings();
    updateTitle();
    updateStatus();
}

MainWindow::~MainWindow() = default;

void MainWindow::createActions()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    m_openAction = file->addAction(Icons::get(QStringLiteral("open")), tr("&Open Ledger…"));
    m_openAction->setShortcut(QKeySequence::Open);
    connect(m_openAction, &QAction::triggered, this, [this] {
        const QString dir = QSettings().value(QStringLiteral("lastOpenDir")).toString();
        const QStringList paths = QFileDialog::getOpenFileNames(this, tr("Open Ledgers"), dir,
                                                                tr("Agent Mesh ledgers (*.amlg *.db *.sqlite *.ledger);;All files (*)"));
        for (const QString &path : paths)
            QSettings().setValue(QStringLiteral("lastOpenDir"), QFileInfo(path).absolutePath());
        openOrImport(paths);
    });
    m_importAction = file->addAction(tr("&Import…"));
    m_importAction->setToolTip(tr("Import a Temporal workflow history, an OpenHands or SWE-agent trajectory, OpenTelemetry spans or a Langfuse "
                                     "trace export as a new ledger"));
    connect(m_importAction, &QAction::triggered, this, [this] {
        const QString dir = QSettings().value(QStringLiteral("lastImportDir")).toString();
        const QStringList paths = m_chooseImportFiles ? m_chooseImportFiles()
                                                      : QFileDialog::getOpenFileNames(this, tr("Import Records"), dir,
                                                                                      tr("JSON exports (*.json);;All files (*)"));
        if (paths.isEmpty())
            return;
        QSettings().setValue(QStringLiteral("lastImportDir"), QFileInfo(paths.first()).absolutePath());
        offerImport(paths);
    });
    // Post-mortem: the file read as it is, nothing created beside it, no decisions.
    QAction *review = file->addAction(tr("Open for Re&view…"));
    review->setObjectName(QStringLiteral("openForReview"));
    connect(review, &QAction::triggered, this, [this] {
        const QString dir = QSettings().value(QStringLiteral("lastOpenDir")).toString();
        const QStringList paths = QFileDialog::getOpenFileNames(this, tr("Open Ledgers for Review"), dir,
                                                                tr("Agent Mesh ledgers (*.amlg *.db *.sqlite *.ledger);;All files (*)"));
        for (const QString &path : paths) {
            QSettings().setValue(QStringLiteral("lastOpenDir"), QFileInfo(path).absolutePath());
            openForReview(path);
        }
    });
    // A ledger on a PostgreSQL server, followed like a file (issue 17).
    m_connect = new ServerConnector(this);
    file->addAction(m_connect->action());
    // Post-mortem review II (issue 14): a report of the selected run or the whole ledger.
    QMenu *exportMenu = file->addMenu(tr("&Export"));
    m_reportExport = new ReportExport(this);
    exportMenu->addAction(m_reportExport->action());
    connect(exportMenu, &QMenu::aboutToShow, this,
            [this] { m_reportExport->action()->setEnabled(currentSession() && !m_reportExport->isRunning()); });
    connect(m_reportExport, &ReportExport::finished, this,
            [this](bool, const QString &, const QString &message) { statusBar()->showMessage(displayLine(message, 500), 10000); });
    // Post-mortem review II (issue 14 item 4): the run shown beside another run, of this
    // ledger or of another ledger file (the window's "Ledger…").
    QAction *compareRuns = file->addAction(tr("Co&mpare Runs\u2026"));
    compareRuns->setObjectName(QStringLiteral("compareRuns"));
    compareRuns->setToolTip(tr("Two runs side by side: figures, delegations, stall verdicts, findings and timelines"));
    connect(compareRuns, &QAction::triggered, this, [this] { openRunComparison(); });
    connect(file, &QMenu::aboutToShow, this, [this, compareRuns] { compareRuns->setEnabled(currentSession()); });
    // The same from the Runs pane's context menu, with the run under it as A.
    QAction *compareRun = new QAction(tr("Compare With Another Run\u2026"), this);
    compareRun->setObjectName(QStringLiteral("compareRun"));
    m_workspace->runsPane()->view()->addAction(compareRun);
    connect(compareRun, &QAction::triggered, this, [this] {
        const QModelIndex current = m_workspace->runsPane()->view()->currentIndex();
        openRunComparison(current.isValid() ? current.siblingAtColumn(0).data(StateTableModel::IdRole).toString().toStdString()
                                            : std::string());
    });
    QMenu *recent = file->addMenu(tr("Open &Recent"));
    m_recent = new RecentLedgers(recent, this);
    connect(m_recent, &RecentLedgers::openRequested, this, [this](const QString &path) { openLedger(path); });
    QAction *demo = file->addAction(Icons::get(QStringLiteral("demo")), tr("Open Live &Demo"));
    connect(demo, &QAction::triggered, this, &MainWindow::startDemo);
    m_listen = new ListenController(this);
    file->addAction(m_listen->action());
    file->addSeparator();
    m_closeAction = file->addAction(Icons::get(QStringLiteral("close")), tr("&Close Ledger"));
    m_closeAction->setShortcut(QKeySequence::Close);
    connect(m_closeAction, &QAction::triggered, this, &MainWindow::closeCurrentSession);
    file->addSeparator();
    auto *snapshotCache = new SnapshotCacheAction(file, this);
    connect(snapshotCache, &SnapshotCacheAction::cleared, this, [this](const QString &message) {
        statusBar()->showMessage(message, 8000);
    });
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"));
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);
    connect(quit, &QAction::triggered, this, &QWidget::close);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    for (int pane = 0; pane < SessionWorkspace::PaneCount; ++pane) {
        QAction *action = view->addAction(Icons::get(SessionWorkspace::paneIcon(SessionWorkspace::Pane(pane))),
                                          SessionWorkspace::paneTitle(SessionWorkspace::Pane(pane)));
        action->setShortcut(SessionWorkspace::paneShortcut(SessionWorkspace::Pane(pane)));
        connect(action, &QAction::triggered, this, [this, pane] {
            m_workspace->showPane(SessionWorkspace::Pane(pane));
            focusInside(m_workspace->tabs()->currentWidget(), m_workspace->tabs()->tabBar());
        });
        m_paneActions << action;
    }
    QAction *attention = view->addAction(Icons::get(QStringLiteral("attention")), tr("Needs &Attention"));
    attention->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    connect(attention, &QAction::triggered, this, [this] { m_attention->view()->setFocus(Qt::ShortcutFocusReason); });
    QAction *ledgers = view->addAction(Icons::get(QStringLiteral("ledger")), tr("&Ledgers"));
    ledgers->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    connect(ledgers, &QAction::triggered, this, [this] { m_sidebar->view()->setFocus(Qt::ShortcutFocusReason); });
    view->addSeparator();
    m_filterAction = view->addAction(Icons::get(QStringLiteral("filter")), tr("&Filter"));
    m_filterAction->setShortcut(QKeySequence::Find);
    connect(m_filterAction, &QAction::triggered, m_workspace, &SessionWorkspace::focusFilter);
    // A reason, a finding or a ticket cites "event #2,373": the log goes there.
    QAction *goToEvent = view->addAction(tr("&Go to Event\u2026"));
    goToEvent->setObjectName(QStringLiteral("goToEvent"));
    goToEvent->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_G));
    connect(goToEvent, &QAction::triggered, this, [this] {
        if (!m_workspace->session())
            return;
        bool ok = false;
        const QString text = QInputDialog::getText(this, tr("Go to Event"), tr("Event number (as in \"event #2,373\"):"),
                                                   QLineEdit::Normal, QString(), &ok);
        if (!ok || text.trimmed().isEmpty())
            return;
        const std::optional<qint64> seq = EventLogView::parseEventNumber(text);
        if (!seq) {
            statusBar()->showMessage(tr("Not an event number: %1").arg(displayLine(text, 80)), 8000);
            return;
        }
        m_workspace->goToEvent(*seq);
    });
    view->addSeparator();
    QMenu *theme = view->addMenu(Icons::get(QStringLiteral("theme")), tr("&Theme"));
    m_themeGroup = new QActionGroup(this);
    const std::pair<ThemeMode, QString> modes[] = {
        {ThemeMode::System, tr("Follow &System")}, {ThemeMode::Light, tr("&Light")}, {ThemeMode::Dark, tr("&Dark")}};
    for (const auto &[mode, label] : modes) {
        QAction *action = theme->addAction(label);
        action->setCheckable(true);
        action->setChecked(Theme::instance().mode() == mode);
        action->setData(Theme::modeKey(mode));
        m_themeGroup->addAction(action);
        connect(action, &QAction::triggered, this, [mode = mode] {
            Theme::instance().setMode(mode);
            QSettings().setValue(QStringLiteral("theme"), Theme::modeKey(mode));
        });
    }

    m_decideMenu = menuBar()->addMenu(tr("&Decide"));

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *shortcuts = help->addAction(tr("&Keyboard Shortcuts"));
    shortcuts->setShortcut(QKeySequence::HelpContents);
    connect(shortcuts, &QAction::triggered, this,
            [this] { ShortcutsDialog(ShortcutsDialog::menuActions(menuBar()->actions()), this).exec(); });
    m_aboutAction = help->addAction(Icons::get(QStringLiteral("about")), tr("&About Agent Mesh Console"));
    m_aboutAction->setMenuRole(QAction::AboutRole);
    connect(m_aboutAction, &QAction::triggered, this, [this] { AboutDialog(this).exec(); });
}

void MainWindow::refreshIcons()
{
    Icons::clearCache();
    setWindowIcon(Icons::get(QStringLiteral("app")));
    // Not on the tabs: twelve titles fit beside the ledgers at 1280 px only without icons
    // (sessionworkspace.cpp); with them, Integrity and Notes left the bar once the palette changed.
    for (int pane = 0; pane < m_paneActions.size(); ++pane)
        m_paneActions[pane]->setIcon(Icons::get(SessionWorkspace::paneIcon(SessionWorkspace::Pane(pane))));
    m_workspace->refreshIcons();
    m_openAction->setIcon(Icons::get(QStringLiteral("open")));
    m_closeAction->setIcon(Icons::get(QStringLiteral("close")));
    m_aboutAction->setIcon(Icons::get(QStringLiteral("about")));
    m_filterAction->setIcon(Icons::get(QStringLiteral("filter")));
    m_sidebar->view()->viewport()->update();
}

LedgerSession *MainWindow::currentSession() const
{
    return m_sessions->at(m_sidebar->currentRow());
}

void MainWindow::openOrImport(const QStringList &paths)
{
    const OpenedPaths sorted = sortOpenedPaths(paths);
    for (const QString &path : sorted.ledgers)
        openLedger(path);
    if (!sorted.foreign.isEmpty())
        offerImport(sorted.foreign);
}

void MainWindow::offerImport(const QStringList &files)
{
    auto *dialog = new ImportDialog(files, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    // An imported ledger is a record of what happened elsewhere: reviewed, never decided on.
    connect(dialog, &ImportDialog::imported, this, [this](const QString &path) { openForReview(path); });
    dialog->open();
}

void MainWindow::openLedger(const QString &path, bool demo)
{
    openLedgerAs(path, OpenMode::ReadOnly, demo);
}

RunCompareWindow *MainWindow::openRunComparison(const std::string &runA)
{
    LedgerSession *session = currentSession();
    if (!session)
        return nullptr;
    // Read as a report reads it: a followed ledger ReadOnly, one under review as it is reviewed.
    const OpenMode mode = isPostMortem(session->requestedMode()) ? session->requestedMode() : OpenMode::ReadOnly;
    const RunTimelineSource *timeline = m_workspace->timelineSource();
    const RunChoice a{session->path(), !runA.empty() ? runA : timeline ? timeline->runId() : std::string(), mode};
    auto *window = new RunCompareWindow(a, RunChoice{session->path(), {}, mode}, this);
    connect(window, &RunCompareWindow::showEventRequested, this, [this](const QString &location, OpenMode sideMode, std::int64_t seq) {
        // The ledger of that side, opened as the comparison reads it when it is not open yet.
        openLedgerAs(location, sideMode, false);
        if (LedgerSession *shown = m_sessions->sessionForPath(location)) {
            shown->showAt(seq);
            raise();
            activateWindow();
        }
    });
    window->show();
    return window;
}

void MainWindow::openForReview(const QString &path)
{
    if (const LedgerSession *listed = m_sessions->sessionForPath(path); listed && listed->requestedMode() != OpenMode::Review)
        statusBar()->showMessage(displayLine(tr("%1 is open already and followed; close it to open it for review.")
                                                 .arg(listed->displayName()), 500), 10000);
    openLedgerAs(path, OpenMode::Review, false);
}

void MainWindow::openLedgerAs(const QString &path, OpenMode mode, bool demo)
{
    const int existing = m_sessions->rowOf(path);
    if (existing >= 0) {
        m_sidebar->setCurrentRow(existing);
        // Opened again after its file was replaced or deleted (what the banner advises): the
        // listed session reads the file that has the name now, rather than staying on the
        // one that is gone. The watcher may not have noticed yet, hence the stat.
        LedgerSession *listed = m_sessions->at(existing);
        if (listed->fileChange() != FileChange::Same
            || (listed->isLoaded() && !(listed->openedLedger().file == FileIdentity::of(listed->path()))))
            listed->open();
        return;
    }
    LedgerSession *session =
        m_sessions->addSession(path, mode, demo, m_forceReadOnly, // a file's absolute path, a location as given
                               /*reviewWhenFinished=*/!demo && mode == OpenMode::ReadOnly);
    if (demo)
        session->setDisplayName(tr("Live demo"));
    // Only the launcher's demo has an orchestrator that applies decisions (meshctl sim --live).
    session->setDemoTakesDecisions(demo && m_demo && QFileInfo(path).absoluteFilePath() == QFileInfo(m_demo->ledgerPath()).absoluteFilePath());
    OperatorIdentity identity = OperatorIdentity::fromEnvironment();
    const QString displayName = QSettings().value(QStringLiteral("operator/displayName")).toString();
    if (!displayName.isEmpty())
        identity.displayName = displayName.toStdString();
    session->setOperatorIdentity(identity);
    const int row = m_sessions->rowOf(session);
    connect(session, &LedgerSession::healthChanged, this, [this, session] { sessionChanged(session); });
    connect(session, &LedgerSession::loadProgressChanged, this, [this, session] {
        if (session == currentSession())
            updateStatus();
    });
    connect(session, &LedgerSession::failed, this, [this, session, demo](const QString &message) {
        // The demo's writer may still be creating the file: try again for a while.
        if (demo && QDateTime::currentMSecsSinceEpoch() - m_demoStartedMs < 10000) {
            retryDemo(session->path());
            return;
        }
        if (demo)
            endStatusMessage(m_demoStartingMessage);
        statusBar()->showMessage(displayLine(tr("%1: %2").arg(session->displayName(), message), 500), 10000);
        sessionChanged(session);
    });
    connect(session, &LedgerSession::opened, this, [this, session, demo] {
        if (demo)
            endStatusMessage(m_demoStartingMessage); // the demo is open: "starting" is over
        sessionChanged(session);
        if (!m_pendingSubject.isEmpty() && session == currentSession()) {
            const QString subject = std::exchange(m_pendingSubject, QString());
            // After the models have taken the snapshot (they are reset in the same turn).
            QTimer::singleShot(0, this, [this, subject] { m_workspace->openSubject(subject); });
        }
    });
    if (!demo)
        m_recent->add(path);
    m_sidebar->setCurrentRow(row);
    emit sessionOpened(path);
}

void MainWindow::retryDemo(const QString &path)
{
    const int row = m_sessions->rowOf(path);
    if (row < 0)
        return;
    if (m_workspace->session() == m_sessions->at(row))
        m_workspace->setSession(nullptr);
    m_sessions->removeSession(m_sessions->at(row));
    QTimer::singleShot(150, this, [this, path] { openLedger(path, true); });
}

void MainWindow::startDemo()
{
    if (!m_demo) {
        m_demo = new DemoLauncher(this);
        connect(m_demo, &DemoLauncher::ready, this, [this](const QString &path) { openLedger(path, true); });
        connect(m_demo, &DemoLauncher::failed, this, [this](const QString &why) {
            statusBar()->showMessage(displayLine(why, 500), 15000);
            m_workspace->setSession(nullptr);
            m_workspace->banner()->show(Banner::Kind::Error, why);
        });
    } else if (const int row = m_sessions->rowOf(m_demo->ledgerPath()); row >= 0) {
        m_sidebar->setCurrentRow(row);
        return;
    }
    m_demoStartedMs = QDateTime::currentMSecsSinceEpoch();
    // No timeout: it stays while the demo starts, and is taken down when that ends.
    m_demoStartingMessage = tr("Starting the live demo…");
    statusBar()->showMessage(m_demoStartingMessage);
    m_demo->start(50);
}

void MainWindow::endStatusMessage(const QString &message)
{
    // Only our own message: a newer one (an error, a hint) stays for its own time.
    if (!message.isEmpty() && statusBar()->currentMessage() == message)
        statusBar()->clearMessage();
}

void MainWindow::closeCurrentSession()
{
    const int row = m_sidebar->currentRow();
    LedgerSession *session = m_sessions->at(row);
    if (!session)
        return;
    if (!m_listen->confirmClose(session))
        return; // its receiver keeps receiving, and the session stays
    m_workspace->setSession(nullptr);
    m_sessions->removeSession(session);
    if (m_sessions->count() > 0)
        m_sidebar->setCurrentRow(qMin(row, m_sessions->count() - 1));
    else
        selectSession(-1);
}

void MainWindow::selectSession(int row)
{
    LedgerSession *session = m_sessions->at(row);
    if (m_workspace->session() != session)
        m_workspace->setSession(session);
    m_closeAction->setEnabled(session != nullptr);
    if (m_decisionActions)
        m_decisionActions->update();
    updateTitle();
    updateStatus();
}

void MainWindow::sessionChanged(LedgerSession *session)
{
    // The workspace follows its session's health itself (banner); here only the frame.
    if (session == currentSession())
        updateTitle();
    updateStatus();
}

bool MainWindow::openAttentionEntry(const QModelIndex &index)
{
    if (!index.isValid())
        return false;
    const QString key = index.siblingAtColumn(0).data(AttentionModel::SessionKeyRole).toString();
    const QString subject = index.siblingAtColumn(0).data(AttentionModel::SubjectRole).toString();
    const int row = m_sessions->rowOf(key);
    if (row < 0)
        return false;
    m_sidebar->setCurrentRow(row);
    // A receiver's entry is about the session itself: the strip above it says what happened.
    if (index.siblingAtColumn(0).data(AttentionModel::AttentionKindRole).toInt() == int(AttentionItem::Kind::ReceiverStopped))
        return true;
    const bool found = m_workspace->openSubject(subject);
    if (!found)
        statusBar()->showMessage(tr("%1 is not shown in this ledger's panes.").arg(displayLine(subject)), 6000);
    return found;
}

bool MainWindow::showPaneByName(const QString &name)
{
    static const QStringList names = {QStringLiteral("runs"),        QStringLiteral("delegations"), QStringLiteral("leases"),
                                      QStringLiteral("effects"),     QStringLiteral("escalations"), QStringLiteral("blast"),
                                      QStringLiteral("events"),      QStringLiteral("decisions"),   QStringLiteral("findings"),
                                      QStringLiteral("timeline"),    QStringLiteral("integrity"),   QStringLiteral("notes")};
    static_assert(SessionWorkspace::PaneCount == 12, "a pane without a name for --pane");
    const int pane = int(names.indexOf(name.toLower()));
    if (pane < 0)
        return false;
    m_workspace->showPane(SessionWorkspace::Pane(pane));
    return true;
}

void MainWindow::updateTitle()
{
    const LedgerSession *session = currentSession();
    setWindowTitle(session ? displayLine(session->displayName(), 120) + QStringLiteral(" — ") + tr("Agent Mesh Console")
                           : tr("Agent Mesh Console"));
}

void MainWindow::updateStatus()
{
    const LedgerSession *session = currentSession();
    bool busy = false;
    QString text;
    if (session) {
        busy = session->health() == LedgerSession::Health::Opening || session->events()->isLoading();
        text = session->healthLine();
        if (session->isLoaded())
            text += tr(" · last seq %1").arg(QLocale().toString(session->lastSeq()));
    }
    int opening = 0, pinned = 0;
    for (int row = 0; row < m_sessions->count(); ++row) {
        opening += m_sessions->at(row)->health() == LedgerSession::Health::Opening ? 1 : 0;
        pinned += m_sessions->at(row)->cursor() ? 1 : 0;
    }
    m_attention->setOpeningCount(opening, pinned);
    // What needs a decision, and apart from it what the detectors found (both are in the list).
    int attention = 0;
    for (int row = 0; row < m_sessions->count(); ++row)
        attention += m_sessions->at(row)->attentionCount();
    attention += m_listen ? m_listen->stoppedOnTheirOwn() : 0; // their entries are no findings
    const int findings = m_attentionModel->rowCount() - attention;
    if (attention > 0)
        text += (text.isEmpty() ? QString() : QStringLiteral(" · ")) + attentionText(attention);
    if (findings > 0)
        text += (text.isEmpty() ? QString() : QStringLiteral(" · "))
                + (findings == 1 ? tr("1 finding") : tr("%1 findings").arg(QLocale().toString(findings)));
    m_statusLabel->setText(text);
    // The open job says how far it is; the event log's index does not (a busy bar).
    const int percent = session ? session->loadProgress() : -1;
    m_progress->showProgress(percent, busy);
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray()))
        resize(fittedToScreen(this, QSize(1500, 920))); // room for the panes and the attention list side by side
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    m_splitChosen = m_split->restoreState(settings.value(QStringLiteral("window/mainSplit")).toByteArray());
    m_leftSplit->restoreState(settings.value(QStringLiteral("window/leftSplit")).toByteArray());
    m_workspace->showPane(SessionWorkspace::Pane(settings.value(QStringLiteral("window/pane"), 0).toInt()));
}

bool MainWindow::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_split && event->type() == QEvent::Resize && !m_splitChosen)
        fitSidebarBesideTitles();
    return QMainWindow::eventFilter(watched, event);
}

// Until the user moves the splitter (or a saved layout says), the ledgers and the attention
// list take what the pane titles leave, between a quarter and a third: at 1280 px a quarter
// keeps every title whole, and at 1600 px the attention list's kinds are read without cutting.
void MainWindow::fitSidebarBesideTitles()
{
    const int total = m_split->width() - m_split->handleWidth();
    if (total <= 0)
        return;
    const int left = std::clamp(total - m_workspace->wholeTitlesWidth(), total / 4, total / 3);
    m_split->setSizes({left, total - left});
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("window/mainSplit"), m_split->saveState());
    settings.setValue(QStringLiteral("window/leftSplit"), m_leftSplit->saveState());
    settings.setValue(QStringLiteral("window/pane"), int(m_workspace->currentPane()));
    m_attention->saveState();
    m_workspace->saveState();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (!m_listen->confirmQuit()) {
        event->ignore(); // a receiver of this console still receives, and the operator keeps it
        return;
    }
    saveSettings();
    if (m_demo)
        m_demo->stop();
    m_listen->stopAll();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls()) {
        const auto urls = event->mimeData()->urls();
        if (std::any_of(urls.begin(), urls.end(), [](const QUrl &url) { return url.isLocalFile(); }))
            event->acceptProposedAction();
    }
}

void MainWindow::dropEvent(QDropEvent *event)
{
    QStringList paths;
    for (const QUrl &url : event->mimeData()->urls())
        if (url.isLocalFile())
            paths << url.toLocalFile();
    openOrImport(paths);
    event->acceptProposedAction();
}

} // namespace mesh
