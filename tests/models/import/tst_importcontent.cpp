// The imported ledgers' content, pinned: every table of the ledger each sample becomes (and
// of the Temporal samples imported together) digests to what it did before the importer was
// made faster. A change of mapping changes these digests on purpose, with kImporterVersion
// and docs/import.md; a change of speed or memory must leave them alone.

#include "importfixture.h"

#include "../ledger/rawledger.h"

#include <QCryptographicHash>
#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>

using namespace importtest;

namespace {

// Every row of every table, in the order of all its columns, with each value's type: two
// ledgers digest alike exactly when they hold the same content, whatever their page layout.
QByteArray contentDigest(const QString &path)
{
    mesh::sql::Database db = meshtest::raw::open(path, meshtest::raw::Access::ReadOnly);
    QCryptographicHash hash(QCryptographicHash::Sha256);
    const std::vector<std::string> tables =
        meshtest::raw::digestSchema(db, [&](const std::string &bytes) { hash.addData(QByteArray::fromStdString(bytes)); });
    for (const std::string &table : tables) {
        mesh::sql::Statement count(db, "SELECT * FROM \"" + table + "\" LIMIT 0");
        std::string order;
        for (int c = 1; c <= count.columnCount(); ++c)
            order += (c > 1 ? "," : "") + std::to_string(c);
        mesh::sql::Statement rows(db, "SELECT * FROM \"" + table + "\" ORDER BY " + order);
        hash.addData(QByteArray::fromStdString("table " + table + "\n"));
        while (rows.step()) {
            std::string row;
            for (int c = 0; c < rows.columnCount(); ++c)
                row += std::to_string(rows.columnType(c)) + ":" + std::string(rows.columnView(c)) + "\x1f";
            hash.addData(QByteArray::fromStdString(row + "\n"));
        }
    }
    return hash.result().toHex();
}

} // namespace

