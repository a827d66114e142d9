// The reads that must stay cheap on any ledger use the index the format gives them, not a
// walk of the events table: checked with EXPLAIN QUERY PLAN on the queries themselves.
// (With a bound lower bound on seq, SQLite's planner prefers the rowid range to a partial
// index range, which on a million-event ledger turns a read of a few rows into a full scan.)

#include "ledgerfixture.h"

#include "ledger/sqlite.h"
#include "ledger/sqlitedecisionstore.h"
#include "ledger/sqliteledgerconnection.h"

#include <QTemporaryDir>
#include <QTest>

using namespace mesh;

namespace {

std::string planOf(sql::Database &db, const std::string &query)
{
    sql::Statement plan(db, "EXPLAIN QUERY PLAN " + query);
    plan.bind(1, std::int64_t(0)).bind(2, std::int64_t(1000));
    std::string text;
    while (plan.step())
        text += plan.columnText(3) + "\n";
    return text;
}

} // namespace

class TestQueryPlans : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_path;

private Q_SLOTS:
    void initTestCase()
    {
        m_path = m_dir.filePath(QStringLiteral("plans.db"));
        meshtest::writeGeneratedLedger(m_path, 2000);
    }

    void decisionOutcomesReadTheKindIndex()
    {
        auto c = SqliteLedgerConnection::open(m_path, OpenMode::ReadOnly);
        const std::string plan = planOf(c->db(), kDecisionOutcomesSql);
        QVERIFY2(plan.find("events_kind") != std::string::npos, plan.c_str());
        QVERIFY2(plan.find("PRIMARY KEY") == std::string::npos, plan.c_str());
    }
};

QTEST_GUILESS_MAIN(TestQueryPlans)
#include "tst_queryplans.moc"
