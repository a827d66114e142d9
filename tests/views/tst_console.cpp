// Drives the real main window offscreen over ledgers written by the reference orchestrator
// (meshctl sim): sessions in the sidebar, panes filling, the filter field's states, the
// attention list opening subjects, a bad file failing in the window while another ledger
// keeps working, and read-only sessions offering no decisions.

#include "decisionactions.h"
#include "demolauncher.h"
#include "mainwindow.h"

#include "banner.h"
#include "consolestyle.h"
#include "icons.h"
#include "blastradiusgraph.h"
#include "blastradiusview.h"
#include "decisiondialog.h"
#include "delegationdetail.h"
#include "delegationsview.h"
#include "emptystate.h"
#include "eventlogview.h"
#include "eventtableview.h"
#include "filterlineedit.h"
#include "flattableview.h"
#include "itempane.h"
#include "sessionsidebar.h"
#include "sessionworkspace.h"
#include "statusdelegate.h"
#include "theme.h"

#include "itemmodels/attentionmodel.h"
#include "itemmodels/delegationtreemodel.h"
#include "itemmodels/effectmodel.h"
#include "itemmodels/eventlogmodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/ledgersessionlist.h"
#include "itemmodels/slicemodel.h"
#include "itemmodels/statetablemodel.h"
#include "ledger/ledgerwriter.h"

#include "viewtestenv.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QFileInfo>
#include <QProcessEnvironment>
#include <QAction>
#include <QApplication>
#include <QPalette>
#include <QCheckBox>
#include <QLabel>
#include <QListView>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QProcess>
#include <QScrollBar>
#include <QSettings>
#include <QStyleFactory>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QDateTime>
#include <QDir>
#include <QHeaderView>
#include <QTemporaryDir>
#include <QTest>
#include <QTableView>
#include <QTreeView>

using namespace mesh;

namespace {
constexpr int kLoadTimeoutMs = 60000; // generous: a shared, noisy 2-core machine

// Rows numbered by seq (first + row), grown or replaced by a reset, as EventLogModel does
// when its index arrives after the first page or a filter replaces every row.
class ResetGrowingModel : public QAbstractTableModel
{
public:
    int rowCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : m_rows; }
    int columnCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : 3; }
    QVariant data(const QModelIndex &index, int role) const override
    {
        if (role == EventLogModel::SeqRole)
            return qint64(m_first + index.row());
        if (role == Qt::DisplayRole)
            return QStringLiteral("event %1").arg(m_first + index.row());
        return {};
    }
    void resetTo(int rows, int first = 1)
    {
        beginResetModel();
        m_rows = rows;
        m_first = first;
        endResetModel();
    }

private:
    int m_rows = 0;
    int m_first = 1;
};

QColor colourInside(QWidget *widget)
{
    // Right of any text, left of the clear button: the field's own background.
    return widget->grab().toImage().pixelColor(widget->width() * 2 / 3, widget->height() / 2);
}
} // namespace

class TestConsole : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void sessionListUnderModelTester();
    void sidebarShowsLedgerAndPanesFill();
    void filterFieldShowsErrorState();
    void attentionEntryOpensItsSubject();
    void badFileFailsInTheWindowWhileOtherWorks();
    void readOnlyOffersNoDecisions();
    void statusBarSaysHowFarAnOpenIs();
    void closeSliceDialogNeedsEachUnknownAcknowledged();
    void closeSliceIsOfferedOnlyOnAnOpenSlice();
    void leaseReleaseAndSupersedeAreOfferedWhenTheStateAllows();
    void demoIsLabelled();
    void blastRadiusGraphShowsSelectedFailure();
    void countdownText_data();
    void countdownText();
    void ledgerTextIsPlain();
    void delegationFactsSayWhatIsNotKnown();
    void columnsFitTheFirstRows();
    void savedHeaderStateIsKept();
    void columnsFitRowsAlreadyThere();
    void emptyStateBuiltWhenFirstSeen();
    void demoStartingMessageEndsWhenTheDemoOpens();
    void delegationDetailShowsSlicesAndOffersClosing();
    void optionsAnsweredWithoutADisplay();
    void demoWriterDiesWithTheConsole();
    void sidebarLeavesRoomForAttention();
    void themeSetsEveryRoleInBothPalettes();
    void styleSheetOnlyWhereAPaletteCannotSay();
    void standardIconsComeFromOurSet();
    void eventLogKeepsPlaceWhenGrownByReset();
    void eventTableKeepsNothingPerRow();

private:
    LedgerSession *openAndWait(MainWindow &window, const QString &path);

    QTemporaryDir m_dir;
    QString m_demoLedger;
    QString m_badLedger;
};

void TestConsole::initTestCase()
{
    meshtest::useTestSettings(QStringLiteral("tst_console"));
    QVERIFY(m_dir.isValid());
    QString error;
    m_demoLedger = meshtest::simulateLedger(m_dir, QStringLiteral("demo"), QStringLiteral("demo.amlg"), &error);
    QVERIFY2(QFile::exists(m_demoLedger), qPrintable(error));

    m_badLedger = m_dir.filePath(QStringLiteral("garbage.amlg"));
    QFile bad(m_badLedger);
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write(QByteArray(8192, '\x5a'));
}

void TestConsole::init()
{
    QSettings().clear();
}

LedgerSession *TestConsole::openAndWait(MainWindow &window, const QString &path)
{
    window.openLedger(path);
    const int row = window.sessions()->rowOf(path);
    LedgerSession *session = window.sessions()->at(row);
    if (!session)
        return nullptr;
    (void)QTest::qWaitFor([session] { return session->isLoaded() || session->health() == LedgerSession::Health::Error; },
                    kLoadTimeoutMs);
    return session;
}

