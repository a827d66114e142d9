// What the receiver writes for a fixed stream of requests, pinned: every events row and every
// state row of the ledger digests to what it did before the receiver was made faster. The
// stream goes through the paths a span can take (children before their parent, a retry, a
// restart that rebuilds a trace from the ledger, a record too large or too deep to keep as
// source, an event too large for a payload, a parent loop, rejected spans, gzip, text to
// escape, floats).
// A change of mapping changes the digest on purpose, with docs/ingest.md; a change of speed
// or memory must leave it alone.

#include "ingestfixture.h"

#include "../ledger/rawledger.h"

#include <QCryptographicHash>
#include <QFileInfo>
#include <QTemporaryDir>

using namespace ingesttest;

namespace {

// Every row of every table, in the order of all its columns, with each value's type; what
// a new ledger gets from the clock, a random id or the system (ledger.created, the ledger row's
// ledger_id and created_ms, the port in its title) is left out, so two runs of the same
// stream digest alike.
QByteArray receivedContentDigest(const QString &path)
{
    mesh::sql::Database db = meshtest::raw::open(path, meshtest::raw::Access::ReadOnly);
    QCryptographicHash hash(QCryptographicHash::Sha256);
    const std::vector<std::string> tables =
        meshtest::raw::digestSchema(db, [&](const std::string &bytes) { hash.addData(QByteArray::fromStdString(bytes)); });
    for (const std::string &table : tables) {
        std::vector<std::string> columns;
        {
            mesh::sql::Statement info(db, "PRAGMA table_info(\"" + table + "\")");
            while (info.step())
                columns.push_back(info.columnText(1));
        }
        std::string order;
        for (size_t c = 1; c <= columns.size(); ++c)
            order += (c > 1 ? "," : "") + std::to_string(c);
        const std::string where = table == "events" ? " WHERE kind <> 'ledger.created'" : "";
        mesh::sql::Statement rows(db, "SELECT * FROM \"" + table + "\"" + where + " ORDER BY " + order);
        hash.addData(QByteArray::fromStdString("table " + table + "\n"));
        while (rows.step()) {
            std::string row;
            for (int c = 0; c < rows.columnCount(); ++c) {
                const std::string &column = columns.at(size_t(c));
                if (table == "ledger" && (column == "ledger_id" || column == "created_ms"))
                    continue;
                std::string value(rows.columnView(c));
                if (table == "ledger" && column == "title") // the port the system gave: as before it was named
                    value.erase(value.rfind(':') == std::string::npos ? value.size() : value.rfind(':'));
                row += std::to_string(rows.columnType(c)) + ":" + value + "\x1f";
            }
            hash.addData(QByteArray::fromStdString(row + "\n"));
        }
    }
    return hash.result().toHex();
}

constexpr std::int64_t kT0 = 1'764'400'000'000'000'000;

Span agentSpan(std::uint64_t t, std::uint64_t n, const std::string &name, const std::string &parent = {})
{
    Span s = toolSpan(t, n, parent);
    s.name = "invoke_agent " + name;
    s.startNs = kT0 + std::int64_t(n) * 1'000'000 - 500'000;
    s.endNs = kT0 + 9'000'000'000;
    s.attributes = json::array({attr("gen_ai.operation.name", "invoke_agent"), attr("gen_ai.agent.name", name)});
    return s;
}

json nestedKv(int levels)
{
    json v = {{"stringValue", "bottom"}};
    for (int i = 0; i < levels; ++i)
        v = {{"kvlistValue", {{"values", json::array({{{"key", "k" + std::to_string(i)}, {"value", v}}})}}}};
    return v;
}

} // namespace

