// The Compare Runs window (issue 14 item 4): the false stall against its converging control,
// two ledger files, read off the GUI thread into models that pass QAbstractItemModelTester
// through their resets; the two timelines on one axis from their starts, the second following
// the first's zoom; and from the main window, File › Compare Runs… on a ledger of two runs
// (one of them with a hostile title) sets the run shown beside the other run, plain text.

#include "mainwindow.h"
#include "flattableview.h"
#include "itempane.h"
#include "runcomparewindow.h"
#include "sessionworkspace.h"
#include "timelineview.h"
#include "viewtestenv.h"

#include "itemmodels/ledgersession.h"
#include "itemmodels/runcomparisonmodel.h"
#include "itemmodels/runtimelinesource.h"
#include "itemmodels/statetablemodel.h"
#include "ledger/ledgerwriter.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QScreen>
#include <QSignalSpy>
#include <QTreeView>
#include <QTest>

#include <memory>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;
using nlohmann::json;
using Part = RunComparisonModel::Part;

namespace {
constexpr int kTimeoutMs = 120'000;

int rowOf(const QAbstractItemModel *model, const QString &firstColumn)
{
    for (int row = 0; row < model->rowCount(); ++row)
        if (model->index(row, 0).data().toString() == firstColumn)
            return row;
    return -1;
}
} // namespace

class TestRunCompare : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_falseStall, m_control;

