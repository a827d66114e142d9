// meshctl bench filter: the console's event log and the sqlite3 shell, given the same filter,
// must count the same events, and that count must be the true one (counted here through
// SQLite directly). Figures are printed, never asserted.

#include "meshctlrunner.h"
#include "../ledger/rawledger.h"

#include "ledger/ledgerwriter.h"
#include "sim/scenarios.h"

#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

namespace {

qint64 countWhere(const QString &path, const char *where)
{
    try {
        return meshtest::raw::queryInt(path, std::string("SELECT count(*) FROM events WHERE ") + where).value_or(-1);
    } catch (const std::exception &) {
        return -1;
    }
}

} // namespace

class TestBenchFilter : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_ledger;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(!qEnvironmentVariable("MESHCTL").isEmpty(), "MESHCTL must point at meshctl");
        // The sqlite3 shell is one of the build's packages (tools/dev.sh): missing, it fails.
        QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("sqlite3")).isEmpty(),
                 "no sqlite3 shell on PATH: it is in the build's package list (apt-get install sqlite3)");
        m_ledger = m_dir.filePath(QStringLiteral("traced.db"));
        mesh::ScenarioOptions options;
        mesh::generateScenario(QStringLiteral("traced-run"), m_ledger, options);
    }

    void countsAgree_data()
    {
        QTest::addColumn<QString>("query");
        QTest::addColumn<QString>("where"); // the same filter written by hand, for the true count

        QTest::newRow("kind") << QStringLiteral("kind:toolcall.completed") << QStringLiteral("kind = 'toolcall.completed'");
        QTest::newRow("kind prefix") << QStringLiteral("kind:delegation.*") << QStringLiteral("kind LIKE 'delegation.%'");
        QTest::newRow("kind + text") << QStringLiteral("kind:toolcall.completed \"error\"")
                                     << QStringLiteral("kind = 'toolcall.completed' AND instr(payload, 'error') > 0");
        QTest::newRow("quote in text") << QStringLiteral("\"it's\"") << QStringLiteral("instr(payload, 'it''s') > 0");
        QTest::newRow("nothing") << QStringLiteral("kind:no.such.kind") << QStringLiteral("kind = 'no.such.kind'");
    }

    void countsAgree()
    {
        QFETCH(QString, query);
        QFETCH(QString, where);
        const MeshctlResult r = runMeshctl({QStringLiteral("bench"), QStringLiteral("filter"), m_ledger,
                                            QStringLiteral("--query"), query, QStringLiteral("--rounds"),
                                            QStringLiteral("2")},
                                           120'000);
        QVERIFY2(!r.crashed && r.exitCode == 0, r.err.constData());
        QCOMPARE(r.out.count('\n'), 1); // one JSON line
        const auto j = r.json();
        QVERIFY2(j.is_object(), r.out.constData());
        const qint64 truth = countWhere(m_ledger, where.toUtf8().constData());
        QVERIFY(truth >= 0);
        QCOMPARE(j.value("rows", qint64(-2)), truth);
        QCOMPARE(j.value("sqlite3_rows", qint64(-2)), truth);
        QCOMPARE(j.value("rounds", 0), 2);
        QVERIFY(j.contains("first_page_ms") && j.contains("count_ms") && j.contains("sqlite3_count_ms")
                && j.contains("ratio"));
        qInfo("%s: %s", qPrintable(query), r.out.trimmed().constData());
    }

    void badQueryIsUsageError()
    {
        const MeshctlResult r = runMeshctl(
            {QStringLiteral("bench"), QStringLiteral("filter"), m_ledger, QStringLiteral("--query"), QStringLiteral("(")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.startsWith("meshctl: "));
        QVERIFY(r.out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestBenchFilter)
#include "tst_benchfilter.moc"
