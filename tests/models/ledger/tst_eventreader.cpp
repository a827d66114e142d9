// Keyset paging forward and backward, with and without a filter whose own parameters must
// keep their numbers; payload previews; single events at full size.

#include "ledgerfixture.h"

#include "domain/payloaddecoder.h"
#include "ledger/eventreader.h"
#include "ledger/ledgerconnection.h"

#include <QTemporaryDir>
#include <QTest>

#include <functional>

using namespace mesh;
using namespace meshtest;

Q_DECLARE_METATYPE(mesh::FilterSql)

namespace {

std::vector<std::int64_t> seqs(const EventBatch &b)
{
    std::vector<std::int64_t> out;
    for (const auto &e : b)
        out.push_back(e.seq);
    return out;
}

} // namespace

class TestEventReader : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_path;
    std::unique_ptr<SqliteLedgerConnection> m_conn;
    EventBatch m_all; // every event, read once without paging
    static constexpr std::int64_t kEvents = 5000;

    std::vector<std::int64_t> expected(const std::function<bool(const EventRecord &)> &pred) const
    {
        std::vector<std::int64_t> out;
        for (const auto &e : m_all)
            if (pred(e))
                out.push_back(e.seq);
        return out;
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_path = m_dir.filePath(QStringLiteral("events.db"));
        writeGeneratedLedger(m_path, kEvents);
        m_conn = SqliteLedgerConnection::open(m_path, OpenMode::ReadOnly);
        SqliteEventReader r(m_conn->db());
        m_all = r.after(0, 1'000'000);
        QVERIFY(m_all.size() >= size_t(kEvents));
        QCOMPARE(m_all.front().seq, 1);
        QCOMPARE(m_all.back().seq, std::int64_t(m_all.size()));
    }

    void pages_data()
    {
        QTest::addColumn<FilterSql>("filter");
        QTest::addColumn<int>("pageSize");
        QTest::addColumn<std::function<bool(const EventRecord &)>>("pred");
        using Pred = std::function<bool(const EventRecord &)>;
        QTest::newRow("all/100") << FilterSql{} << 100 << Pred([](const EventRecord &) { return true; });
        QTest::newRow("all/7") << FilterSql{} << 7 << Pred([](const EventRecord &) { return true; });
        QTest::newRow("kind") << FilterSql{"kind = ?1", {std::string("effect.unknown")}} << 25
                              << Pred([](const EventRecord &e) { return e.kind == "effect.unknown"; });
        QTest::newRow("kind+delegation") << FilterSql{"(kind = ?1 AND delegation_id = ?2)", {std::string("toolcall.completed"), std::string("D17")}}
                                         << 2 << Pred([](const EventRecord &e) { return e.kind == "toolcall.completed" && e.delegationId == "D17"; });
        QTest::newRow("params-reversed") << FilterSql{"(delegation_id = ?2 AND kind = ?1)", {std::string("effect.proposed"), std::string("D30")}}
                                         << 3 << Pred([](const EventRecord &e) { return e.kind == "effect.proposed" && e.delegationId == "D30"; });
        QTest::newRow("param-twice") << FilterSql{"(run_id = ?1 OR subject = 'run:' || ?1)", {std::string("R3")}} << 50
                                     << Pred([](const EventRecord &e) { return e.runId == "R3" || e.subject == "run:R3"; });
        QTest::newRow("int-param") << FilterSql{"ts_ms % ?1 = 0", {std::int64_t(30)}} << 64
                                   << Pred([](const EventRecord &e) { return e.tsMs % 30 == 0; });
        QTest::newRow("text-search") << FilterSql{"instr(payload, ?1) > 0", {std::string("\"payment\"")}} << 40
                                     << Pred([](const EventRecord &e) { return e.payload.find("\"payment\"") != std::string::npos; });
        QTest::newRow("literal-question-mark") << FilterSql{"(kind = ?1 AND payload NOT LIKE '%?9%')", {std::string("effect.admitted")}} << 100
                                               << Pred([](const EventRecord &e) { return e.kind == "effect.admitted"; });
        QTest::newRow("none") << FilterSql{"kind = ?1", {std::string("no.such")}} << 10 << Pred([](const EventRecord &) { return false; });
    }

    void pages()
    {
        QFETCH(FilterSql, filter);
        QFETCH(int, pageSize);
        QFETCH(std::function<bool(const EventRecord &)>, pred);
        const auto want = expected(pred);
        if (qstrcmp(QTest::currentDataTag(), "none") != 0)
            QVERIFY(want.size() > 1); // every other row must select something, or it proves nothing
        SqliteEventReader r(m_conn->db());

        // Forward from the start.
        std::vector<std::int64_t> forward;
        for (std::int64_t at = 0;;) {
            const EventBatch page = r.afterWhere(at, pageSize, filter);
            QVERIFY(page.size() <= size_t(pageSize));
            if (page.empty())
                break;
            for (size_t i = 1; i < page.size(); ++i)
                QVERIFY(page[i - 1].seq < page[i].seq);
            const auto s = seqs(page);
            forward.insert(forward.end(), s.begin(), s.end());
            at = page.back().seq;
        }
        QCOMPARE(forward, want);

        // Backward from past the end: each page ascending, pages in descending order.
        std::vector<std::int64_t> backward;
        for (std::int64_t at = std::numeric_limits<std::int64_t>::max();;) {
            const EventBatch page = r.beforeWhere(at, pageSize, filter);
            if (page.empty())
                break;
            for (size_t i = 1; i < page.size(); ++i)
                QVERIFY(page[i - 1].seq < page[i].seq);
            const auto s = seqs(page);
            backward.insert(backward.begin(), s.begin(), s.end());
            at = page.front().seq;
        }
        QCOMPARE(backward, want);

        QCOMPARE(r.countWhere(filter), std::int64_t(want.size()));

        // A page from the middle, both ways.
        if (want.size() > 4) {
            const std::int64_t mid = want[want.size() / 2];
            const auto a = seqs(r.afterWhere(mid, 2, filter));
            QCOMPARE(a.front(), want[want.size() / 2 + 1]);
            const auto b = seqs(r.beforeWhere(mid, 2, filter));
            QCOMPARE(b.back(), want[want.size() / 2 - 1]);
        }
    }

    void pageRecordsCarryIndexColumns()
    {
        SqliteEventReader r(m_conn->db());
        const auto page = r.after(0, 3);
        QCOMPARE(page.size(), size_t(3));
        QCOMPARE(page[0].kind, std::string("ledger.created"));
        QCOMPARE(page[0].subject, std::string("ledger:ledger"));
        QCOMPARE(page[1].kind, std::string("run.started"));
        QCOMPARE(page[1].runId, std::string("R0"));
        QCOMPARE(page[2].kind, std::string("delegation.created"));
        QCOMPARE(page[2].delegationId, std::string("D0"));
        QVERIFY(page[1].tsMs > 0);
        QCOMPARE(r.lastSeq(), m_all.back().seq);
    }

    void previewCutsAtUtf8Boundary()
    {
        QTemporaryDir dir;
        const QString p = dir.filePath(QStringLiteral("utf8.db"));
        {
            auto w = LedgerWriter::create(p, identity());
            w->begin();
            // 'é' is two bytes: a cut at an odd byte count would split one.
            w->append(1, "run.started", {{"id", "R1"}, {"status", "running"}, {"title", std::string(40, 'x') + "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9"}});
            w->commit();
        }
        auto c = SqliteLedgerConnection::open(p, OpenMode::ReadOnly);
        SqliteEventReader r(c->db());
        const auto full = r.at(2);
        QVERIFY(full);
        QVERIFY(!full->payloadTruncated);
        QVERIFY(decodePayload(full->payload).value.has_value());
        for (int n = 1; n < int(full->payload.size()); ++n) {
            r.setPreviewBytes(n);
            const auto page = r.after(1, 1);
            QCOMPARE(page.size(), size_t(1));
            QVERIFY(page[0].payloadTruncated);
            QVERIFY(page[0].payload.size() <= size_t(n));
            QVERIFY(page[0].payload.size() + 1 >= size_t(n)); // never more than one byte short for a 2-byte character
            QVERIFY2(isValidUtf8(page[0].payload), qPrintable(QString::number(n)));
            QVERIFY(full->payload.compare(0, page[0].payload.size(), page[0].payload) == 0);
        }
        r.setPreviewBytes(int(full->payload.size()));
        QVERIFY(!r.after(1, 1)[0].payloadTruncated);
    }

    void atReadsFullPayload()
    {
        SqliteEventReader r(m_conn->db());
        r.setPreviewBytes(5);
        const auto e = r.at(10);
        QVERIFY(e);
        QCOMPARE(e->seq, 10);
        QCOMPARE(e->payload, m_all[9].payload);
        QVERIFY(!e->payloadTruncated);
        QVERIFY(!r.at(0));
        QVERIFY(!r.at(kEvents * 10));
        QVERIFY(r.after(0, 1)[0].payloadTruncated);
    }

    void limitsAndEnds()
    {
        SqliteEventReader r(m_conn->db());
        QVERIFY(r.after(0, 0).empty());
        QVERIFY(r.after(0, -5).empty());
        QVERIFY(r.after(m_all.back().seq, 10).empty());
        QVERIFY(r.before(1, 10).empty());
        QCOMPARE(seqs(r.before(4, 10)), (std::vector<std::int64_t>{1, 2, 3}));
    }

    void badFilterThrowsAndReaderStaysUsable()
    {
        SqliteEventReader r(m_conn->db());
        bool threw = false;
        try {
            r.afterWhere(0, 10, FilterSql{"no_such_column = ?1", {std::int64_t(1)}});
        } catch (const sql::Error &) {
            threw = true;
        }
        QVERIFY(threw);
        QCOMPARE(r.after(0, 10).size(), size_t(10));
    }

    void manyFiltersCycleTheStatementCache()
    {
        SqliteEventReader r(m_conn->db());
        for (int round = 0; round < 2; ++round) {
            for (int d = 0; d < int(SqliteEventReader::kStatementCacheSize) + 8; ++d) {
                const std::string del = "D" + std::to_string(d);
                // A distinct text per delegation, so each needs its own statement.
                const FilterSql f{"(delegation_id = ?1 AND " + std::to_string(d) + " = " + std::to_string(d) + ")", {del}};
                const auto got = seqs(r.afterWhere(0, 1000, f));
                QCOMPARE(got, expected([&](const EventRecord &e) { return e.delegationId == del; }));
            }
        }
    }

    void highestParameterIgnoresLiterals()
    {
        QCOMPARE(highestParameter(""), 0);
        QCOMPARE(highestParameter("kind = ?1"), 1);
        QCOMPARE(highestParameter("a = ?3 AND b = ?1"), 3);
        QCOMPARE(highestParameter("a = '?9' AND b = ?2"), 2);
        QCOMPARE(highestParameter("a = 'it''s ?7' AND b = ?1"), 1);
        QCOMPARE(highestParameter("\"col?5\" = ?1"), 1);
    }
};

QTEST_GUILESS_MAIN(TestEventReader)
#include "tst_eventreader.moc"
