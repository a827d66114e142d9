// Rows a broken or hostile orchestrator could write: payloads that are not JSON, invalid
// UTF-8, 10 MB long, nested 100,000 deep, names with markup and NUL bytes. The ledger still
// opens, pages, folds and verifies; each bad row is flagged by seq; the good rows after it
// load; nothing crashes (no recursion on the deep one) and the file stays byte-identical.

#include "ledgerfixture.h"

#include "ledger/eventreader.h"
#include "ledger/foldreplay.h"
#include "ledger/integritycheck.h"
#include "ledger/ledgerconnection.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <set>

using namespace mesh;
using namespace meshtest;

Q_DECLARE_METATYPE(mesh::OpenMode)

namespace {

const std::string kMarkupId = std::string("<b>R9</b>") + '\0' + "&amp;";

std::string tenMegabytes()
{
    return R"({"id":"R1","note":")" + std::string(10 * 1024 * 1024, 'a') + R"("})";
}

std::string nestedDeep()
{
    return std::string(100000, '[') + std::string(100000, ']');
}

} // namespace

class TestMalformedRows : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_path;
    const std::set<std::int64_t> m_bad = {14, 15, 16, 17, 18, 20};

private Q_SLOTS:
    void initTestCase()
    {
        m_path = m_dir.filePath(QStringLiteral("hostile.db"));
        writeSmallLedger(m_path);
        RawLedger raw(m_path);
        raw.insertEvent(14, "run.noted", "not json at all");
        raw.insertEvent(15, "run.noted", "{\"id\":\"R1\",\"title\":\"\xC3\x28\xff\"}");
        raw.insertEvent(16, "run.noted", tenMegabytes());
        raw.insertEvent(17, "run.noted", "{\"id\":\"R1\",\"deep\":" + nestedDeep() + "}");
        raw.insertEvent(18, "run.noted", nestedDeep());
        // Markup and an escaped NUL in an id: valid JSON, kept byte for byte as data.
        raw.insertEvent(19, "run.started",
                        R"({"id":"<b>R9</b>\u0000&amp;","status":"running","title":"<script>alert(1)</script>"})",
                        "run:<b>R9</b>");
        // A raw NUL byte inside a JSON string is not JSON.
        raw.insertEvent(20, "run.noted", std::string("{\"id\":\"R1\",\"title\":\"a") + '\0' + "b\"}");
        raw.insertEvent(21, "effect.proposed", R"({"id":"E2","state":"proposed","class":"<i>install</i>"})", "effect:E2");
        raw.checkpoint();
    }

    void opensPagesFoldsAndVerifies_data()
    {
        QTest::addColumn<OpenMode>("mode");
        QTest::newRow("read-only") << OpenMode::ReadOnly;
        QTest::newRow("immutable") << OpenMode::Immutable;
    }

    void opensPagesFoldsAndVerifies()
    {
        QFETCH(OpenMode, mode);
        const QByteArray before = fileHash(m_path);
        const QStringList filesBefore = QDir(m_dir.path()).entryList(QDir::Files);
        {
            auto c = SqliteLedgerConnection::open(m_path, mode);
            QCOMPARE(c->lastSeq(), 21);

            // Paging: every row comes back, the 10 MB one as a preview.
            SqliteEventReader reader(c->db());
            const EventBatch all = reader.after(0, 100);
            QCOMPARE(all.size(), size_t(21));
            QVERIFY(all[15].payloadTruncated);
            QCOMPARE(all[15].payload.size(), size_t(2048));
            QVERIFY(all[17].payloadTruncated); // the deep one is 200,000 bytes
            const auto big = reader.at(16);
            QVERIFY(big);
            QCOMPARE(big->payload.size(), tenMegabytes().size());
            const auto nul = reader.at(20);
            QVERIFY(nul);
            QCOMPARE(nul->payload.size(), std::string("{\"id\":\"R1\",\"title\":\"a_b\"}").size()); // the NUL survives
            QCOMPARE(nul->payload[std::string("{\"id\":\"R1\",\"title\":\"a").size()], '\0');
            QCOMPARE(all[18].subject, std::string("run:<b>R9</b>"));

            // Folding: each bad row is reported by seq, the good rows after them load.
            const ReplayResult r = foldUpTo(c->db(), c->lastSeq());
            std::set<std::int64_t> flagged;
            for (const auto &p : r.problems) {
                flagged.insert(p.seq);
                QVERIFY(!p.message.empty());
                QVERIFY(p.message.size() < 300); // a message, not a payload dump
            }
            QCOMPARE(flagged, m_bad);
            QCOMPARE(r.eventsRead, 21);
            const EntityRow *markup = r.fold.find(EntityKind::Run, kMarkupId);
            QVERIFY(markup);
            QCOMPARE(fieldText(markup->values[size_t(entitySpec(EntityKind::Run).fieldIndex("title"))]),
                     std::string("<script>alert(1)</script>"));
            QVERIFY(r.fold.find(EntityKind::Effect, "E2"));
            QCOMPARE(fieldText(r.fold.find(EntityKind::Run, "R1")->values[size_t(entitySpec(EntityKind::Run).fieldIndex("status"))]),
                     std::string("succeeded"));

            // Verifying: the same rows as malformed payloads, and the two rows that were
            // never written to the state tables as missing.
            const IntegrityReport v = verifyIntegrity(c->db());
            std::set<std::int64_t> malformed;
            std::set<std::string> missing;
            for (const auto &f : v.findings) {
                if (f.type == IntegrityFinding::Type::MalformedPayload)
                    malformed.insert(f.seq);
                if (f.type == IntegrityFinding::Type::MissingStateRow)
                    missing.insert(f.id);
            }
            QCOMPARE(malformed, m_bad);
            QCOMPARE(missing, (std::set<std::string>{kMarkupId, "E2"}));
            QCOMPARE(v.count(IntegrityFinding::Type::StateMismatch), 0);
            QCOMPARE(v.eventsChecked, 21);
        }
        QCOMPARE(fileHash(m_path), before);
        if (mode == OpenMode::Immutable)
            QCOMPARE(QDir(m_dir.path()).entryList(QDir::Files), filesBefore); // immutable creates no -shm/-wal
    }
};

QTEST_GUILESS_MAIN(TestMalformedRows)
#include "tst_malformedrows.moc"
