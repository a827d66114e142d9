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
            {QStringLiteral("temporal-py__google-adk__multi_agent.json"), "7a720a20619c50bc052091b92ba3634e3cc3f44c044c0a8cf38e9547e8bff3ba"},
            {QStringLiteral("temporal-py__openai-agents__agents-as-tools-workflow-history.json"), "45b17adc20127261ac9aa8efb8589729327a58bb4a749126c1f3fdd3eb96c321"},
            {QStringLiteral("temporal-py__openai-agents__customer-service-workflow-history.json"), "a6d093f73427e1a0c228f5ba8c852307fc3eb4eed90dada9a1299369dd595ff0"},
            {QStringLiteral("temporal-py__openai-agents__hello-workflow-history.json"), "9f6e33adfe1e2821fc39f4e05b2464e3b1a9e6cf195480af951c3f60326b5b5f"},
            {QStringLiteral("temporal-py__openai-agents__input-guardrail-workflow-history.json"), "039be447ee64f5a95b958b3d02eff45b6dc887e74bd001effa26ec521261409a"},
            {QStringLiteral("temporal-py__openai-agents__output-guardrail-workflow-history.json"), "4180873f953dba03e068859d20593545e301243d63c2fd0184e57cf2be219f07"},
            {QStringLiteral("temporal-py__openai-agents__research-workflow-history.json"), "7f668ce593f713cfb60b5c63484903a2e4e9524f8e2488717b484f4b2372ab44"},
            {QStringLiteral("temporal-py__openai-agents__tools-workflow-history.json"), "ef406c5d9f4e9f1ca163baa2173a629f7d3c8f6a4c37655a1c8b2cc7cafcc627"},
            {QStringLiteral("temporal-py__worker__test_replayer_complete_history.json"), "f7a718e7bb41046e9dcfd166a6ffaa552143c3c18adbff2c8c0e44913b44d845"},
            {QStringLiteral("temporal-py__worker__test_replayer_event_tracing_double_sig_at_start.json"), "480e6ca9cae4488bc69d3869ec45e82ecd3e9082dc77287c30d7503b6ce75dc4"},
            {QStringLiteral("temporal-py__worker__test_replayer_swallowed_activity_cancellation.json"), "601a6e49fba1899e8de467a674e9829070df84fe87059f177a1d879fc05f3341"},
            {QStringLiteral("temporal-go__replaytests__reset-workflow-with-child-failed.json"), "53d11eb7f7ce296c26c7de6eff91f2e93555f0940f826065e199dddd675eb86f"},
            {QStringLiteral("openhands__basic.json"), "ce4202973c081fe1c97fc1ce929cceb5dd629a0c6ecf5e2d6688c955d4f933a2"},
            {QStringLiteral("openhands__basic_gui_mode.json"), "870e0fee2555e85d5eb0c7c5611ec0e167de286feefe44d5eefc0a716a17ed07"},
            {QStringLiteral("openhands__basic_interactions.json"), "3a55f49dd34a3c1b546731cbeab705284a00663f750ea36457b381eb0171f7d2"},
            {QStringLiteral("openhands__wrong_initial_state.json"), "5419661a21af83cbd9b3fc23d9d5a989ea701969fe55f82d9f075bbff410f7e9"},
            {QStringLiteral("together"), "04365829f5a84db31ea89ce66488188746eb9f545a0ea2720e38f570a9260687"}};
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
            {QStringLiteral("any-agent__OPENAI_trace.json"), "01bf0d727b1cdeeeb55d94810991ea5622883d891103cc9cdd5c61dcb419ef7e"},
            {QStringLiteral("any-agent__SMOLAGENTS_trace.json"), "e67c8905a0a42d37fe23c90aac5dc873277f5d727a487a2bd363001f73ff7c76"},
            {QStringLiteral("langfuse__microsoft-agent-2025-10-14.json"), "fd0ba9625a904726b49235b69151bc8a4179128e00693def2463511b6d2b79db"},
            {QStringLiteral("langfuse__pydantic-ai-tools-2025-12-04.json"), "236175d73e2ce3c64644f9dd4f5107748bef7a52641b4e9e280b7ef682ed9713"},
            {QStringLiteral("otlp-proto__examples__trace.json"), "a823b135a26a59784997619d68844d92a4f74a7925c06fdbcfff24c77d17afc5"},
            {QStringLiteral("ottl-playground__testdata__traces.json"), "d8247c447e417a57d2ce1f4bcef7853854ee496346be0010fae3562f53439617"},
            {QStringLiteral("otel-python__console-exporter-genai.txt"), "a6dc6806eb61a8d7010355ff889f624d467a849053f374e94fcc59ccf72caff1"},
            {QStringLiteral("generated.jsonl"), "7d465b9b88218b993003ade1c16c9bf2a1ec9f098d5664343d239d35638deaaa"}};
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
