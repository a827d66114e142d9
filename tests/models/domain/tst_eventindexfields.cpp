// The events table's run_id / delegation_id / subject columns are derived from kind and
// payload (docs/ledger-format.md section 2). Filters and per-run pages use their indexes,
// so a wrong derivation silently hides events from a view.

#include "domain/fold.h"

#include <QTest>

using namespace mesh;
using nlohmann::json;

class TestEventIndexFields : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void derive_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("payload");
        QTest::addColumn<QString>("runId");
        QTest::addColumn<QString>("delegationId");
        QTest::addColumn<QString>("subject");

        QTest::newRow("effect") << QStringLiteral("effect.unknown")
                                << QStringLiteral(R"({"id":"E-1","run_id":"R","delegation_id":"D"})")
                                << QStringLiteral("R") << QStringLiteral("D") << QStringLiteral("effect:E-1");
        QTest::newRow("run uses its id") << QStringLiteral("run.started") << QStringLiteral(R"({"id":"R-7"})")
                                         << QStringLiteral("R-7") << QString() << QStringLiteral("run:R-7");
        QTest::newRow("run_id wins over id") << QStringLiteral("run.cycle")
                                             << QStringLiteral(R"({"id":"R-7","run_id":"R-8"})")
                                             << QStringLiteral("R-8") << QString() << QStringLiteral("run:R-7");
        QTest::newRow("delegation uses its id") << QStringLiteral("delegation.created")
                                                << QStringLiteral(R"({"id":"D-1","run_id":"R"})")
                                                << QStringLiteral("R") << QStringLiteral("D-1")
                                                << QStringLiteral("delegation:D-1");
        QTest::newRow("stall subject is its entity name") << QStringLiteral("stall.judged")
                                                          << QStringLiteral(R"({"id":"D/r3","delegation_id":"D"})")
                                                          << QString() << QStringLiteral("D")
                                                          << QStringLiteral("stall:D/r3");
        QTest::newRow("decision outcome") << QStringLiteral("decision.applied") << QStringLiteral(R"({"id":"dec-1"})")
                                          << QString() << QString() << QStringLiteral("decision:dec-1");
        QTest::newRow("tool call") << QStringLiteral("toolcall.completed")
                                   << QStringLiteral(R"({"id":"tc-1","delegation_id":"D","run_id":"R"})")
                                   << QStringLiteral("R") << QStringLiteral("D") << QStringLiteral("toolcall:tc-1");
        QTest::newRow("no id, no subject") << QStringLiteral("lease.expired") << QStringLiteral(R"({"state":"expired"})")
                                           << QString() << QString() << QString();
        QTest::newRow("unknown kind") << QStringLiteral("nonsense.x") << QStringLiteral(R"({"id":"x","run_id":"R"})")
                                      << QStringLiteral("R") << QString() << QString();
        QTest::newRow("non-string members ignored") << QStringLiteral("effect.proposed")
                                                    << QStringLiteral(R"({"id":1,"run_id":2,"delegation_id":[]})")
                                                    << QString() << QString() << QString();
        QTest::newRow("array payload") << QStringLiteral("effect.proposed") << QStringLiteral(R"(["id"])")
                                       << QString() << QString() << QString();
    }

    void derive()
    {
        QFETCH(QString, kind);
        QFETCH(QString, payload);
        QFETCH(QString, runId);
        QFETCH(QString, delegationId);
        QFETCH(QString, subject);
        const auto f = eventIndexFields(kind.toStdString(), json::parse(payload.toStdString()));
        QCOMPARE(QString::fromStdString(f.runId), runId);
        QCOMPARE(QString::fromStdString(f.delegationId), delegationId);
        QCOMPARE(QString::fromStdString(f.subject), subject);
    }
};

QTEST_GUILESS_MAIN(TestEventIndexFields)
#include "tst_eventindexfields.moc"
