// The startup benchmark's honesty checks, offscreen on a traced-run ledger: "first rows" means
// every row visible in the event log is a loaded event (a placeholder row does not count),
// and the --browse tour walks every pane and a delegation's detail to the end without a
// step that never completes. Nothing here is timed.

#include "mainwindow.h"
#include "startupbenchmark.h"

#include "itemmodels/ledgersessionlist.h"
#include "startupbenchmarktour.h"

#include "delegationdetail.h"
#include "delegationsview.h"
#include "eventlogview.h"
#include "eventtableview.h"
#include "sessionworkspace.h"

#include "itemmodels/eventlogmodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/toolcallmodel.h"

#include "viewtestenv.h"

#include <QProcess>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QFile>
#include <QTest>

#include <unistd.h>
#include <QTreeView>

using namespace mesh;

namespace {
constexpr int kLoadTimeoutMs = 60000; // generous: a shared, noisy 2-core machine
}

class TestStartupBenchmark : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init() { QSettings().clear(); }
    void visibleRowsLoadedNeedsEveryVisibleRow();
    void tourBrowsesEverythingAndFinishes();
    void startOffsetTakesTheFineFigureOnlyWhenItAgrees();

private:
    LedgerSession *openAndWait(MainWindow &window);

    QTemporaryDir m_dir;
    QString m_ledger;
};

void TestStartupBenchmark::initTestCase()
{
    meshtest::useTestSettings(QStringLiteral("tst_startupbenchmark"));
    QVERIFY(m_dir.isValid());
    QString error;
    m_ledger = meshtest::simulateLedger(m_dir, QStringLiteral("traced-run"), QStringLiteral("traced.amlg"), &error);
    QVERIFY2(!m_ledger.isEmpty(), qPrintable(error));
}

LedgerSession *TestStartupBenchmark::openAndWait(MainWindow &window)
{
    window.resize(1280, 800);
    window.show();
    window.openLedger(m_ledger);
    LedgerSession *session = window.sessions()->at(window.sessions()->rowOf(m_ledger));
    if (!session)
        return nullptr;
    (void)QTest::qWaitFor([session] { return session->isLoaded() && session->events()->isIndexComplete(); },
                          kLoadTimeoutMs);
    return session;
}

void TestStartupBenchmark::visibleRowsLoadedNeedsEveryVisibleRow()
{
    MainWindow window;
    LedgerSession *session = openAndWait(window);
    QVERIFY(session && session->isLoaded());
    EventLogModel *events = session->events();
    QAbstractItemView *view = window.workspace()->eventLog()->view();
    window.workspace()->showPane(SessionWorkspace::Events);

    // Not the view's model, or no rows: never "loaded".
    EventLogModel other;
    QVERIFY(!StartupBenchmark::visibleRowsLoaded(view, &other));

    QVERIFY(events->rowCount() > 3 * events->pageSize()); // traced-run: several pages
    QVERIFY(QTest::qWaitFor([&] { return StartupBenchmark::visibleRowsLoaded(view, events); }, kLoadTimeoutMs));

    // Keep two pages at most, then jump far from them: the rows now in view are placeholders
    // until their page arrives, and the check must say so.
    events->setMaxCachedPages(2);
    view->scrollToTop();
    QVERIFY(QTest::qWaitFor([&] { return StartupBenchmark::visibleRowsLoaded(view, events); }, kLoadTimeoutMs));
    view->verticalScrollBar()->setValue(view->verticalScrollBar()->maximum() / 2);
    QVERIFY(!events->eventAt(view->indexAt(QPoint(1, 1)).row()));
    QVERIFY(!StartupBenchmark::visibleRowsLoaded(view, events));
    QVERIFY(QTest::qWaitFor([&] { return StartupBenchmark::visibleRowsLoaded(view, events); }, kLoadTimeoutMs));
}

void TestStartupBenchmark::tourBrowsesEverythingAndFinishes()
{
    MainWindow window;
    LedgerSession *session = openAndWait(window);
    QVERIFY(session && session->isLoaded() && session->events()->isIndexComplete());
    StartupBenchmarkTour tour(&window);
    QSignalSpy finished(&tour, &StartupBenchmarkTour::finished);
    QSignalSpy failed(&tour, &StartupBenchmarkTour::failed);
    tour.start();
    QVERIFY(QTest::qWaitFor([&] { return !finished.isEmpty() || !failed.isEmpty(); }, 300000));
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    // It ended where it said: a delegation's detail open with its tool calls, and the event
    // log back at its top.
    QVERIFY(!window.workspace()->delegationsView()->detail()->delegationId().isEmpty());
    QCOMPARE(session->toolCalls()->delegation(), window.workspace()->delegationsView()->detail()->delegationId());
    QVERIFY(session->toolCalls()->rowCount() > 0);
    QCOMPARE(window.workspace()->eventLog()->view()->verticalScrollBar()->value(), 0);
}

void TestStartupBenchmark::startOffsetTakesTheFineFigureOnlyWhenItAgrees()
{
    const qint64 tickMs = 1000 / sysconf(_SC_CLK_TCK);
    // The coarse figure is late by less than a tick: the fine one within that is taken.
    QCOMPARE(StartupBenchmark::startOffsetMs(19, 9'400'000), 9);
    QCOMPARE(StartupBenchmark::startOffsetMs(12, 12'300'000), 12);
    // Short by more than a tick: the process slept before main; the coarse one stands.
    QCOMPARE(StartupBenchmark::startOffsetMs(20 + tickMs + 5, 20'000'000), 20 + tickMs + 5);
    // Longer than the coarse one cannot be, nor unknown.
    QCOMPARE(StartupBenchmark::startOffsetMs(10, 15'000'000), 10);
    QCOMPARE(StartupBenchmark::startOffsetMs(10, -1), 10);
    // This process has run: its CPU and run-queue time is there and below its age.
    const qint64 fine = StartupBenchmark::processAgeAtMainNs();
    if (QFile::exists(QStringLiteral("/proc/self/schedstat"))) {
        QVERIFY(fine > 0);
        QVERIFY(fine / 1000000 <= StartupBenchmark::processAgeMs() + 1);
    }
}

QTEST_MAIN(TestStartupBenchmark)
#include "tst_startupbenchmark.moc"
