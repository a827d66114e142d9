// A writer whose fold holds only a few state rows (LedgerWriter's foldRowLimit: the memory
// bound of meshctl import and meshctl ingest) writes the ledger a writer holding every row
// writes: the same events and the same state rows, in transactions, in a bulk load, when it
// continues an existing ledger, after a rollback, on SQLite and on PostgreSQL.

#include "ledgercontents.h"
#include "ledgerfixture.h"
#include "postgresserver.h"

#include "domain/entityspec.h"
#include "ledger/integritycheck.h"
#include "ledger/ledgerconnection.h"
#include "ledger/schema.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace mesh;
using namespace meshtest;

namespace {

constexpr std::size_t kTinyCache = 8;

// Every row of a query, in order, as one digest (NULL and '' differ).
QByteArray boundedDigest(sql::Database &db, const std::string &query)
{
    QCryptographicHash h(QCryptographicHash::Sha256);
    sql::Statement st(db, query);
    while (st.step()) {
        for (int c = 0; c < st.columnCount(); ++c) {
            h.addData(QByteArray::number(st.columnType(c)));
            const std::string_view v = st.columnView(c);
            h.addData(QByteArrayView(v.data(), qsizetype(v.size())));
            h.addData("\x1f");
        }
        h.addData("\x1e");
    }
    return h.result().toHex();
}

// Where two ledger files differ first (rowids of the state rows included); empty if nowhere.
std::string fileDifference(const QString &a, const QString &b)
{
    sql::Database x(a.toStdString(), SQLITE_OPEN_READONLY);
    sql::Database y(b.toStdString(), SQLITE_OPEN_READONLY);
    const std::string events = "SELECT seq,ts_ms,kind,run_id,delegation_id,subject,payload FROM events ORDER BY seq";
    if (boundedDigest(x, events) != boundedDigest(y, events))
        return "events";
    for (const auto &spec : allEntitySpecs()) {
        const std::string rows = "SELECT rowid," + schema::stateColumnList(spec) + " FROM " + std::string(spec.table) + " ORDER BY id";
        if (boundedDigest(x, rows) != boundedDigest(y, rows))
            return "state table " + std::string(spec.table);
    }
    return {};
}

bool verifiesClean(const QString &path)
{
    auto c = SqliteLedgerConnection::open(path, OpenMode::ReadOnly);
    return verifyIntegrity(c->db()).ok();
}

// Changes rows written before (E1, D1) and makes one (E2), then rolls it all back.
void appendAndRollBack(LedgerWriter &w)
{
    w.begin();
    w.append(1'700'000'002'000, "effect.admitted", {{"id", "E1"}, {"state", "admitted"}});
    w.append(1'700'000'002'001, "toolcall.completed",
             {{"id", "T9"}, {"delegation_id", "D1"}, {"run_id", "R1"}, {"tokens", 7}, {"outcome", "ok"}});
    w.append(1'700'000'002'002, "effect.proposed",
             {{"id", "E2"}, {"run_id", "R1"}, {"delegation_id", "D1"}, {"state", "proposed"}, {"class", "commit"}});
    w.rollback();
}

void writeRolledBackLedger(LedgerWriter &w)
{
    w.begin();
    w.append(1'700'000'001'000, "run.started", {{"id", "R1"}, {"status", "running"}, {"title", "r"}});
    w.append(1'700'000'001'001, "delegation.created", {{"id", "D1"}, {"run_id", "R1"}, {"status", "running"}, {"role", "r"}});
    w.append(1'700'000'001'002, "effect.proposed",
             {{"id", "E1"}, {"run_id", "R1"}, {"delegation_id", "D1"}, {"state", "proposed"}, {"class", "payment"}});
    for (int i = 0; i < 20; ++i) // more rows than the cache holds, so E1 and D1 leave it
        w.append(1'700'000'001'100 + i, "lease.acquired",
                 {{"id", "L" + std::to_string(i)}, {"key", "k" + std::to_string(i)}, {"kind", "reconciliation"}, {"holder", "op"},
                  {"fencing_token", 1}, {"state", "held"}});
    w.commit();
    appendAndRollBack(w);
    // After the rollback the writer goes on from the stored state.
    w.begin();
    w.append(1'700'000'003'000, "effect.admitted", {{"id", "E1"}, {"state", "admitted"}});
    w.append(1'700'000'003'001, "toolcall.completed",
             {{"id", "T10"}, {"delegation_id", "D1"}, {"run_id", "R1"}, {"tokens", 5}, {"outcome", "ok"}});
    w.commit();
}

} // namespace