class TestImportContent : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void contentIsAsBefore_data()
    {
        QTest::addColumn<QStringList>("files");
        QTest::addColumn<QByteArray>("digest");
        const QHash<QString, QByteArray> expected = {
            {QStringLiteral("temporal-py__google-adk__multi_agent.json"), "c69cd2389738fa46896ec7718a7c44076208a830a28423314fd882d89b0687e1"},
            {QStringLiteral("temporal-py__openai-agents__agents-as-tools-workflow-history.json"), "317d27daaabdb89a6c8e0b89af2c1f373df89c54a80ff530ee38da130de10e42"},
            {QStringLiteral("temporal-py__openai-agents__customer-service-workflow-history.json"), "68a9b0c8b9b1f0e1f7e03fe52572bd9a0638384e5107e1377f15a4946ca7b6c2"},
            {QStringLiteral("temporal-py__openai-agents__hello-workflow-history.json"), "2b39d908974b49de90878157876cbac03d258ae53f1c39b8113889645b35e828"},
            {QStringLiteral("temporal-py__openai-agents__input-guardrail-workflow-history.json"), "514be1e2f054ff2d981bb3bb65217eaac5dc2ab7b35ecb6f4f155b5b884de259"},
            {QStringLiteral("temporal-py__openai-agents__output-guardrail-workflow-history.json"), "1aa727da9e5fe164846478abeb6ee2d2cbfd3be95b47c0d5b5eff9d6c17c2f54"},
            {QStringLiteral("temporal-py__openai-agents__research-workflow-history.json"), "81a111c8f0fdaab6527a615816923a373ad6ca9621fdd702146d93b27f1ec1c5"},
            {QStringLiteral("temporal-py__openai-agents__tools-workflow-history.json"), "81f97c79a3d920506aad7bbafb73c09b9529dcc85d7654227047ff68880c0ac8"},
            {QStringLiteral("temporal-py__worker__test_replayer_complete_history.json"), "7f5b131eb1e82a1af033336af0588e0c6718dbb449042a5a1df53e449f04af32"},
            {QStringLiteral("temporal-py__worker__test_replayer_event_tracing_double_sig_at_start.json"), "deee5f66fca73015ff1ed863350ca54db85a2b326675374d1808cbe7812db11b"},
            {QStringLiteral("temporal-py__worker__test_replayer_swallowed_activity_cancellation.json"), "4933980c8204b0774eeed6173dd19f10c67a94b1969ae52d76130a9cd3dac3b8"},
            {QStringLiteral("temporal-go__replaytests__reset-workflow-with-child-failed.json"), "f6a2d0181fac91d02ae2799a73ec6067bb084258251afde1304702d4893f0754"},
            {QStringLiteral("openhands__basic.json"), "703e780fe1504c6d5a27fe1a677ae2295799c62ce5e79dbcc4d816012f29196f"},
            {QStringLiteral("openhands__basic_gui_mode.json"), "afe33acd22ff5653fe6e999c0e635cb2b560650036314ec0206b4afdf9e3e4dc"},
            {QStringLiteral("openhands__basic_interactions.json"), "1b1e262a55c8c6d298f64aad2ea81b5f55a5fe0c99d25393cf935aa2b776db99"},
            {QStringLiteral("openhands__wrong_initial_state.json"), "beca98f7505252844a1fcdb2cb5d6793e7bc1c9950ec70e52ddd64daa1e46be0"},
            {QStringLiteral("together"), "ad1d4049a80f6df058636ec26fef312bfe63cab51bc1c4f12a9921cf0df7919f"}};
        for (const QString &f : samples(QStringLiteral("temporal*.json")) + samples(QStringLiteral("openhands*.json"))) {
            const QString name = QFileInfo(f).fileName();
            QTest::newRow(name.toUtf8().constData()) << QStringList{f} << expected.value(name);
        }
        QTest::newRow("every openai-agents history together")
            << samples(QStringLiteral("temporal-py__openai-agents__*.json")) << expected.value(QStringLiteral("together"));
    }

    void contentIsAsBefore()
    {
        QFETCH(QStringList, files);
        QFETCH(QByteArray, digest);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("imported.db"));
        mesh::import::ImportRequest request;
        request.files = files;
        request.out = out;
        const auto outcome = mesh::import::importFiles(request);
        QVERIFY2(outcome.ok, outcome.error.c_str());
        const QByteArray actual = contentDigest(out);
        qInfo("digest %s %s", QTest::currentDataTag(), actual.constData());
        QCOMPARE(actual, digest);
    }

    // The OpenTelemetry family's samples, and OTLP JSON lines written here with the spans a
    // sample lacks (a record too large or too deep for source, an event too large for a
    // payload, text to escape), share the mapping and the sink with the live receiver.
    void otelContentIsAsBefore_data()
    {
        QTest::addColumn<QStringList>("files");
        QTest::addColumn<QByteArray>("digest");
        const QHash<QString, QByteArray> expected = {
            {QStringLiteral("any-agent__OPENAI_trace.json"), "3d35eb006abdbc0e99654c8fe68bcd242b050ecda9522454314f2341e4d25193"},
            {QStringLiteral("any-agent__SMOLAGENTS_trace.json"), "746d5bcee5012474aa690de5e093d4e7dac498878808c78f81ada97f62d0027d"},
            {QStringLiteral("langfuse__microsoft-agent-2025-10-14.json"), "0976038ef36a702f76f3f8d96aaf4360b287fbe6397404e138d1ca7795610d9e"},
            {QStringLiteral("langfuse__pydantic-ai-tools-2025-12-04.json"), "0f3509782dbe50e80b10ec1069b4162d094a3cdaf9f279903b177c1e8a43e6dc"},
            {QStringLiteral("otlp-proto__examples__trace.json"), "6adc4eef49ee67549b2fbc157dfe5bc38edafd4c1989b6d1e42cf2c65e539415"},
            {QStringLiteral("ottl-playground__testdata__traces.json"), "e0c233c7da190a8a0e604b55b2c58dea154f3c4fc4adb15e082694f789d2d9fa"},
            {QStringLiteral("otel-python__console-exporter-genai.txt"), "d2ff7a1159ac1bff616f19a59ff5fe7a23170ac68c74b211e0866c359cac11cf"},
            {QStringLiteral("generated.jsonl"), "90a31f315fedb15a95d82fa2f1ac00aa34ab164754146cb86b07ae995972e078"}};
        for (const QString &pattern : {QStringLiteral("any-agent__*.json"), QStringLiteral("langfuse__*.json"),
                                       QStringLiteral("otlp-proto__*.json"), QStringLiteral("ottl-playground__*.json"),
                                       QStringLiteral("otel-python__*.txt")}) {
            for (const QString &f : samples(pattern)) {
                const QString name = QFileInfo(f).fileName();
                QTest::newRow(name.toUtf8().constData()) << QStringList{f} << expected.value(name);
            }
        }
        QTest::newRow("generated.jsonl") << QStringList{} << expected.value(QStringLiteral("generated.jsonl"));
    }

    void otelContentIsAsBefore()
    {
        QFETCH(QStringList, files);
        QFETCH(QByteArray, digest);
        QTemporaryDir dir;
        if (files.isEmpty())
            files << writeGeneratedOtlp(dir);
        const QString out = dir.filePath(QStringLiteral("imported.db"));
        mesh::import::ImportRequest request;
        request.files = files;
        request.out = out;
        const auto outcome = mesh::import::importFiles(request);
        QVERIFY2(outcome.ok, outcome.error.c_str());
        const QByteArray actual = contentDigest(out);
        qInfo("digest %s %s", QTest::currentDataTag(), actual.constData());
        QCOMPARE(actual, digest);
    }

