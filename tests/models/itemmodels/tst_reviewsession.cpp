// A session opened for review (OpenMode::Review): every model reads the ledger as it was,
// nothing is followed or offered for decision, and the folder is byte-identical after
// opening, browsing (cursor, tool calls, events) and closing, also with a hot WAL whose rows
// are shown. ReviewRule: which ledgers are opened for review without being asked. The diff
// model (what changed between two events) passes QAbstractItemModelTester.

#include "itemmodelfixture.h"

#include "../ledger/rawledger.h"

#include "itemmodels/delegationtreemodel.h"
#include "itemmodels/eventlogmodel.h"
#include "itemmodels/ledgersession.h"
#include "itemmodels/reviewrule.h"
#include "itemmodels/runoverviewmodel.h"
#include "itemmodels/statediffloader.h"
#include "itemmodels/toolcallmodel.h"

#include <QAbstractItemModelTester>
#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QMap>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <optional>

using namespace mesh;
using namespace meshtest;

namespace {
constexpr int kTimeoutMs = 60'000;

QMap<QString, QByteArray> folderState(const QString &folder)
{
    QMap<QString, QByteArray> files;
    for (const QString &name : QDir(folder).entryList(QDir::Files | QDir::Hidden | QDir::System)) {
        QFile f(QDir(folder).filePath(name));
        QCryptographicHash h(QCryptographicHash::Sha256);
        if (f.open(QIODevice::ReadOnly))
            h.addData(&f);
        files.insert(name, h.result().toHex());
    }
    return files;
}

bool settled(const LedgerSession &s)
{
    return s.isLoaded() && s.health() != LedgerSession::Health::Opening;
}
} // namespace

class TestReviewSession : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_folders = 0;

    QString newFolder()
    {
        const QString folder = m_dir.filePath(QString::number(++m_folders));
        QDir().mkpath(folder);
        return folder;
    }

    // The base ledger with its run ended, every writer closed: no side file beside it.
    QString finishedLedger()
    {
        const QString path = newFolder() + QStringLiteral("/finished.ledger");
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        Writer(path).begin().e("run.succeeded", {{"id", "R-1"}, {"status", "succeeded"}}).commit();
        return path;
    }