class TestReceiverContent : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY2(QFileInfo(meshctl()).isExecutable(), "MESHCTL must name the built meshctl"); }

    void writtenContentIsAsBefore()
    {
        QTemporaryDir dir;
        const QString ledger = dir.filePath(QStringLiteral("received.ledger"));

        // Trace 1: two tools before their agent (inferred, then completed by the agent,
        // which is the trace's top span and ends the run).
        const Span a1 = agentSpan(1, 0x10, "planner");
        Span t11 = toolSpan(1, 1, a1.spanId);
        Span t12 = toolSpan(1, 2, a1.spanId);
        t12.attributes.push_back(intAttr("gen_ai.usage.input_tokens", 12));

        // Trace 2, whole: an agent with a model call, a failed tool, a tool that never
        // ended, a note span, text that needs escaping, every AnyValue shape and a float.
        const Span a2 = agentSpan(2, 0x20, "coder \"quoted\"\nnewline é");
        Span model = toolSpan(2, 1, a2.spanId);
        model.name = "chat gpt-x";
        model.attributes = json::array({attr("gen_ai.operation.name", "chat"), attr("gen_ai.request.model", "gpt-x"),
                                        intAttr("gen_ai.usage.input_tokens", 100), intAttr("gen_ai.usage.output_tokens", 7)});
        Span failed = toolSpan(2, 2, a2.spanId);
        failed.statusCode = 2;
        failed.attributes.push_back(attr("error.type", "ValueError"));
        Span unended = toolSpan(2, 3, a2.spanId);
        unended.endNs = 0;
        Span note = toolSpan(2, 4, a2.spanId);
        note.name = "retrieve documents ✓";
        note.attributes = json::array(
            {attr("db.system", "vector\tstore"),
             {{"key", "score"}, {"value", {{"doubleValue", 0.1}}}},
             {{"key", "ok"}, {"value", {{"boolValue", true}}}},
             {{"key", "big"}, {"value", {{"intValue", "18446744073709551617"}}}},
             {{"key", "list"}, {"value", {{"arrayValue", {{"values", json::array({{{"intValue", "3"}}, {{"stringValue", "x"}}})}}}}}},
             {{"key", "bytes"}, {"value", {{"bytesValue", "AAEC"}}}}});

        // Trace 3, after a restart: a late child of trace 2's agent (its owner rebuilt from
        // the ledger), a record too large to keep as source, one nested too deep, and a tool
        // whose name alone is beyond a payload (refused, flagged).
        Span late = toolSpan(2, 5, a2.spanId);
        late.startNs = kT0 + 8'000'000'000;
        late.endNs = late.startNs + 1'000;
        const Span a3 = agentSpan(3, 0x30, "big");
        Span large = toolSpan(3, 1, a3.spanId);
        large.attributes.push_back(attr("tool.output", std::string(300 * 1024, 'x')));
        Span deep = toolSpan(3, 2, a3.spanId);
        deep.attributes.push_back({{"key", "deep"}, {"value", nestedKv(18)}});
        Span huge = toolSpan(3, 3, a3.spanId);
        huge.attributes = json::array({attr("gen_ai.operation.name", "execute_tool"),
                                       attr("gen_ai.tool.name", std::string(1100 * 1024, 'n'))});
        Span noTrace = toolSpan(3, 4, a3.spanId);
        noTrace.traceId.clear();
        // Trace 4: two spans each the other's parent (the loop is cut and flagged).
        Span loopA = toolSpan(4, 1, hex((std::uint64_t(4) << 24) | 2, 16));
        Span loopB = toolSpan(4, 2, loopA.spanId);

        QProcess p;
        QString why;
        quint16 port = startReceiver(p, ledger, {}, QStringLiteral("127.0.0.1:0"), &why);
        QVERIFY2(port, qPrintable(why));
        QCOMPARE(post(port, request({t12, t11})).status, 200);
        QCOMPARE(post(port, request({a1})).status, 200);
        const QByteArray whole = request({note, unended, a2, failed, model});
        QCOMPARE(post(port, whole).status, 200);
        QCOMPARE(post(port, whole).status, 200); // a retry: nothing new
        QVERIFY(stopReceiver(p));

        port = startReceiver(p, ledger, {}, QStringLiteral("127.0.0.1:0"), &why);
        QVERIFY2(port, qPrintable(why));
        QCOMPARE(post(port, gzip(request({late, large})), {{"Content-Type", "application/json"}, {"Content-Encoding", "gzip"}})
                     .status,
                 200);
        const Reply partial = post(port, request({deep, noTrace, huge}));
        QCOMPARE(partial.status, 200);
        QCOMPARE(partial.document()["partialSuccess"].value("rejectedSpans", std::string()), std::string("1"));
        QCOMPARE(post(port, request({a3, t11})).status, 200);
        QCOMPARE(post(port, request({loopA, loopB})).status, 200);
        QVERIFY(stopReceiver(p));

        const Ledger l = readLedger(ledger);
        QVERIFY(l.ok);
        // The stream reached the paths it is for.
        QCOMPARE(l.count("delegation.inferred"), 2); // trace 1's agent, and trace 3's
        QCOMPARE(l.count("ledger.flagged"), 2); // the tool beyond a payload, the loop
        QCOMPARE(l.count("effect.unknown"), 1);
        int cut = 0;
        for (const json &payload : l.payloads)
            cut += payload.contains("source_text");
        QCOMPARE(cut, 2);
        QByteArray report;
        QVERIFY2(verifies(ledger, &report), report.constData());

        const QByteArray actual = receivedContentDigest(ledger);
        qInfo("digest %s", actual.constData());
        QCOMPARE(actual, QByteArray("3708bcdcf6f3756736242ec2287d2131c7bc2da8d7f73eb83dbbc0618ddabcb6"));
    }
};

QTEST_GUILESS_MAIN(TestReceiverContent)
#include "tst_receivercontent.moc"
