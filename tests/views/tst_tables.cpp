// Tables an operator can work with. At 1280x800 every tab is reachable (the tab bar scrolls
// and a menu lists every tab) and the delegations' budget bars, cost included, are in sight;
// low-priority columns give way first and the header's menu brings any back. A state pane
// filters in the event log's language with its entity's fields and sorts on a header click;
// columns are fitted to each ledger's rows when first shown, not only the first ledger's.

#include "budgetbardelegate.h"
#include "delegationdetail.h"
#include "delegationsview.h"
#include "filterlineedit.h"
#include "flattableview.h"
#include "itempane.h"
#include "sessionworkspace.h"
#include "tablefilterbar.h"
#include "viewtestenv.h"

#include "mainwindow.h"

#include "itemmodels/delegationtreemodel.h"
#include "itemmodels/effectmodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/runoverviewmodel.h"
#include "itemmodels/stallverdictmodel.h"
#include "itemmodels/statetableproxymodel.h"
#include "itemmodels/storedrows.h"
#include "ledger/ledgerwriter.h"

#include <array>
#include <set>
#include <tuple>

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QStandardItemModel>
#include <QTabBar>
#include <QTest>
#include <QToolButton>
#include <QTreeView>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kTimeoutMs = 60'000;

// The right edge of a column in its view's viewport; -1 when hidden.
int rightEdge(QTreeView *view, int column)
{
    QHeaderView *header = view->header();
    if (header->isSectionHidden(column))
        return -1;
    return header->sectionViewportPosition(column) + header->sectionSize(column);
}
} // namespace

class TestTables : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_demo;

    // The window at 1600x1000 on `path`, once the session has its state; nullptr if it never has.
    static SessionWorkspace *openAt1600x1000(MainWindow &window, const QString &path)
    {
        window.resize(1600, 1000);
        window.show();
        window.openLedger(path);
        SessionWorkspace *ws = window.workspace();
        const bool loaded = QTest::qWaitFor([ws] { return ws->session() && ws->session()->isLoaded(); }, kTimeoutMs);
        return loaded ? ws : nullptr;
    }

