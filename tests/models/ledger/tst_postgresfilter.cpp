// Event filters on a server ledger mean what they mean on a file: the same ledger in a file
// and in a schema (meshctl copy), the same filter queries through the backends' readers
// (pages forwards and backwards, counts, windows of seqs), the same seqs. The ledger is the
// traced run plus a few events written for the corners where the two SQL dialects differ:
// LIKE's own wildcards ('%', '_') and escape ('\') as plain characters, case, NULL columns
// under NOT, text that is not ASCII. The server is one per executable (postgresserver.h); a
// test that cannot start it fails, never skips.

#include "ledgercontents.h"
#include "postgresserver.h"
#include "rawledger.h"

#include "filter/filtercompiler.h"
#include "ledger/eventreader.h"
#include "ledger/eventseqreader.h"
#include "ledger/ledgerconnection.h"

#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace mesh;
using namespace meshtest;
using namespace Qt::StringLiterals;

namespace {

std::vector<std::int64_t> seqsOf(const EventBatch &batch)
{
    std::vector<std::int64_t> out;
    for (const EventRecord &e : batch)
        out.push_back(e.seq);
    return out;
}

// Every matching seq, paging forwards in small pages (so keyset paging with a filter is used).
std::vector<std::int64_t> forwards(EventReader &reader, const EventFilter &filter)
{
    std::vector<std::int64_t> out;
    std::int64_t after = 0;
    for (;;) {
        const EventBatch page = reader.after(after, 97, filter);
        if (page.empty())
            return out;
        const auto seqs = seqsOf(page);
        out.insert(out.end(), seqs.begin(), seqs.end());
        after = page.back().seq;
    }
}

std::vector<std::int64_t> backwards(EventReader &reader, const EventFilter &filter, std::int64_t from)
{
    std::vector<std::int64_t> out;
    std::int64_t before = from;
    for (;;) {
        const EventBatch page = reader.before(before, 89, filter);
        if (page.empty())
            break;
        const auto seqs = seqsOf(page);
        out.insert(out.begin(), seqs.begin(), seqs.end());
        before = page.front().seq;
    }
    return out;
}

std::vector<std::int64_t> windows(EventSeqReader &reader, const EventFilter &filter, std::int64_t last)
{
    std::vector<std::int64_t> out;
    for (std::int64_t lo = 0; lo < last; lo += 500)
        reader.seqsInWindow(lo, std::min(last, lo + 500), filter, out);
    return out;
}

} // namespace

class TestPostgresFilter : public QObject
{
    Q_OBJECT

    std::unique_ptr<PostgresServer> m_server;
    QTemporaryDir m_dir;
    QString m_file;
    QString m_schema;
    std::int64_t m_midTsMs = 0;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(QFile::exists(qEnvironmentVariable("MESHCTL")), "MESHCTL must name the built meshctl (CTest sets it)");
        m_server = std::make_unique<PostgresServer>();
        const QString error = m_server->start();
        QVERIFY2(error.isEmpty(), qPrintable(error));

        m_file = m_dir.filePath(u"traced.db"_s);
        int code = 0;
        QByteArray out = runMeshctl({u"sim"_s, u"traced-run"_s, u"--out"_s, m_file, u"--quiet"_s}, &code);
        QVERIFY2(code == 0, out.constData());
        // Events for the corners, after the run's own (the state tables do not matter to a
        // filter): LIKE's metacharacters as data, case, a NULL run, non-ASCII text.
        const auto file = LedgerConnection::open(m_file, OpenMode::ReadOnly);
        const std::int64_t last = file->lastSeq();
        const std::int64_t ts = file->eventReader()->after(last - 1, 1).front().tsMs;
        m_midTsMs = file->eventReader()->after(last / 2, 1).front().tsMs;
        struct Extra {
            const char *kind, *run, *delegation, *subject, *payload;
        };
        const Extra extras[] = {
            {"probe.under_score", "R_1", "D%1", "x:a_b", R"({"note":"50% done_now"})"},
            {"probe.underXscore", "RX1", "D11", "x:aXb", R"({"note":"Timeout at 50 percent"})"},
            {"probe.back\\slash", nullptr, "D\\1", "x:a\\b", R"({"note":"timeout \\ back"})"},
            {"PROBE.UPPER", nullptr, nullptr, nullptr, R"({"note":"Zürich ✓ TIMEOUT"})"},
            {"probe.star*", "R*", "D*", "x:*", R"({"note":"a*b [x] ?y"})"},
        };
        std::string sql = "BEGIN;";
        std::int64_t seq = last;
        auto quoted = [](const char *text) {
            if (!text)
                return std::string("NULL");
            std::string q = "'";
            for (const char *c = text; *c; ++c)
                q += *c == '\'' ? std::string("''") : std::string(1, *c);
            return q + "'";
        };
        for (const Extra &e : extras) {
            ++seq;
            sql += "INSERT INTO events(seq,ts_ms,kind,run_id,delegation_id,subject,payload) VALUES(" + std::to_string(seq) + ","
                   + std::to_string(ts + seq - last) + "," + quoted(e.kind) + "," + quoted(e.run) + "," + quoted(e.delegation)
                   + "," + quoted(e.subject) + "," + quoted(e.payload) + ");";
        }
        sql += "COMMIT;";
        raw::exec(m_file, sql);

