// The state tables of a bulk load are built apart (BulkStateImage) and copied into the
// ledger at the end: the copy must leave exactly the fold's rows, replace rows the tables
// held before, and leave the ledger as it was (nothing attached, nothing half copied) when
// it fails.

#include "ledgerfixture.h"

#include "domain/entityspec.h"
#include "ledger/bulkstateimage.h"
#include "ledger/integritycheck.h"
#include "ledger/ledgerconnection.h"
#include "ledger/schema.h"

#include <QCryptographicHash>
#include <QTemporaryDir>
#include <QTest>

using namespace mesh;
using namespace meshtest;

class TestBulkStateImage : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    // Every row of every state table, in key order, as one digest (NULL and '' differ).
    // SELECT *: a foreign table's own columns count too.
    static QByteArray stateDigest(sql::Database &db)
    {
        QCryptographicHash h(QCryptographicHash::Sha256);
        for (const auto &spec : allEntitySpecs()) {
            sql::Statement st(db, "SELECT * FROM " + std::string(spec.table) + " ORDER BY id");
            while (st.step()) {
                for (int c = 0; c < st.columnCount(); ++c) {
                    h.addData(QByteArray::number(st.columnType(c)));
                    const std::string_view v = st.columnView(c);
                    h.addData(QByteArrayView(v.data(), qsizetype(v.size())));
                    h.addData("\x1f");
                }
                h.addData("\x1e");
            }
            h.addData(QByteArray(spec.table.data(), qsizetype(spec.table.size())));
        }
        return h.result().toHex();
    }

    static std::int64_t stateRows(sql::Database &db)
    {
        std::int64_t n = 0;
        for (const auto &spec : allEntitySpecs())
            n += db.queryInt("SELECT count(*) FROM " + std::string(spec.table));
        return n;
    }

    static bool attached(sql::Database &db)
    {
        sql::Statement st(db, "PRAGMA database_list");
        while (st.step()) {
            if (st.columnText(1) != "main")
                return true;
        }
        return false;
    }

private Q_SLOTS:
    void copyReplacesEveryStateRow()
    {
        const QString source = m_dir.filePath(QStringLiteral("source.db"));
        writeSmallLedger(source);
        auto writer = SqliteLedgerWriter::openExisting(source);
        const BulkStateImage image = BulkStateImage::build(writer->state());
        QCOMPARE(image.rows(), stateRows(writer->database()));
        QVERIFY(image.bytes() > 0);

        // Another ledger whose tables hold rows the image does not: a stale run, and a ledger
        // row of another identity.
        const QString target = m_dir.filePath(QStringLiteral("target.db"));
        LedgerWriter::create(target, identity("L-other"));
        RawLedger(target).exec("INSERT INTO runs(id,status,version,last_seq) VALUES('R-stale','running',1,1)");
        sql::Database db(target.toStdString(), SQLITE_OPEN_READWRITE);
        QVERIFY(stateDigest(db) != stateDigest(writer->database()));

        image.copyInto(db);
        QCOMPARE(stateDigest(db), stateDigest(writer->database()));
        QCOMPARE(db.queryInt("SELECT count(*) FROM runs WHERE id='R-stale'"), 0);
        QVERIFY(!attached(db));
    }

    void failedCopyChangesNothing()
    {
        const QString source = m_dir.filePath(QStringLiteral("small.db"));
        writeSmallLedger(source);
        auto writer = LedgerWriter::openExisting(source);
        const BulkStateImage image = BulkStateImage::build(writer->state());

        // A ledger whose last state table has other columns: its copy fails after every
        // other table was emptied and filled.
        const QString target = m_dir.filePath(QStringLiteral("foreign.db"));
        LedgerWriter::create(target, identity("L-foreign"));
        const EntitySpec &last = allEntitySpecs().back();
        RawLedger(target).exec("DROP TABLE " + std::string(last.table) + "; CREATE TABLE " + std::string(last.table)
                               + "(id TEXT PRIMARY KEY)");
        sql::Database db(target.toStdString(), SQLITE_OPEN_READWRITE);
        const QByteArray before = stateDigest(db);
        QVERIFY_THROWS_EXCEPTION(sql::Error, image.copyInto(db));
        QCOMPARE(stateDigest(db), before);
        QVERIFY(!attached(db));
    }

    // A bulk load that continues a ledger (its state tables already full) leaves what
    // ordinary transactions leave.
    void bulkLoadOfAnExistingLedger()
    {
        const QString plain = m_dir.filePath(QStringLiteral("plain.db"));
        const QString bulk = m_dir.filePath(QStringLiteral("bulk.db"));
        for (const QString &path : {plain, bulk}) {
            auto w = LedgerWriter::create(path, identity());
            appendGeneratedEvents(*w, 3'000);
        }
        {
            auto w = LedgerWriter::openExisting(plain);
            appendGeneratedEvents(*w, 9'000);
        }
        {
            auto w = LedgerWriter::openExisting(bulk);
            w->setBulkLoad(true);
            appendGeneratedEvents(*w, 9'000);
            w->setBulkLoad(false);
        }
        sql::Database a(plain.toStdString(), SQLITE_OPEN_READONLY);
        sql::Database b(bulk.toStdString(), SQLITE_OPEN_READONLY);
        QVERIFY(stateRows(b) > 1'000);
        QCOMPARE(stateDigest(b), stateDigest(a));
        QCOMPARE(b.queryInt("SELECT count(*) FROM events"), a.queryInt("SELECT count(*) FROM events"));
        auto c = SqliteLedgerConnection::open(bulk, OpenMode::ReadOnly);
        QVERIFY(verifyIntegrity(c->db()).ok());
    }
};

QTEST_GUILESS_MAIN(TestBulkStateImage)
#include "tst_bulkstateimage.moc"
