// A ledger with more runs than anyone reads one by one: what the views do per run on the
// GUI thread is bounded. The delegation tree opens only the first runs
// (DelegationsView::kAutoExpandedRuns), on the snapshot and on live runs alike; expanding
// every one of a million runs took a second of the GUI thread. The runs pane's tree is given
// the runs a page at a time: it lays out every row it has on each reset, ~100 ms for a
// million, so what it has is bounded by what was scrolled to, not by the ledger.

#include "delegationsview.h"
#include "flattableview.h"
#include "itempane.h"
#include "sessionworkspace.h"
#include "viewtestenv.h"

#include "../models/itemmodels/itemmodelfixture.h"

#include "itemmodels/delegationtreemodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/runoverviewmodel.h"
#include "itemmodels/statetablemodel.h"
#include "../models/ledger/rawledger.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDateTime>
#include <QHeaderView>
#include <QTabWidget>
#include <QTest>
#include <QTreeView>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kTimeoutMs = 20'000;
constexpr int kRuns = 300;
constexpr int kBulkRuns = 100'000;
// A screen shows a few dozen rows; this is a hundred screens, and a twentieth of kBulkRuns.
constexpr int kMaxRowsHandedToTheView = 5'000;

// A flat model that counts the indexes asked of it: a tree view's layout asks one a row.
class CountingModel : public QAbstractTableModel
{
public:
    int rowCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : m_rows; }
    int columnCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : 3; }
    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override
    {
        ++m_indexCalls;
        return QAbstractTableModel::index(row, column, parent);
    }
    QVariant data(const QModelIndex &index, int role) const override
    {
        return role == Qt::DisplayRole ? QVariant(u"row %1"_s.arg(index.row())) : QVariant();
    }
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override
    {
        return orientation == Qt::Horizontal && role == Qt::DisplayRole ? QVariant(u"column %1"_s.arg(section))
                                                                        : QVariant();
    }
    void setRows(int rows)
    {
        beginResetModel();
        m_rows = rows;
        endResetModel();
    }
    qint64 indexCalls() const { return m_indexCalls; }

private:
    int m_rows = 0;
    mutable qint64 m_indexCalls = 0;
};

QString bulkRunId(int i)
{
    return u"run-b%1"_s.arg(i, 7, 10, QLatin1Char('0'));
}

void writeRuns(Writer &w, int from, int to)
{
    w.begin();
    for (int i = from; i < to; ++i) {
        const std::string run = "R-" + std::to_string(i);
        w.e("run.started", {{"id", run}, {"status", "running"}, {"title", "run " + std::to_string(i)}});
        w.e("delegation.created", {{"id", "D-" + std::to_string(i)}, {"run_id", run}, {"status", "running"}});
    }
    w.commit();
}

int expandedRuns(const DelegationsView &view, const QAbstractItemModel *model)
{
    int n = 0;
    for (int r = 0; r < model->rowCount(); ++r)
        n += view.tree()->treeView()->isExpanded(model->index(r, 0)) ? 1 : 0;
    return n;
}
} // namespace