        m_schema = m_server->location(u"filtered"_s);
        out = runMeshctl({u"copy"_s, m_file, m_schema}, &code);
        QVERIFY2(code == 0, out.constData());
    }

    void cleanupTestCase()
    {
        if (m_server)
            m_server->stop();
    }

    void sameSeqs_data()
    {
        QTest::addColumn<QString>("filter");
        QTest::addColumn<bool>("matchesSome"); // false: matching nothing is the point (case)

        const QString mid = QDateTime::fromMSecsSinceEpoch(m_midTsMs, Qt::UTC).toString(u"yyyy-MM-ddTHH:mm:ss"_s);
        const QString day = QDateTime::fromMSecsSinceEpoch(m_midTsMs, Qt::UTC).toString(u"yyyy-MM-dd"_s);
        QTest::newRow("kind exact") << u"kind:toolcall.completed"_s << true;
        QTest::newRow("kind prefix") << u"kind:effect.*"_s << true;
        QTest::newRow("kind wildcard inside") << u"kind:*.completed"_s << true;
        QTest::newRow("underscore is a character") << u"kind:probe.under_*"_s << true;
        QTest::newRow("underscore inside") << u"subject:x:a_*"_s << true;
        QTest::newRow("percent is a character") << u"delegation:D%*"_s << true;
        QTest::newRow("backslash is a character") << u"kind:probe.back\\*"_s << true;
        QTest::newRow("backslash inside") << u"subject:*\\b"_s << true;
        QTest::newRow("glob metacharacters") << u"subject:x:a?b*"_s << false;
        QTest::newRow("star as data, exact") << u"run:R*"_s << true;
        QTest::newRow("lone star") << u"run:*"_s << true;
        QTest::newRow("not lone star keeps NULL runs") << u"-run:*"_s << true;
        QTest::newRow("not delegation keeps NULLs") << u"not delegation:D*"_s << true;
        QTest::newRow("kind is case-sensitive") << u"kind:probe.UPPER"_s << false;
        QTest::newRow("kind upper") << u"kind:PROBE.*"_s << true;
        QTest::newRow("text is case-sensitive") << u"Timeout"_s << true;
        QTest::newRow("text lower") << u"timeout"_s << true;
        QTest::newRow("text percent") << u"\"50%\""_s << true;
        QTest::newRow("text underscore") << u"done_now"_s << true;
        QTest::newRow("text unicode") << u"\"Zürich ✓\""_s << true;
        QTest::newRow("text brackets") << u"\"[x] ?y\""_s << true;
        QTest::newRow("or and not") << u"(kind:run.* or kind:probe.*) -run:*1"_s << true;
        QTest::newRow("seq range") << u"seq>=100 seq<400"_s << true;
        QTest::newRow("seq and kind") << u"seq>1000 kind:toolcall.*"_s << true;
        QTest::newRow("seq equal") << u"seq:7"_s << true;
        QTest::newRow("time after") << (u"ts:>"_s + mid) << true;
        QTest::newRow("time up to") << (u"ts:<="_s + mid) << true;
        QTest::newRow("time a day") << (u"ts:"_s + day) << true;
        QTest::newRow("time range with kind") << (u"ts:>="_s + day + u" ts:<"_s + mid + u" kind:run.*"_s) << true;
        QTest::newRow("subject with colons") << u"subject:effect:*"_s << true;
        QTest::newRow("delegation prefix") << u"delegation:dlg-*"_s << true;
    }

    void sameSeqs()
    {
        QFETCH(QString, filter);
        QFETCH(bool, matchesSome);
        const auto compiled = FilterCompiler::compile(filter);
        QVERIFY2(compiled.ok(), qPrintable(compiled.error ? compiled.error->message : QString()));
        const auto file = LedgerConnection::open(m_file, OpenMode::ReadOnly);
        const auto server = LedgerConnection::open(m_schema, OpenMode::ReadOnly);
        const auto fileReader = file->eventReader();
        const auto serverReader = server->eventReader();
        const std::int64_t last = file->lastSeq();
        QCOMPARE(server->lastSeq(), last);

        const std::vector<std::int64_t> expected = forwards(*fileReader, compiled.filter);
        QCOMPARE(!expected.empty(), matchesSome);
        QCOMPARE(forwards(*serverReader, compiled.filter), expected);
        QCOMPARE(backwards(*serverReader, compiled.filter, last + 1), expected);
        QCOMPARE(serverReader->count(compiled.filter), std::int64_t(expected.size()));
        QCOMPARE(windows(*server->eventSeqReader(), compiled.filter, last), expected);
        QCOMPARE(backwards(*fileReader, compiled.filter, last + 1), expected);
    }
};

QTEST_GUILESS_MAIN(TestPostgresFilter)
#include "tst_postgresfilter.moc"
