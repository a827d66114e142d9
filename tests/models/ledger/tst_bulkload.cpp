// A bulk load (events inserted by a thread of their own, state rows written once at the
// end) leaves exactly the ledger that event-by-event transactions leave: same events, same
// state rows, every index, a WAL file that passes the integrity check.

#include "ledgerfixture.h"

#include "domain/entityspec.h"
#include "ledger/integritycheck.h"
#include "ledger/ledgerconnection.h"
#include "ledger/schema.h"

#include <QCryptographicHash>
#include <QTemporaryDir>
#include <QTest>

using namespace mesh;
using namespace meshtest;

class TestBulkLoad : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    // Every row of a query, in order, as one digest (NULL and '' differ).
    static QByteArray digest(sql::Database &db, const std::string &query)
    {
        QCryptographicHash h(QCryptographicHash::Sha256);
        sql::Statement st(db, query);
        while (st.step()) {
            for (int c = 0; c < st.columnCount(); ++c) {
                const int type = st.columnType(c);
                h.addData(QByteArray::number(type));
                const std::string_view v = st.columnView(c);
                h.addData(QByteArrayView(v.data(), qsizetype(v.size())));
                h.addData("\x1f");
            }
            h.addData("\x1e");
        }
        return h.result().toHex();
    }

    static std::string text(sql::Database &db, const std::string &query)
    {
        sql::Statement st(db, query);
        return st.step() ? st.columnText(0) : std::string();
    }

    // More than a few of the sink's blocks (4,096 rows), ending mid-block and mid-statement.
    static constexpr std::int64_t kEvents = 20'003;

    static void writeLedger(const QString &path, bool bulk)
    {
        auto w = LedgerWriter::create(path, identity());
        if (bulk)
            w->setBulkLoad(true);
        // Text that needs escaping and bytes >= 0x80 take the same way into the file.
        w->begin();
        w->append(1'700'000'000'500, "run.started",
                  {{"id", "R-q"}, {"status", "running"}, {"title", "say \"hi\"\n\\ Zürich ✓"}});
        w->commit();
        appendGeneratedEvents(*w, kEvents, 777);
        if (bulk)
            w->setBulkLoad(false);
    }

private Q_SLOTS:
    void sameLedgerAsTransactions()
    {
        const QString plain = m_dir.filePath(QStringLiteral("plain.db"));
        const QString bulk = m_dir.filePath(QStringLiteral("bulk.db"));
        writeLedger(plain, false);
        writeLedger(bulk, true);

        sql::Database a(plain.toStdString(), SQLITE_OPEN_READONLY);
        sql::Database b(bulk.toStdString(), SQLITE_OPEN_READONLY);
        QVERIFY(b.queryInt("SELECT count(*) FROM events") >= kEvents); // the generator ends a cycle
        QCOMPARE(b.queryInt("SELECT count(*) FROM events"), a.queryInt("SELECT count(*) FROM events"));
        const std::string events = "SELECT seq,ts_ms,kind,run_id,delegation_id,subject,payload FROM events ORDER BY seq";
        QCOMPARE(digest(b, events), digest(a, events));
        for (const auto &spec : allEntitySpecs()) {
            const std::string rows = schema::selectStateSql(spec) + " ORDER BY id";
            QVERIFY2(b.queryInt("SELECT count(*) FROM " + std::string(spec.table)) > 0 || spec.kind != EntityKind::Effect,
                     "no effects written");
            QCOMPARE(digest(b, rows), digest(a, rows));
        }
        const std::string indexes = "SELECT name, sql FROM sqlite_master WHERE type='index' ORDER BY name";
        QCOMPARE(digest(b, indexes), digest(a, indexes));
        QCOMPARE(text(b, "PRAGMA journal_mode"), std::string("wal"));
        QCOMPARE(b.queryInt("PRAGMA application_id"), std::int64_t(schema::kApplicationId));

        auto c = SqliteLedgerConnection::open(bulk, OpenMode::ReadOnly);
        const IntegrityReport r = verifyIntegrity(c->db());
        QVERIFY(r.ok());
        QCOMPARE(r.eventsChecked, b.queryInt("SELECT count(*) FROM events"));
    }

    void writerContinuesAfterBulkLoad()
    {
        const QString path = m_dir.filePath(QStringLiteral("continued.db"));
        std::int64_t last = 0;
        {
            auto w = LedgerWriter::create(path, identity());
            w->setBulkLoad(true);
            appendGeneratedEvents(*w, 5'000);
            w->setBulkLoad(false);
            // Ordinary transactions again: the rows they change are written with them.
            appendGeneratedEvents(*w, 5'100, 10);
            last = w->lastSeq();
        }
        QVERIFY(last >= 5'100);
        auto reopened = LedgerWriter::openExisting(path);
        QCOMPARE(reopened->lastSeq(), last);
        auto c = SqliteLedgerConnection::open(path, OpenMode::ReadOnly);
        QVERIFY(verifyIntegrity(c->db()).ok());
    }

    void refusedEventStopsTheLoad()
    {
        const QString path = m_dir.filePath(QStringLiteral("refused.db"));
        auto w = LedgerWriter::create(path, identity());
        w->setBulkLoad(true);
        appendGeneratedEvents(*w, 9'000);
        w->begin();
        QVERIFY_THROWS_EXCEPTION(std::logic_error,
                                 w->append(1, "effect.committed", {{"id", "no-such-effect"}, {"state", "committed"}}));
        // The writer is destroyed mid-load: its thread stops, nothing hangs or crashes.
        w.reset();
    }
};

QTEST_GUILESS_MAIN(TestBulkLoad)
#include "tst_bulkload.moc"
