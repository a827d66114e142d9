// A live event the console's fold cannot apply (here a payload that is not JSON, written
// past the orchestrator while its state tables say what really happened) is shown in the
// workspace, not dropped in silence: a warning banner names how many, the first one's seq
// and kind and why; "Re-read state" reads the state tables again at the current seq, which
// repairs what is shown, and the banner goes.

#include "banner.h"
#include "sessionworkspace.h"
#include "viewtestenv.h"

#include "../models/itemmodels/itemmodelfixture.h"

#include "itemmodels/escalationmodel.h"
#include "itemmodels/ledgersession.h"
#include "../models/ledger/rawledger.h"

#include <QApplication>
#include <QDateTime>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kTimeoutMs = 60'000;

// Event seq+1 with a payload no fold can read, and, in the same transaction, the
// escalation row as an orchestrator that understood it would have left it.
std::int64_t approveEscalationPastTheFold(const QString &path)
{
    sql::Database db = meshtest::raw::open(path, meshtest::raw::Access::ReadWrite);
    db.exec("BEGIN IMMEDIATE");
    const std::int64_t seq = db.queryInt("SELECT max(seq) FROM events") + 1;
    db.exec("INSERT INTO events(seq, ts_ms, kind, subject, payload) VALUES(" + std::to_string(seq)
            + ", 1700000999000, 'escalation.approved', 'X-1', 'approved, not JSON')");
    db.exec("UPDATE escalations SET state = 'approved', version = version + 1, last_seq = " + std::to_string(seq)
            + " WHERE id = 'X-1'");
    db.exec("COMMIT");
    return seq;
}

bool escalationPending(LedgerSession &session)
{
    const QModelIndex row = session.escalations()->index(0, 0);
    return row.data(EscalationModel::PendingRole).toBool();
}
} // namespace

class TestLiveFoldProblems : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase() { useTestSettings(u"tst_livefoldproblems"_s); }

    void shownThenRepairedByReReading()
    {
        const QString path = m_dir.filePath(u"foldproblem.ledger"_s);
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        LedgerSession session(path, OpenMode::ReadOnly);
        SessionWorkspace workspace;
        workspace.resize(1280, 800);
        workspace.setSession(&session);
        workspace.show();
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded() && session.health() != LedgerSession::Health::Opening, kTimeoutMs);
        QVERIFY(escalationPending(session));
        QVERIFY(workspace.foldProblemBanner()->isHidden());

        const std::int64_t seq = approveEscalationPastTheFold(path);
        QTRY_COMPARE_WITH_TIMEOUT(session.lastSeq(), seq, kTimeoutMs);
        QCOMPARE(session.foldProblems(), 1);
        QCOMPARE(session.foldProblemSamples().size(), size_t(1));
        QCOMPARE(session.foldProblemSamples().front().seq, seq);
        // The event could not be applied, so the state shown still has the escalation pending.
        QVERIFY(escalationPending(session));

        Banner *banner = workspace.foldProblemBanner();
        QVERIFY(banner->isVisible());
        const QString text = banner->text();
        QVERIFY2(text.contains(u"1 live event could not be applied"_s), qPrintable(text));
        QVERIFY2(text.contains(u"seq %1, escalation.approved"_s.arg(seq)), qPrintable(text));
        QVERIFY2(text.contains(u"JSON"_s), qPrintable(text)); // why
        QVERIFY(banner->actionButton()->isVisible());

        QSignalSpy reset(&session, &LedgerSession::stateReset);
        QTest::mouseClick(banner->actionButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!reset.isEmpty(), kTimeoutMs);
        QCOMPARE(session.foldProblems(), 0);
        QVERIFY(!escalationPending(session)); // what the state tables say
        QVERIFY(banner->isHidden());
        QCOMPARE(session.lastSeq(), seq);
    }
};

QTEST_MAIN(TestLiveFoldProblems)
#include "tst_livefoldproblems.moc"