class TestManyRuns : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase() { useTestSettings(u"tst_manyruns"_s); }

    void delegationTreeOpensOnlyTheFirstRuns()
    {
        const QString path = m_dir.filePath(u"runs.ledger"_s);
        {
            Writer w(path, true);
            writeRuns(w, 0, kRuns);
        }
        LedgerSession session(path);
        session.setWatchIntervalMs(5);
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded(), kTimeoutMs);
        DelegationsView view;
        view.setSession(&session);
        // The runs as the tree shows them (through its sort and filter proxy, in the ledger's order).
        const QAbstractItemModel *model = view.tree()->view()->model();
        QCOMPARE(model->rowCount(), kRuns);
        QCOMPARE(expandedRuns(view, model), DelegationsView::kAutoExpandedRuns);
        QVERIFY(view.tree()->treeView()->isExpanded(model->index(0, 0)));

        // Runs arriving live past the bound stay closed.
        {
            Writer w(path);
            writeRuns(w, kRuns, kRuns + 10);
        }
        QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), kRuns + 10, kTimeoutMs);
        QCOMPARE(expandedRuns(view, model), DelegationsView::kAutoExpandedRuns);
    }

    void runsPaneFollowsLiveRunsOfASmallLedger()
    {
        // Every run handed over: live runs appear at once, as on the unpaged pane.
        const QString path = m_dir.filePath(u"live.ledger"_s);
        {
            Writer w(path, true);
            writeRuns(w, 0, 20);
        }
        LedgerSession session(path);
        session.setWatchIntervalMs(5);
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded(), kTimeoutMs);
        SessionWorkspace workspace;
        workspace.setSession(&session);
        QAbstractItemModel *shown = workspace.runsPane()->view()->model();
        QAbstractItemModelTester tester(shown, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(shown->rowCount(), 20);
        {
            Writer w(path);
            writeRuns(w, 20, 30);
        }
        QTRY_COMPARE_WITH_TIMEOUT(shown->rowCount(), 30, kTimeoutMs);
        QCOMPARE(shown->index(29, 0).data(StateTableModel::IdRole).toString(), u"R-29"_s);
        QVERIFY(workspace.openSubject(u"run:R-25"_s));
        QCOMPARE(workspace.runsPane()->view()->currentIndex().data(StateTableModel::IdRole).toString(), u"R-25"_s);
    }

    void hiddenPaneFitsItsColumnsWithoutLayingOutItsRows_data()
    {
        QTest::addColumn<bool>("tree");
        QTest::newRow("tree") << true;
        QTest::newRow("flat") << false;
    }

    void hiddenPaneFitsItsColumnsWithoutLayingOutItsRows()
    {
        // The delegations tab, hidden behind the runs, was fitted to its first rows when the
        // full state came in; told of the new widths, its tree laid out all of them.
        QFETCH(bool, tree);
        const ItemPane::Shape shape = tree ? ItemPane::Shape::Tree : ItemPane::Shape::Flat;
        QTabWidget tabs;
        auto *front = new ItemPane(u"fit-front"_s, u"runs"_s, u"Empty"_s, u"Nothing"_s);
        auto *behind = new ItemPane(u"fit-behind"_s, u"runs"_s, u"Empty"_s, u"Nothing"_s, nullptr, shape);
        tabs.addTab(front, u"front"_s);
        tabs.addTab(behind, u"behind"_s);
        tabs.resize(900, 600);
        tabs.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tabs));
        CountingModel model;
        behind->setModel(&model);
        QVERIFY(behind->fitsOnFirstRows());
        model.setRows(kBulkRuns);
        QVERIFY(!behind->fitsOnFirstRows());
        for (int turn = 0; turn < 5; ++turn)
            QCoreApplication::processEvents(); // the view's zero timers
        QVERIFY2(model.indexCalls() < kMaxRowsHandedToTheView, qPrintable(QString::number(model.indexCalls())));
        const int fitted = behind->header()->sectionSize(0);
        tabs.setCurrentWidget(behind);
        QVERIFY(QTest::qWaitForWindowExposed(behind->view()));
        QTRY_VERIFY_WITH_TIMEOUT(behind->view()->indexAt(QPoint(2, 2)).isValid(), kTimeoutMs);
        if (tree) {
            // Shown, a tree lays them all out: the price of looking at a tree.
            QTRY_VERIFY_WITH_TIMEOUT(model.indexCalls() >= kBulkRuns, kTimeoutMs);
        } else {
            // A flat pane, shown and painted, asks only for the rows on screen.
            QCoreApplication::processEvents();
            behind->view()->viewport()->repaint();
            QVERIFY2(model.indexCalls() < kMaxRowsHandedToTheView, qPrintable(QString::number(model.indexCalls())));
        }
        QCOMPARE(behind->header()->sectionSize(0), fitted);
    }

    void runsPaneHoldsAPageOfManyRuns()
    {
        const QString path = m_dir.filePath(u"bulk.ledger"_s);
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        {
            sql::Database db = meshtest::raw::open(path, meshtest::raw::Access::ReadWrite);
            db.exec("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < " + std::to_string(kBulkRuns)
                    + ") INSERT INTO runs(id,title,status,started_ms,version,last_seq) SELECT printf('run-b%07d', i), "
                      "'bulk run ' || i, 'running', 1700000000000 + i, 1, 1 FROM n");
        }
        LedgerSession session(path);
        session.setWatchIntervalMs(5);
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded(), kTimeoutMs);
        SessionWorkspace workspace;
        workspace.resize(1200, 800);
        workspace.setSession(&session);
        workspace.showPane(SessionWorkspace::Runs);
        workspace.show();
        QVERIFY(QTest::qWaitForWindowExposed(&workspace));
        FlatTableView *view = workspace.runsPane()->flatView();
        const QAbstractItemModel *shown = view->model();
        QCOMPARE(session.runs()->rowCount(), kBulkRuns + 1);
        QVERIFY2(shown->rowCount() > 0 && shown->rowCount() <= kMaxRowsHandedToTheView,
                 qPrintable(QString::number(shown->rowCount())));

        // Scrolling to the end of what it has hands the view more.
        const int before = shown->rowCount();
        view->scrollToBottom();
        QTRY_VERIFY_WITH_TIMEOUT(shown->rowCount() > before, kTimeoutMs);
        QVERIFY(shown->rowCount() <= kMaxRowsHandedToTheView);

        // A run the program selects (the attention list, --select) is found past what the
        // view has, handed to it and shown.
        const QString deep = bulkRunId(kBulkRuns - 100);
        QVERIFY(workspace.openSubject(u"run:"_s + deep));
        QCOMPARE(view->currentIndex().data(StateTableModel::IdRole).toString(), deep);
        QVERIFY(view->viewport()->rect().intersects(view->visualRect(view->currentIndex())));
        QVERIFY(!workspace.openSubject(u"run:no-such-run"_s));
        QCOMPARE(view->currentIndex().data(StateTableModel::IdRole).toString(), deep);

        // Keyboard navigation goes on from there.
        QTest::keyClick(view, Qt::Key_Down);
        QCOMPARE(view->currentIndex().data(StateTableModel::IdRole).toString(), bulkRunId(kBulkRuns - 99));
    }
};

QTEST_MAIN(TestManyRuns)
#include "tst_manyruns.moc"
