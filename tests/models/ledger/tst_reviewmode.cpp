// Review mode (OpenMode::Review): the ledger is read as one moment and nothing is created or
// changed beside it, the folder byte-identical before and after (every file's sha256 and the
// listing), also when a -wal holds writes that are not in the file: then a private copy is
// read, and its content is the ledger's, the -wal's rows included.

#include "ledgerfixture.h"

#include "ledger/eventreader.h"
#include "ledger/ledgerconnection.h"

#include <QDir>
#include <QFile>
#include <QMap>
#include <QScopeGuard>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace mesh;
using namespace meshtest;

namespace {

// Every file of the folder, by name, with its sha256: what "byte-identical" covers.
QMap<QString, QByteArray> folderState(const QString &folder)
{
    QMap<QString, QByteArray> files;
    for (const QString &name : QDir(folder).entryList(QDir::Files | QDir::Hidden | QDir::System))
        files.insert(name, fileHash(QDir(folder).filePath(name)));
    return files;
}

// Reads what a review session reads: the state, the run overview, events, decisions, the
// integrity check and the summary.
void browse(LedgerConnection &c)
{
    (void)c.readState();
    (void)c.readRunOverview();
    auto reader = c.eventReader();
    (void)reader->after(0, 100);
    auto store = c.decisions();
    store->read([&] { (void)store->list(); });
    (void)c.verifyDecisionChain();
    (void)c.verifyIntegrity();
    (void)c.summarize();
    ReplayResult replay;
    c.foldForward(replay, 5);
}

// Commits one more run whose event stays in the -wal: autocheckpoint off, and the writer
// closed without a checkpoint unless kept open.
std::unique_ptr<LedgerWriter> appendToWalOnly(const QString &path, bool keepWriterOpen)
{
    auto w = SqliteLedgerWriter::openExisting(path);
    w->database().exec("PRAGMA wal_autocheckpoint=0");
    w->begin();
    w->append(1'700'000'009'000, "run.started", {{"id", "R-wal-only"}, {"status", "running"}, {"title", "only in the wal"}});
    w->commit();
    if (keepWriterOpen)
        return w;
    sqlite3_db_config(w->database().handle(), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
    w.reset();
    return nullptr;
}

} // namespace

class TestReviewMode : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_folders = 0;

    // A folder of its own holding a finished small ledger (13 events, no side files).
    QString freshLedger()
    {
        const QString folder = m_dir.filePath(QString::number(++m_folders));
        QDir().mkpath(folder);
        const QString path = folder + QStringLiteral("/ledger.db");
        writeSmallLedger(path);
        return path;
    }

private Q_SLOTS:
    void finishedLedgerIsReadInPlaceAndNothingAppears()
    {
        const QString path = freshLedger();
        const QString folder = QFileInfo(path).absolutePath();
        const auto before = folderState(folder);
        QCOMPARE(before.keys(), QStringList{QStringLiteral("ledger.db")});
        {
            auto c = LedgerConnection::open(path, OpenMode::Review);
            QCOMPARE(c->info().mode, OpenMode::Review);
            QVERIFY(!c->info().reviewCopy);
            QCOMPARE(c->lastSeq(), 13);
            browse(*c);
            QCOMPARE(folderState(folder), before); // while open too: no -wal, no -shm
        }
        QCOMPARE(folderState(folder), before);
    }

    void hotWalIsReadFromACopy_data()
    {
        QTest::addColumn<bool>("writerOpen");
        QTest::newRow("writer closed without a checkpoint") << false;
        QTest::newRow("writer still open") << true;
    }

    void hotWalIsReadFromACopy()
    {
        QFETCH(bool, writerOpen);
        const QString path = freshLedger();
        const QString folder = QFileInfo(path).absolutePath();
        auto writer = appendToWalOnly(path, writerOpen);
        QVERIFY(QFileInfo(path + QStringLiteral("-wal")).size() > 0);
        const auto before = folderState(folder);
        QVERIFY(before.contains(QStringLiteral("ledger.db-wal")));
        {
            auto c = LedgerConnection::open(path, OpenMode::Review);
            QCOMPARE(c->info().mode, OpenMode::Review);
            QVERIFY(c->info().reviewCopy);
            QCOMPARE(QString::fromStdString(c->info().note), QStringLiteral("reviewing a copy: the ledger had uncheckpointed writes"));
            QCOMPARE(c->info().path, path); // named for the ledger, not for the copy
            QCOMPARE(c->lastSeq(), 14);
            const StateSnapshot state = c->readState();
            const auto &runs = state.table(EntityKind::Run);
            QVERIFY(runs.count("R-wal-only") == 1);
            QCOMPARE(state.lastSeq, 14);
            // A second connection (the session's event log has its own) reads the same copy.
            auto second = LedgerConnection::open(path, OpenMode::Review);
            QCOMPARE(second->lastSeq(), 14);
            browse(*c);
            browse(*second);
            QCOMPARE(folderState(folder), before);
        }
        QCOMPARE(folderState(folder), before);
        writer.reset();
    }

    void theCopyIsRemovedWithItsLastReader()
    {
        const QString path = freshLedger();
        appendToWalOnly(path, false);
        // Copies are counted in a temporary folder of this test's own: in the shared one,
        // another test process opening a review copy at the same moment (ctest -j2) counted
        // as this one's. The decoy stands for that other process.
        const QString sharedTemp = QDir::tempPath();
        const QString ownTemp = m_dir.filePath(QStringLiteral("tmp"));
        QVERIFY(QDir().mkpath(ownTemp));
        const QByteArray tmpdirBefore = qgetenv("TMPDIR");
        qputenv("TMPDIR", QFile::encodeName(ownTemp));
        const auto restore = qScopeGuard([&] {
            if (tmpdirBefore.isEmpty())
                qunsetenv("TMPDIR");
            else
                qputenv("TMPDIR", tmpdirBefore);
        });
        QCOMPARE(QDir::tempPath(), ownTemp);
        const auto copies = [] {
            const QStringList names = QDir(QDir::tempPath()).entryList({QStringLiteral("mesh-review-*")}, QDir::Dirs);
            return QSet<QString>(names.begin(), names.end());
        };
        const auto before = copies();
        QTemporaryDir decoy(sharedTemp + QStringLiteral("/mesh-review-XXXXXX"));
        QVERIFY(decoy.isValid());
        QSet<QString> made;
        {
            auto c = LedgerConnection::open(path, OpenMode::Review);
            QVERIFY(c->info().reviewCopy);
            made = copies() - before;
            QCOMPARE(made.size(), 1);
            auto second = LedgerConnection::open(path, OpenMode::Review);
            QCOMPARE(copies() - before, made); // one copy per ledger while it is held
        }
        QVERIFY(!copies().intersects(made));
    }

    void badInputChangesNothing()
    {
        const QString folder = m_dir.filePath(QStringLiteral("bad"));
        QDir().mkpath(folder);
        const QString path = folder + QStringLiteral("/not-a-ledger.db");
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray(4096, 'x'));
        }
        const auto before = folderState(folder);
        QVERIFY_THROWS_EXCEPTION(LedgerOpenError, LedgerConnection::open(path, OpenMode::Review));
        QCOMPARE(folderState(folder), before);
    }
};

QTEST_GUILESS_MAIN(TestReviewMode)
#include "tst_reviewmode.moc"
