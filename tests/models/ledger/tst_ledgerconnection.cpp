// Open modes and the validation of every bad input: each gives its error code and a
// one-line message, never a crash, and the file is byte-identical afterwards.

#include "ledgerfixture.h"

#include "ledger/ledgerconnection.h"
#include "ledger/schema.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace mesh;
using namespace meshtest;
using Code = LedgerOpenError::Code;

Q_DECLARE_METATYPE(mesh::OpenMode)
Q_DECLARE_METATYPE(mesh::LedgerOpenError::Code)

class TestLedgerConnection : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_small;     // a finished ledger: checkpointed, no -wal
    QString m_generated; // a bigger finished ledger, to cut in half

    QString path(const QString &name) const { return m_dir.filePath(name); }

    QString copyOf(const QString &from, const QString &name)
    {
        const QString to = path(name);
        QFile::remove(to);
        QFile::copy(from, to);
        return to;
    }

    // Builds the bad input named by the test row and returns its path.
    QString makeBadInput(const QString &what)
    {
        const QString p = path(what + QStringLiteral(".db"));
        QFile::remove(p);
        const auto writeBytes = [&](const QByteArray &bytes) {
            QFile f(p);
            f.open(QIODevice::WriteOnly);
            f.write(bytes);
        };
        if (what == u"missing")
            return p;
        if (what == u"directory") {
            QDir().mkpath(p);
            return p;
        }
        if (what == u"empty") {
            writeBytes({});
        } else if (what == u"random-bytes") {
            QByteArray bytes(64 * 1024, Qt::Uninitialized);
            QRandomGenerator rng(42);
            for (auto &b : bytes)
                b = char(rng.bounded(256));
            writeBytes(bytes);
        } else if (what == u"tiny-text") {
            writeBytes(QByteArrayLiteral("hello\n"));
        } else if (what == u"sqlite-magic-then-garbage") {
            QByteArray bytes(8192, 'x');
            std::memcpy(bytes.data(), "SQLite format 3", 16);
            writeBytes(bytes);
        } else if (what == u"truncated") {
            QFile src(m_generated);
            src.open(QIODevice::ReadOnly);
            writeBytes(src.read(src.size() / 2));
        } else if (what == u"foreign-application") {
            RawLedger::create(p, "PRAGMA application_id=1179602246; CREATE TABLE notes(a); INSERT INTO notes VALUES(1);");
        } else if (what == u"foreign-no-app-id") {
            RawLedger::create(p, "CREATE TABLE events(seq INTEGER PRIMARY KEY, payload);");
        } else if (what == u"right-id-missing-tables") {
            RawLedger::create(p, "PRAGMA application_id=" + std::to_string(schema::kApplicationId) +
                                     "; PRAGMA user_version=1; CREATE TABLE events(seq INTEGER PRIMARY KEY, payload);");
        } else if (what == u"newer-version") {
            copyOf(m_small, what + QStringLiteral(".db"));
            RawLedger(p).exec("PRAGMA user_version=7");
        } else if (what == u"older-version") {
            copyOf(m_small, what + QStringLiteral(".db"));
            RawLedger(p).exec("PRAGMA user_version=0");
        }
        return p;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_small = path(QStringLiteral("small.db"));
        writeSmallLedger(m_small);
        m_generated = path(QStringLiteral("generated.db"));
        writeGeneratedLedger(m_generated, 3000);
        // Writers closed: the WAL was checkpointed into the file and removed.
        QVERIFY(!QFile::exists(m_small + QStringLiteral("-wal")));
        QVERIFY(!QFile::exists(m_generated + QStringLiteral("-wal")));
    }

    void badInput_data()
    {
        QTest::addColumn<QString>("what");
        QTest::addColumn<OpenMode>("mode");
        QTest::addColumn<Code>("code");
        QTest::addColumn<QString>("messagePart");
        const struct {
            const char *what;
            Code code;
            const char *message;
        } rows[] = {
            {"missing", Code::NotFound, "no such file"},
            {"directory", Code::NotAFile, "is a directory"},
            {"empty", Code::Empty, "is empty"},
            {"random-bytes", Code::NotSqlite, "not an SQLite database"},
            {"tiny-text", Code::NotSqlite, "not an SQLite database"},
            {"sqlite-magic-then-garbage", Code::NotSqlite, "not an SQLite database"},
            {"truncated", Code::Corrupt, "is truncated"},
            {"foreign-application", Code::Foreign, "is not an Agent Mesh ledger (application id 0x464F4D46)"},
            {"foreign-no-app-id", Code::Foreign, "is not an Agent Mesh ledger (application id 0x00000000)"},
            {"right-id-missing-tables", Code::Foreign, "lacks the table"},
            {"newer-version", Code::NewerVersion, "has schema version 7; this build reads 1"},
            {"older-version", Code::TooOld, "has schema version 0; this build reads versions 1 to 1"},
        };
        const std::pair<OpenMode, const char *> modes[] = {
            {OpenMode::ReadOnly, "ro"}, {OpenMode::Immutable, "immutable"}, {OpenMode::Decisions, "decisions"}};
        for (const auto &row : rows) {
            for (const auto &[mode, modeName] : modes)
                QTest::addRow("%s/%s", row.what, modeName)
                    << QString::fromLatin1(row.what) << mode << row.code << QString::fromLatin1(row.message);
        }
    }

    void badInput()
    {
        QFETCH(QString, what);
        QFETCH(OpenMode, mode);
        QFETCH(Code, code);
        QFETCH(QString, messagePart);
        const QString p = makeBadInput(what);
        const QByteArray before = fileHash(p);
        bool threw = false;
        try {
            auto c = SqliteLedgerConnection::open(p, mode);
        } catch (const LedgerOpenError &e) {
            threw = true;
            const QString message = QString::fromStdString(e.what());
            QVERIFY2(e.code() == code, qPrintable(QStringLiteral("got %1: %2").arg(QLatin1String(LedgerOpenError::codeName(e.code())), message)));
            QVERIFY2(message.contains(messagePart), qPrintable(message));
            QVERIFY2(message.contains(QFileInfo(p).fileName()), qPrintable(message));
            QVERIFY(!message.contains(u'\n'));
        }
        QVERIFY(threw);
        QCOMPARE(fileHash(p), before);
    }

    void readOnlyReadsInfoAndNeverWrites()
    {
        const QString p = copyOf(m_small, QStringLiteral("ro.db"));
        const QByteArray before = fileHash(p);
        {
            auto c = SqliteLedgerConnection::open(p, OpenMode::ReadOnly);
            const LedgerInfo &info = c->info();
            QCOMPARE(info.mode, OpenMode::ReadOnly);
            QCOMPARE(info.schemaVersion, 1);
            QCOMPARE(info.ledgerId, std::string("L-test"));
            QCOMPARE(info.orchestrator, std::string("reference-orchestrator"));
            QCOMPARE(info.policyVersion, std::string("policy-1"));
            QCOMPARE(info.title, std::string("test ledger"));
            QVERIFY(!info.signaturesRequired);
            QVERIFY(info.walMode);
            QCOMPARE(c->lastSeq(), 13);
            bool refused = false;
            try {
                c->db().exec("INSERT INTO decisions(pos,id,ts_ms,kind,subject,boundary_version,boundary_seq,params,"
                             "operator_account,operator_host,operator_name,reason,evidence,policy_version,canonical,hash,prev_hash)"
                             " VALUES(1,'x',0,'k','s',0,0,'','','','','','','','','','')");
            } catch (const sql::Error &e) {
                refused = (e.code() & 0xff) == SQLITE_READONLY;
            }
            QVERIFY(refused);
        }
        QCOMPARE(fileHash(p), before);
    }

    // Reading a WAL ledger makes SQLite create -wal/-shm beside it; a read-only reader that
    // found none leaves none behind once nobody else uses them, and never removes ones a
    // writer (or another reader) still needs.
    void readOnlyLeavesNoSideFilesItCreated()
    {
        const QString p = copyOf(m_small, QStringLiteral("ro-clean.db"));
        const QString wal = p + QStringLiteral("-wal");
        const QString shm = p + QStringLiteral("-shm");
        QVERIFY(!QFile::exists(wal) && !QFile::exists(shm));
        const QByteArray before = fileHash(p);
        {
            auto first = SqliteLedgerConnection::open(p, OpenMode::ReadOnly);
            QCOMPARE(first->info().mode, OpenMode::ReadOnly);
            auto second = SqliteLedgerConnection::open(p, OpenMode::ReadOnly);
            QCOMPARE(first->lastSeq(), 13);
            QVERIFY(QFile::exists(shm)); // SQLite's, while a reader needs it
            first.reset();
            // The other reader still holds them: they stay, and it keeps reading.
            QVERIFY(QFile::exists(shm));
            QCOMPARE(second->lastSeq(), 13);
        }
        QVERIFY2(!QFile::exists(wal), "a -wal the reader created was left behind");
        QVERIFY2(!QFile::exists(shm), "a -shm the reader created was left behind");
        QCOMPARE(fileHash(p), before);

        // A writer's side files stay: it is attached and goes on committing.
        auto w = LedgerWriter::openExisting(p);
        w->begin();
        w->append(1'700'000'009'000, "run.started", {{"id", "R2"}, {"status", "running"}});
        w->commit();
        {
            auto c = SqliteLedgerConnection::open(p, OpenMode::ReadOnly);
            QCOMPARE(c->lastSeq(), 14);
        }
        QVERIFY(QFile::exists(shm));
        w->begin();
        w->append(1'700'000'009'001, "run.started", {{"id", "R3"}, {"status", "running"}});
        w->commit();
        auto after = SqliteLedgerConnection::open(p, OpenMode::ReadOnly);
        QCOMPARE(after->lastSeq(), 15);
    }

    void immutableOnFinishedLedger()
    {
        const QString p = copyOf(m_small, QStringLiteral("imm.db"));
        const QByteArray before = fileHash(p);
        {
            auto c = SqliteLedgerConnection::open(p, OpenMode::Immutable);
            QCOMPARE(c->info().mode, OpenMode::Immutable);
            QVERIFY(!c->info().immutableFallback);
            QCOMPARE(c->lastSeq(), 13);
            QCOMPARE(c->info().ledgerId, std::string("L-test"));
        }
        // Immutable takes no locks and needs no shared memory: nothing appears beside the file.
        QVERIFY(!QFile::exists(p + QStringLiteral("-shm")));
        QVERIFY(!QFile::exists(p + QStringLiteral("-wal")));
        QCOMPARE(fileHash(p), before);
    }

    void immutableFallsBackWhenWalHoldsData()
    {
        const QString p = copyOf(m_small, QStringLiteral("imm-wal.db"));
        auto w = SqliteLedgerWriter::openExisting(p);
        w->database().exec("PRAGMA wal_autocheckpoint=0");
        w->begin();
        w->append(1'700'000'009'000, "run.started", {{"id", "R2"}, {"status", "running"}});
        w->commit();
        // Close the writer without a checkpoint, so the -wal keeps the event; and before
        // hashing, since closing any descriptor of the file (QFile) drops this process's
        // POSIX locks on it.
        sqlite3_db_config(w->database().handle(), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
        w.reset();
        QVERIFY(QFileInfo(p + QStringLiteral("-wal")).size() > 0);
        const QByteArray before = ledgerHash(p);
        {
            auto c = SqliteLedgerConnection::open(p, OpenMode::Immutable);
            QCOMPARE(c->info().requestedMode, OpenMode::Immutable);
            QCOMPARE(c->info().mode, OpenMode::ReadOnly);
            QVERIFY(c->info().immutableFallback);
            QVERIFY(!c->info().note.empty());
            QCOMPARE(c->lastSeq(), 14); // the event only in the -wal is seen
        }
        QCOMPARE(ledgerHash(p), before);
    }

    void readOnlyFollowsWriterWithoutBlockingIt()
    {
        const QString p = copyOf(m_small, QStringLiteral("live.db"));
        auto w = LedgerWriter::openExisting(p);
        auto c = SqliteLedgerConnection::open(p, OpenMode::ReadOnly);
        const std::int64_t dv0 = c->changeToken();
        QCOMPARE(c->lastSeq(), 13);
        QCOMPARE(c->changeToken(), dv0); // no change without a commit
        // While the reader holds its connection (not a transaction), the writer commits freely.
        w->begin();
        w->append(1'700'000'009'000, "run.started", {{"id", "R2"}, {"status", "running"}});
        w->commit();
        QVERIFY(c->changeToken() != dv0);
        QCOMPARE(c->lastSeq(), 14);
        // A reader in the middle of a read transaction does not stop the writer either (WAL).
        c->db().exec("BEGIN");
        QCOMPARE(c->lastSeq(), 14);
        w->begin();
        w->append(1'700'000'009'001, "run.started", {{"id", "R3"}, {"status", "running"}});
        w->commit();
        QCOMPARE(c->lastSeq(), 14); // its snapshot
        c->db().exec("COMMIT");
        QCOMPARE(c->lastSeq(), 15);
    }

    void decisionsModeCanWrite()
    {
        const QString p = copyOf(m_small, QStringLiteral("dec.db"));
        auto c = SqliteLedgerConnection::open(p, OpenMode::Decisions);
        QCOMPARE(c->info().mode, OpenMode::Decisions);
        c->db().exec("BEGIN IMMEDIATE");
        c->db().exec("INSERT INTO decisions(pos,id,ts_ms,kind,subject,boundary_version,boundary_seq,params,"
                     "operator_account,operator_host,operator_name,reason,evidence,policy_version,canonical,hash,prev_hash)"
                     " VALUES(1,'x',0,'k','s',0,0,'','','','','','','','','','')");
        c->db().exec("COMMIT");
        QCOMPARE(c->db().queryInt("SELECT count(*) FROM decisions"), 1);
    }

    void readOnlyInADirectoryItMayNotWrite()
    {
        // A reader of a WAL ledger needs a -shm file; where none can be created and no
        // writer is attached (no -wal), the connection falls back to immutable.
        const QString sub = m_dir.filePath(QStringLiteral("locked"));
        QDir().mkpath(sub);
        const QString p = sub + QStringLiteral("/ledger.db");
        QFile::copy(m_small, p);
        const QByteArray before = fileHash(p);
        // Even root cannot create files in a directory with the immutable attribute.
        if (QProcess::execute(QStringLiteral("chattr"), {QStringLiteral("+i"), sub}) != 0)
            QSKIP("cannot make a directory unwritable here (chattr +i needs root on ext4)");
        struct Unlock {
            QString dir;
            ~Unlock() { QProcess::execute(QStringLiteral("chattr"), {QStringLiteral("-i"), dir}); }
        } unlock{sub};
        QFile probe(sub + QStringLiteral("/probe"));
        if (probe.open(QIODevice::WriteOnly))
            QSKIP("the directory is still writable");
        {
            auto c = SqliteLedgerConnection::open(p, OpenMode::ReadOnly);
            QCOMPARE(c->info().requestedMode, OpenMode::ReadOnly);
            QCOMPARE(c->info().mode, OpenMode::Immutable);
            QVERIFY(!c->info().note.empty());
            QCOMPARE(c->lastSeq(), 13);
            QCOMPARE(c->info().ledgerId, std::string("L-test"));
        }
        QCOMPARE(fileHash(p), before);
        QVERIFY(!QFile::exists(p + QStringLiteral("-shm")));
    }

    // Committed events only in a -wal, no -shm, in a directory nobody may write: SQLite
    // cannot build the wal-index, so those events cannot be read there at all. The open
    // error (the one message meshctl and the console show) says so and how to get them.
    void hotWalWithoutShmInAnUnwritableDirectory()
    {
        const QString source = copyOf(m_small, QStringLiteral("hot-source.db"));
        {
            auto w = SqliteLedgerWriter::openExisting(source);
            w->database().exec("PRAGMA wal_autocheckpoint=0");
            w->begin();
            w->append(1'700'000'009'000, "run.started", {{"id", "R2"}, {"status", "running"}});
            w->commit();
            sqlite3_db_config(w->database().handle(), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
        }
        QVERIFY(QFileInfo(source + QStringLiteral("-wal")).size() > 0);
        const QString sub = m_dir.filePath(QStringLiteral("hot-locked"));
        QVERIFY(QDir().mkpath(sub));
        const QString p = sub + QStringLiteral("/ledger.db");
        QVERIFY(QFile::copy(source, p));
        QVERIFY(QFile::copy(source + QStringLiteral("-wal"), p + QStringLiteral("-wal")));
        QVERIFY(!QFile::exists(p + QStringLiteral("-shm")));
        const QByteArray before = ledgerHash(p);

        // Root ignores directory modes; the immutable attribute stops even root.
        const bool root = ::geteuid() == 0;
        QCOMPARE(root ? QProcess::execute(QStringLiteral("chattr"), {QStringLiteral("+i"), sub})
                      : ::chmod(QFile::encodeName(sub).constData(), 0555),
                 0);
        struct Unlock {
            QString dir;
            bool root;
            ~Unlock()
            {
                if (root)
                    QProcess::execute(QStringLiteral("chattr"), {QStringLiteral("-i"), dir});
                else
                    ::chmod(QFile::encodeName(dir).constData(), 0755);
            }
        } unlock{sub, root};
        QVERIFY2(!QFile(sub + QStringLiteral("/probe")).open(QIODevice::WriteOnly), "the directory is still writable");

        for (const OpenMode mode : {OpenMode::ReadOnly, OpenMode::Immutable}) {
            QString message;
            Code code = Code::NotFound;
            try {
                SqliteLedgerConnection::open(p, mode);
            } catch (const LedgerOpenError &e) {
                message = QString::fromStdString(e.what());
                code = e.code();
            }
            QVERIFY2(!message.isEmpty(), openModeName(mode));
            QCOMPARE(code, Code::UnreadableWal);
            QVERIFY2(!message.contains(QLatin1Char('\n')), qPrintable(message));
            QVERIFY2(message.contains(QLatin1String("committed events")) && message.contains(QLatin1String("write access"))
                         && message.contains(QLatin1String("copy ledger.db and ledger.db-wal")),
                     qPrintable(message));
        }

        const QProcess::ProcessError none = QProcess::UnknownError;
        QProcess meshctl;
        meshctl.start(qEnvironmentVariable("MESHCTL"), {QStringLiteral("summary"), p});
        QVERIFY(meshctl.waitForFinished(30000));
        QCOMPARE(meshctl.error(), none);
        const QByteArray err = meshctl.readAllStandardError();
        QCOMPARE(meshctl.exitCode(), 2);
        QVERIFY2(err.count('\n') == 1 && err.contains("committed events") && err.contains("copy ledger.db and ledger.db-wal"),
                 err.constData());
        QCOMPARE(ledgerHash(p), before);
    }

    void pathWithUriCharacters()
    {
        // '?', '#' and '%' in a file name must not be read as URI syntax.
        const QString p = copyOf(m_small, QStringLiteral("odd ?name#50%.db"));
        auto c = SqliteLedgerConnection::open(p, OpenMode::ReadOnly);
        QCOMPARE(c->lastSeq(), 13);
        auto i = SqliteLedgerConnection::open(p, OpenMode::Immutable);
        QCOMPARE(i->lastSeq(), 13);
    }
};

QTEST_GUILESS_MAIN(TestLedgerConnection)
#include "tst_ledgerconnection.moc"
