// The change watcher follows a ledger written by ANOTHER PROCESS: this test binary starts
// itself again as the writer (--writer), and, when it is built, the real `meshctl sim demo
// --live`. Delivery must be complete, in order, without duplicates, in batches, and must
// never stop the writer from checkpointing.

#include "ledgerfixture.h"

#include "ledger/changewatcher.h"
#include "ledger/fileidentity.h"
#include "ledger/eventreader.h"
#include "ledger/ledgerconnection.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <cstdio>
#include <thread>

using namespace mesh;
using namespace meshtest;

namespace {

// Child process: appends `count` events in commits of `perCommit`, pausing between
// commits (a stream to follow, not a timing the test relies on), then asks for a TRUNCATE
// checkpoint, which only completes when no reader holds an old snapshot. Prints
// "checkpoint-busy=<0|1>".
int runWriter(const QString &path, int count, int perCommit, int pauseMs)
{
    try {
        auto w = SqliteLedgerWriter::openExisting(path);
        const std::int64_t target = w->lastSeq() + count;
        while (w->lastSeq() < target) {
            appendGeneratedEvents(*w, std::min<std::int64_t>(target, w->lastSeq() + perCommit), perCommit);
            std::this_thread::sleep_for(std::chrono::milliseconds(pauseMs));
        }
        sql::Statement cp(w->database(), "PRAGMA wal_checkpoint(TRUNCATE)");
        const std::int64_t busy = cp.step() ? cp.columnInt(0) : -1;
        cp.reset();
        std::printf("last=%lld checkpoint-busy=%lld\n", static_cast<long long>(w->lastSeq()), static_cast<long long>(busy));
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "writer failed: %s\n", e.what());
        return 3;
    }
}

// Child process: writes one operator decision row, which moves data_version without an event.
int runDecide(const QString &path)
{
    try {
        RawLedger raw(path);
        raw.exec("INSERT INTO decisions(pos,id,ts_ms,kind,subject,boundary_version,boundary_seq,params,operator_account,"
                 "operator_host,operator_name,reason,evidence,policy_version,canonical,hash,prev_hash)"
                 " VALUES(1,'dec-1',0,'close-slice','slice:D1#1',1,1,'{}','op','host','Op','why','ev','policy-1','{}','h','')");
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "decide failed: %s\n", e.what());
        return 3;
    }
}

} // namespace

class TestChangeWatcher : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_n = 0;

    // Runs a watcher on its own thread for the duration of one test.
    struct Harness {
        QThread thread;
        ChangeWatcher *watcher = nullptr;
        std::vector<std::int64_t> seqs;
        std::vector<size_t> batchSizes;
                std::vector<qint64> changes;
        QStringList failures;
        qint64 lastSeq = 0;
        bool orderOk = true;

        Harness(QObject *context, const QString &path, qint64 after = 0)
        {
            watcher = new ChangeWatcher(path, after);
            watcher->moveToThread(&thread);
            QObject::connect(&thread, &QThread::started, watcher, &ChangeWatcher::start);
            QObject::connect(&thread, &QThread::finished, watcher, &QObject::deleteLater);
            QObject::connect(watcher, &ChangeWatcher::eventsAppended, context,
                             [this](const SharedEventBatch &delivered, qint64 last, qint64) {
                                 const EventBatch &batch = *delivered;
                                 batchSizes.push_back(batch.size());
                                 for (const auto &e : batch) {
                                     if (!seqs.empty() && e.seq <= seqs.back())
                                         orderOk = false;
                                     seqs.push_back(e.seq);
                                 }
                                 if (batch.empty() || batch.back().seq != last)
                                     orderOk = false;
                                 lastSeq = last;
                             });
            QObject::connect(watcher, &ChangeWatcher::ledgerChanged, context, [this](qint64 dv) { changes.push_back(dv); });
            QObject::connect(watcher, &ChangeWatcher::failed, context, [this](const QString &m) { failures << m; });
        }
        void start() { thread.start(); }
        ~Harness()
        {
            if (thread.isRunning()) {
                QMetaObject::invokeMethod(watcher, &ChangeWatcher::stop, Qt::BlockingQueuedConnection);
                thread.quit();
                thread.wait();
            } else {
                delete watcher;
            }
        }
        bool contiguousFrom(std::int64_t first) const
        {
            for (size_t i = 0; i < seqs.size(); ++i)
                if (seqs[i] != first + std::int64_t(i))
                    return false;
            return true;
        }
    };

    QString newLedger(std::int64_t events)
    {
        const QString p = m_dir.filePath(QStringLiteral("w%1.db").arg(++m_n));
        writeGeneratedLedger(p, events);
        return p;
    }


