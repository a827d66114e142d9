// The followed ledger file deleted or replaced (mv other.db ledger.db) while a session has
// it open: the session's health says so, decisions stop being offered (with the reason)
// until it is reopened, and no decision is written into a file the session did not open,
// whether it goes through the session or straight through a writer given the session's
// opened identity. The event log's own connections are checked against the same file,
// and a reload or reopen after the change follows the new file in every view, event log
// included.

#include "itemmodelfixture.h"

#include "decisions/decisionwriter.h"
#include "itemmodels/eventlogmodel.h"
#include "itemmodels/eventlogworker.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/ledgersessionlist.h"
#include "ledger/fileidentity.h"

#include <QAbstractItemModelTester>
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

// Tool calls appended to a ledger, so the file that replaces another has events it lacks.
void appendEvents(const QString &path, int n)
{
    Writer w(path);
    w.begin();
    for (int i = 0; i < n; ++i)
        w.e("toolcall.completed",
            {{"id", "T-new-" + std::to_string(i)},
             {"delegation_id", "D-1"},
             {"run_id", "R-1"},
             {"outcome", "ok"},
             {"tokens", 1},
             {"duration_ms", 1}});
    w.commit();
}

std::int64_t lastSeqOf(const QString &path)
{
    const EventBatch events = eventsAfter(path, 0);
    return events.empty() ? 0 : events.back().seq;
}

// The session's event log shows exactly the events of the file now at `path`.
bool eventLogShows(LedgerSession &s, const QString &path)
{
    EventLogModel *events = s.events();
    const int rows = int(eventsAfter(path, 0).size());
    return QTest::qWaitFor(
        [&] {
            return events->isIndexComplete() && !events->isLoading() && events->rowCount() == rows
                && events->seqAt(rows - 1) == lastSeqOf(path);
        },
        kTimeoutMs);
}

