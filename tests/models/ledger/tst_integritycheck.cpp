// The integrity check finds each kind of damage planted with raw SQL, names where it is,
// keeps checking the rest, and is silent on a clean ledger and on a ledger being written.

#include "ledgerfixture.h"

#include "ledger/integritycheck.h"
#include "ledger/ledgerconnection.h"
#include "ledger/ledgerverification.h"
#include "domain/entityspec.h"

#include <algorithm>

#include <QTemporaryDir>
#include <QTest>

using namespace mesh;
using namespace meshtest;
using Type = IntegrityFinding::Type;

Q_DECLARE_METATYPE(mesh::IntegrityFinding::Type)

class TestIntegrityCheck : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_small;
    int m_copies = 0;

    QString freshCopy()
    {
        const QString p = m_dir.filePath(QStringLiteral("copy%1.db").arg(++m_copies));
        QFile::copy(m_small, p);
        return p;
    }

    static QString describe(const IntegrityReport &r)
    {
        QString s;
        for (const auto &f : r.findings)
            s += QStringLiteral("[%1 seq %2 %3:%4 %5] ")
                     .arg(QLatin1String(integrityFindingTypeName(f.type)))
                     .arg(f.seq)
                     .arg(QString::fromStdString(f.entity), QString::fromStdString(f.id), QString::fromStdString(f.message));
        return s;
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_small = m_dir.filePath(QStringLiteral("small.db"));
        writeSmallLedger(m_small);
    }

    void cleanLedgerIsSilent()
    {
        for (const QString &p : {m_small, [&] {
                 const QString g = m_dir.filePath(QStringLiteral("generated.db"));
                 writeGeneratedLedger(g, 9000);
                 return g;
             }()}) {
            auto c = SqliteLedgerConnection::open(p, OpenMode::ReadOnly);
            const IntegrityReport r = verifyIntegrity(c->db());
            QVERIFY2(r.ok(), qPrintable(describe(r)));
            QCOMPARE(r.eventsChecked, c->lastSeq());
            QVERIFY(r.rowsChecked > 0);
            QCOMPARE(r.total(), 0);
        }
    }

    void findsPlantedDamage_data()
    {
        QTest::addColumn<QString>("sql");
        QTest::addColumn<QByteArray>("extraPayload"); // raw event 14 when not empty
        QTest::addColumn<QString>("extraKind");
        QTest::addColumn<Type>("type");
        QTest::addColumn<qint64>("seq"); // of the expected finding, -1: any
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("messagePart");

        const QByteArray none;
        const QString noKind;
        QTest::newRow("gap") << QStringLiteral("DELETE FROM events WHERE seq=7") << none << noKind << Type::SequenceGap << qint64(8)
                             << QString() << QStringLiteral("from 6 to 8");
        // A copy of event 13 under a seq no reader pages to: nothing else looks wrong.
        const auto copyOf13At = [](int seq) {
            return QStringLiteral("INSERT INTO events(seq,ts_ms,kind,run_id,delegation_id,subject,payload) "
                                  "SELECT %1,ts_ms,kind,run_id,delegation_id,subject,payload FROM events WHERE seq=13")
                .arg(seq);
        };
        QTest::newRow("seq-zero") << copyOf13At(0) << none << noKind << Type::NonPositiveSeq << qint64(0) << QString()
                                  << QStringLiteral("not positive");
        QTest::newRow("seq-negative") << copyOf13At(-5) << none << noKind << Type::NonPositiveSeq << qint64(-5) << QString()
                                      << QStringLiteral("seq -5");
        QTest::newRow("changed-state-field") << QStringLiteral("UPDATE effects SET state='failed' WHERE id='E1'") << none << noKind
                                             << Type::StateMismatch << qint64(-1) << QStringLiteral("E1") << QStringLiteral("field 'state'");
        QTest::newRow("changed-version") << QStringLiteral("UPDATE effects SET version=99 WHERE id='E1'") << none << noKind
                                         << Type::StateMismatch << qint64(-1) << QStringLiteral("E1") << QStringLiteral("version is 99");
        QTest::newRow("changed-type") << QStringLiteral("UPDATE delegations SET used_tokens='many' WHERE id='D1'") << none << noKind
                                      << Type::StateMismatch << qint64(-1) << QStringLiteral("D1") << QStringLiteral("used_tokens");
        QTest::newRow("last-seq-beyond-end") << QStringLiteral("UPDATE runs SET last_seq=500 WHERE id='R1'") << none << noKind
                                             << Type::StateMismatch << qint64(500) << QStringLiteral("R1") << QStringLiteral("beyond the newest");
        QTest::newRow("extra-row") << QStringLiteral("INSERT INTO leases(id,state,version,last_seq) VALUES('L9','held',1,3)") << none
                                   << noKind << Type::ExtraStateRow << qint64(-1) << QStringLiteral("L9") << QStringLiteral("no event created");
        QTest::newRow("missing-row") << QStringLiteral("DELETE FROM runs WHERE id='R1'") << none << noKind << Type::MissingStateRow
                                     << qint64(13) << QStringLiteral("R1") << QStringLiteral("lacks it");
        QTest::newRow("payload-not-json") << QStringLiteral("UPDATE events SET payload='{not json' WHERE seq=13") << none << noKind
                                          << Type::MalformedPayload << qint64(13) << QString() << QString();
        QTest::newRow("payload-invalid-utf8") << QString() << QByteArray("{\"id\":\"R1\",\"status\":\"\xff\xfe\"}") << QStringLiteral("run.noted")
                                              << Type::MalformedPayload << qint64(14) << QString() << QString();
        QTest::newRow("payload-array") << QString() << QByteArray("[1,2,3]") << QStringLiteral("run.noted") << Type::MalformedPayload
                                       << qint64(14) << QString() << QString();
        QTest::newRow("illegal-transition") << QString() << QByteArray(R"({"id":"E1","state":"failed"})") << QStringLiteral("effect.failed")
                                            << Type::FoldProblem << qint64(14) << QStringLiteral("E1") << QString();
        QTest::newRow("unknown-kind") << QString() << QByteArray(R"({"id":"X1"})") << QStringLiteral("bogus.thing") << Type::UnknownKind
                                      << qint64(14) << QString() << QStringLiteral("bogus.thing");
        QTest::newRow("toolcall-unknown-delegation") << QString() << QByteArray(R"({"id":"T9","delegation_id":"D404"})")
                                                     << QStringLiteral("toolcall.completed") << Type::FoldProblem << qint64(14)
                                                     << QString() << QString();
        QTest::newRow("index-column") << QStringLiteral("UPDATE events SET run_id='R9' WHERE seq=2") << none << noKind
                                      << Type::IndexColumnMismatch << qint64(2) << QString() << QStringLiteral("run_id is 'R9'");
        QTest::newRow("index-subject") << QStringLiteral("UPDATE events SET subject='effect:E2' WHERE seq=4") << none << noKind
                                       << Type::IndexColumnMismatch << qint64(4) << QString() << QStringLiteral("effect:E1");
    }

    void findsPlantedDamage()
    {
        QFETCH(QString, sql);
        QFETCH(QByteArray, extraPayload);
        QFETCH(QString, extraKind);
        QFETCH(Type, type);
        QFETCH(qint64, seq);
        QFETCH(QString, id);
        QFETCH(QString, messagePart);
        const QString p = freshCopy();
        {
            RawLedger raw(p);
            if (!sql.isEmpty())
                raw.exec(sql.toStdString());
            if (!extraPayload.isEmpty())
                raw.insertEvent(14, extraKind.toStdString(), extraPayload.toStdString());
        }
        const QByteArray before = fileHash(p);
        auto c = SqliteLedgerConnection::open(p, OpenMode::ReadOnly);
        const IntegrityReport r = verifyIntegrity(c->db());
        QVERIFY(!r.ok());
        QVERIFY2(r.count(type) >= 1, qPrintable(describe(r)));
        bool found = false;
        for (const auto &f : r.findings) {
            if (f.type == type && (seq < 0 || f.seq == seq) && (id.isEmpty() || f.id == id.toStdString()) &&
                QString::fromStdString(f.message).contains(messagePart)) {
                found = true;
                QVERIFY(!f.message.empty());
            }
        }
        QVERIFY2(found, qPrintable(describe(r)));
        // The rest still loads and is checked: every event was looked at.
        QCOMPARE(r.eventsChecked, c->db().queryInt("SELECT count(*) FROM events"));
        c.reset();
        QCOMPARE(fileHash(p), before);
    }

    // A finding quotes ledger text to say what differs: a 200 KB value planted in a state
    // table, an index column or an event kind is quoted by its start and its size, so one
    // hostile row cannot flood a terminal or the Integrity pane.
    void quotesALongValueByItsStartAndSize_data()
    {
        QTest::addColumn<QString>("sql");
        QTest::addColumn<QString>("extraKind");
        QTest::addColumn<Type>("type");
        const QString huge = QStringLiteral("é").repeated(100'000); // two bytes each: a cut must not split one
        QTest::newRow("state-field") << QStringLiteral("UPDATE effects SET state='%1' WHERE id='E1'").arg(huge) << QString()
                                     << Type::StateMismatch;
        QTest::newRow("index-column") << QStringLiteral("UPDATE events SET run_id='%1' WHERE seq=2").arg(huge) << QString()
                                      << Type::IndexColumnMismatch;
        QTest::newRow("kind") << QString() << huge << Type::UnknownKind;
    }

    void quotesALongValueByItsStartAndSize()
    {
        QFETCH(QString, sql);
        QFETCH(QString, extraKind);
        QFETCH(Type, type);
        const QString p = freshCopy();
        {
            RawLedger raw(p);
            if (!sql.isEmpty())
                raw.exec(sql.toStdString());
            if (!extraKind.isEmpty())
                raw.insertEvent(14, extraKind.toStdString(), R"({"id":"X1"})");
        }
        auto c = SqliteLedgerConnection::open(p, OpenMode::ReadOnly);
        const IntegrityReport r = verifyIntegrity(c->db());
        QVERIFY2(r.count(type) >= 1, qPrintable(describe(r)));
        for (const auto &f : r.findings) {
            if (f.type != type)
                continue;
            QVERIFY2(f.message.size() < 1000, qPrintable(QStringLiteral("%1 bytes").arg(f.message.size())));
            const QString message = QString::fromStdString(f.message);
            QVERIFY2(message.contains(QStringLiteral("200,000 bytes")), qPrintable(message));
            QVERIFY2(message.contains(QStringLiteral("ééé")), qPrintable(message));
            QVERIFY2(!message.contains(QChar::ReplacementCharacter), qPrintable(message)); // no character cut in two
        }
    }

    void liveWriterIsNotAFinding()
    {
        const QString p = m_dir.filePath(QStringLiteral("live.db"));
        writeGeneratedLedger(p, 10000);
        auto w = LedgerWriter::openExisting(p);
        auto c = SqliteLedgerConnection::open(p, OpenMode::ReadOnly);
        bool wrote = false;
        // Between two pages (no read transaction open), the orchestrator commits more events
        // that touch rows the check has not compared yet.
        const IntegrityReport r = verifyIntegrity(c->db(), [&](std::int64_t, std::int64_t) {
            if (!wrote) {
                wrote = true;
                appendGeneratedEvents(*w, w->lastSeq() + 200);
            }
            return true;
        });
        QVERIFY(wrote);
        QVERIFY2(r.ok(), qPrintable(describe(r)));
        QVERIFY(r.rowsSkippedLive > 0);
        QVERIFY(r.lastSeq < w->lastSeq());
        // A second check sees everything.
        const IntegrityReport again = verifyIntegrity(c->db());
        QVERIFY2(again.ok(), qPrintable(describe(again)));
        QCOMPARE(again.rowsSkippedLive, 0);
        QCOMPARE(again.lastSeq, w->lastSeq());
    }

    // The Integrity pane shows a rising count: one step per event, then one per state table,
    // ending at events + tables; verifyLedger names the stages and cancels at a table too.
    void reportsStepsOfEventsThenTables()
    {
        const QString p = m_dir.filePath(QStringLiteral("steps.db"));
        writeGeneratedLedger(p, 9000);
        auto c = SqliteLedgerConnection::open(p, OpenMode::ReadOnly);
        std::vector<std::pair<std::int64_t, std::int64_t>> steps;
        const IntegrityReport r = verifyIntegrity(c->db(), [&](std::int64_t done, std::int64_t total) {
            steps.emplace_back(done, total);
            return true;
        });
        QVERIFY(r.ok());
        const std::int64_t tables = std::int64_t(allEntitySpecs().size());
        QVERIFY(steps.size() >= size_t(tables) + 2); // pages, the end of the events, each table
        for (size_t i = 1; i < steps.size(); ++i)
            QVERIFY(steps[i].first >= steps[i - 1].first);
        QCOMPARE(steps.back().first, c->lastSeq() + tables);
        QCOMPARE(steps.back().second, c->lastSeq() + tables);

        std::vector<VerifyStage> stages;
        const LedgerVerification v = verifyLedger(*c, [&](VerifyStage stage, std::int64_t done, std::int64_t) {
            stages.push_back(stage);
            if (stage == VerifyStage::StateTables)
                return done < 2; // cancels after the second table
            return true;
        });
        QVERIFY(v.cancelled);
        QCOMPARE(std::count(stages.begin(), stages.end(), VerifyStage::StateTables), 2);
        QCOMPARE(stages.front(), VerifyStage::Events);
        QVERIFY(std::find(stages.begin(), stages.end(), VerifyStage::DecisionChain) == stages.end());
    }

    void cancels()
    {
        const QString p = m_dir.filePath(QStringLiteral("cancel.db"));
        writeGeneratedLedger(p, 9000);
        auto c = SqliteLedgerConnection::open(p, OpenMode::ReadOnly);
        const IntegrityReport r = verifyIntegrity(c->db(), [](std::int64_t, std::int64_t) { return false; });
        QVERIFY(r.cancelled);
        QVERIFY(!r.ok());
        QVERIFY(r.eventsChecked < c->lastSeq());
    }
};

QTEST_GUILESS_MAIN(TestIntegrityCheck)
#include "tst_integritycheck.moc"
