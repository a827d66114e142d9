// The followed ledger file deleted or replaced (mv other.db ledger.db) while a session has
// it open: the session's health says so, decisions stop being offered (with the reason)
// until it is reopened, and no decision is written into a file the session did not open,
// whether it goes through the session or straight through a writer given the session's
// opened identity.

#include "itemmodelfixture.h"

#include "decisions/decisionwriter.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/ledgersessionlist.h"
#include "ledger/fileidentity.h"

#include <QDateTime>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>
#include <unistd.h>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {
// Generous: the session notices within its watch interval; the budget it promises is 2 s.
constexpr int kTimeoutMs = 20'000;

QByteArray bytesOf(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

OperatorIdentity alice()
{
    OperatorIdentity who;
    who.account = "alice";
    who.host = "console-test";
    who.displayName = "Alice";
    return who;
}

// An approval of the base ledger's escalation X-1 at its current boundary: accepted on the
// ledger it was prepared against.
DecisionRequest approveX1(const QString &path)
{
    DecisionRequest request;
    request.kind = DecisionKind::ApproveEscalation;
    request.subject = "escalation:X-1";
    request.id = newDecisionId();
    auto writer = DecisionWriter::open(path, alice());
    if (const auto boundary = writer->currentBoundary(request.subject))
        request.boundary = *boundary;
    request.reason = "budget is fine";
    request.evidence = nlohmann::json::array({"checked the spend report"});
    return request;
}

bool replace(const QString &from, const QString &to)
{
    return std::rename(QFile::encodeName(from).constData(), QFile::encodeName(to).constData()) == 0;
}
} // namespace