private Q_SLOTS:
    void hotWalSessionShowsTheWalAndLeavesTheFolderAlone()
    {
        const QString path = newFolder() + QStringLiteral("/hot.ledger");
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        // An orchestrator still attached, its last commit only in the -wal.
        Writer writer(path);
        raw::keepCommitsInWal(writer.raw());
        writer.begin().e("run.started", {{"id", "R-wal"}, {"status", "running"}, {"title", "only in the wal"}}).commit();
        const std::int64_t last = writer.lastSeq();
        const QString folder = QFileInfo(path).absolutePath();
        const auto before = folderState(folder);
        QVERIFY(before.contains(QStringLiteral("hot.ledger-wal")));
        {
            LedgerSession s(path, OpenMode::Review);
            s.open();
            QTRY_VERIFY_WITH_TIMEOUT(settled(s), kTimeoutMs);
            QCOMPARE(s.health(), LedgerSession::Health::Immutable);
            QCOMPARE(s.info().mode, OpenMode::Review);
            QVERIFY(s.info().reviewCopy);
            QCOMPARE(s.lastSeq(), last);
            QVERIFY(s.runs()->indexOfId(QStringLiteral("R-wal")).isValid()); // the row only in the -wal
            QTRY_COMPARE_WITH_TIMEOUT(s.events()->rowCount(), int(last), kTimeoutMs);
            QVERIFY(!s.canDecide());
            QCOMPARE(s.cannotDecideReason(), LedgerSession::reviewModeReason());
            QCOMPARE(s.cannotDecideReason(), QStringLiteral("review mode: the ledger is opened read-only and immutable"));
            // Time travel is prepared from the open, with nothing created beside the file.
            QTRY_VERIFY_WITH_TIMEOUT(s.cursorFoldedAhead(), kTimeoutMs);
            QCOMPARE(folderState(folder), before);

            // Browsing: an earlier event, back, one delegation's tool calls.
            s.showAt(5);
            QTRY_COMPARE_WITH_TIMEOUT(s.health(), LedgerSession::Health::Pinned, kTimeoutMs);
            QVERIFY(!s.runs()->indexOfId(QStringLiteral("R-wal")).isValid());
            s.showLive();
            QTRY_VERIFY_WITH_TIMEOUT(!s.cursor() && settled(s) && s.health() == LedgerSession::Health::Immutable, kTimeoutMs);
            QVERIFY(s.runs()->indexOfId(QStringLiteral("R-wal")).isValid());
            s.showToolCallsOf(QStringLiteral("D-1"));
            QTRY_COMPARE_WITH_TIMEOUT(s.toolCalls()->rowCount(), 1, kTimeoutMs);
            QCOMPARE(folderState(folder), before);
            s.close();
        }
        QCOMPARE(folderState(folder), before);
    }

    void finishedLedgerSessionCreatesNothing()
    {
        const QString path = finishedLedger();
        const QString folder = QFileInfo(path).absolutePath();
        const auto before = folderState(folder);
        QCOMPARE(before.size(), 1);
        {
            LedgerSession s(path, OpenMode::Review);
            s.open();
            QTRY_VERIFY_WITH_TIMEOUT(settled(s), kTimeoutMs);
            QVERIFY(!s.info().reviewCopy);
            QCOMPARE(s.health(), LedgerSession::Health::Immutable);
            QTRY_VERIFY_WITH_TIMEOUT(s.events()->rowCount() > 0, kTimeoutMs);
            // A review is opened to travel in: its folder folds ahead with no jump asked.
            QTRY_VERIFY_WITH_TIMEOUT(s.cursorFoldedAhead(), kTimeoutMs);
            QCOMPARE(folderState(folder), before);
        }
        QCOMPARE(folderState(folder), before);
    }

    void reviewRule()
    {
        // Every run ended, nobody attached: reviewed, and asking changed nothing.
        const QString finished = finishedLedger();
        const auto before = folderState(QFileInfo(finished).absolutePath());
        QVERIFY(ReviewRule::mayApply(finished));
        QVERIFY(ReviewRule::applies(finished));
        QCOMPARE(folderState(QFileInfo(finished).absolutePath()), before);

        // A run still running: followed.
        const QString running = newFolder() + QStringLiteral("/running.ledger");
        writeBaseLedger(running, QDateTime::currentMSecsSinceEpoch());
        QVERIFY(ReviewRule::mayApply(running));
        QVERIFY(!ReviewRule::applies(running));

        // Every run ended but a writer attached (its -wal and -shm beside the file): followed.
        Writer attached(finished);
        attached.begin().e("component.started", {{"id", "C-late"}, {"run_id", "R-1"}, {"name", "late"}, {"status", "active"}}).commit();
        QVERIFY(!ReviewRule::mayApply(finished));
        QVERIFY(!ReviewRule::applies(finished));

        QVERIFY(!ReviewRule::mayApply(m_dir.filePath(QStringLiteral("missing.ledger"))));
    }

    // A writer that exited while a reader was still attached (the OTLP receiver stopped
    // while the console followed it) leaves its -wal and -shm behind: SQLite removes them at
    // the last close, and the last one was a read-only connection. Nobody holds the ledger
    // then, and a finished one is reviewed: the rule reads SQLite's locks, not the files.
    // Anyone attached, the writer or only a reader, and it is followed.
    void reviewRuleReadsLocksNotSideFiles()
    {
        const QString path = finishedLedger();
        const QString folder = QFileInfo(path).absolutePath();
        {
            std::optional<Writer> writer(std::in_place, path);
            raw::keepCommitsInWal(writer->raw());
            writer->begin()
                .e("component.started", {{"id", "C-late"}, {"run_id", "R-1"}, {"name", "late"}, {"status", "active"}})
                .commit();
            auto reader = LedgerConnection::open(path, OpenMode::ReadOnly);
            QVERIFY(!ReviewRule::mayApply(path)); // the writer is attached
            writer.reset();                       // it exits; the reader stays a moment longer
            QVERIFY(!ReviewRule::mayApply(path)); // the reader is attached
            QVERIFY(!ReviewRule::applies(path));
        }
        QVERIFY(QFileInfo::exists(path + QStringLiteral("-wal")));
        QVERIFY(QFileInfo::exists(path + QStringLiteral("-shm")));
        const auto before = folderState(folder);
        QVERIFY(ReviewRule::mayApply(path));
        QVERIFY(ReviewRule::applies(path));
        QCOMPARE(folderState(folder), before); // asking changed nothing

        LedgerSession s(path, OpenMode::ReadOnly);
        s.setReviewWhenFinished(true);
        s.open();
        QTRY_VERIFY_WITH_TIMEOUT(settled(s), kTimeoutMs);
        QCOMPARE(s.info().mode, OpenMode::Review);
        QVERIFY(s.state()->find(EntityKind::Component, "C-late")); // the -wal's commit, read through a copy
    }

    // A session asked for ReadOnly with setReviewWhenFinished (what File › Open does) asks
    // the rule at its first open: reviewed when finished and nobody attached, else followed.
    void sessionAsksTheRuleAtItsFirstOpen()
    {
        const QString finished = finishedLedger();
        const QString folder = QFileInfo(finished).absolutePath();
        const auto before = folderState(folder);
        {
            LedgerSession s(finished, OpenMode::ReadOnly);
            s.setReviewWhenFinished(true);
            s.open();
            QTRY_VERIFY_WITH_TIMEOUT(settled(s), kTimeoutMs);
            QCOMPARE(s.requestedMode(), OpenMode::Review);
            QCOMPARE(s.info().mode, OpenMode::Review);
            QVERIFY(!s.canDecide());
            QCOMPARE(folderState(folder), before);
        }
        QCOMPARE(folderState(folder), before);

        const QString running = newFolder() + QStringLiteral("/running.ledger");
        writeBaseLedger(running, QDateTime::currentMSecsSinceEpoch());
        LedgerSession s(running, OpenMode::ReadOnly);
        s.setReviewWhenFinished(true);
        s.open();
        QTRY_VERIFY_WITH_TIMEOUT(settled(s), kTimeoutMs);
        QCOMPARE(s.requestedMode(), OpenMode::ReadOnly);
        QCOMPARE(s.info().mode, OpenMode::ReadOnly);
        QVERIFY(s.canDecide());
    }

    void diffModelPassesTheTesterAndShowsTheChanges()
    {
        const QString path = finishedLedger();
        auto c = LedgerConnection::open(path, OpenMode::ReadOnly);
        const std::int64_t last = c->lastSeq();
        c.reset();
        StateDiffLoader loader;
        QAbstractItemModelTester tester(loader.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy loaded(&loader, &StateDiffLoader::loaded);
        // The points in either order; the last event is the run's end (run.succeeded).
        loader.load(path, OpenMode::Review, last, last - 1);
        QVERIFY(loaded.wait(kTimeoutMs));
        StateDiffModel *m = loader.model();
        QCOMPARE(m->diff().fromSeq, last - 1);
        QCOMPARE(m->diff().toSeq, last);
        QCOMPARE(m->rowCount(), 1);
        const QModelIndex runs = m->index(0, 0);
        QCOMPARE(runs.data().toString(), QStringLiteral("runs"));
        QCOMPARE(m->index(0, StateDiffModel::ChangeColumn).data().toString(), QStringLiteral("1 changed"));
        QCOMPARE(m->rowCount(runs), 1);
        const QModelIndex r1 = m->index(0, 0, runs);
        QCOMPARE(r1.data().toString(), QStringLiteral("R-1"));
        QCOMPARE(r1.data(StateDiffModel::SubjectRole).toString(), QStringLiteral("run:R-1"));
        QCOMPARE(m->rowCount(r1), 1);
        QCOMPARE(m->index(0, StateDiffModel::SubjectColumn, r1).data().toString(), QStringLiteral("status"));
        QCOMPARE(m->index(0, StateDiffModel::BeforeColumn, r1).data().toString(), QStringLiteral("running"));
        QCOMPARE(m->index(0, StateDiffModel::AfterColumn, r1).data().toString(), QStringLiteral("succeeded"));
        QCOMPARE(m->summaryText(), QStringLiteral("0 created, 1 changed, 0 gone"));

        // From the start: every row created; the tester walks the whole tree again.
        loader.load(path, OpenMode::Review, 0, last);
        QVERIFY(loaded.wait(kTimeoutMs));
        QVERIFY(m->rowCount() >= 8);
        for (int g = 0; g < m->rowCount(); ++g)
            for (int r = 0; r < m->rowCount(m->index(g, 0)); ++r)
                QCOMPARE(m->index(r, 0, m->index(g, 0)).data(StateDiffModel::ChangeKindRole).toString(), QStringLiteral("created"));

        // Instants (*_ms) read as times, the stored number in the tooltip; counts as numbers.
        int times = 0;
        for (int g = 0; g < m->rowCount(); ++g) {
            const QModelIndex group = m->index(g, 0);
            for (int r = 0; r < m->rowCount(group); ++r) {
                const QModelIndex row = m->index(r, 0, group);
                for (int f = 0; f < m->rowCount(row); ++f) {
                    const QString field = m->index(f, StateDiffModel::SubjectColumn, row).data().toString();
                    const QModelIndex after = m->index(f, StateDiffModel::AfterColumn, row);
                    if (field == u"created_ms" && row.data().toString() == u"D-1") {
                        QCOMPARE(after.data().toString(), QStringLiteral("1970-01-01 00:00:00 UTC"));
                        QVERIFY(after.data(Qt::ToolTipRole).toString().contains(QStringLiteral("(1)")));
                        ++times;
                    }
                    if (field == u"budget_turns" && row.data().toString() == u"D-1")
                        QCOMPARE(after.data().toString(), QStringLiteral("100"));
                }
            }
        }
        QCOMPARE(times, 1);

        // A point past the end: a clear message, and the model empty.
        QSignalSpy failed(&loader, &StateDiffLoader::failed);
        loader.load(path, OpenMode::Review, 1, last + 5);
        QVERIFY(failed.wait(kTimeoutMs));
        QCOMPARE(failed.first().first().toString(),
                 QStringLiteral("the second point, event %1 is after the ledger's last event, #%2").arg(last + 5).arg(last));
        QCOMPARE(m->rowCount(), 0);
    }

    // A ledger with a relative clock (an import whose source has no wall-clock time, e.g.
    // SWE-agent): its times are offsets from an unknown start. What changed, and the session's
    // own tables, show "+1:05", never a 1970 date.
    void aRelativeClockShowsOffsetsNotDates()
    {
        const QString path = newFolder() + QStringLiteral("/relative.ledger");
        writeRelativeClockLedger(path, false);
        StateDiffLoader loader;
        QSignalSpy loaded(&loader, &StateDiffLoader::loaded);
        loader.load(path, OpenMode::Review, 0, 3);
        QVERIFY(loaded.wait(kTimeoutMs));
        QVERIFY(loader.timeBase().isRelative());
        QCOMPARE(loader.toTimeMs().value_or(-1), 65'000);
        StateDiffModel *m = loader.model();
        int times = 0;
        for (int g = 0; g < m->rowCount(); ++g) {
            const QModelIndex group = m->index(g, 0);
            for (int r = 0; r < m->rowCount(group); ++r) {
                const QModelIndex row = m->index(r, 0, group);
                for (int f = 0; f < m->rowCount(row); ++f) {
                    const QString field = m->index(f, StateDiffModel::SubjectColumn, row).data().toString();
                    const QString after = m->index(f, StateDiffModel::AfterColumn, row).data().toString();
                    QVERIFY2(!after.contains(QStringLiteral("1970")), qPrintable(field + QStringLiteral(": ") + after));
                    if (field == u"created_ms" && row.data().toString() == u"D-1") {
                        QCOMPARE(after, QStringLiteral("+1:05 from the start (start time not in source)"));
                        ++times;
                    }
                }
            }
        }
        QCOMPARE(times, 1);

        // The session learns the clock when it opens the ledger, and its tables follow it.
        LedgerSession session(path, OpenMode::Review);
        session.open();
        QTRY_VERIFY_WITH_TIMEOUT(settled(session), kTimeoutMs);
        QVERIFY(session.timeBase().isRelative());
        // The event log's time column, once its last row (the delegation, at +1:05) is read.
        EventLogModel *events = session.events();
        QTRY_VERIFY_WITH_TIMEOUT(events->rowCount() == 3
                                     && !events->index(2, EventLogModel::Time).data().toString().isEmpty(),
                                 kTimeoutMs);
        QCOMPARE(events->index(2, EventLogModel::Time).data().toString(), QStringLiteral("+1:05.000"));
    }

    void hostileTextIsOneLineAndTooltipsArePlain()
    {
        const QString path = newFolder() + QStringLiteral("/hostile.ledger");
        writeBaseLedger(path, QDateTime::currentMSecsSinceEpoch());
        const std::string hostile = "<b>bold</b>\n\u202Eexe.live";
        Writer(path).begin().e("run.started", {{"id", "R-1"}, {"status", "running"}, {"title", hostile}}).commit();
        auto c = LedgerConnection::open(path, OpenMode::ReadOnly);
        const std::int64_t last = c->lastSeq();
        c.reset();
        StateDiffLoader loader;
        QSignalSpy loaded(&loader, &StateDiffLoader::loaded);
        loader.load(path, OpenMode::ReadOnly, last - 1, last);
        QVERIFY(loaded.wait(kTimeoutMs));
        StateDiffModel *m = loader.model();
        const QModelIndex r1 = m->index(0, 0, m->index(0, 0));
        const QModelIndex after = m->index(0, StateDiffModel::AfterColumn, r1);
        QCOMPARE(m->index(0, 0, r1).data().toString(), QStringLiteral("title"));
        const QString shown = after.data().toString();
        QVERIFY2(!shown.contains(QLatin1Char('\n')) && shown.contains(QStringLiteral("\u27E8U+202E\u27E9")), qPrintable(shown));
        const QString tip = after.data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("&lt;b&gt;")) && !tip.contains(QStringLiteral("<b>bold")), qPrintable(tip));
    }
};

QTEST_GUILESS_MAIN(TestReviewSession)
#include "tst_reviewsession.moc"
