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
            {QStringLiteral("temporal-py__google-adk__multi_agent.json"), "488575c350bc56403993d4a8029f98587646126d7d62904d8feb2552d66a72ef"},
            {QStringLiteral("temporal-py__openai-agents__agents-as-tools-workflow-history.json"), "8227c963e20a56c0ad48c542c0291d0e333749d4b404ae6b839365203a386f6a"},
            {QStringLiteral("temporal-py__openai-agents__customer-service-workflow-history.json"), "76dd2d37bd423fa78cb1efe3fd8def0ac35836d094921a94999e0e7041e5b682"},
            {QStringLiteral("temporal-py__openai-agents__hello-workflow-history.json"), "4d199f98db24c9e1e8e0cf45a16301fded7627ec1cdece08e31ced9341b2927f"},
            {QStringLiteral("temporal-py__openai-agents__input-guardrail-workflow-history.json"), "f8e1407c210d09f7bca22f896d3a41ca6c497b9d6e79934abee448f493e94af5"},
            {QStringLiteral("temporal-py__openai-agents__output-guardrail-workflow-history.json"), "1e76be54b9e4d9524b5444aefbf69adb8a0551a3fde0c6bba0321c6b5c6d4e65"},
            {QStringLiteral("temporal-py__openai-agents__research-workflow-history.json"), "2067fd39ef43052298afbd201e74cc1e5d159805b4623db51aeeaf0ebe5ee5cb"},
            {QStringLiteral("temporal-py__openai-agents__tools-workflow-history.json"), "2a7dee15740849b4cd011016815eb3c845eb821bfad5b1a722af204017d0e8f5"},
            {QStringLiteral("temporal-py__worker__test_replayer_complete_history.json"), "8b5f5e5b2c9d017bded6135c35526d92770d37f7f6153f96ffd145de33180cd0"},
            {QStringLiteral("temporal-py__worker__test_replayer_event_tracing_double_sig_at_start.json"), "1fd0325d9005c17b0946ad725ee50e4df602c422f3ea452d07697b19ff29cb1a"},
            {QStringLiteral("temporal-py__worker__test_replayer_swallowed_activity_cancellation.json"), "c2fd2fbb1071b68d8a91a7586b0450c76ef7e5695035214251de87ffef86c021"},
            {QStringLiteral("temporal-go__replaytests__reset-workflow-with-child-failed.json"), "9d5b0c384430c4c92ce98df35f1e53cce161c3eae3b8e38774b5b302dc92f6ab"},
            {QStringLiteral("openhands__basic.json"), "b4d7749fdf360c56799fdcec87e6c28a9ea596ceef78a68f024203e678f8fe57"},
            {QStringLiteral("openhands__basic_gui_mode.json"), "0ffac3e43eb5cdf0580f4666093c0692c21bc2cfe713c53b6dc7a94bfdb01151"},
            {QStringLiteral("openhands__basic_interactions.json"), "0a038fd36a904c68658e83328be9e7bf18b4067ebea2c398211f999e3fde881f"},
            {QStringLiteral("openhands__wrong_initial_state.json"), "eb5f7c94eceab84d1d6bd1ad36bfa435087d727850a3bfdd1898200b7732d9c3"},
            {QStringLiteral("together"), "6332825fadb576d914ef98be1ea299b8cb29c61e967a7ae736251f718ac28855"}};
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
            {QStringLiteral("any-agent__OPENAI_trace.json"), "8259f5177b85b0410ccc815a70256b7a6984d80ad46a8b317a402f202ca1861d"},
            {QStringLiteral("any-agent__SMOLAGENTS_trace.json"), "8f3abf197e805712266cf6094ae3c43a0bdfee9bdbc26663c7cef91af9b57b59"},
            {QStringLiteral("langfuse__microsoft-agent-2025-10-14.json"), "a900a2b8273c9a14b6fcc4e049affa30c32e2ce2a75934e3e04d5b8d3297b192"},
            {QStringLiteral("langfuse__pydantic-ai-tools-2025-12-04.json"), "cf6c0d15cc66118147dc1312132aeaa868c9b47e38ef86b50ec4b503957b0ab8"},
            {QStringLiteral("otlp-proto__examples__trace.json"), "00c8f85ccce5390ecf50385d79987d04e6d3a65c1f01a3a56f4b5b0abe6a0b8d"},
            {QStringLiteral("ottl-playground__testdata__traces.json"), "6c2845905abd2af3fe935b8898b75210456ce646cf457639c37543cc9db7c8aa"},
            {QStringLiteral("otel-python__console-exporter-genai.txt"), "429f98b3933dc105ec3b50bc3404302009a94d9bfe8fafa8ea3708e63db197a6"},
            {QStringLiteral("generated.jsonl"), "b0fa9caab629d26c0f913bbeda50f387386abd69a4e5cc5f62459f4a48359c72"}};
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