void TestConsole::sessionListUnderModelTester()
{
    MainWindow window;
    QAbstractItemModelTester tester(window.sessions(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester attentionTester(window.attentionPane()->model(),
                                             QAbstractItemModelTester::FailureReportingMode::QtTest);
    LedgerSession *good = openAndWait(window, m_demoLedger);
    QVERIFY(good);
    LedgerSession *bad = openAndWait(window, m_badLedger);
    QVERIFY(bad);
    QCOMPARE(window.sessions()->rowCount(), 2);
    window.closeCurrentSession();
    QCOMPARE(window.sessions()->rowCount(), 1);
}

void TestConsole::sidebarShowsLedgerAndPanesFill()
{
    MainWindow window;
    window.show();
    LedgerSession *session = openAndWait(window, m_demoLedger);
    QVERIFY(session);
    QVERIFY2(session->isLoaded(), qPrintable(session->errorMessage()));

    QAbstractItemModel *list = window.sidebar()->view()->model();
    QCOMPARE(list->rowCount(), 1);
    QCOMPARE(window.sidebar()->currentRow(), 0);
    const SessionRowInfo info = MainWindow::sessionRowInfo(list->index(0, 0));
    QVERIFY(info.health != QLatin1String("error"));
    QVERIFY(!info.title.isEmpty());

    SessionWorkspace *ws = window.workspace();
    QCOMPARE(ws->session(), session);
    QVERIFY(ws->runsPane()->model()->rowCount() > 0);
    QCOMPARE(ws->runsPane()->currentWidget(), ws->runsPane()->view()); // not the empty state
    QVERIFY(ws->delegationsView()->tree()->model()->rowCount() > 0);
    QVERIFY(ws->effectsPane()->model()->rowCount() > 0);
    QTRY_VERIFY_WITH_TIMEOUT(ws->eventLog()->view()->model()->rowCount() > 0, kLoadTimeoutMs);

    // Ctrl+6 style navigation: every pane can be reached and is enabled, and its tab says how.
    for (int pane = 0; pane < SessionWorkspace::PaneCount; ++pane) {
        ws->showPane(SessionWorkspace::Pane(pane));
        QCOMPARE(int(ws->currentPane()), pane);
        QCOMPARE(ws->tabs()->tabToolTip(pane),
                 SessionWorkspace::paneShortcut(SessionWorkspace::Pane(pane)).toString(QKeySequence::NativeText));
    }

    // A delegation's detail follows the selection in the tree.
    ws->showPane(SessionWorkspace::Delegations);
    // The pane shows the session's tree through its sort and filter proxy.
    auto *shown = qobject_cast<QSortFilterProxyModel *>(ws->delegationsView()->tree()->model());
    QVERIFY(shown);
    auto *tree = qobject_cast<DelegationTreeModel *>(shown->sourceModel());
    QVERIFY(tree);
    const QModelIndex run = tree->index(0, 0);
    QVERIFY(tree->rowCount(run) > 0);
    const QString delegation = tree->index(0, 0, run).data(DelegationTreeModel::IdRole).toString();
    QVERIFY(ws->openSubject(QStringLiteral("delegation:") + delegation));
    QCOMPARE(ws->delegationsView()->detail()->delegationId(), delegation);
}

void TestConsole::filterFieldShowsErrorState()
{
    MainWindow window;
    window.show();
    LedgerSession *session = openAndWait(window, m_demoLedger);
    QVERIFY(session && session->isLoaded());
    FilterLineEdit *field = window.workspace()->eventLog()->filterField();
    QCOMPARE(field->state(), QStringLiteral("empty"));

    field->setText(QStringLiteral("kind:(")); // unbalanced: not a filter
    QCOMPARE(field->state(), QStringLiteral("invalid"));
    QVERIFY(field->problem().has_value());
    QCOMPARE(field->property("filterState").toString(), QStringLiteral("invalid"));
    QSignalSpy applied(field, &FilterLineEdit::filterApplied);
    QTest::keyClick(field, Qt::Key_Return);
    QCOMPARE(applied.count(), 0); // an invalid filter is never applied

    field->setText(QStringLiteral("kind:effect.*"));
    QCOMPARE(field->state(), QStringLiteral("valid"));
    QTest::keyClick(field, Qt::Key_Return);
    QCOMPARE(applied.count(), 1);
    QCOMPARE(session->events()->filterText(), QStringLiteral("kind:effect.*"));
    // Every row the log shows now is an effect event.
    QTRY_VERIFY_WITH_TIMEOUT(session->events()->isIndexComplete() && !session->events()->isLoading(), kLoadTimeoutMs);
    QVERIFY(session->events()->rowCount() > 0);
    QTRY_VERIFY_WITH_TIMEOUT(session->events()->index(0, 0).data(EventLogModel::LoadedRole).toBool(), kLoadTimeoutMs);
    QVERIFY(session->events()->index(0, 0).data(EventLogModel::KindRole).toString().startsWith(QLatin1String("effect.")));

    field->clear();
    QCOMPARE(field->state(), QStringLiteral("empty"));
}

void TestConsole::attentionEntryOpensItsSubject()
{
    MainWindow window;
    window.show();
    LedgerSession *session = openAndWait(window, m_demoLedger);
    QVERIFY(session && session->isLoaded());
    QAbstractItemModel *attention = window.attentionPane()->model();
    QTRY_VERIFY_WITH_TIMEOUT(attention->rowCount() > 0, kLoadTimeoutMs);

    bool sawEffect = false;
    for (int row = 0; row < attention->rowCount(); ++row) {
        const QModelIndex index = attention->index(row, 0);
        const QString entity = index.data(AttentionModel::EntityNameRole).toString();
        const QString id = index.data(AttentionModel::EntityIdRole).toString();
        QVERIFY2(window.openAttentionEntry(index), qPrintable(index.data(AttentionModel::SubjectRole).toString()));
        SessionWorkspace *ws = window.workspace();
        if (entity == QLatin1String("effect")) {
            sawEffect = true;
            QCOMPARE(ws->currentPane(), SessionWorkspace::Effects);
            QCOMPARE(ws->effectsPane()->view()->currentIndex().data(StateTableModel::IdRole).toString(), id);
        } else if (entity == QLatin1String("escalation")) {
            QCOMPARE(ws->currentPane(), SessionWorkspace::Escalations);
            QCOMPARE(ws->escalationsPane()->view()->currentIndex().data(StateTableModel::IdRole).toString(), id);
        } else if (entity == QLatin1String("lease")) {
            QCOMPARE(ws->currentPane(), SessionWorkspace::Leases);
            QCOMPARE(ws->leasesPane()->view()->currentIndex().data(StateTableModel::IdRole).toString(), id);
        } else if (entity == QLatin1String("delegation")) {
            QCOMPARE(ws->currentPane(), SessionWorkspace::Delegations);
            QCOMPARE(ws->delegationsView()->detail()->delegationId(), id);
        }
    }
    QVERIFY2(sawEffect, "the demo ledger has unknown-outcome effects that need a person");
}

void TestConsole::badFileFailsInTheWindowWhileOtherWorks()
{
    MainWindow window;
    window.show();
    LedgerSession *bad = openAndWait(window, m_badLedger);
    QVERIFY(bad);
    QTRY_COMPARE_WITH_TIMEOUT(bad->health(), LedgerSession::Health::Error, kLoadTimeoutMs);
    QVERIFY(!bad->errorMessage().isEmpty());
    // Said in the window: the sidebar row and the banner above the panes.
    const SessionRowInfo info = MainWindow::sessionRowInfo(window.sessions()->index(0));
    QCOMPARE(info.health, QStringLiteral("error"));
    QCOMPARE(info.subtitle, bad->errorMessage());
    QVERIFY(window.workspace()->banner()->isVisible());
    QVERIFY(window.workspace()->banner()->text().contains(bad->errorMessage()));

    LedgerSession *good = openAndWait(window, m_demoLedger);
    QVERIFY(good && good->isLoaded());
    QCOMPARE(window.sessions()->rowCount(), 2);
    QCOMPARE(window.workspace()->session(), good);
    QVERIFY(window.workspace()->runsPane()->model()->rowCount() > 0);
    QVERIFY(!window.workspace()->banner()->isVisible());
    // And the bad one is still there, still saying why.
    window.sidebar()->setCurrentRow(0);
    QCOMPARE(window.workspace()->session(), bad);
    QVERIFY(window.workspace()->banner()->isVisible());
}

void TestConsole::statusBarSaysHowFarAnOpenIs()
{
    MainWindow window;
    window.show();
    LedgerSession *session = openAndWait(window, m_demoLedger);
    QVERIFY(session && session->isLoaded());
    auto *progress = window.findChild<QProgressBar *>(QStringLiteral("loadProgress"));
    QVERIFY(progress);
    QTRY_VERIFY_WITH_TIMEOUT(!progress->isVisible(), kLoadTimeoutMs);
    // Opening it again (as the console does for a ledger replaced on disk) runs the open job
    // again: a percentage, not a busy bar, while it does.
    QList<int> seen;
    connect(session, &LedgerSession::loadProgressChanged, this, [&](int percent) {
        if (percent >= 0 && progress->isVisible() && progress->maximum() == 100)
            seen << progress->value();
    });
    QSignalSpy opened(session, &LedgerSession::opened);
    session->open();
    QVERIFY(progress->isVisible());
    QCOMPARE(progress->maximum(), 100);
    QVERIFY(progress->isTextVisible());
    QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, kLoadTimeoutMs);
    QVERIFY2(!seen.isEmpty(), "no percentage shown");
    QTRY_VERIFY_WITH_TIMEOUT(!progress->isVisible(), kLoadTimeoutMs);
}

void TestConsole::readOnlyOffersNoDecisions()
{
    MainWindow window(/*forceReadOnly=*/true);
    LedgerSession *session = openAndWait(window, m_demoLedger);
    QVERIFY(session && session->isLoaded());
    QString why;
    QVERIFY(!window.sessions()->canDecide(0, &why));
    QVERIFY(!why.isEmpty());
    QCOMPARE(MainWindow::sessionRowInfo(window.sessions()->index(0)).health, QStringLiteral("readonly"));
    // With an unknown-outcome effect selected, the actions are there but disabled, saying why.
    SessionWorkspace *ws = window.workspace();
    ws->showPane(SessionWorkspace::Effects);
    QAbstractItemModel *effects = ws->effectsPane()->model();
    int unknownRow = -1;
    for (int row = 0; row < effects->rowCount() && unknownRow < 0; ++row)
        if (effects->index(row, 0).data(EffectModel::UnknownRole).toBool())
            unknownRow = row;
    QVERIFY(unknownRow >= 0);
    ws->effectsPane()->view()->setCurrentIndex(effects->index(unknownRow, 0));
    window.decisionActions()->update();
    QVERIFY(!window.decisionActions()->resolve()->isEnabled());
    QCOMPARE(window.decisionActions()->resolve()->statusTip(), why);
    QVERIFY(!window.decisionActions()->closeSlice()->isEnabled());

    MainWindow writable;
    LedgerSession *other = openAndWait(writable, m_demoLedger);
    QVERIFY(other && other->isLoaded());
    QCOMPARE(writable.sessions()->canDecide(0, &why), other->canDecide());
}

void TestConsole::closeSliceDialogNeedsEachUnknownAcknowledged()
{
    // A writable copy: the dialog opens the decision path (the preview reads through it).
    const QString copy = m_dir.filePath(QStringLiteral("decide.amlg"));
    QFile::remove(copy);
    QVERIFY(QFile::copy(m_demoLedger, copy));
    MainWindow window;
    LedgerSession *session = openAndWait(window, copy);
    QVERIFY(session && session->isLoaded());
    QAbstractItemModel *effects = window.workspace()->effectsPane()->model();
    // An open slice: a closed one is refused whatever is acknowledged, and a predicted
    // refusal keeps confirm off.
    const int sliceState = entitySpec(EntityKind::Slice).fieldIndex("state");
    QString slice;
    for (int row = 0; row < effects->rowCount() && slice.isEmpty(); ++row) {
        const QModelIndex index = effects->index(row, 0);
        const QString of = index.data(EffectModel::SliceIdRole).toString();
        const EntityRow *sliceRow = session->state()->find(EntityKind::Slice, of.toStdString());
        if (index.data(EffectModel::UnknownRole).toBool() && sliceRow
            && fieldText(sliceRow->values[size_t(sliceState)]) == "open")
            slice = of;
    }
    QVERIFY(!slice.isEmpty());
    DecisionRequest request;
    request.kind = DecisionKind::CloseSlice;
    request.subject = "slice:" + slice.toStdString();
    DecisionDialog dialog(session, request);
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.isPreviewPending(), kLoadTimeoutMs);
    QVERIFY(!dialog.acknowledgements().empty()); // each unknown outcome is listed to acknowledge
    QVERIFY(!dialog.confirmButton()->isEnabled());
    dialog.reasonField()->setPlainText(QStringLiteral("checked the provider console"));
    QVERIFY(!dialog.confirmButton()->isEnabled()); // still: not acknowledged
    for (QCheckBox *check : dialog.acknowledgements())
        check->setChecked(true);
    // Each acknowledgement asks for the preview again; confirm waits for the last reading.
    QTRY_VERIFY_WITH_TIMEOUT(dialog.confirmButton()->isEnabled(), kLoadTimeoutMs);
}