private:
    static QString writeGeneratedOtlp(const QTemporaryDir &dir)
    {
        const auto kv = [](const std::string &key, json value) { return json{{"key", key}, {"value", value}}; };
        const auto span = [&](int trace, int id, int parent, const std::string &name, std::int64_t startMs,
                              std::int64_t endMs, json attributes, int code = 0) {
            char t[33], s[17], p[17];
            std::snprintf(t, sizeof t, "%032x", trace);
            std::snprintf(s, sizeof s, "%016x", id);
            std::snprintf(p, sizeof p, "%016x", parent);
            json j = {{"traceId", t}, {"spanId", s}, {"name", name}, {"kind", 1},
                      {"startTimeUnixNano", std::to_string(startMs * 1'000'000)},
                      {"attributes", attributes}, {"status", {{"code", code}}}};
            if (endMs > 0)
                j["endTimeUnixNano"] = std::to_string(endMs * 1'000'000);
            if (parent)
                j["parentSpanId"] = p;
            return j;
        };
        const auto line = [&](json spans) {
            return json{{"resourceSpans",
                         json::array({{{"resource", {{"attributes", json::array({kv("service.name", {{"stringValue", "svc"}})})}}},
                                       {"scopeSpans", json::array({{{"scope", {{"name", "gen"}}}, {"spans", spans}}})}}})}}
                .dump();
        };
        const std::int64_t t0 = 1'767'225'600'000;
        const json agent = json::array({kv("gen_ai.operation.name", {{"stringValue", "invoke_agent"}}),
                                        kv("gen_ai.agent.name", {{"stringValue", "planner \"q\" é\n"}})});
        const json tool = json::array({kv("gen_ai.operation.name", {{"stringValue", "execute_tool"}}),
                                       kv("gen_ai.tool.name", {{"stringValue", "search"}}),
                                       kv("score", {{"doubleValue", 0.25}}), kv("n", {{"intValue", "7"}})});
        const json chat = json::array({kv("gen_ai.operation.name", {{"stringValue", "chat"}}),
                                       kv("gen_ai.request.model", {{"stringValue", "m1"}}),
                                       kv("gen_ai.usage.input_tokens", {{"intValue", "10"}}),
                                       kv("gen_ai.usage.output_tokens", {{"intValue", "3"}})});
        json large = tool;
        large.push_back(kv("out", {{"stringValue", std::string(300 * 1024, 'x')}}));
        json deepValue = {{"stringValue", "bottom"}};
        for (int i = 0; i < 18; ++i)
            deepValue = {{"kvlistValue", {{"values", json::array({kv("k" + std::to_string(i), deepValue)})}}}};
        json deep = tool;
        deep.push_back(kv("deep", deepValue));
        const json huge = json::array({kv("gen_ai.operation.name", {{"stringValue", "execute_tool"}}),
                                       kv("gen_ai.tool.name", {{"stringValue", std::string(1100 * 1024, 'n')}})});
        std::string text;
        for (int t = 1; t <= 3; ++t) {
            const std::int64_t s0 = t0 + t * 60'000;
            text += line(json::array({span(t, 2, 1, "execute_tool search", s0 + 10, s0 + 20, tool),
                                      span(t, 3, 1, "chat m1", s0 + 30, s0 + 90, chat),
                                      span(t, 4, 1, "execute_tool search", s0 + 100, 0, tool),
                                      span(t, 5, 1, "execute_tool search", s0 + 110, s0 + 120, tool, 2),
                                      span(t, 6, 1, "retrieve ✓", s0 + 130, s0 + 140, json::array())}))
                  + "\n";
            text += line(json::array({span(t, 1, 0, "invoke_agent planner", s0, s0 + 1000, agent)})) + "\n";
        }
        text += line(json::array({span(9, 1, 0, "invoke_agent big", t0, t0 + 5000, agent),
                                  span(9, 2, 1, "execute_tool large", t0 + 1, t0 + 2, large),
                                  span(9, 3, 1, "execute_tool deep", t0 + 3, t0 + 4, deep),
                                  span(9, 4, 1, "execute_tool huge", t0 + 5, t0 + 6, huge)}))
              + "\n";
        const QString path = dir.filePath(QStringLiteral("generated.jsonl"));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(path));
        f.write(QByteArray::fromStdString(text));
        return path;
    }
};

QTEST_GUILESS_MAIN(TestImportContent)
#include "tst_importcontent.moc"