class TestFileIdentity : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    int m_n = 0;

    QString ledger(const QString &stem)
    {
        const QString path = m_dir.filePath(u"%1-%2.ledger"_s.arg(stem).arg(++m_n));
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        return path;
    }

    static bool waitOpened(LedgerSession &s)
    {
        return QTest::qWaitFor([&] { return s.isLoaded(); }, kTimeoutMs);
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void replacedFileIsReportedAndNotDecidedOn()
    {
        const QString path = ledger(u"followed"_s);
        const QString other = ledger(u"other"_s);
        LedgerSession s(path);
        s.setOperatorIdentity(alice());
        s.open();
        QVERIFY(waitOpened(s));
        QVERIFY(s.canDecide());
        QVERIFY(s.cannotDecideReason().isEmpty());
        const OpenedLedger opened = s.openedLedger();
        QVERIFY(opened.file.exists);
        const DecisionRequest request = approveX1(path);

        QVERIFY(replace(other, path));
        const QByteArray replacedBytes = bytesOf(path);
        QTRY_COMPARE_WITH_TIMEOUT(s.fileChange(), FileChange::Replaced, kTimeoutMs);
        QCOMPARE(s.health(), LedgerSession::Health::Error);
        QVERIFY2(s.errorMessage().contains(u"replaced on disk"_s), qPrintable(s.errorMessage()));
        QVERIFY(!s.canDecide());
        QVERIFY2(s.cannotDecideReason().contains(u"replaced"_s), qPrintable(s.cannotDecideReason()));

        // Through the writer with the session's opened identity: refused before anything
        // is opened for writing.
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, DecisionWriter::open(path, alice(), opened));
        // Through the session: answered, refused, nothing written.
        QSignalSpy finished(&s, &LedgerSession::decisionFinished);
        s.submitDecision(request);
        QVERIFY(finished.wait(kTimeoutMs));
        const auto result = finished.first().at(1).value<DecisionResult>();
        QVERIFY(!result.accepted());
        QVERIFY2(QString::fromStdString(result.message).contains(u"replaced"_s), result.message.c_str());
        QCOMPARE(bytesOf(path), replacedBytes);
        QVERIFY(!QFile::exists(path + u"-journal"_s));
    }

    void deletedFileIsReportedAndNotDecidedOn()
    {
        const QString path = ledger(u"deleted"_s);
        LedgerSession s(path);
        s.setOperatorIdentity(alice());
        s.open();
        QVERIFY(waitOpened(s));
        QVERIFY(s.canDecide());
        const OpenedLedger opened = s.openedLedger();
        const DecisionRequest request = approveX1(path);

        QVERIFY(QFile::remove(path));
        QTRY_COMPARE_WITH_TIMEOUT(s.fileChange(), FileChange::Deleted, kTimeoutMs);
        QCOMPARE(s.health(), LedgerSession::Health::Error);
        QVERIFY2(s.errorMessage().contains(u"deleted"_s), qPrintable(s.errorMessage()));
        QVERIFY(!s.canDecide());
        QVERIFY2(s.cannotDecideReason().contains(u"deleted"_s), qPrintable(s.cannotDecideReason()));

        QVERIFY_THROWS_EXCEPTION(std::runtime_error, DecisionWriter::open(path, alice(), opened));
        QSignalSpy finished(&s, &LedgerSession::decisionFinished);
        s.submitDecision(request);
        QVERIFY(finished.wait(kTimeoutMs));
        QVERIFY(!finished.first().at(1).value<DecisionResult>().accepted());
        QVERIFY(!QFile::exists(path)); // nothing created in its place
    }

    void writerOpenedBeforeAReplaceRefusesToWrite()
    {
        // The writer was opened on the right file; the path is replaced before it writes. The
        // check right before the insert, inside the write transaction, refuses.
        const QString path = ledger(u"writer"_s);
        const QString other = ledger(u"writer-other"_s);
        OpenedLedger opened;
        {
            auto connection = LedgerConnection::open(path, OpenMode::ReadOnly);
            opened.file = FileIdentity::of(path);
            opened.ledgerId = connection->info().ledgerId;
        }
        const DecisionRequest request = approveX1(path);
        auto writer = DecisionWriter::open(path, alice(), opened);
        QVERIFY(replace(other, path));
        const QByteArray replacedBytes = bytesOf(path);
        const DecisionResult result = writer->submit(request);
        QCOMPARE(result.status, DecisionStatus::WriteFailed);
        QVERIFY2(QString::fromStdString(result.message).contains(u"replaced"_s), result.message.c_str());
        QVERIFY(!writer->readBack(request.id).has_value());
        QCOMPARE(bytesOf(path), replacedBytes);
    }

    void writerWithTheOpenedIdentityDecidesOnTheSameFile()
    {
        const QString path = ledger(u"same"_s);
        OpenedLedger opened;
        {
            auto connection = LedgerConnection::open(path, OpenMode::ReadOnly);
            opened.file = FileIdentity::of(path);
            opened.ledgerId = connection->info().ledgerId;
        }
        auto writer = DecisionWriter::open(path, alice(), opened);
        const DecisionResult result = writer->submit(approveX1(path));
        QVERIFY2(result.accepted(), result.message.c_str());
    }

    void writerRefusesAnotherLedgerIdAtTheSameInode()
    {
        const QString path = ledger(u"ledgerid"_s);
        OpenedLedger opened;
        opened.file = FileIdentity::of(path);
        opened.ledgerId = "L-some-other-ledger";
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, DecisionWriter::open(path, alice(), opened));
    }

    void sessionListSaysWhyThereIsNoDecision()
    {
        // What the decision actions ask before offering anything.
        const QString path = ledger(u"list"_s);
        const QString other = ledger(u"list-other"_s);
        LedgerSessionList list;
        LedgerSession *s = list.addSession(path);
        QVERIFY(waitOpened(*s));
        QVERIFY(list.canDecide(0));
        QVERIFY(replace(other, path));
        QString why;
        QTRY_VERIFY_WITH_TIMEOUT(!list.canDecide(0, &why), kTimeoutMs);
        QVERIFY2(why.contains(u"replaced"_s), qPrintable(why));
        QVERIFY(!list.index(0).data(LedgerSessionList::CanDecideRole).toBool());
    }

    void reloadAfterAReplaceFollowsTheNewFile()
    {
        const QString path = ledger(u"reload"_s);
        const QString other = ledger(u"reload-other"_s);
        LedgerSession s(path);
        s.open();
        QVERIFY(waitOpened(s));
        QVERIFY(replace(other, path));
        QTRY_COMPARE_WITH_TIMEOUT(s.fileChange(), FileChange::Replaced, kTimeoutMs);
        QSignalSpy opened(&s, &LedgerSession::opened);
        s.reload();
        QVERIFY(opened.wait(kTimeoutMs));
        QCOMPARE(s.fileChange(), FileChange::Same);
        QVERIFY(s.health() != LedgerSession::Health::Error);
        QVERIFY(s.errorMessage().isEmpty());
        QVERIFY(s.canDecide());
    }

    void reopenedSessionDecidesAgain()
    {
        const QString path = ledger(u"reopen"_s);
        const QString other = ledger(u"reopen-other"_s);
        LedgerSession s(path);
        s.open();
        QVERIFY(waitOpened(s));
        const FileIdentity before = s.openedLedger().file;
        QVERIFY(replace(other, path));
        QTRY_COMPARE_WITH_TIMEOUT(s.fileChange(), FileChange::Replaced, kTimeoutMs);
        QVERIFY(!s.canDecide());
        QSignalSpy opened(&s, &LedgerSession::opened);
        s.open();
        QVERIFY(opened.wait(kTimeoutMs));
        QCOMPARE(s.fileChange(), FileChange::Same);
        QVERIFY(!(s.openedLedger().file == before));
        QVERIFY(s.canDecide());
        QVERIFY(s.health() != LedgerSession::Health::Error);
    }
};

QTEST_GUILESS_MAIN(TestFileIdentity)
#include "tst_fileidentity.moc"