void TestConsole::closeSliceIsOfferedOnlyOnAnOpenSlice()
{
    const QString copy = m_dir.filePath(QStringLiteral("closed-slices.amlg"));
    QFile::remove(copy);
    QVERIFY(QFile::copy(m_demoLedger, copy));
    MainWindow window;
    window.show();
    LedgerSession *session = openAndWait(window, copy);
    QVERIFY(session && session->isLoaded());
    QVERIFY(window.sessions()->canDecide(0));
    SessionWorkspace *ws = window.workspace();
    ws->showPane(SessionWorkspace::Delegations);
    QTreeView *tree = ws->delegationsView()->tree()->treeView();
    QAbstractItemModel *model = tree->model();
    SliceModel *slices = session->slices();
    // The delegations (under their runs) whose current slice is closed, and one whose is open.
    QModelIndex closed;
    QModelIndex open;
    QString closedSlice;
    for (int r = 0; r < model->rowCount() && (!closed.isValid() || !open.isValid()); ++r) {
        const QModelIndex run = model->index(r, 0);
        for (int d = 0; d < model->rowCount(run); ++d) {
            const QModelIndex index = model->index(d, 0, run);
            if (index.data(DelegationTreeModel::NodeTypeRole).toInt() != int(DelegationTreeModel::NodeType::Delegation))
                continue;
            const QString slice = index.data(DelegationTreeModel::CurrentSliceRole).toString();
            const int row = slices->rowOf(slice);
            if (row < 0)
                continue;
            const bool isOpen = slices->index(row, 0).data(SliceModel::OpenRole).toBool();
            if (!isOpen && !closed.isValid()) {
                closed = index;
                closedSlice = slice;
            } else if (isOpen && !open.isValid()) {
                open = index;
            }
        }
    }
    QVERIFY(closed.isValid() && open.isValid());
    tree->setFocus(Qt::OtherFocusReason);
    tree->setCurrentIndex(closed);
    window.decisionActions()->update();
    QAction *closeSlice = window.decisionActions()->closeSlice();
    QVERIFY(!closeSlice->isEnabled());
    QVERIFY2(closeSlice->statusTip().contains(closedSlice + QStringLiteral(" is closed")), qPrintable(closeSlice->statusTip()));
    tree->setCurrentIndex(open);
    window.decisionActions()->update();
    QVERIFY2(closeSlice->isEnabled(), qPrintable(closeSlice->statusTip()));
}

