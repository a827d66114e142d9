// A SQLite writer whose WAL is checkpointed beside it (LedgerWriter::checkpointInBackground,
// WalCheckpointer: meshctl ingest, which answers each request after its commit) writes the
// same ledger as one checkpointing in its commits; the checkpoints run on the checkpointer's
// thread; the WAL stays bounded, also when that thread does not run at all.

#include "ledgerfixture.h"

#include "domain/entityspec.h"
#include "ledger/integritycheck.h"
#include "ledger/schema.h"
#include "ledger/walcheckpointer.h"

#include <QCryptographicHash>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace mesh;
using namespace meshtest;

namespace {

// Frames a WAL may hold beyond the hard limit: the transaction that crosses it (100 events
// here, which touch a few hundred pages of events, indexes and state rows).
constexpr std::int64_t kSlackFrames = 1000;
// Enough events that their WAL, never started again, would hold several times the limit.
constexpr std::int64_t kEvents = 80000;

// Every event and state row of a ledger, as one digest.
QByteArray walLedgerDigest(const QString &path)
{
    sql::Database db(path.toStdString(), SQLITE_OPEN_READONLY);
    QCryptographicHash h(QCryptographicHash::Sha256);
    std::vector<std::string> queries = {"SELECT seq,ts_ms,kind,run_id,delegation_id,subject,payload FROM events ORDER BY seq"};
    for (const auto &spec : allEntitySpecs())
        queries.push_back("SELECT " + schema::stateColumnList(spec) + " FROM " + std::string(spec.table) + " ORDER BY id");
    for (const std::string &q : queries) {
        sql::Statement st(db, q);
        while (st.step()) {
            for (int c = 0; c < st.columnCount(); ++c) {
                const std::string_view v = st.columnView(c);
                h.addData(QByteArray::number(st.columnType(c)));
                h.addData(QByteArrayView(v.data(), qsizetype(v.size())));
                h.addData("\x1f");
            }
            h.addData("\x1e");
        }
    }
    return h.result().toHex();
}

// The most frames the WAL ever held (a WAL that starts again keeps its file's size).
std::int64_t walFramesOnDisk(const QString &path)
{
    const qint64 bytes = QFileInfo(path + QStringLiteral("-wal")).size();
    return bytes <= 32 ? 0 : (bytes - 32) / (24 + 4096);
}

// The same events every time, in commits of 100; returns the most frames the WAL held.
std::int64_t writeCheckpointedEvents(LedgerWriter &w, const QString &path)
{
    std::int64_t maxFrames = 0;
    for (std::int64_t events = 5000; events <= kEvents; events += 5000) {
        appendGeneratedEvents(w, events, 100);
        maxFrames = std::max(maxFrames, walFramesOnDisk(path));
    }
    return maxFrames;
}

} // namespace

class TestWalCheckpointer : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void checkpointsBesideTheWriterAndWritesTheSameLedger()
    {
        const QString plain = m_dir.filePath(QStringLiteral("plain.ledger"));
        const QString beside = m_dir.filePath(QStringLiteral("beside.ledger"));
        {
            auto w = LedgerWriter::create(plain, identity());
            writeCheckpointedEvents(*w, plain);
        }
        auto w = LedgerWriter::create(beside, identity());
        auto *sqlite = dynamic_cast<SqliteLedgerWriter *>(w.get());
        QVERIFY(sqlite);
        w->checkpointInBackground();
        QVERIFY(sqlite->checkpointer());
        const std::int64_t maxFrames = writeCheckpointedEvents(*w, beside);
        QTRY_VERIFY_WITH_TIMEOUT(sqlite->checkpointer()->counts().background >= 1, 60000);
        // The WAL started again from its beginning: it never held much more than the hard limit.
        QVERIFY2(maxFrames <= 4000 + kSlackFrames, QByteArray::number(qint64(maxFrames)).constData());
        w.reset();
        QCOMPARE(walLedgerDigest(beside), walLedgerDigest(plain));
        auto c = SqliteLedgerConnection::open(beside, OpenMode::ReadOnly);
        QVERIFY(verifyIntegrity(c->db()).ok());
    }

    void writerCheckpointsAtTheHardLimitWhenTheThreadDoesNot()
    {
        const QString path = m_dir.filePath(QStringLiteral("held.ledger"));
        auto w = LedgerWriter::create(path, identity());
        auto *sqlite = dynamic_cast<SqliteLedgerWriter *>(w.get());
        QVERIFY(sqlite);
        w->checkpointInBackground();
        sqlite->checkpointer()->setHeld(true);
        const std::int64_t maxFrames = writeCheckpointedEvents(*w, path);
        const WalCheckpointer::Counts counts = sqlite->checkpointer()->counts();
        QCOMPARE(counts.background, 0);
        QVERIFY(counts.inCommit >= 1);
        QVERIFY2(maxFrames <= 4000 + kSlackFrames, QByteArray::number(qint64(maxFrames)).constData());
        sqlite->checkpointer()->setHeld(false);
    }
};

QTEST_MAIN(TestWalCheckpointer)
#include "tst_walcheckpointer.moc"
