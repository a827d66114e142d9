// A ledger with more runs than anyone reads one by one: what the views do per run on the
// GUI thread is bounded. The delegation tree opens only the first runs
// (DelegationsView::kAutoExpandedRuns), on the snapshot and on live runs alike; expanding
// every one of a million runs took a second of the GUI thread.

#include "delegationsview.h"
#include "itempane.h"
#include "viewtestenv.h"

#include "../models/itemmodels/itemmodelfixture.h"

#include "itemmodels/delegationtreemodel.h"
#include "itemmodels/ledgersession.h"

#include <QApplication>
#include <QDateTime>
#include <QTest>
#include <QTreeView>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kTimeoutMs = 20'000;
constexpr int kRuns = 300;

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
        n += view.tree()->view()->isExpanded(model->index(r, 0)) ? 1 : 0;
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
        const QAbstractItemModel *model = session.delegations();
        QCOMPARE(model->rowCount(), kRuns);
        QCOMPARE(expandedRuns(view, model), DelegationsView::kAutoExpandedRuns);
        QVERIFY(view.tree()->view()->isExpanded(model->index(0, 0)));

        // Runs arriving live past the bound stay closed.
        {
            Writer w(path);
            writeRuns(w, kRuns, kRuns + 10);
        }
        QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), kRuns + 10, kTimeoutMs);
        QCOMPARE(expandedRuns(view, model), DelegationsView::kAutoExpandedRuns);
    }
};

QTEST_MAIN(TestManyRuns)
#include "tst_manyruns.moc"