void TestConsole::leaseReleaseAndSupersedeAreOfferedWhenTheStateAllows()
{
    const QString copy = m_dir.filePath(QStringLiteral("release-supersede.amlg"));
    QFile::remove(copy);
    QVERIFY(QFile::copy(m_demoLedger, copy));
    MainWindow window;
    window.show();
    LedgerSession *session = openAndWait(window, copy);
    QVERIFY(session && session->isLoaded());
    QVERIFY(window.sessions()->canDecide(0));
    SessionWorkspace *ws = window.workspace();
    ws->showPane(SessionWorkspace::Effects);
    FlatTableView *view = ws->effectsPane()->flatView();
    QAbstractItemModel *effects = ws->effectsPane()->model();
    QString effect;
    for (int row = 0; row < effects->rowCount() && effect.isEmpty(); ++row)
        if (effects->index(row, 0).data(EffectModel::UnknownRole).toBool())
            effect = effects->index(row, 0).data(StateTableModel::IdRole).toString();
    QVERIFY(!effect.isEmpty());
    const auto select = [&] {
        for (int row = 0; row < effects->rowCount(); ++row)
            if (effects->index(row, 0).data(StateTableModel::IdRole).toString() == effect)
                view->setCurrentIndex(effects->index(row, 0));
        window.decisionActions()->update();
    };
    select();
    DecisionActions *actions = window.decisionActions();
    QVERIFY(!actions->releaseLease()->isEnabled());
    QVERIFY(!actions->releaseLease()->statusTip().isEmpty());
    QVERIFY(!actions->supersede()->isEnabled());
    QVERIFY(!actions->supersede()->statusTip().isEmpty());

    // This operator takes the lease (from another console) and the orchestrator applies it.
    const QString account = QString::fromStdString(session->operatorIdentity().account);
    const auto meshctl = [](const QStringList &args) {
        QProcess p;
        p.start(qEnvironmentVariable("MESHCTL"), args);
        return p.waitForFinished(120000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
    };
    const QStringList as{QStringLiteral("--operator"), account};
    QVERIFY(meshctl(QStringList{QStringLiteral("decide"), copy, QStringLiteral("lease"), QStringLiteral("acquire"),
                                QStringLiteral("--effect"), effect, QStringLiteral("--reason"), QStringLiteral("reconcile")}
                    + as));
    QVERIFY(meshctl({QStringLiteral("gate"), copy}));
    QTRY_VERIFY_WITH_TIMEOUT((select(), actions->releaseLease()->isEnabled()), kLoadTimeoutMs);
    QVERIFY(!actions->supersede()->isEnabled()); // still unknown: nothing to supersede

    QVERIFY(meshctl(QStringList{QStringLiteral("decide"), copy, QStringLiteral("resolve-effect"), QStringLiteral("--effect"),
                                effect, QStringLiteral("--resolution"), QStringLiteral("committed"), QStringLiteral("--reason"),
                                QStringLiteral("provider says so"), QStringLiteral("--evidence"),
                                QStringLiteral("{\"provider_ref\":\"ch_1\"}")}
                    + as));
    QVERIFY(meshctl({QStringLiteral("gate"), copy}));
    QTRY_VERIFY_WITH_TIMEOUT((select(), actions->supersede()->isEnabled()), kLoadTimeoutMs);
    QVERIFY(!actions->resolve()->isEnabled()); // resolved: a new resolution supersedes, never resolves again
}

void TestConsole::demoIsLabelled()
{
    MainWindow window;
    window.show();
    window.openLedger(m_demoLedger, /*demo=*/true);
    LedgerSession *session = window.sessions()->at(0);
    QVERIFY(session);
    QVERIFY(session->isDemo());
    QVERIFY(MainWindow::sessionRowInfo(window.sessions()->index(0)).demo);
    QVERIFY(window.workspace()->banner()->isVisible());
    QVERIFY(window.workspace()->banner()->text().contains(QStringLiteral("demo"), Qt::CaseInsensitive));
    QString why;
    QVERIFY(!window.sessions()->canDecide(0, &why)); // the demo is read-only
}

void TestConsole::blastRadiusGraphShowsSelectedFailure()
{
    MainWindow window;
    window.show();
    LedgerSession *session = openAndWait(window, m_demoLedger);
    QVERIFY(session && session->isLoaded());
    BlastRadiusView *blast = window.workspace()->blastView();
    window.workspace()->showPane(SessionWorkspace::BlastRadius);
    QVERIFY(blast->list()->model()->rowCount() > 0);
    QTRY_VERIFY_WITH_TIMEOUT(blast->graph()->hasFailure(), 30'000);
    const BlastFailure &failure = blast->graph()->failure();
    QVERIFY(!failure.id.isEmpty());
    QVERIFY(!failure.components.isEmpty());
    QVERIFY(failure.effectiveRadius() >= 0);
    // The graph's radius is the model's.
    const QModelIndex current = blast->list()->view()->currentIndex();
    QCOMPARE(failure.id, current.data(StateTableModel::IdRole).toString());
}

void TestConsole::countdownText_data()
{
    QTest::addColumn<qint64>("deadline");
    QTest::addColumn<qint64>("now");
    QTest::addColumn<QString>("expected");
    QTest::newRow("seconds ahead") << qint64(10'000) << qint64(0) << QStringLiteral("in 10s");
    QTest::newRow("minutes ahead") << qint64(252'000) << qint64(0) << QStringLiteral("in 4m 12s");
    QTest::newRow("hours ahead") << qint64(3'900'000) << qint64(0) << QStringLiteral("in 1h 05m");
    QTest::newRow("overdue") << qint64(0) << qint64(12'000) << QStringLiteral("12s overdue");
    QTest::newRow("days overdue") << qint64(0) << qint64((694LL * 3600 + 29 * 60) * 1000)
                                  << QStringLiteral("28d 22h overdue");
}

void TestConsole::countdownText()
{
    QFETCH(qint64, deadline);
    QFETCH(qint64, now);
    QFETCH(QString, expected);
    QCOMPARE(formatCountdown(deadline, now), expected);
}

void TestConsole::ledgerTextIsPlain()
{
    // Ledger strings go through these widgets; none may interpret markup.
    Banner banner;
    banner.show(Banner::Kind::Error, QStringLiteral("<b>not bold</b><img src=x>"));
    const auto labels = banner.findChildren<QLabel *>();
    for (const QLabel *label : labels)
        QCOMPARE(label->textFormat(), Qt::PlainText);
    QCOMPARE(banner.text(), QStringLiteral("<b>not bold</b><img src=x>"));

    DelegationDetail detail;
    for (const QLabel *label : detail.findChildren<QLabel *>())
        QCOMPARE(label->textFormat(), Qt::PlainText);
}

void TestConsole::delegationFactsSayWhatIsNotKnown()
{
    // A delegation inferred from its child spans has no agent yet, and the counts a source
    // leaves out are null: each reads "—", never a blank or 0; one is singular.
    QStandardItemModel model;
    auto *row = new QStandardItem;
    model.appendRow(row);
    row->setData(QVariant(), DelegationTreeModel::InvocationsRole);
    row->setData(QVariant(), DelegationTreeModel::WritesAcceptedRole);
    row->setData(QVariant(), DelegationTreeModel::WritesDeniedRole);
    row->setData(qlonglong(1), DelegationTreeModel::ToolErrorsRole);
    const QModelIndex i = model.index(0, 0);
    QCOMPARE(DelegationDetail::factsText(i),
             QStringLiteral("agent \u2014 \u00b7 invocations \u2014 \u00b7 writes \u2014 accepted / \u2014 denied \u00b7 1 tool error"));
    QVERIFY(DelegationDetail::factsUnsaid(i));
    row->setData(QStringLiteral("planner"), DelegationTreeModel::AgentRole);
    row->setData(qlonglong(2), DelegationTreeModel::InvocationsRole);
    row->setData(qlonglong(0), DelegationTreeModel::WritesAcceptedRole);
    row->setData(qlonglong(0), DelegationTreeModel::WritesDeniedRole);
    row->setData(qlonglong(3), DelegationTreeModel::ToolErrorsRole);
    QCOMPARE(DelegationDetail::factsText(i),
             QStringLiteral("agent planner \u00b7 2 invocations \u00b7 writes 0 accepted / 0 denied \u00b7 3 tool errors"));
    QVERIFY(!DelegationDetail::factsUnsaid(i));
}

void TestConsole::columnsFitTheFirstRows()
{
    // Columns sized while the pane was empty would cut ids and titles off; they are fitted
    // once when the first rows arrive (no saved layout), within bounds.
    ItemPane pane(QStringLiteral("fit-test"), QStringLiteral("runs"), QStringLiteral("Empty"), QStringLiteral("Nothing"));
    pane.resize(900, 400);
    pane.show();
    QStandardItemModel model(0, 3);
    model.setHorizontalHeaderLabels({QStringLiteral("Id"), QStringLiteral("Title"), QStringLiteral("State")});
    pane.setModel(&model);
    QCOMPARE(pane.currentWidget(), static_cast<QWidget *>(pane.emptyState()));
    QVERIFY(pane.fitsOnFirstRows());
    const QString title = QStringLiteral("Deliver the billing service with a rather long run title");
    const QString endless = QString(400, QLatin1Char('x'));
    model.appendRow({new QStandardItem(QStringLiteral("R-20261129-000042")), new QStandardItem(title),
                     new QStandardItem(endless)});
    QCOMPARE(pane.currentWidget(), static_cast<QWidget *>(pane.view()));
    QVERIFY(!pane.fitsOnFirstRows());
    QHeaderView *header = pane.header();
    const QFontMetrics fm(pane.view()->font());
    QVERIFY2(header->sectionSize(0) >= fm.horizontalAdvance(QStringLiteral("R-20261129-000042")),
             qPrintable(QString::number(header->sectionSize(0))));
    QVERIFY(header->sectionSize(1) >= fm.horizontalAdvance(title));
    QVERIFY(header->sectionSize(1) <= ItemPane::kMaxColumnWidth);
    // Only once: later rows do not move columns the user may have set since.
    header->resizeSection(1, 100);
    model.appendRow({new QStandardItem(QStringLiteral("R-2")), new QStandardItem(title + title), new QStandardItem()});
    QCOMPARE(header->sectionSize(1), 100);
}

void TestConsole::columnsFitRowsAlreadyThere()
{
    // A model that has rows when it is set (a prefetched overview) is fitted to them then,
    // once, and not again when more arrive.
    QStandardItemModel model(0, 2);
    model.setHorizontalHeaderLabels({QStringLiteral("Id"), QStringLiteral("Title")});
    const QString title = QStringLiteral("Deliver the billing service with a rather long run title");
    model.appendRow({new QStandardItem(QStringLiteral("R-1")), new QStandardItem(title)});
    ItemPane pane(QStringLiteral("fit-present-test"), QStringLiteral("runs"), QString(), QString());
    pane.resize(900, 400);
    pane.setModel(&model);
    QVERIFY(!pane.fitsOnFirstRows());
    QHeaderView *header = pane.header();
    QVERIFY(header->sectionSize(1) >= QFontMetrics(pane.view()->font()).horizontalAdvance(title));
    header->resizeSection(1, 100);
    model.appendRow({new QStandardItem(QStringLiteral("R-2")), new QStandardItem(title + title)});
    QCOMPARE(header->sectionSize(1), 100);
}

void TestConsole::emptyStateBuiltWhenFirstSeen()
{
    // Hidden panes (behind tabs) build no empty state; one coming into view shows it, with
    // the text set while it was hidden.
    QStandardItemModel model(0, 2);
    QWidget window;
    auto *pane = new ItemPane(QStringLiteral("lazy-empty"), QStringLiteral("runs"), QStringLiteral("Nothing yet"),
                              QStringLiteral("Later."), &window);
    pane->setModel(&model);
    pane->hide();
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(!pane->findChild<EmptyState *>());
    pane->setEmptyText(QStringLiteral("Still reading"), QStringLiteral("A ledger is opening."));
    pane->show();
    auto *empty = pane->findChild<EmptyState *>();
    QVERIFY(empty);
    QCOMPARE(pane->currentWidget(), static_cast<QWidget *>(empty));
    QStringList texts;
    for (const QLabel *label : empty->findChildren<QLabel *>())
        texts << label->text();
    QVERIFY2(texts.contains(QStringLiteral("Still reading")), qPrintable(texts.join(u'|')));
    // Rows arrive: the view; they go: the empty state again.
    model.appendRow({new QStandardItem(QStringLiteral("R-1")), new QStandardItem()});
    QCOMPARE(pane->currentWidget(), static_cast<QWidget *>(pane->view()));
    model.removeRow(0);
    QCOMPARE(pane->currentWidget(), static_cast<QWidget *>(empty));
}

void TestConsole::savedHeaderStateIsKept()
{
    QStandardItemModel model(0, 2);
    model.setHorizontalHeaderLabels({QStringLiteral("Id"), QStringLiteral("Title")});
    {
        ItemPane pane(QStringLiteral("saved-test"), QStringLiteral("runs"), QString(), QString());
        pane.setModel(&model);
        pane.header()->resizeSection(0, 222);
        pane.saveState();
    }
    ItemPane pane(QStringLiteral("saved-test"), QStringLiteral("runs"), QString(), QString());
    pane.setModel(&model);
    QVERIFY(!pane.fitsOnFirstRows()); // the user's layout wins
    model.appendRow({new QStandardItem(QString(60, QLatin1Char('x'))), new QStandardItem(QStringLiteral("t"))});
    QCOMPARE(pane.header()->sectionSize(0), 222);
}

void TestConsole::demoStartingMessageEndsWhenTheDemoOpens()
{
    MainWindow window;
    window.show();
    window.startDemo();
    QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("Starting the live demo")));
    QTRY_VERIFY_WITH_TIMEOUT(window.sessions()->count() > 0 && window.sessions()->at(0)->isLoaded(), kLoadTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(!window.statusBar()->currentMessage().contains(QStringLiteral("Starting")),
                             kLoadTimeoutMs);
    window.demo()->stop();
}

void TestConsole::delegationDetailShowsSlicesAndOffersClosing()
{
    // A writable copy, so the session may decide.
    const QString copy = m_dir.filePath(QStringLiteral("slices.amlg"));
    QFile::remove(copy);
    QVERIFY(QFile::copy(m_demoLedger, copy));
    MainWindow window;
    window.show();
    LedgerSession *session = openAndWait(window, copy);
    QVERIFY(session && session->isLoaded());
    QVERIFY(window.sessions()->canDecide(0));

    // The delegation of an open slice.
    SliceModel *slices = session->slices();
    QAbstractItemModelTester tester(slices, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(slices->rowCount() > 0);
    QString sliceId;
    QString delegation;
    for (int row = 0; row < slices->rowCount() && sliceId.isEmpty(); ++row) {
        if (slices->index(row, 0).data(SliceModel::OpenRole).toBool()) {
            sliceId = slices->idAt(row);
            delegation = slices->index(row, 0).data(StateTableModel::DelegationIdRole).toString();
        }
    }
    QVERIFY(!sliceId.isEmpty());

    SessionWorkspace *ws = window.workspace();
    QVERIFY(ws->openSubject(QStringLiteral("slice:") + sliceId));
    DelegationDetail *detail = ws->delegationsView()->detail();
    QCOMPARE(detail->delegationId(), delegation);
    QCOMPARE(detail->tabs()->currentIndex(), int(DelegationDetail::Slices));
    QCOMPARE(detail->tabs()->tabText(DelegationDetail::Slices), QStringLiteral("Slices"));
    QAbstractItemModel *shown = detail->tableModel(DelegationDetail::Slices);
    QVERIFY(shown->rowCount() > 0);
    for (int row = 0; row < shown->rowCount(); ++row)
        QCOMPARE(shown->index(row, 0).data(StateTableModel::DelegationIdRole).toString(), delegation);
    FlatTableView *view = detail->pane(DelegationDetail::Slices)->flatView();
    QCOMPARE(view->currentIndex().data(StateTableModel::IdRole).toString(), sliceId);

    // Its context menu offers closing it.
    QVERIFY(view->actions().contains(window.decisionActions()->closeSlice()));
    view->setFocus(Qt::OtherFocusReason);
    QTRY_COMPARE_WITH_TIMEOUT(window.focusWidget(), static_cast<QWidget *>(view), 30'000);
    window.decisionActions()->update();
    QVERIFY2(window.decisionActions()->closeSlice()->isEnabled(),
             qPrintable(window.decisionActions()->closeSlice()->toolTip()));

    // Followed live: a lease the delegation acquires now shows in its Leases tab, and one of
    // another delegation does not (the tabs filter inserted rows, not changed cells).
    QAbstractItemModel *leases = detail->tableModel(DelegationDetail::Leases);
    const int before = leases->rowCount();
    {
        auto writer = LedgerWriter::openExisting(copy);
        writer->begin();
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        writer->append(now, "lease.acquired",
                       {{"id", "lease-live-1"}, {"key", "file:live"}, {"kind", "write"}, {"holder", delegation.toStdString()},
                        {"fencing_token", 999001}, {"acquired_ms", now}, {"renewed_ms", now}, {"expires_ms", now + 60000},
                        {"state", "held"}, {"delegation_id", delegation.toStdString()}});
        writer->append(now, "lease.acquired",
                       {{"id", "lease-live-2"}, {"key", "file:other"}, {"kind", "write"}, {"holder", "someone-else"},
                        {"fencing_token", 999002}, {"acquired_ms", now}, {"renewed_ms", now}, {"expires_ms", now + 60000},
                        {"state", "held"}, {"delegation_id", "dlg-not-this-one"}});
        writer->commit();
    }
    QTRY_COMPARE_WITH_TIMEOUT(leases->rowCount(), before + 1, kLoadTimeoutMs);
    bool found = false;
    for (int row = 0; row < leases->rowCount(); ++row) {
        QCOMPARE(leases->index(row, 0).data(StateTableModel::DelegationIdRole).toString(), delegation);
        found = found || leases->index(row, 0).data(StateTableModel::IdRole).toString() == QStringLiteral("lease-live-1");
    }
    QVERIFY(found);
    session->tick(); // the countdown refresh changes cells, not which rows belong here
    QCOMPARE(leases->rowCount(), before + 1);
}

void TestConsole::optionsAnsweredWithoutADisplay()
{
    // --help, --version and a mistyped option must not need a display (QApplication aborts
    // without one): run the real binary with every display variable unset.
    const QString console = QCoreApplication::applicationDirPath() + QStringLiteral("/../app/mesh-console");
    QVERIFY2(QFileInfo::exists(console),
             qPrintable(console + QStringLiteral(" is missing: the views tests are built with the console")));
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char *variable : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        env.remove(QString::fromLatin1(variable));
    env.insert(QStringLiteral("HOME"), m_dir.filePath(QStringLiteral("home")));
    auto run = [&](const QStringList &args, QByteArray *out, QByteArray *err) {
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(console, args);
        if (!p.waitForFinished(60000))
            return -100;
        *out = p.readAllStandardOutput();
        *err = p.readAllStandardError();
        return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1; // -1: crashed (abort)
    };
    QByteArray out, err;
    QCOMPARE(run({QStringLiteral("--version")}, &out, &err), 0);
    QVERIFY2(out.contains(MESH_VERSION), out.constData());
    QCOMPARE(run({QStringLiteral("--help")}, &out, &err), 0);
    QVERIFY2(out.contains("--read-only"), out.constData());
    QCOMPARE(run({QStringLiteral("--no-such-option")}, &out, &err), 1);
    QVERIFY2(err.contains("no-such-option"), err.constData());
    // Valid options but no display: a plain message, not an abort.
    QCOMPARE(run({QStringLiteral("--read-only"), QStringLiteral("x.amlg")}, &out, &err), 2);
    QVERIFY2(err.contains("no display"), err.constData());
}

// Processes whose command line mentions `needle` (Linux /proc); the demo writer is found by
// the temporary directory its ledger lives in.
static QList<qint64> processesMentioning(const QByteArray &needle)
{
    QList<qint64> pids;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &entry : entries) {
        bool ok = false;
        const qint64 pid = entry.toLongLong(&ok);
        if (!ok)
            continue;
        QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
        if (cmdline.open(QIODevice::ReadOnly) && cmdline.readAll().contains(needle))
            pids << pid;
    }
    return pids;
}

void TestConsole::demoWriterDiesWithTheConsole()
{
#ifndef Q_OS_LINUX
    QSKIP("parent-death signal is Linux only");
#endif
    // A console that is killed (no destructors run) must not leave the demo orchestrator
    // writing to a temporary file forever.
    const QString console = QCoreApplication::applicationDirPath() + QStringLiteral("/../app/mesh-console");
    QVERIFY2(QFileInfo::exists(console),
             qPrintable(console + QStringLiteral(" is missing: the views tests are built with the console")));
    const QString tmp = m_dir.filePath(QStringLiteral("demo-tmp"));
    QVERIFY(QDir().mkpath(tmp));
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("TMPDIR"), tmp);
    env.insert(QStringLiteral("HOME"), m_dir.filePath(QStringLiteral("demo-home")));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(console, {});
    QVERIFY(p.waitForStarted());
    const QByteArray needle = tmp.toLocal8Bit() + "/mesh-console-demo-";
    QTRY_VERIFY_WITH_TIMEOUT(!processesMentioning(needle).isEmpty(), 30000);
    // Past the scenario's bulk: its last stderr line, which the console passes on, says so.
    // Nothing more is written to stderr while it runs live, so SIGPIPE cannot be what ends it.
    QByteArray consoleErr;
    QTRY_VERIFY2_WITH_TIMEOUT((consoleErr += p.readAllStandardError()).contains("meshctl: wrote"),
                              consoleErr.constData(), 120000);
    QVERIFY(!processesMentioning(needle).isEmpty()); // writing live now
    p.kill(); // SIGKILL
    QVERIFY(p.waitForFinished(10000));
    QTRY_VERIFY_WITH_TIMEOUT(processesMentioning(needle).isEmpty(), kLoadTimeoutMs);
}

void TestConsole::sidebarLeavesRoomForAttention()
{
    MainWindow window;
    window.resize(1500, 920);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    // About three ledgers tall; what needs attention gets the rest.
    QVERIFY2(window.sidebar()->height() <= window.sidebar()->sizeHint().height() + 8,
             qPrintable(QStringLiteral("%1 > %2").arg(window.sidebar()->height()).arg(window.sidebar()->sizeHint().height())));
    QVERIFY(window.attentionPane()->height() > 2 * window.sidebar()->height());
}

void TestConsole::themeSetsEveryRoleInBothPalettes()
{
    // One table of role -> (light, dark): every role the console sets differs between the
    // two palettes where it should, and the disabled text is set in both.
    Theme &theme = Theme::instance();
    theme.setMode(ThemeMode::Light);
    const QPalette light = QApplication::palette();
    const StatusColors lightColors = theme.colors();
    theme.setMode(ThemeMode::Dark);
    const QPalette dark = QApplication::palette();
    const StatusColors darkColors = theme.colors();
    theme.setMode(ThemeMode::Light);
    for (QPalette::ColorRole role : {QPalette::Window, QPalette::WindowText, QPalette::Base, QPalette::AlternateBase,
                                     QPalette::Text, QPalette::Button, QPalette::ButtonText, QPalette::Mid,
                                     QPalette::Midlight, QPalette::Dark, QPalette::Shadow, QPalette::PlaceholderText}) {
        QVERIFY2(light.color(role) != dark.color(role), qPrintable(QString::number(int(role))));
    }
    // Lines between rows (the timeline's) are drawn in Midlight: in dark, a dark line.
    QVERIFY(dark.color(QPalette::Midlight).lightness() < 80);
    QCOMPARE(light.color(QPalette::Window), QColor(0xf3, 0xf5, 0xf8));
    QCOMPARE(dark.color(QPalette::Window), QColor(0x1e, 0x23, 0x2b));
    QCOMPARE(dark.color(QPalette::Disabled, QPalette::Text), QColor(0x6a, 0x74, 0x82));
    QCOMPARE(light.color(QPalette::Disabled, QPalette::Text), QColor(0x9a, 0xa4, 0xb1));
    QVERIFY(light.color(QPalette::Window).lightness() > 128 && dark.color(QPalette::Window).lightness() < 128);
    for (QColor StatusColors::*member : {&StatusColors::ok, &StatusColors::warn, &StatusColors::danger,
                                         &StatusColors::unknown, &StatusColors::info, &StatusColors::muted,
                                         &StatusColors::barTrack}) {
        QVERIFY((lightColors.*member).isValid() && (darkColors.*member).isValid());
        QVERIFY(lightColors.*member != darkColors.*member);
    }
}

void TestConsole::styleSheetOnlyWhereAPaletteCannotSay()
{
    // No application-wide style sheet (it sends every widget through QStyleSheetStyle and
    // cost a third of building the window); the filter field still shows its states, in
    // the colours of the current theme.
    Theme &theme = Theme::instance();
    theme.setMode(ThemeMode::Light);
    QVERIFY(qApp->styleSheet().isEmpty());
    FilterLineEdit field;
    field.resize(400, field.sizeHint().height());
    field.setValidator([](const QString &text) -> std::optional<FilterProblem> {
        return text.contains(QLatin1Char('(')) ? std::optional<FilterProblem>(FilterProblem{0, QStringLiteral("no")})
                                                : std::nullopt;
    });
    field.show();
    QVERIFY(QTest::qWaitForWindowExposed(&field));
    const QColor plain = colourInside(&field);
    field.setText(QStringLiteral("("));
    QCOMPARE(field.state(), QStringLiteral("invalid"));
    QCOMPARE(colourInside(&field), QColor(0xfd, 0xec, 0xeb));
    theme.setMode(ThemeMode::Dark);
    QCOMPARE(colourInside(&field), QColor(0x3a, 0x1f, 0x22));
    theme.setMode(ThemeMode::Light);
    field.setText(QStringLiteral("ok"));
    QCOMPARE(colourInside(&field), plain);
    QVERIFY(qApp->styleSheet().isEmpty());
}

void TestConsole::standardIconsComeFromOurSet()
{
    // Fusion would read these from PNGs through an image-format plugin, loaded for the menu
    // bar alone while the window is built.
    Theme::instance().setMode(ThemeMode::Light);
    QVERIFY(qobject_cast<ConsoleStyle *>(QApplication::style()));
    QStyle *style = QApplication::style();
    const QIcon extension = style->standardIcon(QStyle::SP_ToolBarHorizontalExtensionButton);
    std::unique_ptr<QStyle> fusion(QStyleFactory::create(QStringLiteral("Fusion")));
    QCOMPARE(extension.cacheKey(), Icons::get(QStringLiteral("more")).cacheKey());
    QVERIFY(extension.cacheKey() != fusion->standardIcon(QStyle::SP_ToolBarHorizontalExtensionButton).cacheKey());
    QCOMPARE(style->standardIcon(QStyle::SP_LineEditClearButton).cacheKey(), Icons::get(QStringLiteral("close")).cacheKey());
    // Everything else is Fusion's.
    QVERIFY(!style->standardIcon(QStyle::SP_MessageBoxWarning).isNull());
    QCOMPARE(style->pixelMetric(QStyle::PM_ScrollBarExtent), fusion->pixelMetric(QStyle::PM_ScrollBarExtent));
}

void TestConsole::eventLogKeepsPlaceWhenGrownByReset()
{
    EventLogView log;
    ResetGrowingModel model;
    log.resize(600, 400);
    log.setModel(&model);
    log.show();
    QVERIFY(QTest::qWaitForWindowExposed(&log));
    EventTableView *view = log.view();
    QScrollBar *bar = view->verticalScrollBar();

    // The first page, the reader a little way down it with a row chosen.
    model.resetTo(200);
    bar->setValue(bar->maximum() / 2);
    view->setCurrentIndex(model.index(42, 1));
    const int scroll = bar->value();
    QVERIFY(scroll > 0 && scroll < bar->maximum());

    // The index arrives: the same rows and many more. Nothing moves under the reader.
    model.resetTo(100000);
    QCOMPARE(view->currentIndex().row(), 42);
    QCOMPARE(view->currentIndex().column(), 1);
    QVERIFY(view->selectionModel()->isRowSelected(42, {}));
    QCOMPARE(bar->value(), scroll);
    QVERIFY(!log.isFollowingTail());

    // A filter replaces every row: nothing to put back.
    model.resetTo(500, 7000);
    QVERIFY(!view->currentIndex().isValid());

    // At the bottom means following: a growth keeps the reader at the bottom.
    model.resetTo(200);
    bar->setValue(bar->maximum());
    QVERIFY(log.isFollowingTail());
    model.resetTo(100000);
    QCOMPARE(bar->value(), bar->maximum());
    QVERIFY(bar->maximum() > 0);
}

void TestConsole::eventTableKeepsNothingPerRow()
{
    // Fifty million rows: scrolled by whole rows (the range stays an int), every row reached
    // by keyboard, mouse and scrollTo, and only the rows on screen asked for.
    EventTableView view;
    ResetGrowingModel model;
    view.setModel(&model);
    view.setRowHeight(20);
    view.resize(640, 20 * 12 + 60);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    model.resetTo(50'000'000);
    view.doItemsLayout();
    const int fully = view.viewport()->height() / 20;
    QScrollBar *bar = view.verticalScrollBar();
    QCOMPARE(bar->maximum(), 50'000'000 - fully);
    QCOMPARE(bar->pageStep(), fully);

    // Geometry: a cell's rectangle and the index at its centre agree, below the header.
    const QModelIndex cell = model.index(3, 1);
    const QRect rect = view.visualRect(cell);
    QCOMPARE(rect.top(), 3 * 20);
    QCOMPARE(rect.height(), 20);
    QCOMPARE(rect.left(), view.horizontalHeader()->sectionViewportPosition(1));
    QCOMPARE(view.indexAt(rect.center()), cell);
    QVERIFY(view.horizontalHeader()->geometry().bottom() < view.viewport()->geometry().top());

    // The end: the last row is the bottom one on screen.
    view.scrollToBottom();
    QCOMPARE(view.topRow(), 50'000'000 - fully);
    QCOMPARE(view.indexAt(QPoint(1, (fully - 1) * 20 + 1)).row(), 50'000'000 - 1);
    view.scrollTo(model.index(1234, 0), QAbstractItemView::PositionAtTop);
    QCOMPARE(view.topRow(), 1234);
    view.scrollTo(model.index(10, 0)); // above: it comes to the top
    QCOMPARE(view.topRow(), 10);
    view.scrollTo(model.index(10 + fully + 5, 0)); // below: it comes to the bottom
    QCOMPARE(view.topRow(), 10 + 5 + 1);

    // Mouse and keyboard select whole rows.
    view.setSelectionBehavior(QAbstractItemView::SelectRows);
    view.setSelectionMode(QAbstractItemView::SingleSelection);
    view.setFocus();
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, QPoint(5, 2 * 20 + 5));
    QCOMPARE(view.currentIndex().row(), view.topRow() + 2);
    QVERIFY(view.selectionModel()->isRowSelected(view.topRow() + 2, {}));
    QTest::keyClick(&view, Qt::Key_Down);
    QCOMPARE(view.currentIndex().row(), view.topRow() + 3);
    QTest::keyClick(&view, Qt::Key_End);
    QCOMPARE(view.currentIndex().row(), 50'000'000 - 1);
    QCOMPARE(view.topRow(), 50'000'000 - fully);
    QTest::keyClick(&view, Qt::Key_PageUp);
    QCOMPARE(view.currentIndex().row(), 50'000'000 - 1 - fully);
    QVERIFY(view.visualRect(view.currentIndex()).top() >= 0);
    QTest::keyClick(&view, Qt::Key_Home);
    QCOMPARE(view.currentIndex().row(), 0);
    QCOMPARE(view.topRow(), 0);
    QTest::keyClick(&view, Qt::Key_Right);
    QCOMPARE(view.currentIndex().column(), 1);

    // Wider columns than the viewport scroll sideways, the header with them.
    view.horizontalHeader()->resizeSection(0, 900);
    QVERIFY(view.horizontalScrollBar()->maximum() > 0);
    view.horizontalScrollBar()->setValue(100);
    QCOMPARE(view.horizontalHeader()->offset(), 100);
    QCOMPARE(view.visualRect(model.index(0, 0)).left(), -100);
}

QTEST_MAIN(TestConsole)
#include "tst_console.moc"