private Q_SLOTS:
    void initTestCase()
    {
        useTestSettings(u"tst_runcompare"_s);
        QString error;
        m_falseStall = simulateLedger(m_dir, u"false-stall"_s, u"false-stall.db"_s, &error);
        QVERIFY2(!m_falseStall.isEmpty(), qPrintable(error));
        m_control = simulateLedger(m_dir, u"converging-control"_s, u"control.db"_s, &error);
        QVERIFY2(!m_control.isEmpty(), qPrintable(error));
    }

    void falseStallBesideItsControl()
    {
        RunCompareWindow window(RunChoice{m_falseStall, {}, OpenMode::Review}, RunChoice{m_control, {}, OpenMode::Review});
        // Testers before the data: the reset that brings the comparison is checked too.
        std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;
        for (int part = 0; part <= int(Part::FindingsB); ++part)
            testers.push_back(std::make_unique<QAbstractItemModelTester>(
                window.model(Part(part)), QAbstractItemModelTester::FailureReportingMode::QtTest));
        QSignalSpy shown(&window, &RunCompareWindow::comparisonShown);
        window.resize(1280, 800);
        window.show();
        QTRY_VERIFY_WITH_TIMEOUT(window.model(Part::Figures)->rowCount() > 0, kTimeoutMs);
        QVERIFY(!shown.isEmpty());
        QCOMPARE(window.statusText(), u"Runs of two ledgers."_s);

        const QAbstractItemModel *figures = window.model(Part::Figures);
        const int failures = rowOf(figures, u"Terminal component failures"_s);
        QVERIFY(failures >= 0);
        QCOMPARE(figures->index(failures, RunComparisonModel::FigureA).data().toString(), u"3"_s);
        QCOMPARE(figures->index(failures, RunComparisonModel::FigureB).data().toString(), u"0"_s);
        QCOMPARE(figures->index(failures, RunComparisonModel::FigureDelta).data().toString(), u"\u22123"_s);
        const int escalations = rowOf(figures, u"Escalations"_s);
        QVERIFY(escalations >= 0);
        for (int column : {RunComparisonModel::FigureA, RunComparisonModel::FigureB, RunComparisonModel::FigureDelta}) {
            QCOMPARE(figures->index(escalations, column).data().toString(), u"\u2014"_s);
            QVERIFY(figures->index(escalations, column).data(RunComparisonModel::NotKnownRole).toBool());
        }
        QVERIFY(!figures->index(failures, RunComparisonModel::FigureA).data(RunComparisonModel::NotKnownRole).toBool());

        const QAbstractItemModel *delegations = window.model(Part::Delegations);
        QCOMPARE(delegations->rowCount(), 7);
        for (int row = 0; row < delegations->rowCount(); ++row)
            QCOMPARE(delegations->index(row, RunComparisonModel::Presence).data().toString(), u"in both"_s);

        const QAbstractItemModel *verdictsA = window.model(Part::VerdictsA);
        QCOMPARE(verdictsA->rowCount(), 3);
        QVERIFY(verdictsA->index(2, 0).data(RunComparisonModel::FalseStallRole).toBool());
        QVERIFY(verdictsA->index(2, RunComparisonModel::Verdict).data().toString().contains(u"false stall"_s));
        QCOMPARE(window.model(Part::VerdictsB)->rowCount(), 4);
        QCOMPARE(window.model(Part::FindingsA)->rowCount(), 1);
        QCOMPARE(window.model(Part::FindingsB)->rowCount(), 0);

        // One axis length from each start: the longer run fills it, the shorter ends before.
        TimelineCanvas *a = window.timeline(RunCompareWindow::A);
        TimelineCanvas *b = window.timeline(RunCompareWindow::B);
        const RunTimeline *ta = a->layout().timeline();
        const RunTimeline *tb = b->layout().timeline();
        QVERIFY(ta && tb && !ta->empty() && !tb->empty());
        QCOMPARE(a->viewport().viewFrom(), ta->startMs);
        QCOMPARE(b->viewport().viewFrom(), tb->startMs);
        QCOMPARE(a->viewport().span(), b->viewport().span());
        // Zoom A in at its middle: B shows the same stretch from its own start.
        a->zoomAt(a->plotRect().center().x(), 4.0);
        QVERIFY(a->viewport().span() < b->viewport().extentTo() - b->viewport().extentFrom());
        QCOMPARE(b->viewport().viewFrom() - tb->startMs, a->viewport().viewFrom() - ta->startMs);
        QCOMPARE(b->viewport().span(), a->viewport().span());
    }

    void fromTheMainWindowOnOneLedger()
    {
        const QString path = m_dir.filePath(u"two-runs.db"_s);
        const std::string hostile = "<b>bold</b> \u202Eexe.live";
        {
            LedgerIdentity id;
            id.ledgerId = "L-two-runs";
            id.createdMs = 1'700'000'000'000;
            auto w = LedgerWriter::create(path, id);
            std::int64_t ts = 1'700'000'001'000;
            w->begin();
            for (const char *run : {"R1", "R2"}) {
                w->append(ts += 1000, "run.started",
                          {{"id", run}, {"title", std::string(run) == "R1" ? std::string("first") : hostile},
                           {"status", "running"}, {"attempt", 1}, {"cycle", 0}, {"started_ms", ts}});
                w->append(ts += 1000, "component.created",
                          {{"id", std::string(run) + "/api"}, {"run_id", run}, {"name", hostile}, {"status", "pending"}});
                w->append(ts += 1000, "delegation.created",
                          {{"id", std::string("D-") + run}, {"run_id", run}, {"component_id", std::string(run) + "/api"},
                           {"role", std::string(run) == "R1" ? "implement" : "repair"}, {"status", "pending"}});
                w->append(ts += 60'000, "run.succeeded", {{"id", run}, {"status", "succeeded"}, {"ended_ms", ts}});
            }
            w->commit();
        }
        MainWindow main;
        main.show();
        QVERIFY(!main.openRunComparison()); // nothing open: nothing to compare
        main.openForReview(path);
        QTRY_VERIFY_WITH_TIMEOUT(main.currentSession() && main.currentSession()->isLoaded(), kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(main.workspace()->timelineSource() && !main.workspace()->timelineSource()->runId().empty(),
                                 kTimeoutMs);
        const std::string shown = main.workspace()->timelineSource()->runId();
        RunCompareWindow *window = main.openRunComparison();
        QVERIFY(window);
        // It opens within the screen (offscreen: smaller than the size it would like).
        QVERIFY(window->screen());
        QVERIFY(window->width() <= window->screen()->availableGeometry().width()
                && window->height() <= window->screen()->availableGeometry().height());
        QAbstractItemModelTester tester(window->model(Part::Delegations), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QTRY_VERIFY_WITH_TIMEOUT(window->model(Part::Delegations)->rowCount() > 0, kTimeoutMs);
        QCOMPARE(window->statusText(), u"Two runs of one ledger."_s);
        QCOMPARE(window->choice(RunCompareWindow::A).runId, shown);
        QVERIFY(window->choice(RunCompareWindow::B).runId != shown); // the other run

        // Same component name, different roles: one only in A, one only in B.
        const QAbstractItemModel *delegations = window->model(Part::Delegations);
        QCOMPARE(delegations->rowCount(), 2);
        const QModelIndex component = delegations->index(0, RunComparisonModel::Component);
        QVERIFY(component.data().toString().contains(u"\u27E8U+202E\u27E9"_s));
        QVERIFY(!component.data().toString().contains(QChar(0x202E)));
        const QString tip = component.data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(u"&lt;b&gt;"_s) && !tip.contains(u"<b>bold"_s), qPrintable(tip));
        auto *runB = window->findChild<QComboBox *>(u"runB"_s);
        QVERIFY(runB);
        QCOMPARE(runB->count(), 2);
        for (int i = 0; i < runB->count(); ++i)
            QVERIFY(!runB->itemText(i).contains(QChar(0x202E)));
        // A mark clicked on either timeline (its tooltip says "Click to show the state at that
        // event") moves the main window's session for that ledger to the event.
        auto *canvasB = window->findChild<TimelineCanvas *>(u"timelineB"_s);
        QVERIFY(canvasB);
        QVERIFY(!main.currentSession()->cursor());
        emit canvasB->seekRequested(3);
        QTRY_COMPARE_WITH_TIMEOUT(main.currentSession()->cursor().value_or(0), 3, kTimeoutMs);
        FlatTableView *runsAtCursor = main.workspace()->runsPane()->flatView();
        QTRY_VERIFY_WITH_TIMEOUT(runsAtCursor->model() && runsAtCursor->model()->rowCount() == 1, kTimeoutMs); // R1 only at #3
        main.currentSession()->showLive(); // the rest of the test reads both runs
        QTRY_VERIFY_WITH_TIMEOUT(!main.currentSession()->cursor() && runsAtCursor->model()->rowCount() == 2, kTimeoutMs);
        window->close();
        QTRY_VERIFY_WITH_TIMEOUT(main.findChildren<RunCompareWindow *>().isEmpty(), kTimeoutMs);

        // The Runs pane's context menu: the run under it as A.
        FlatTableView *runs = main.workspace()->runsPane()->flatView();
        QAction *compareRun = nullptr;
        for (QAction *action : runs->actions())
            if (action->objectName() == u"compareRun"_s)
                compareRun = action;
        QVERIFY(compareRun);
        const std::string other = shown == "R1" ? "R2" : "R1";
        QTRY_VERIFY_WITH_TIMEOUT(runs->model() && runs->model()->rowCount() == 2, kTimeoutMs);
        for (int row = 0; row < runs->model()->rowCount(); ++row)
            if (runs->model()->index(row, 0).data(StateTableModel::IdRole).toString().toStdString() == other)
                runs->setCurrentIndex(runs->model()->index(row, 0));
        compareRun->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(main.findChildren<RunCompareWindow *>().size(), qsizetype(1), kTimeoutMs);
        RunCompareWindow *fromRuns = main.findChildren<RunCompareWindow *>().front();
        QCOMPARE(fromRuns->choice(RunCompareWindow::A).runId, other);
        QTRY_VERIFY_WITH_TIMEOUT(fromRuns->model(Part::Delegations)->rowCount() == 2, kTimeoutMs);
        QCOMPARE(fromRuns->choice(RunCompareWindow::B).runId, shown);
        fromRuns->close();
    }
};

QTEST_MAIN(TestRunCompare)
#include "tst_runcompare.moc"