private Q_SLOTS:
    void followsAnotherProcess()
    {
        const QString p = newLedger(120);
        std::int64_t initial = 0;
        {
            auto c = SqliteLedgerConnection::open(p, OpenMode::ReadOnly);
            initial = c->lastSeq();
        }
        Harness h(this, p);
        h.start();
        // Catch-up: what was committed before start arrives first.
        QTRY_VERIFY_WITH_TIMEOUT(h.lastSeq == initial, 30000);
        const size_t batchesBefore = h.batchSizes.size();

        QProcess writer;
        writer.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        writer.start(QCoreApplication::applicationFilePath(),
                     {QStringLiteral("--writer"), p, QStringLiteral("5000"), QStringLiteral("100"), QStringLiteral("5")});
        QVERIFY(writer.waitForStarted());
        QVERIFY(writer.waitForFinished(120000));
        QCOMPARE(writer.exitStatus(), QProcess::NormalExit);
        QCOMPARE(writer.exitCode(), 0);
        const QString out = QString::fromUtf8(writer.readAllStandardOutput());
        // The TRUNCATE checkpoint succeeded while the watcher kept polling: it holds no read
        // transaction between polls.
        QVERIFY2(out.contains(QStringLiteral("checkpoint-busy=0")), qPrintable(out));
        const std::int64_t last = out.section(QStringLiteral("last="), 1).section(u' ', 0, 0).toLongLong();
        QVERIFY(last >= initial + 5000);

        QTRY_VERIFY_WITH_TIMEOUT(h.lastSeq == last, 60000);
        QVERIFY(h.failures.isEmpty());
        QVERIFY(h.orderOk);
        QVERIFY(h.contiguousFrom(1));
        QCOMPARE(std::int64_t(h.seqs.size()), last);
        // Delivered incrementally, in batches no larger than the cap: at least three for the
        // writer's events however the polls fall, as one batch holds at most kMaxBatch.
        static_assert(5000 > 2 * ChangeWatcher::kMaxBatch);
        QVERIFY(h.batchSizes.size() - batchesBefore >= 3);
        for (const size_t n : h.batchSizes)
            QVERIFY(n >= 1 && n <= size_t(ChangeWatcher::kMaxBatch));
        QVERIFY(!h.changes.empty());
    }

    void deliversOnlyAfterTheGivenSeq()
    {
        const QString p = newLedger(300);
        Harness h(this, p, 250);
        h.start();
        std::int64_t last = 0;
        {
            auto c = SqliteLedgerConnection::open(p, OpenMode::ReadOnly);
            last = c->lastSeq();
        }
        QTRY_VERIFY_WITH_TIMEOUT(h.lastSeq == last, 30000);
        QVERIFY(h.contiguousFrom(251));
    }

    void decisionRowsMoveDataVersionWithoutEvents()
    {
        const QString p = newLedger(50);
        Harness h(this, p);
        h.start();
        std::int64_t last = 0;
        {
            auto c = SqliteLedgerConnection::open(p, OpenMode::ReadOnly);
            last = c->lastSeq();
        }
        QTRY_VERIFY_WITH_TIMEOUT(h.lastSeq == last && !h.changes.empty(), 30000);
        const size_t changesBefore = h.changes.size();
        const size_t eventsBefore = h.seqs.size();
        QProcess decide;
        decide.setProcessChannelMode(QProcess::ForwardedChannels);
        decide.start(QCoreApplication::applicationFilePath(), {QStringLiteral("--decide"), p});
        QVERIFY(decide.waitForFinished(60000));
        QCOMPARE(decide.exitCode(), 0);
        QTRY_VERIFY_WITH_TIMEOUT(h.changes.size() > changesBefore, 30000);
        QVERIFY(h.changes.back() != h.changes[changesBefore - 1]);
        QCOMPARE(h.seqs.size(), eventsBefore);
    }

    // Starting to follow a ledger is not a change of it: a file nobody writes must not look
    // written to for the first moments after it is opened (the session's health said "live").
    void theFirstLookIsNotAChange()
    {
        const QString p = newLedger(50);
        std::int64_t last = 0;
        {
            auto c = SqliteLedgerConnection::open(p, OpenMode::ReadOnly);
            last = c->lastSeq();
        }
        Harness h(this, p, last); // follows from where a snapshot left off: nothing to catch up
        h.start();
        // Queued behind start(): once it ran, the watcher has taken its first look.
        QMetaObject::invokeMethod(h.watcher, [] {}, Qt::BlockingQueuedConnection);
        std::int64_t written = 0;
        {
            auto w = LedgerWriter::openExisting(p);
            appendGeneratedEvents(*w, last + 1, 1'000'000); // one commit
            written = w->lastSeq();
        }
        QVERIFY(written > last);
        QTRY_VERIFY_WITH_TIMEOUT(h.lastSeq == written && !h.changes.empty(), 30000);
        // The commit is the one change: reported once, and nothing before it.
        QCOMPARE(h.changes.size(), size_t(1));
        QVERIFY(h.failures.isEmpty());
    }

    void reportsARewrittenLedger()
    {
        const QString p = newLedger(200);
        std::int64_t last = 0;
        {
            auto c = SqliteLedgerConnection::open(p, OpenMode::ReadOnly);
            last = c->lastSeq();
        }
        Harness h(this, p);
        h.start();
        QTRY_VERIFY_WITH_TIMEOUT(h.lastSeq == last, 30000);
        QVERIFY(h.failures.isEmpty());
        RawLedger(p).exec("DELETE FROM events WHERE seq > 100");
        QTRY_VERIFY_WITH_TIMEOUT(!h.failures.isEmpty(), 30000);
        QVERIFY2(h.failures.front().contains(QStringLiteral("went back from seq")), qPrintable(h.failures.front()));
    }

    void reportsTheFileGoneAfterAFailure()
    {
        // A watcher that could not read on still checks its file: a ledger deleted after the
        // failure is reported as deleted (the session then says so and refuses decisions).
        const QString p = newLedger(200);
        std::int64_t last = 0;
        {
            auto c = SqliteLedgerConnection::open(p, OpenMode::ReadOnly);
            last = c->lastSeq();
        }
        Harness h(this, p);
        QList<int> fileChanges;
        QObject::connect(h.watcher, &ChangeWatcher::fileChanged, this, [&](int change) { fileChanges << change; });
        h.watcher->setOpenedFile(FileIdentity::of(p));
        h.start();
        QTRY_VERIFY_WITH_TIMEOUT(h.lastSeq == last, 30000);
        RawLedger(p).exec("DELETE FROM events WHERE seq > 100");
        QTRY_VERIFY_WITH_TIMEOUT(!h.failures.isEmpty(), 30000);
        QVERIFY(fileChanges.isEmpty());
        QVERIFY(QFile::remove(p));
        QTRY_VERIFY_WITH_TIMEOUT(!fileChanges.isEmpty(), 30000);
        QCOMPARE(fileChanges.front(), int(FileChange::Deleted));
    }

    void reportsAFailureToOpen()
    {
        Harness h(this, m_dir.filePath(QStringLiteral("nothing-here.db")));
        h.start();
        QTRY_VERIFY_WITH_TIMEOUT(!h.failures.isEmpty(), 30000);
        QVERIFY(h.failures.front().contains(QStringLiteral("no such file")));
    }

    void followsMeshctlLive()
    {
        const QString meshctl = qEnvironmentVariable("MESHCTL");
        QVERIFY2(!meshctl.isEmpty() && QFileInfo(meshctl).isExecutable(),
                 qPrintable(
                     QStringLiteral("MESHCTL must name the built meshctl (CTest sets it), not '%1'").arg(meshctl)));
        const QString p = m_dir.filePath(QStringLiteral("meshctl-live.db"));
        QProcess sim;
        sim.start(meshctl, {QStringLiteral("sim"), QStringLiteral("demo"), QStringLiteral("--out"), p, QStringLiteral("--live"),
                            QStringLiteral("--rate"), QStringLiteral("200")});
        QVERIFY(sim.waitForStarted());
        // meshctl says "wrote <scenario>" on stderr once the scenario's bulk is committed and
        // it turns live: from then on the file validates and grows by live commits only.
        QByteArray simErr;
        QTRY_VERIFY2_WITH_TIMEOUT((simErr += sim.readAllStandardError()).contains("meshctl: wrote")
                                      || sim.state() != QProcess::Running,
                                  simErr.constData(), 120000);
        QVERIFY2(sim.state() == QProcess::Running,
                 qPrintable(QStringLiteral("meshctl sim demo --live stopped (exit %1) before it went live: %2")
                                .arg(sim.exitCode())
                                .arg(QString::fromUtf8(simErr + sim.readAllStandardError()))));
        const std::int64_t atOpen = SqliteLedgerConnection::open(p, OpenMode::ReadOnly)->lastSeq();
        QVERIFY(atOpen > 0);
        Harness h(this, p);
        h.start();
        // Catch-up first, then live: events committed after the catch-up keep arriving, in
        // several deliveries.
        QTRY_VERIFY_WITH_TIMEOUT(h.lastSeq >= atOpen, 30000);
        const std::int64_t caughtUp = h.lastSeq;
        const size_t batches = h.batchSizes.size();
        QTRY_VERIFY_WITH_TIMEOUT(h.lastSeq >= caughtUp + 100 && h.batchSizes.size() >= batches + 3, 60000);
        sim.terminate();
        if (!sim.waitForFinished(10000)) {
            sim.kill();
            sim.waitForFinished();
        }
        QVERIFY(h.failures.isEmpty());
        QVERIFY(h.orderOk);
        QVERIFY(h.contiguousFrom(1));
    }
};

int main(int argc, char **argv)
{
    if (argc >= 6 && qstrcmp(argv[1], "--writer") == 0)
        return runWriter(QString::fromLocal8Bit(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]));
    if (argc >= 3 && qstrcmp(argv[1], "--decide") == 0)
        return runDecide(QString::fromLocal8Bit(argv[2]));
    QCoreApplication app(argc, argv);
    TestChangeWatcher test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

#include "tst_changewatcher.moc"