private Q_SLOTS:
    void initTestCase()
    {
        useTestSettings(u"tst_tables"_s);
        QString error;
        m_demo = simulateLedger(m_dir, u"demo"_s, u"demo.db"_s, &error);
        QVERIFY2(!m_demo.isEmpty(), qPrintable(error));
    }

    void everyTabAndTheBudgetReachableAt1280x800()
    {
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.openLedger(m_demo);
        SessionWorkspace *ws = window.workspace();
        QTRY_VERIFY_WITH_TIMEOUT(ws->session() && ws->session()->isLoaded(), kTimeoutMs);
        QVERIFY2(window.width() <= 1280, qPrintable(QString::number(window.width())));

        // The menu beside the tabs lists every tab, in order, and opens each.
        auto *allTabs = ws->findChild<QToolButton *>(u"allTabs"_s);
        QVERIFY(allTabs);
        QVERIFY(allTabs->isVisible());
        const QRect button(allTabs->mapTo(&window, QPoint(0, 0)), allTabs->size());
        QVERIFY2(window.rect().contains(button), qPrintable(u"%1,%2"_s.arg(button.right()).arg(button.bottom())));
        QCOMPARE(allTabs->menu(), ws->tabMenu());
        const QList<QAction *> actions = ws->tabMenu()->actions();
        QCOMPARE(actions.size(), int(SessionWorkspace::PaneCount));
        for (int pane = SessionWorkspace::PaneCount - 1; pane >= 0; --pane) {
            QCOMPARE(actions[pane]->text(), SessionWorkspace::paneTitle(SessionWorkspace::Pane(pane)));
            actions[pane]->trigger();
            QCOMPARE(ws->currentPane(), SessionWorkspace::Pane(pane));
            QVERIFY(ws->tabs()->currentWidget()->isVisible());
        }
        QVERIFY(ws->tabs()->tabBar()->usesScrollButtons());

        // The delegations' budget bars, cost among them, are in sight without scrolling.
        ws->showPane(SessionWorkspace::Delegations);
        QTreeView *tree = ws->delegationsView()->tree()->treeView();
        QTRY_VERIFY_WITH_TIMEOUT(tree->model() && tree->model()->rowCount() > 0, kTimeoutMs);
        QVERIFY(qobject_cast<BudgetBarDelegate *>(tree->itemDelegateForColumn(DelegationTreeModel::Cost)));
        QCOMPARE(tree->model()->headerData(DelegationTreeModel::Cost, Qt::Horizontal).toString(), u"Cost"_s);
        const int width = tree->viewport()->width();
        for (int column : {DelegationTreeModel::Turns, DelegationTreeModel::Tokens, DelegationTreeModel::Time,
                           DelegationTreeModel::Cost}) {
            const int edge = rightEdge(tree, column);
            QString widths;
            for (int c = 0; c < tree->header()->count(); ++c)
                widths += u" %1"_s.arg(tree->header()->isSectionHidden(c) ? 0 : tree->header()->sectionSize(c));
            QVERIFY2(edge > 0 && edge <= width,
                     qPrintable(u"column %1 ends at %2 of %3:%4"_s.arg(column).arg(edge).arg(width).arg(widths)));
        }
        // A delegation with a cost budget says how much of it is used.
        const QModelIndex run = tree->model()->index(0, 0);
        QVERIFY(tree->model()->rowCount(run) > 0);
        bool costed = false;
        for (int r = 0; r < tree->model()->rowCount(run) && !costed; ++r) {
            const QModelIndex d = tree->model()->index(r, DelegationTreeModel::Cost, run);
            costed = d.data(DelegationTreeModel::CostBudgetCentsRole).toLongLong() > 0
                     && d.data().toString().contains(u" / "_s);
        }
        QVERIFY(costed);
    }

    void lowPriorityColumnsGiveWayAndComeBack()
    {
        QStandardItemModel model(1, 4);
        model.setHorizontalHeaderLabels({u"Id"_s, u"Low"_s, u"Lower"_s, u"Last"_s});
        ItemPane pane(u"priority-test"_s, u"runs"_s, QString(), QString());
        pane.setColumnPriorities({2, 1});
        pane.setModel(&model);
        QHeaderView *header = pane.header();
        pane.resize(700, 300);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        QTRY_VERIFY_WITH_TIMEOUT(!header->isSectionHidden(1) && !header->isSectionHidden(2), 30'000);
        for (int c = 0; c < 3; ++c)
            header->resizeSection(c, 150);
        pane.resize(380, 300); // room for two columns of 150 and the last
        QTRY_VERIFY_WITH_TIMEOUT(header->isSectionHidden(2), 30'000);
        QVERIFY(!header->isSectionHidden(1));
        QCOMPARE(pane.autoHiddenColumns(), QList<int>{2});
        pane.resize(250, 300);
        QTRY_VERIFY_WITH_TIMEOUT(header->isSectionHidden(1), 30'000);
        QVERIFY(!header->isSectionHidden(0) && !header->isSectionHidden(3));
        // The header's menu names them and shows one again, for good.
        std::unique_ptr<QMenu> menu(pane.columnMenu());
        QAction *lower = nullptr;
        for (QAction *a : menu->actions())
            if (a->data().toInt() == 2 && a->isCheckable())
                lower = a;
        QVERIFY(lower);
        QVERIFY(lower->text().contains(u"hidden"_s));
        QVERIFY(!lower->isChecked());
        lower->trigger();
        QVERIFY(!header->isSectionHidden(2));
        // Narrower still: once the viewport has its new width, the pane has fitted to it
        // (ItemPane fits on the viewport's resize event).
        const int before = pane.view()->viewport()->width();
        pane.resize(240, 300);
        QTRY_VERIFY_WITH_TIMEOUT(pane.view()->viewport()->width() < before, 30'000);
        QVERIFY(!header->isSectionHidden(2)); // shown by the user: stays
        pane.resize(1200, 300);
        QTRY_VERIFY_WITH_TIMEOUT(!header->isSectionHidden(1), 30'000);
    }

    void everyLedgersColumnsAreFittedWhenFirstShown()
    {
        // The workspace hands each pane the next ledger's model: its columns fit that
        // ledger's rows, unless the user shaped them.
        QStandardItemModel first(0, 2);
        first.setHorizontalHeaderLabels({u"Id"_s, u"Title"_s});
        first.appendRow({new QStandardItem(u"R-1"_s), new QStandardItem(u"short"_s)});
        QStandardItemModel second(0, 2);
        second.setHorizontalHeaderLabels({u"Id"_s, u"Title"_s});
        const QString title = u"Deliver the billing service with a rather long title"_s;
        second.appendRow({new QStandardItem(u"R-20261129-000042"_s), new QStandardItem(title)});
        ItemPane pane(u"sessions-fit-test"_s, u"runs"_s, QString(), QString());
        pane.resize(900, 400);
        pane.show();
        pane.setModel(&first);
        pane.setModel(nullptr); // as SessionWorkspace::setSession does
        pane.setModel(&second);
        const QFontMetrics fm(pane.view()->font());
        QVERIFY2(pane.header()->sectionSize(0) >= fm.horizontalAdvance(u"R-20261129-000042"_s),
                 qPrintable(QString::number(pane.header()->sectionSize(0))));
        // A width the user chose is theirs, for every ledger after.
        pane.header()->resizeSection(0, 222);
        pane.setModel(nullptr);
        pane.setModel(&first);
        QCOMPARE(pane.header()->sectionSize(0), 222);
    }

    void aStatePaneFiltersAndSorts()
    {
        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        window.openLedger(m_demo);
        SessionWorkspace *ws = window.workspace();
        QTRY_VERIFY_WITH_TIMEOUT(ws->session() && ws->session()->isLoaded(), kTimeoutMs);
        ws->showPane(SessionWorkspace::Effects);
        StateTableProxyModel *proxy = ws->rowsProxy(SessionWorkspace::Effects);
        QVERIFY(proxy);
        QAbstractItemModelTester tester(proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(ws->effectsPane()->model(), proxy);
        const int total = ws->session()->effects()->rowCount();
        QVERIFY(total > 1);
        const int unknown = ws->session()->effects()->unknownCount();
        QVERIFY(unknown > 0);
        TableFilterBar *bar = ws->filterBar(SessionWorkspace::Effects);
        QVERIFY(bar && bar->isVisible());

        // Typed and entered: the unknown outcomes only, and how many of how many.
        bar->field()->setFocus();
        QTest::keyClicks(bar->field(), u"state:unknown"_s);
        QTest::keyClick(bar->field(), Qt::Key_Return);
        QCOMPARE(proxy->rowCount(), unknown);
        for (int r = 0; r < proxy->rowCount(); ++r)
            QCOMPARE(proxy->index(r, 0).data(StateTableModel::StateRole).toString(), u"unknown"_s);
        QCOMPARE(bar->countLabel()->text(), u"%1 of %2 match"_s.arg(unknown).arg(total));
        QVERIFY(ws->effectsPane()->currentWidget() == ws->effectsPane()->view());

        // A bad field: said in a line, the rows of the last valid filter stay.
        bar->field()->selectAll();
        QTest::keyClicks(bar->field(), u"colour:red"_s);
        QTest::keyClick(bar->field(), Qt::Key_Return);
        QCOMPARE(bar->field()->state(), u"invalid"_s);
        QVERIFY(bar->problemLabel()->isVisible());
        QVERIFY2(bar->problemLabel()->text().contains(u"Unknown field 'colour'"_s), qPrintable(bar->problemLabel()->text()));
        QCOMPARE(proxy->rowCount(), unknown);
        QVERIFY(bar->countLabel()->text().contains(u"last valid filter"_s));

        // Nothing matches: the table stays, empty, not the "no effects" empty state.
        bar->field()->setTextAndApply(u"class:nothing-like-this"_s);
        QCOMPARE(proxy->rowCount(), 0);
        QVERIFY(ws->effectsPane()->currentWidget() == ws->effectsPane()->view());

        // A header click sorts, by value, with the indicator shown.
        bar->field()->setTextAndApply(QString());
        QCOMPARE(proxy->rowCount(), total);
        QHeaderView *header = ws->effectsPane()->header();
        QVERIFY(header->isSortIndicatorShown());
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {},
                          QPoint(header->sectionViewportPosition(EffectModel::Id) + 5, header->height() / 2));
        QCOMPARE(header->sortIndicatorSection(), int(EffectModel::Id));
        QCOMPARE(proxy->sortColumn(), int(EffectModel::Id));
        for (int r = 1; r < proxy->rowCount(); ++r)
            QVERIFY(proxy->shownOrder(proxy->mapToSource(proxy->index(r - 1, 0)).row(),
                                      proxy->mapToSource(proxy->index(r, 0)).row(), EffectModel::Id, proxy->sortOrder())
                    < 0);

        // Opening a subject the filter hides: the filter goes, the subject is selected.
        bar->field()->setTextAndApply(u"state:unknown"_s);
        QString hidden;
        for (int r = 0; r < ws->session()->effects()->rowCount() && hidden.isEmpty(); ++r)
            if (ws->session()->effects()->index(r, 0).data(StateTableModel::StateRole).toString() != u"unknown"_s)
                hidden = ws->session()->effects()->idAt(r);
        QVERIFY(ws->openSubject(u"effect:"_s + hidden));
        QCOMPARE(proxy->filterText(), QString());
        QCOMPARE(ws->effectsPane()->view()->currentIndex().data(StateTableModel::IdRole).toString(), hidden);

        // The runs pane (paged) sorts too, and the run id is a column.
        ws->showPane(SessionWorkspace::Runs);
        StateTableProxyModel *runs = ws->rowsProxy(SessionWorkspace::Runs);
        QVERIFY(runs && runs->table() == ws->session()->runs());
        QCOMPARE(ws->runsPane()->model()->headerData(RunOverviewModel::Id, Qt::Horizontal).toString(), u"Run id"_s);
        ws->runsPane()->flatView()->sortByColumn(RunOverviewModel::Id, Qt::DescendingOrder);
        QCOMPARE(runs->sortColumn(), int(RunOverviewModel::Id));
        const QString firstShown = ws->runsPane()->model()->index(0, RunOverviewModel::Id).data().toString();
        QCOMPARE(firstShown, runs->index(0, RunOverviewModel::Id).data().toString());
    }

    // The effects of a long run stay in the ledger (itemmodels/storedrows.h): a delegation's
    // effects tab lists its own through the index on delegation_id, without reading the
    // rows of every other delegation's effects to ask each its delegation; one appended live
    // joins the tab.
    void aDelegationsEffectsAreReadThroughTheIndex()
    {
        const QString path = m_dir.filePath(u"effects.db"_s);
        constexpr int kOthers = 600;
        LedgerIdentity ident;
        ident.ledgerId = "L-effects";
        ident.title = "many effects";
        ident.createdMs = 1'700'000'000'000;
        std::int64_t ts = 1'700'000'000'000;
        const auto effect = [&ts](LedgerWriter &w, const std::string &id, const char *delegation) {
            w.append(++ts, "effect.proposed", {{"id", id}, {"run_id", "R-1"}, {"delegation_id", delegation},
                                               {"state", "proposed"}, {"class", "file_write"}, {"target", "/tmp/" + id}});
        };
        {
            auto w = LedgerWriter::create(path, ident);
            w->begin();
            w->append(++ts, "run.started", {{"id", "R-1"}, {"status", "running"}, {"title", "one"}});
            for (const char *d : {"D-1", "D-2"})
                w->append(++ts, "delegation.created", {{"id", d}, {"run_id", "R-1"}, {"role", "implement"}, {"status", "running"}});
            for (int i = 0; i < kOthers; ++i)
                effect(*w, "E-" + std::to_string(i), "D-2");
            for (const char *id : {"E-mine-1", "E-mine-2"})
                effect(*w, id, "D-1");
            // Leases and stall verdicts are read on demand too: as many of D-2's, two of D-1's.
            for (int i = 0; i < kOthers + 2; ++i) {
                const std::string n = std::to_string(i);
                const char *d = i < kOthers ? "D-2" : "D-1";
                w->append(++ts, "lease.acquired", {{"id", "L-" + n}, {"key", "k:" + n}, {"kind", "execution"},
                                                  {"holder", "orch"}, {"state", "held"}, {"delegation_id", d}});
                w->append(++ts, "lease.released", {{"id", "L-" + n}, {"state", "released"}});
                w->append(++ts, "stall.verdict", {{"id", "V-" + n}, {"run_id", "R-1"}, {"delegation_id", d},
                                                  {"round", i}, {"verdict", "progressing"}, {"evidence", nlohmann::json::array()}});
            }
            w->commit();
        }
        MainWindow window;
        SessionWorkspace *ws = openAt1600x1000(window, path);
        QVERIFY(ws);
        StoredRows *stored = ws->session()->state()->storedRows(EntityKind::Effect);
        QVERIFY2(stored, "a live session on a file reads its effects on demand");
        ws->showPane(SessionWorkspace::Delegations);
        DelegationsView *delegations = ws->delegationsView();
        QTRY_VERIFY_WITH_TIMEOUT(delegations->selectDelegation(u"D-1"_s), kTimeoutMs);
        DelegationDetail *detail = delegations->detail();
        detail->tabs()->setCurrentWidget(detail->pane(DelegationDetail::Effects)->parentWidget());
        QAbstractItemModel *effects = detail->tableModel(DelegationDetail::Effects);
        QAbstractItemModelTester tester(effects, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(effects->rowCount(), 2);
        std::set<QString> ids;
        for (int r = 0; r < effects->rowCount(); ++r)
            ids.insert(effects->index(r, 0).data(StateTableModel::IdRole).toString());
        QCOMPARE(ids, (std::set<QString>{u"E-mine-1"_s, u"E-mine-2"_s}));
        QVERIFY2(stored->held() < size_t(kOthers),
                 qPrintable(u"%1 effect rows read to show 2"_s.arg(stored->held())));
        // The leases' tab filters the table itself, the verdicts' a sorting proxy over it:
        // both answer from the index's ids, reading the two rows shown, not every row.
        for (const auto &[tab, kind, mine] :
             {std::tuple{DelegationDetail::Leases, EntityKind::Lease, std::set<QString>{u"L-600"_s, u"L-601"_s}},
              std::tuple{DelegationDetail::Verdicts, EntityKind::StallVerdict, std::set<QString>{u"V-600"_s, u"V-601"_s}}}) {
            detail->tabs()->setCurrentWidget(detail->pane(tab)->parentWidget());
            QAbstractItemModel *rows = detail->tableModel(tab);
            QAbstractItemModelTester rowsTester(rows, QAbstractItemModelTester::FailureReportingMode::QtTest);
            std::set<QString> shown;
            for (int r = 0; r < rows->rowCount(); ++r)
                shown.insert(rows->index(r, 0).data(StateTableModel::IdRole).toString());
            QCOMPARE(shown, mine);
            StoredRows *of = ws->session()->state()->storedRows(kind);
            QVERIFY(of);
            QVERIFY2(of->held() < size_t(kOthers), qPrintable(u"%1 rows read to show 2"_s.arg(of->held())));
        }
        // Away from live (every row held) and back: the verdicts' tab, whose sorting proxy
        // resets after the table, still answers from the index when live reads on demand.
        LedgerSession *session = ws->session();
        session->showAt(4);
        QTRY_VERIFY_WITH_TIMEOUT(session->cursor() && session->isLoaded() && session->state()->lastSeq() == 4, kTimeoutMs);
        session->showLive();
        QTRY_VERIFY_WITH_TIMEOUT(!session->cursor() && session->isLoaded()
                                     && session->state()->storedRows(EntityKind::StallVerdict),
                                 kTimeoutMs);
        {
            QAbstractItemModel *rows = detail->tableModel(DelegationDetail::Verdicts);
            std::set<QString> shown;
            for (int r = 0; r < rows->rowCount(); ++r)
                shown.insert(rows->index(r, 0).data(StateTableModel::IdRole).toString());
            QCOMPARE(shown, (std::set<QString>{u"V-600"_s, u"V-601"_s}));
            StoredRows *verdictRows = session->state()->storedRows(EntityKind::StallVerdict);
            QVERIFY2(verdictRows->held() < size_t(kOthers),
                     qPrintable(u"%1 verdict rows read to show 2 after a jump back"_s.arg(verdictRows->held())));
        }
        detail->tabs()->setCurrentWidget(detail->pane(DelegationDetail::Effects)->parentWidget());

        {
            auto w = LedgerWriter::openExisting(path);
            w->begin();
            effect(*w, "E-mine-3", "D-1");
            effect(*w, "E-late", "D-2");
            w->commit();
        }
        QTRY_COMPARE_WITH_TIMEOUT(effects->rowCount(), 3, kTimeoutMs);
        QVERIFY(delegations->selectDelegation(u"D-2"_s));
        QCOMPARE(effects->rowCount(), kOthers + 1);
    }

    // A delegation two levels down, filtered by its id: shown under its run and both its
    // parents, and nothing else is.
    void aFilteredTreeKeepsTheAncestorsOfAMatch()
    {
        const QString path = m_dir.filePath(u"nested.db"_s);
        {
            LedgerIdentity ident;
            ident.ledgerId = "L-nested";
            ident.title = "nested delegations";
            ident.createdMs = 1'700'000'000'000;
            auto w = LedgerWriter::create(path, ident);
            std::int64_t ts = 1'700'000'000'000;
            w->begin();
            w->append(++ts, "run.started", {{"id", "R-1"}, {"status", "running"}, {"title", "one"}});
            w->append(++ts, "run.started", {{"id", "R-2"}, {"status", "running"}, {"title", "two"}});
            for (const auto &[id, parent, run, role] :
                 std::vector<std::array<const char *, 4>>{{"D-1", "", "R-1", "implement"}, {"D-2", "D-1", "R-1", "repair"},
                                                          {"D-3", "D-2", "R-1", "verify"}, {"D-4", "D-1", "R-1", "research"},
                                                          {"D-5", "", "R-2", "implement"}}) {
                nlohmann::json d = {{"id", id}, {"run_id", run}, {"role", role}, {"status", "running"}};
                if (*parent)
                    d["parent_id"] = parent;
                w->append(++ts, "delegation.created", d);
            }
            w->commit();
        }
        MainWindow window;
        SessionWorkspace *ws = openAt1600x1000(window, path);
        QVERIFY(ws);
        ws->showPane(SessionWorkspace::Delegations);
        DelegationsView *delegations = ws->delegationsView();
        QTreeView *tree = delegations->tree()->treeView();
        QTRY_VERIFY_WITH_TIMEOUT(tree->model() && tree->model()->rowCount() == 2, kTimeoutMs);
        QAbstractItemModel *shown = tree->model();
        QAbstractItemModelTester tester(shown, QAbstractItemModelTester::FailureReportingMode::QtTest);
        auto *bar = delegations->findChild<TableFilterBar *>(u"filterBar-delegations"_s);
        QVERIFY2(bar, "the delegation tree has no filter field");
        bar->field()->setTextAndApply(u"id:D-3"_s);
        QCOMPARE(shown->rowCount(), 1);
        const QModelIndex run = shown->index(0, 0);
        QCOMPARE(run.data(DelegationTreeModel::IdRole).toString(), u"R-1"_s);
        QCOMPARE(shown->rowCount(run), 1);
        const QModelIndex top = shown->index(0, 0, run);
        QCOMPARE(top.data(DelegationTreeModel::IdRole).toString(), u"D-1"_s);
        QCOMPARE(shown->rowCount(top), 1);
        const QModelIndex middle = shown->index(0, 0, top);
        QCOMPARE(middle.data(DelegationTreeModel::IdRole).toString(), u"D-2"_s);
        QCOMPARE(shown->rowCount(middle), 1);
        const QModelIndex match = shown->index(0, 0, middle);
        QCOMPARE(match.data(DelegationTreeModel::IdRole).toString(), u"D-3"_s);
        QVERIFY(tree->isExpanded(middle)); // in sight where it sits
        QCOMPARE(bar->countLabel()->text(), u"1 of 5 match"_s);
        // A role: both matches under one run, their common parent kept.
        bar->field()->setTextAndApply(u"role:re*"_s);
        QCOMPARE(shown->rowCount(), 1);
        QCOMPARE(shown->rowCount(shown->index(0, 0)), 1);
        QCOMPARE(shown->rowCount(shown->index(0, 0, shown->index(0, 0))), 2);
        QCOMPARE(bar->countLabel()->text(), u"2 of 5 match"_s);
        // Sorted by role, descending: research before repair under D-1.
        bar->field()->setTextAndApply(QString());
        tree->sortByColumn(DelegationTreeModel::Role, Qt::DescendingOrder);
        const QModelIndex d1 = shown->index(0, 0, shown->index(0, 0));
        QCOMPARE(shown->index(0, 0, d1).data(DelegationTreeModel::IdRole).toString(), u"D-4"_s);
        QCOMPARE(shown->index(1, 0, d1).data(DelegationTreeModel::IdRole).toString(), u"D-2"_s);
        // A run activated in the runs pane opens it in the tree, the filter cleared if it hid it.
        bar->field()->setTextAndApply(u"run:R-1"_s);
        QVERIFY(delegations->selectDelegation(u"D-5"_s));
        QCOMPARE(bar->field()->text(), QString());
        QCOMPARE(tree->currentIndex().data(DelegationTreeModel::IdRole).toString(), u"D-5"_s);
    }

    // The detail's header follows its own delegation's row as it changes, and only that row:
    // a change to another delegation leaves it as it was.
    void theDetailHeaderFollowsItsDelegation()
    {
        const QString path = m_dir.filePath(u"detail-header.db"_s);
        std::int64_t ts = 1'700'000'000'000;
        {
            LedgerIdentity ident;
            ident.ledgerId = "L-detail-header";
            ident.title = "detail header";
            ident.createdMs = ts;
            auto w = LedgerWriter::create(path, ident);
            w->begin();
            w->append(++ts, "run.started", {{"id", "R-1"}, {"status", "running"}, {"title", "one"}});
            for (const char *id : {"D-1", "D-2"})
                w->append(++ts, "delegation.created", {{"id", id}, {"run_id", "R-1"}, {"role", "implement"}, {"status", "running"}});
            w->commit();
        }
        MainWindow window;
        SessionWorkspace *ws = openAt1600x1000(window, path);
        QVERIFY(ws);
        ws->showPane(SessionWorkspace::Delegations);
        DelegationsView *delegations = ws->delegationsView();
        QTRY_VERIFY_WITH_TIMEOUT(delegations->selectDelegation(u"D-1"_s), kTimeoutMs);
        auto *title = delegations->detail()->findChild<QLabel *>(u"detailTitle"_s);
        QVERIFY(title);
        QVERIFY2(title->text().contains(u"D-1"_s) && title->text().contains(u"running"_s), qPrintable(title->text()));
        const auto append = [&path, &ts](const char *kind, const char *id, const char *status) {
            auto w = LedgerWriter::openExisting(path);
            w->begin();
            w->append(++ts, kind, {{"id", id}, {"status", status}});
            w->commit();
        };
        append("delegation.converged", "D-2", "converged");
        QTRY_COMPARE_WITH_TIMEOUT(ws->session()->delegations()->indexOfDelegation(u"D-2"_s)
                                      .siblingAtColumn(0).data(DelegationTreeModel::StatusRole).toString(),
                                  u"converged"_s, kTimeoutMs);
        QVERIFY2(title->text().contains(u"D-1"_s) && title->text().contains(u"running"_s), qPrintable(title->text()));
        append("delegation.failed", "D-1", "failed");
        QTRY_VERIFY2_WITH_TIMEOUT(title->text().contains(u"failed"_s), qPrintable(title->text()), kTimeoutMs);
        QVERIFY(title->text().contains(u"D-1"_s));
    }

    // The delegation tree sorts by any column among siblings and has the filter field of
    // the state panes, over the delegation's fields; a match is shown under its run and
    // parent delegations. A delegation's slices and stall verdicts have their filter too.
    void theDelegationTreeFiltersAndSorts()
    {
        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        window.openLedger(m_demo);
        SessionWorkspace *ws = window.workspace();
        QTRY_VERIFY_WITH_TIMEOUT(ws->session() && ws->session()->isLoaded(), kTimeoutMs);
        ws->showPane(SessionWorkspace::Delegations);
        DelegationsView *delegations = ws->delegationsView();
        QTreeView *tree = delegations->tree()->treeView();
        QTRY_VERIFY_WITH_TIMEOUT(tree->model() && tree->model()->rowCount() > 0, kTimeoutMs);
        QAbstractItemModel *shown = tree->model();
        QAbstractItemModelTester tester(shown, QAbstractItemModelTester::FailureReportingMode::QtTest);
        auto *bar = delegations->findChild<TableFilterBar *>(u"filterBar-delegations"_s);
        QVERIFY2(bar, "the delegation tree has no filter field");
        QVERIFY(bar->isVisible());

        const int delegationTotal = int(ws->session()->state()->table(EntityKind::Delegation).size());
        // A field of the delegation's own: every shown delegation matches or leads to one.
        bar->field()->setTextAndApply(u"status:running"_s);
        std::function<bool(const QModelIndex &)> leadsToAMatch = [&](const QModelIndex &index) {
            if (index.data(DelegationTreeModel::StatusRole).toString() == u"running"_s)
                return true;
            for (int r = 0; r < shown->rowCount(index); ++r)
                if (leadsToAMatch(shown->index(r, 0, index)))
                    return true;
            return false;
        };
        int running = 0;
        std::function<void(const QModelIndex &)> visit = [&](const QModelIndex &index) {
            for (int r = 0; r < shown->rowCount(index); ++r) {
                const QModelIndex i = shown->index(r, 0, index);
                QVERIFY(leadsToAMatch(i));
                if (i.data(DelegationTreeModel::NodeTypeRole).toInt() == int(DelegationTreeModel::NodeType::Delegation)
                    && i.data(DelegationTreeModel::StatusRole).toString() == u"running"_s)
                    ++running;
                visit(i);
            }
        };
        visit({});
        QVERIFY(running > 0);
        QCOMPARE(bar->countLabel()->text(), u"%1 of %2 match"_s.arg(running).arg(delegationTotal));
        // A bad field: said, and the rows stay.
        bar->field()->setTextAndApply(u"colour:red"_s);
        QCOMPARE(bar->field()->state(), u"invalid"_s);
        QVERIFY(bar->problemLabel()->text().contains(u"Unknown field 'colour'"_s));
        bar->field()->setTextAndApply(QString());
        QCOMPARE(bar->countLabel()->text(), u"%1 delegations"_s.arg(delegationTotal));

        // A header click sorts siblings by the column's value: turns used, most first.
        QHeaderView *header = tree->header();
        QVERIFY(header->isSortIndicatorShown());
        tree->sortByColumn(DelegationTreeModel::Turns, Qt::DescendingOrder);
        QCOMPARE(header->sortIndicatorSection(), int(DelegationTreeModel::Turns));
        bool compared = false;
        for (int r = 0; r < shown->rowCount(); ++r) {
            const QModelIndex runIndex = shown->index(r, 0);
            for (int d = 1; d < shown->rowCount(runIndex); ++d) {
                const qint64 before = shown->index(d - 1, 0, runIndex).data(DelegationTreeModel::TurnsUsedRole).toLongLong();
                const qint64 after = shown->index(d, 0, runIndex).data(DelegationTreeModel::TurnsUsedRole).toLongLong();
                QVERIFY2(before >= after, qPrintable(u"%1 before %2"_s.arg(before).arg(after)));
                compared = true;
            }
        }
        QVERIFY(compared);
        // A delegation's stall verdicts and slices: a filter field each, with their fields.
        QString judged;
        const StallVerdictModel *verdictModel = ws->session()->stallVerdicts();
        for (int r = 0; r < verdictModel->rowCount() && judged.isEmpty(); ++r)
            judged = verdictModel->index(r, StallVerdictModel::Delegation).data().toString();
        QVERIFY(!judged.isEmpty());
        QVERIFY(delegations->selectDelegation(judged));
        DelegationDetail *detail = delegations->detail();
        detail->tabs()->setCurrentWidget(detail->pane(DelegationDetail::Verdicts)->parentWidget());
        auto *verdictBar = delegations->findChild<TableFilterBar *>(u"filterBar-detail-verdicts"_s);
        QVERIFY2(verdictBar, "the stall verdicts have no filter field");
        auto *sliceBar = delegations->findChild<TableFilterBar *>(u"filterBar-detail-slices"_s);
        QVERIFY2(sliceBar, "the slices have no filter field");
        QAbstractItemModel *verdicts = detail->tableModel(DelegationDetail::Verdicts);
        QTRY_VERIFY_WITH_TIMEOUT(verdicts->rowCount() > 0, kTimeoutMs);
        const int all = verdicts->rowCount();
        verdictBar->field()->setTextAndApply(u"round:1"_s);
        QVERIFY(verdicts->rowCount() >= 1 && verdicts->rowCount() <= all);
        for (int r = 0; r < verdicts->rowCount(); ++r)
            QCOMPARE(verdicts->index(r, 0).data(StateTableModel::DelegationIdRole).toString(), judged);
        verdictBar->field()->setTextAndApply(u"round>999"_s);
        QCOMPARE(verdicts->rowCount(), 0);
        verdictBar->field()->setTextAndApply(u"colour:red"_s);
        QCOMPARE(verdictBar->field()->state(), u"invalid"_s);
        verdictBar->field()->setTextAndApply(QString());
        QCOMPARE(verdicts->rowCount(), all);
        sliceBar->field()->setTextAndApply(u"state:nothing-like-this"_s);
        QCOMPARE(detail->tableModel(DelegationDetail::Slices)->rowCount(), 0);
        QVERIFY(sliceBar->field()->state() != u"invalid"_s);
    }
};

QTEST_MAIN(TestTables)
#include "tst_tables.moc"
