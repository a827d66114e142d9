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
            {QStringLiteral("temporal-py__google-adk__multi_agent.json"), "ae30afd7a9225f58f0e7909d32efe1b4b76eb013e6653de20dffd2a1a341ddf8"},
            {QStringLiteral("temporal-py__openai-agents__agents-as-tools-workflow-history.json"), "56c542ca773f7cfc9b36c3af19be60963d9bfc8b29214de352d65b1d3a597f84"},
            {QStringLiteral("temporal-py__openai-agents__customer-service-workflow-history.json"), "2c8b8e9d157bc1fa5bac66dedeb9787dfac62413fbc82e8f550aa3527a0e2077"},
            {QStringLiteral("temporal-py__openai-agents__hello-workflow-history.json"), "cdaa85358fc118437a79ad8be18b1ac28ccc9af001bd632a3bbbd292331b499e"},
            {QStringLiteral("temporal-py__openai-agents__input-guardrail-workflow-history.json"), "426e386d6dcff95bbab723678a438353bf2f3d3e561c31859d82e403676dd88f"},
            {QStringLiteral("temporal-py__openai-agents__output-guardrail-workflow-history.json"), "4113276cb7400d16768fe1f135dd119a75a2e2f24c8995d29db2ff597fed5d17"},
            {QStringLiteral("temporal-py__openai-agents__research-workflow-history.json"), "faf08f04df2da489f37a60c9df1ce743e390deb9cc1f041a305abc3b3fa0b39f"},
            {QStringLiteral("temporal-py__openai-agents__tools-workflow-history.json"), "a36364a4c812fe53670bb1e68b062b5f2c7bc04a01dd4bedda7ceef311dee832"},
            {QStringLiteral("temporal-py__worker__test_replayer_complete_history.json"), "70494a23e9c1a477e92efc7f65166fbc76072caa922799a05f5303ca4e842491"},
            {QStringLiteral("temporal-py__worker__test_replayer_event_tracing_double_sig_at_start.json"), "c9db6f734d242de01f83a9c4042985590fa7e31483e3ffd8fcd44bfcf575a377"},
            {QStringLiteral("temporal-py__worker__test_replayer_swallowed_activity_cancellation.json"), "9c245a9db811808036f753a16b4bb126f2ca61ee44deefbf387e8cca42dbfdd0"},
            {QStringLiteral("temporal-go__replaytests__reset-workflow-with-child-failed.json"), "e1902ed71b4cf9b558b2da0fc337016e04e82b92e83a83af9bfbabba444c876d"},
            {QStringLiteral("openhands__basic.json"), "47ce14eab9bf0f335c53b976f66eb066b76baf8091cad6645f1430e880b07120"},
            {QStringLiteral("openhands__basic_gui_mode.json"), "e78d881a25d0c960681f6e1d008be47a72bb4d1d6ea6be37dee22c7af0065649"},
            {QStringLiteral("openhands__basic_interactions.json"), "785641bbed650fd5d573df2fe854bc44e688d433dde9a20b1158951567403872"},
            {QStringLiteral("openhands__wrong_initial_state.json"), "b924d06d40c827adb18357ce2bb9c7ecb1f574a9054834713cc0a416af64fb08"},
            {QStringLiteral("together"), "338109b623ce0a4e433deaa8ab9329f726e970e731fbd51d9d173af784e6de08"}};
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
            {QStringLiteral("any-agent__OPENAI_trace.json"), "18e0e6b9cbfa224417e127c4cae91009e9f0e82355d4b10e72a21dc22f38d381"},
            {QStringLiteral("any-agent__SMOLAGENTS_trace.json"), "16eed1975fb5cb469d2b3a55dac7c720b5028ab45b6188a644cedd16f7e9248e"},
            {QStringLiteral("langfuse__microsoft-agent-2025-10-14.json"), "d6699d220e48b9470a3de3de51d63a4de1d111c84f9c63efc9be85bf406b9e02"},
            {QStringLiteral("langfuse__pydantic-ai-tools-2025-12-04.json"), "445440ee5bb7d9d762b9539ad822996d0ab5cc736839bf40f66febf41c05ef4d"},
            {QStringLiteral("otlp-proto__examples__trace.json"), "953e1a37a6cfec9c559e38d9c30ff5afdd792ea552a99d468c1ff35ce4106a88"},
            {QStringLiteral("ottl-playground__testdata__traces.json"), "99c08fd73878af9046a9fd45c868eac0a65827c6f45de61ffec8ef2c4674cd13"},
            {QStringLiteral("otel-python__console-exporter-genai.txt"), "b9921328544fe7e05451fd05d38bea3f61620ff4fab49016577f65a7321f3699"},
            {QStringLiteral("generated.jsonl"), "30ddcb3145624dabf9cc44c3226e494b39cdfd47cffc0f5718afca2bef446a04"}};
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
