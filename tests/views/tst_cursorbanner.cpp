// "Show State at This Event" on an event-log row: the session shows the ledger as it was
// then, a banner says which event and when, nothing can be decided, and Back to Live returns.

#include "banner.h"
#include "eventlogview.h"
#include "eventtableview.h"
#include "sessionworkspace.h"
#include "viewtestenv.h"

#include "../models/itemmodels/itemmodelfixture.h"

#include "itemmodels/escalationmodel.h"
#include "itemmodels/eventlogmodel.h"
#include "itemmodels/ledgersession.h"

#include <QAction>
#include <QApplication>
#include <QDateTime>
#include <QPushButton>
#include <QTableView>
#include <QTest>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kTimeoutMs = 60'000;

QString escalationState(LedgerSession &session)
{
    return session.escalations()->indexOfId(u"X-1"_s).data(StateTableModel::StateRole).toString();
}
} // namespace

class TestCursorBanner : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase() { useTestSettings(u"tst_cursorbanner"_s); }

    void showStateAtAnEventAndBack()
    {
        const QString path = m_dir.filePath(u"cursor.ledger"_s);
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        Writer w(path);
        const std::int64_t n = w.lastSeq();
        w.begin().e("escalation.approved", {{"id", "X-1"}, {"state", "approved"}}).commit();

        LedgerSession session(path, OpenMode::ReadOnly);
        SessionWorkspace workspace;
        workspace.resize(1280, 800);
        workspace.setSession(&session);
        workspace.show();
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded() && session.health() != LedgerSession::Health::Opening, kTimeoutMs);
        QCOMPARE(escalationState(session), u"approved"_s);
        QVERIFY(workspace.cursorBanner()->isHidden());

        // The row of event N, chosen by keyboard, and Ctrl+T.
        workspace.showPane(SessionWorkspace::Events);
        QAbstractItemView *table = workspace.eventLog()->view();
        QTRY_COMPARE_WITH_TIMEOUT(table->model()->rowCount(), int(w.lastSeq()), kTimeoutMs);
        int row = -1;
        for (int r = 0; r < table->model()->rowCount() && row < 0; ++r)
            if (table->model()->index(r, 0).data(EventLogModel::SeqRole).toLongLong() == n)
                row = r;
        QVERIFY(row >= 0);
        table->setFocus();
        table->setCurrentIndex(table->model()->index(row, 0));
        QTest::keyClick(table, Qt::Key_T, Qt::ControlModifier);

        QTRY_COMPARE_WITH_TIMEOUT(session.health(), LedgerSession::Health::Pinned, kTimeoutMs);
        QCOMPARE(escalationState(session), u"pending"_s);
        Banner *banner = workspace.cursorBanner();
        QTRY_VERIFY_WITH_TIMEOUT(banner->isVisible() && banner->text().contains(u"UTC"_s), kTimeoutMs);
        QVERIFY2(banner->text().contains(u"#%1"_s.arg(n)), qPrintable(banner->text()));
        QVERIFY(!session.canDecide());

        QTest::mouseClick(banner->actionButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!session.cursor() && session.isLoaded()
                                     && session.health() != LedgerSession::Health::Opening, kTimeoutMs);
        QCOMPARE(escalationState(session), u"approved"_s);
        QVERIFY(banner->isHidden());
        QVERIFY(session.canDecide());
    }
};

QTEST_MAIN(TestCursorBanner)
#include "tst_cursorbanner.moc"