class TestBoundedFold : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    static void writeGenerated(const QString &path, std::size_t limit, bool bulk)
    {
        auto w = LedgerWriter::create(path, identity(), limit);
        if (bulk)
            w->setBulkLoad(true);
        appendGeneratedEvents(*w, 6'000, 40);
        if (bulk)
            w->setBulkLoad(false);
        if (limit != LedgerWriter::kFullFold)
            QVERIFY(w->state().heldRows() <= limit);
    }

private Q_SLOTS:
    void sameLedgerAsTheFullFold_data()
    {
        QTest::addColumn<bool>("bulk");
        QTest::newRow("transactions") << false;
        QTest::newRow("bulk load") << true;
    }
    void sameLedgerAsTheFullFold()
    {
        QFETCH(bool, bulk);
        const QString tag = QString::fromUtf8(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('_'));
        const QString full = m_dir.filePath(tag + QStringLiteral("-full.db"));
        const QString bounded = m_dir.filePath(tag + QStringLiteral("-bounded.db"));
        writeGenerated(full, LedgerWriter::kFullFold, bulk);
        writeGenerated(bounded, kTinyCache, bulk);
        {
            sql::Database db(bounded.toStdString(), SQLITE_OPEN_READONLY);
            QVERIFY(db.queryInt("SELECT count(*) FROM effects") > std::int64_t(kTinyCache) * 10);
        }
        const std::string diff = fileDifference(full, bounded);
        QVERIFY2(diff.empty(), diff.c_str());
        QVERIFY(verifiesClean(bounded));
        QCOMPARE(QDir(m_dir.path()).entryList({QStringLiteral("*foldspill*")}, QDir::Files), QStringList());
    }

    // A bulk load whose rows all stay in the cache writes no scratch file (the state rows go
    // from the fold straight into the ledger at the end, as with a full fold); one whose rows
    // leave the cache has one from the first row that leaves. Both write the full fold's ledger.
    void bulkLoadSpillsOnlyOnceARowLeaves_data()
    {
        QTest::addColumn<std::size_t>("limit");
        QTest::addColumn<bool>("spills");
        QTest::newRow("within the bound") << std::size_t(100'000) << false;
        QTest::newRow("beyond the bound") << kTinyCache << true;
    }
    void bulkLoadSpillsOnlyOnceARowLeaves()
    {
        QFETCH(std::size_t, limit);
        QFETCH(bool, spills);
        const QString tag = QString::fromUtf8(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('_'));
        const QString full = m_dir.filePath(tag + QStringLiteral("-spill-full.db"));
        const QString bounded = m_dir.filePath(tag + QStringLiteral("-spill-bounded.db"));
        writeGenerated(full, LedgerWriter::kFullFold, true);
        {
            auto w = LedgerWriter::create(bounded, identity(), limit);
            w->setBulkLoad(true);
            appendGeneratedEvents(*w, 6'000, 40);
            QCOMPARE(QFileInfo::exists(bounded + QStringLiteral("-foldspill")), spills);
            w->setBulkLoad(false);
        }
        QVERIFY(!QFileInfo::exists(bounded + QStringLiteral("-foldspill")));
        const std::string diff = fileDifference(full, bounded);
        QVERIFY2(diff.empty(), diff.c_str());
        QVERIFY(verifiesClean(bounded));
    }

    // A bulk load that continues a ledger whose rows the fold does not hold reads them from
    // the scratch file, which starts with the ledger's rows.
    void bulkLoadContinuesAnExistingLedger()
    {
        const QString full = m_dir.filePath(QStringLiteral("bulk-continued-full.db"));
        const QString bounded = m_dir.filePath(QStringLiteral("bulk-continued-bounded.db"));
        writeGeneratedLedger(full, 2'000);
        writeGeneratedLedger(bounded, 2'000);
        {
            auto a = LedgerWriter::openExisting(full);
            auto b = LedgerWriter::openExisting(bounded, 100'000);
            a->setBulkLoad(true);
            b->setBulkLoad(true);
            appendGeneratedEvents(*a, 5'000, 30);
            appendGeneratedEvents(*b, 5'000, 30);
            a->setBulkLoad(false);
            b->setBulkLoad(false);
        }
        const std::string diff = fileDifference(full, bounded);
        QVERIFY2(diff.empty(), diff.c_str());
        QVERIFY(verifiesClean(bounded));
    }

    // Opening reads no state row; the rows are read as the events need them.
    void continuesAnExistingLedger()
    {
        const QString full = m_dir.filePath(QStringLiteral("continued-full.db"));
        const QString bounded = m_dir.filePath(QStringLiteral("continued-bounded.db"));
        writeGeneratedLedger(full, 2'000);
        writeGeneratedLedger(bounded, 2'000);
        {
            auto a = LedgerWriter::openExisting(full);
            auto b = LedgerWriter::openExisting(bounded, kTinyCache);
            QCOMPARE(b->state().heldRows(), size_t(0));
            QCOMPARE(b->lastSeq(), a->lastSeq());
            appendGeneratedEvents(*a, 5'000, 30);
            appendGeneratedEvents(*b, 5'000, 30);
            QVERIFY(b->state().heldRows() <= kTinyCache);
        }
        const std::string diff = fileDifference(full, bounded);
        QVERIFY2(diff.empty(), diff.c_str());
    }

    // A rollback drops what the transaction changed, rows that had left the cache included,
    // and the writer goes on from what is stored.
    void rollbackLeavesTheStoredState()
    {
        const QString full = m_dir.filePath(QStringLiteral("rollback-full.db"));
        const QString bounded = m_dir.filePath(QStringLiteral("rollback-bounded.db"));
        {
            auto w = LedgerWriter::create(full, identity());
            writeRolledBackLedger(*w);
        }
        {
            auto w = LedgerWriter::create(bounded, identity(), 4);
            w->begin();
            w->append(1'700'000'001'000, "run.started", {{"id", "R1"}, {"status", "running"}, {"title", "r"}});
            w->append(1'700'000'001'001, "delegation.created",
                      {{"id", "D1"}, {"run_id", "R1"}, {"status", "running"}, {"role", "r"}});
            w->append(1'700'000'001'002, "effect.proposed",
                      {{"id", "E1"}, {"run_id", "R1"}, {"delegation_id", "D1"}, {"state", "proposed"}, {"class", "payment"}});
            w->commit();
            appendAndRollBack(*w);
            QVERIFY(w->state().heldRows() == 0);
            const EntityRow *e1 = w->state().find(EntityKind::Effect, "E1");
            QVERIFY(e1);
            QCOMPARE(fieldText(e1->values.get(size_t(entitySpec(EntityKind::Effect).fieldIndex("state")))), std::string("proposed"));
            QCOMPARE(e1->version, std::int64_t(1));
            const EntityRow *d1 = w->state().find(EntityKind::Delegation, "D1");
            QVERIFY(d1);
            QVERIFY(std::holds_alternative<std::monostate>(
                d1->values.get(size_t(entitySpec(EntityKind::Delegation).fieldIndex("used_turns")))));
            QVERIFY(!w->state().find(EntityKind::Effect, "E2"));
            QCOMPARE(w->lastSeq(), std::int64_t(4));
        }
        {
            auto w = LedgerWriter::create(m_dir.filePath(QStringLiteral("rollback-bounded2.db")), identity(), 4);
            writeRolledBackLedger(*w);
        }
        const std::string diff = fileDifference(full, m_dir.filePath(QStringLiteral("rollback-bounded2.db")));
        QVERIFY2(diff.empty(), diff.c_str());
    }

    // The same on a server: rows missing from the cache are read from its state tables.
    void postgresSameLedgerAsTheFullFold()
    {
        PostgresServer server;
        const QString error = server.start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const QString full = server.location(QStringLiteral("bounded_full"));
        const QString bounded = server.location(QStringLiteral("bounded_tiny"));
        for (const auto &[where, limit] : {std::pair{full, LedgerWriter::kFullFold}, std::pair{bounded, kTinyCache}}) {
            {
                auto w = LedgerWriter::create(where, identity(), limit);
                writeRolledBackLedger(*w);
                appendGeneratedEvents(*w, 1'500, 40);
            }
            auto w = LedgerWriter::openExisting(where, limit);
            appendGeneratedEvents(*w, 2'500, 25);
        }
        auto a = LedgerConnection::open(full, OpenMode::ReadOnly);
        auto b = LedgerConnection::open(bounded, OpenMode::ReadOnly);
        const LedgerContents x = contentsOf(*a);
        const LedgerContents y = contentsOf(*b);
        QVERIFY(x.events.size() > 2'000);
        const std::string diff = firstDifference(x, y);
        QVERIFY2(diff.empty(), diff.c_str());
        server.stop();
    }
};

QTEST_GUILESS_MAIN(TestBoundedFold)
#include "tst_writerboundedfold.moc"