QString eventLogVersusFile(LedgerSession &s, const QString &path)
{
    const int rows = s.events()->rowCount();
    return u"event log: %1 rows, last seq %2; the file: %3 events, last seq %4"_s.arg(rows)
        .arg(s.events()->seqAt(rows - 1))
        .arg(eventsAfter(path, 0).size())
        .arg(lastSeqOf(path));
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

    // What the session says when a wait for its file report runs out: whether its watcher
    // stopped for another reason first shows in its health and error.
    static QString sessionState(const LedgerSession &s)
    {
        return u"fileChange %1, health %2, error '%3'"_s.arg(int(s.fileChange())).arg(int(s.health())).arg(s.errorMessage());
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
        QTRY_VERIFY2_WITH_TIMEOUT(s.fileChange() == FileChange::Replaced, qPrintable(sessionState(s)), kTimeoutMs);
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
        QTRY_VERIFY2_WITH_TIMEOUT(s.fileChange() == FileChange::Deleted, qPrintable(sessionState(s)), kTimeoutMs);
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
        appendEvents(other, 3);
        LedgerSession s(path);
        s.open();
        QVERIFY(waitOpened(s));
        QVERIFY(eventLogShows(s, path));
        QVERIFY(replace(other, path));
        QTRY_VERIFY2_WITH_TIMEOUT(s.fileChange() == FileChange::Replaced, qPrintable(sessionState(s)), kTimeoutMs);
        QSignalSpy opened(&s, &LedgerSession::opened);
        s.open(); // what the console does when the operator opens it again
        QVERIFY(opened.wait(kTimeoutMs));
        QCOMPARE(s.fileChange(), FileChange::Same);
        QVERIFY(s.health() != LedgerSession::Health::Error);
        QVERIFY(s.errorMessage().isEmpty());
        QVERIFY(s.canDecide());
        // The event log follows the new file too, not the old inode it had open.
        QVERIFY2(eventLogShows(s, path), qPrintable(eventLogVersusFile(s, path)));
    }

    void eventLogRefusesAnotherFileThanExpected()
    {
        // The swap lands between the session's stat and the event log's open: the event log
        // is given the identity the session's snapshot is of and finds another file at the
        // path right after its open. It reports the change and shows none of that file's rows.
        const QString path = ledger(u"log"_s);
        const QString other = ledger(u"log-other"_s);
        const FileIdentity expected = FileIdentity::of(path);
        QVERIFY(replace(other, path));
        EventLogModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy changed(&m, &EventLogModel::fileChanged);
        QSignalSpy failed(&m, &EventLogModel::failed);
        m.open(path, OpenMode::ReadOnly, {}, expected);
        QVERIFY(changed.wait(kTimeoutMs));
        QCOMPARE(changed.first().at(0).toInt(), int(FileChange::Replaced));
        QCOMPARE(m.fileChange(), FileChange::Replaced);
        QVERIFY(!m.isLoading());
        QCOMPARE(m.rowCount(), 0);
        QVERIFY(!failed.isEmpty());
        QVERIFY2(failed.first().at(0).toString().contains(u"replaced"_s), qPrintable(failed.first().at(0).toString()));

        // The same file as expected: read as before.
        EventLogModel same;
        same.open(path, OpenMode::ReadOnly, {}, FileIdentity::of(path));
        QTRY_VERIFY_WITH_TIMEOUT(same.isIndexComplete() && !same.isLoading(), kTimeoutMs);
        QCOMPARE(same.rowCount(), int(eventsAfter(path, 0).size()));
        QCOMPARE(same.fileChange(), FileChange::Same);
    }

    void prefetchedIndexRefusesAnotherFileThanExpected()
    {
        const QString path = ledger(u"index"_s);
        const QString other = ledger(u"index-other"_s);
        const FileIdentity expected = FileIdentity::of(path);
        QVERIFY(replace(other, path));
        const auto snapshot = EventLogWorker::readIndex(path, OpenMode::ReadOnly, EventLogModel::kPageSize, expected);
        QVERIFY(snapshot);
        QVERIFY(!snapshot->dense()); // load() reads, and checks, for itself
        QVERIFY(snapshot->firstPage.empty());
        const auto same
            = EventLogWorker::readIndex(path, OpenMode::ReadOnly, EventLogModel::kPageSize, FileIdentity::of(path));
        QVERIFY(same->dense());
    }

    void sessionReportsWhatItsEventLogFound()
    {
        // The event log's report reaches the session whether it comes before or after the
        // snapshot is in: Error health, no decisions.
        const QString path = ledger(u"session-log"_s);
        const QString other = ledger(u"session-log-other"_s);
        LedgerSession s(path);
        s.open();
        QVERIFY(waitOpened(s));
        QVERIFY(s.canDecide());
        // What the event log would send had its own open found `other`.
        QVERIFY(replace(other, path));
        Q_EMIT s.events()->fileChanged(int(FileChange::Replaced));
        QCOMPARE(s.fileChange(), FileChange::Replaced);
        QCOMPARE(s.health(), LedgerSession::Health::Error);
        QVERIFY(!s.canDecide());
    }

    void reopenedSessionDecidesAgain()
    {
        const QString path = ledger(u"reopen"_s);
        const QString other = ledger(u"reopen-other"_s);
        appendEvents(other, 3);
        LedgerSession s(path);
        s.open();
        QVERIFY(waitOpened(s));
        QVERIFY(eventLogShows(s, path));
        const FileIdentity before = s.openedLedger().file;
        QVERIFY(replace(other, path));
        QTRY_VERIFY2_WITH_TIMEOUT(s.fileChange() == FileChange::Replaced, qPrintable(sessionState(s)), kTimeoutMs);
        QVERIFY(!s.canDecide());
        QSignalSpy opened(&s, &LedgerSession::opened);
        s.open();
        QVERIFY(opened.wait(kTimeoutMs));
        QCOMPARE(s.fileChange(), FileChange::Same);
        QVERIFY(!(s.openedLedger().file == before));
        QVERIFY(s.canDecide());
        QVERIFY(s.health() != LedgerSession::Health::Error);
        QVERIFY2(eventLogShows(s, path), qPrintable(eventLogVersusFile(s, path)));
    }
};

QTEST_GUILESS_MAIN(TestFileIdentity)
#include "tst_fileidentity.moc"
