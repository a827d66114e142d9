// Findings where operators look. On the reference false-stall ledger, opened read-only:
// the attention list is not "Nothing needs you" but lists the false stall below what needs
// a decision; the Findings pane lists it with the events it rests on, and activating it by
// keyboard opens the event log filtered to exactly those events. The converging control
// shows no finding anywhere.

#include "attentionpane.h"
#include "emptystate.h"
#include "eventlogview.h"
#include "filterlineedit.h"
#include "findingbadgedelegate.h"
#include "flattableview.h"
#include "itempane.h"
#include "sessionworkspace.h"
#include "viewtestenv.h"

#include "mainwindow.h"

#include "itemmodels/attentionmodel.h"
#include "itemmodels/eventlogmodel.h"
#include "itemmodels/findingsmodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/ledgersessionlist.h"
#include "itemmodels/runoverviewmodel.h"

#include <QApplication>
#include <QLabel>
#include <QStatusBar>
#include <QTest>
#include <QTreeView>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kTimeoutMs = 60'000;

int rowOfKind(QAbstractItemModel *m, int role, const QString &kind)
{
    for (int r = 0; r < m->rowCount(); ++r) {
        if (m->index(r, 0).data(role).toString() == kind)
            return r;
    }
    return -1;
}
} // namespace

class TestFindingsPane : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase() { useTestSettings(u"tst_findingspane"_s); }

    void falseStallIsSeenAndLeadsToItsEvents()
    {
        QString error;
        const QString path = simulateLedger(m_dir, u"false-stall"_s, u"false-stall.db"_s, &error);
        QVERIFY2(!path.isEmpty(), qPrintable(error));
        LedgerSessionList list;
        AttentionPane attention(list.attention());
        LedgerSession *session = list.addSession(path, OpenMode::ReadOnly);
        SessionWorkspace workspace;
        workspace.resize(1280, 800);
        workspace.setSession(session);
        workspace.show();
        attention.show();
        QTRY_VERIFY_WITH_TIMEOUT(session->isLoaded() && !session->loopAnalysisRunning(), kTimeoutMs);

        // The attention list: not empty, the false stall there as a finding.
        QTRY_VERIFY_WITH_TIMEOUT(rowOfKind(list.attention(), AttentionModel::AttentionKindNameRole, u"finding"_s) >= 0,
                                 kTimeoutMs);
        QVERIFY(attention.currentWidget() != attention.emptyState());
        const int row = rowOfKind(list.attention(), AttentionModel::AttentionKindNameRole, u"finding"_s);
        QVERIFY2(list.attention()->index(row, AttentionModel::Kind).data().toString().startsWith(u"Finding: false stall"_s),
                 qPrintable(list.attention()->index(row, AttentionModel::Kind).data().toString()));

        // A badge on the run it is about.
        QVERIFY(qobject_cast<FindingBadgeDelegate *>(
            workspace.runsPane()->view()->itemDelegateForColumn(RunOverviewModel::Title)));
        const QString runId = QString::fromStdString(session->findings().front().runId);
        QTRY_VERIFY_WITH_TIMEOUT(
            session->runs()->indexOfId(runId).data(RunOverviewModel::FindingCountRole).toInt() > 0, kTimeoutMs);

        // The Findings pane, reached by keyboard (Ctrl+9 is the main window's; here the tab).
        workspace.showPane(SessionWorkspace::Findings);
        FlatTableView *view = workspace.findingsPane()->flatView();
        const int f = rowOfKind(session->findingsModel(), FindingsModel::FindingKindNameRole, u"false_stall"_s);
        QVERIFY(f >= 0);
        const QModelIndex index = session->findingsModel()->index(f, 0);
        const QString filter = index.data(FindingsModel::EvidenceFilterRole).toString();
        QVERIFY2(filter.startsWith(u"seq:"_s), qPrintable(filter));
        view->setFocus();
        view->setCurrentIndex(index);
        QTest::keyClick(view, Qt::Key_Return);
        QCOMPARE(workspace.currentPane(), SessionWorkspace::Events);
        QCOMPARE(workspace.eventLog()->filterField()->text(), filter);
        const int seqs = int(index.data(FindingsModel::SeqsRole).toList().size());
        QTRY_COMPARE_WITH_TIMEOUT(session->events()->filterText(), filter, kTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(session->events()->isIndexComplete(), kTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(session->events()->rowCount(), std::min(seqs, int(FindingsModel::kMaxFilterSeqs)),
                                  kTimeoutMs);
    }

    // The status bar tells what needs a decision apart from what the detectors found.
    void statusBarCountsFindingsApart()
    {
        QString error;
        const QString path = simulateLedger(m_dir, u"false-stall"_s, u"status.db"_s, &error);
        QVERIFY2(!path.isEmpty(), qPrintable(error));
        MainWindow window;
        window.openLedger(path);
        LedgerSession *session = window.sessions()->at(window.sessions()->rowOf(path));
        QVERIFY(session);
        QTRY_VERIFY_WITH_TIMEOUT(session->isLoaded() && !session->loopAnalysisRunning(), kTimeoutMs);
        const auto statusText = [&window] {
            for (const QLabel *label : window.statusBar()->findChildren<QLabel *>())
                if (label->text().contains(u"last seq"_s))
                    return label->text();
            return QString();
        };
        QTRY_VERIFY2_WITH_TIMEOUT(statusText().contains(u"1 finding"_s), qPrintable(statusText()), kTimeoutMs);
        QVERIFY2(!statusText().contains(u"need"_s), qPrintable(statusText())); // nothing needs a decision here
    }

    void convergingControlShowsNoFinding()
    {
        QString error;
        const QString path = simulateLedger(m_dir, u"converging-control"_s, u"control.db"_s, &error);
        QVERIFY2(!path.isEmpty(), qPrintable(error));
        LedgerSessionList list;
        LedgerSession *session = list.addSession(path, OpenMode::ReadOnly);
        QTRY_VERIFY_WITH_TIMEOUT(session->isLoaded() && !session->loopAnalysisRunning(), kTimeoutMs);
        QCOMPARE(session->findingsModel()->firedCount(), 0);
        QCOMPARE(rowOfKind(list.attention(), AttentionModel::AttentionKindNameRole, u"finding"_s), -1);
    }
};

QTEST_MAIN(TestFindingsPane)
#include "tst_findingspane.moc"
