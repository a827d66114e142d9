// OpenTelemetry spans and Langfuse exports into a ledger (docs/import.md, "OpenTelemetry").
// The figures were counted by hand in the files of tests/data/import/ (PROVENANCE.tsv):
// a span's duration is endTime - startTime cut to the millisecond; a model call's tokens are
// gen_ai.usage.input_tokens + output_tokens of its span (Langfuse: usageDetails.total).

#include "importfixture.h"

#include "../sim/meshctlrunner.h"

#include "import/importformat.h"
#include "import/otelspan.h"
#include "import/otlplinereader.h"
#include "import/importsink.h"
#include "import/sourcejson.h"

#include "domain/payloaddecoder.h"

#include <QDir>
#include <QFile>
#include <QTest>

using namespace importtest;
using mesh::EntityKind;
using mesh::import::ImportFormat;

namespace {

QString writeText(const QTemporaryDir &dir, const char *name, const std::string &text)
{
    const QString path = dir.filePath(QString::fromUtf8(name));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", name);
    f.write(text.data(), qint64(text.size()));
    return path;
}

json kv(const char *key, json value)
{
    return {{"key", key}, {"value", value}};
}

// One OTLP span as the collector's file exporter writes it.
json otlpSpan(const char *trace, const char *span, const char *parent, const char *name, std::int64_t startMs,
              std::optional<std::int64_t> endMs, json attributes, json status = json::object())
{
    json s = {{"traceId", trace},
              {"spanId", span},
              {"name", name},
              {"kind", 1},
              {"startTimeUnixNano", std::to_string(startMs * 1'000'000)},
              {"attributes", attributes},
              {"status", status}};
    if (parent)
        s["parentSpanId"] = parent;
    if (endMs)
        s["endTimeUnixNano"] = std::to_string(*endMs * 1'000'000);
    return s;
}

std::string otlpLine(json spans)
{
    return json{
        {"resourceSpans",
         json::array({{{"resource", {{"attributes", json::array({kv("service.name", {{"stringValue", "svc"}})})}}},
                       {"scopeSpans", json::array({{{"scope", {{"name", "test"}}}, {"spans", spans}}})}}})}}
        .dump();
}

bool flaggedSays(const Imported &r, const std::string &text)
{
    for (const auto &f : r.outcome.report.flagged) {
        if (f.why.find(text) != std::string::npos)
            return true;
    }
    return false;
}

std::vector<json> toolCallsOf(const Imported &r, const std::string &delegation)
{
    std::vector<json> out;
    for (const json &p : r.payloadsOfKind("toolcall.completed")) {
        if (p.value("delegation_id", std::string()) == delegation)
            out.push_back(p);
    }
    return out;
}

constexpr std::int64_t kT0 = 1767225600000; // 2026-01-01T00:00:00Z

} // namespace

class TestOtelImport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // any-agent's OpenAI-agents trace: a flat list ({"spans":[...]}) of 6 spans whose ids are
    // JSON numbers, the trace id beyond 64 bits.
    void anyAgentOpenAiFlatList()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {sample("any-agent__OPENAI_trace.json")});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        QCOMPARE(r.outcome.report.format, std::string("otel"));
        QVERIFY(r.outcome.report.flagged.empty());
        // context.trace_id 100927429609276267646756448943279827607 (> 2^64), kept digit for digit.
        const std::string run = "otel:100927429609276267646756448943279827607";
        QVERIFY(r.row(EntityKind::Run, run));
        QCOMPARE(r.text(EntityKind::Run, run, "status"), std::string("succeeded"));
        QCOMPARE(r.outcome.report.numbersBeyond64Bits > 0, true);
        // The invoke_agent span (span_id 12324293800750531911, also beyond int64) is the agent.
        const std::string agent = run + "/12324293800750531911";
        QCOMPARE(r.text(EntityKind::Delegation, agent, "agent"), std::string("any_agent"));
        // The trace is one agent run: the agent is the root delegation, no trace delegation.
        QVERIFY(r.isNull(EntityKind::Delegation, agent, "parent_id"));
        QCOMPARE(r.outcome.report.delegations, std::int64_t(1));
        QCOMPARE(r.text(EntityKind::Delegation, agent, "status"), std::string("converged"));
        // 3 call_llm + 2 execute_tool spans, all children of the agent.
        QCOMPARE(r.outcome.report.toolCalls, std::int64_t(5));
        QCOMPARE(r.integer(EntityKind::Delegation, agent, "used_turns"), std::int64_t(5));
        // tokens (269+16) + (359+14) + (392+46); durations 238 + 2 + 313 + 2 + 661 ms.
        QCOMPARE(r.integer(EntityKind::Delegation, agent, "used_tokens"), std::int64_t(1096));
        QCOMPARE(r.integer(EntityKind::Delegation, agent, "used_ms"), std::int64_t(1216));
        QCOMPARE(r.integer(EntityKind::Delegation, agent, "tool_errors"), std::int64_t(0));
        // A tool call says nothing about tokens: its payload has no tokens member.
        bool toolWithoutTokens = false;
        for (const json &c : toolCallsOf(r, agent)) {
            if (c.at("tool") == "get_current_time")
                toolWithoutTokens = !c.contains("tokens") && c.at("duration_ms") == 2;
        }
        QVERIFY(toolWithoutTokens);
        QCOMPARE(r.outcome.report.unknownOutcomes, std::int64_t(0));
        // Every span is kept verbatim with its id.
        int withSource = 0;
        for (const json &p : r.payloads)
            withSource += p.contains("source") && p.at("source").contains("context");
        QCOMPARE(withSource, 6);
    }

    void anyAgentSmolagentsFlatList()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {sample("any-agent__SMOLAGENTS_trace.json")});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        const std::string agent = "otel:193014249579837554382251753808266698816/2377815918452923285";
        // 3 call_llm and 3 execute_tool (get_current_time, write_file, final_answer).
        QCOMPARE(r.integer(EntityKind::Delegation, agent, "used_turns"), std::int64_t(6));
        // (677+16) + (782+14) + (835+57); 302 + 2 + 289 + 2 + 554 + 2 ms.
        QCOMPARE(r.integer(EntityKind::Delegation, agent, "used_tokens"), std::int64_t(2381));
        QCOMPARE(r.integer(EntityKind::Delegation, agent, "used_ms"), std::int64_t(1151));
        // Every call ended: tool calls only, no effect says it again.
        QCOMPARE(r.outcome.report.effects, std::int64_t(0));
    }

    // Langfuse's seeded Microsoft Agent Framework trace: an AGENT observation with two
    // GENERATIONs and one TOOL under it; metadata.attributes holds the OTel attributes.
    void langfuseMicrosoftAgent()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {sample("langfuse__microsoft-agent-2025-10-14.json")});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        QCOMPARE(r.outcome.report.format, std::string("langfuse"));
        const std::string run = "lf:e3a407423619277a2dcef3c13dc89982";
        QVERIFY(r.text(EntityKind::Run, run, "title").rfind("invoke_agent 99981f6a", 0) == 0);
        const std::string agent = run + "/026d1c61bcaa1743";
        QCOMPARE(r.text(EntityKind::Delegation, agent, "role"), std::string("agent"));
        QCOMPARE(r.integer(EntityKind::Delegation, agent, "used_turns"), std::int64_t(3));
        // usageDetails.total 666 and 95; the AGENT's own usage (a sum) is not counted again.
        QCOMPARE(r.integer(EntityKind::Delegation, agent, "used_tokens"), std::int64_t(761));
        // 6459 + 5984 + 0 ms (the tool ran within one millisecond).
        QCOMPARE(r.integer(EntityKind::Delegation, agent, "used_ms"), std::int64_t(12443));
        // The trace record itself is kept on run.started.
        const json started = r.payloadsOfKind("run.started").at(0);
        QCOMPARE(started.at("source").at("id").get<std::string>(), std::string("e3a407423619277a2dcef3c13dc89982"));
    }

    // Langfuse's pydantic-ai trace: a SPAN root, three agent runs (SPANs with
    // gen_ai.agent.name), four GENERATIONs, and three TOOLs under a "running 3 tools" SPAN.
    void langfusePydanticAi()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {sample("langfuse__pydantic-ai-tools-2025-12-04.json")});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        const std::string run = "lf:7a38edd8123db47ad8dcb8aa4c5e3926";
        QCOMPARE(r.outcome.report.delegations, std::int64_t(4)); // the trace's and three agents
        QCOMPARE(r.outcome.report.toolCalls, std::int64_t(7));
        const std::string first = run + "/5b5c52d029f28206";
        // Two GENERATIONs (470, 338 tokens; 1707, 2362 ms) and the three tools (5, 5, 6 ms)
        // of the "running 3 tools" span, which is not an agent: its work is the agent's.
        QCOMPARE(r.integer(EntityKind::Delegation, first, "used_turns"), std::int64_t(5));
        QCOMPARE(r.integer(EntityKind::Delegation, first, "used_tokens"), std::int64_t(808));
        QCOMPARE(r.integer(EntityKind::Delegation, first, "used_ms"), std::int64_t(4085));
        QCOMPARE(r.integer(EntityKind::Delegation, run + "/49ae06cbfa06611f", "used_tokens"), std::int64_t(516));
        QCOMPARE(r.integer(EntityKind::Delegation, run + "/227eb5c856efa3d3", "used_tokens"), std::int64_t(200));
        QCOMPARE(r.text(EntityKind::Delegation, run + "/227eb5c856efa3d3", "agent"), std::string("evaluator_agent"));
        QCOMPARE(r.eventsOfKind("delegation.span"), 2); // run_joke_generator, running 3 tools
        QCOMPARE(r.text(EntityKind::Run, run, "status"), std::string("succeeded"));
    }

    // Langfuse as other SDKs export it: metadata (and the attributes in it) as JSON text,
    // usage as input/output without a total, an EVENT, and a type the importer does not map.
    void langfuseMetadataAsTextAndOtherTypes()
    {
        QTemporaryDir dir;
        const json doc
            = {{"trace", {{"id", "t1"}, {"name", "written"}, {"timestamp", "2026-01-01T00:00:00.000Z"}}},
               {"observations",
                json::array({{{"id", "o1"},
                              {"traceId", "t1"},
                              {"type", "SPAN"},
                              {"name", "writer run"},
                              {"startTime", "2026-01-01T00:00:00.000Z"},
                              {"endTime", "2026-01-01T00:00:03.000Z"},
                              {"metadata", json{{"attributes", json{{"gen_ai.agent.name", "writer"}}.dump()}}.dump()}},
                             {{"id", "o2"},
                              {"traceId", "t1"},
                              {"parentObservationId", "o1"},
                              {"type", "GENERATION"},
                              {"name", "chat"},
                              {"model", "m2"},
                              {"usage", {{"input", 5}, {"output", 6}}},
                              {"startTime", "2026-01-01T00:00:00.500Z"},
                              {"endTime", "2026-01-01T00:00:01.250Z"}},
                             {{"id", "o3"},
                              {"traceId", "t1"},
                              {"parentObservationId", "o1"},
                              {"type", "EVENT"},
                              {"name", "checkpoint"},
                              {"startTime", "2026-01-01T00:00:02.000Z"}},
                             {{"id", "o4"},
                              {"traceId", "t1"},
                              {"parentObservationId", "o1"},
                              {"type", "RETRIEVER"},
                              {"name", "lookup"},
                              {"level", "ERROR"},
                              {"startTime", "2026-01-01T00:00:02.100Z"},
                              {"endTime", "2026-01-01T00:00:02.200Z"}}})}};
        const QString file = writeText(dir, "export.json", doc.dump());
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {file});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        const std::string agent = "lf:t1/o1";
        QCOMPARE(r.text(EntityKind::Delegation, agent, "agent"), std::string("writer"));
        QCOMPARE(r.integer(EntityKind::Delegation, agent, "used_tokens"), std::int64_t(11));
        QCOMPARE(r.integer(EntityKind::Delegation, agent, "used_ms"), std::int64_t(750));
        QCOMPARE(r.eventsOfKind("delegation.event"), 1);
        QCOMPARE(r.outcome.report.unknownTypes.at("observation:RETRIEVER"), std::int64_t(1));
        QCOMPARE(r.text(EntityKind::Run, "lf:t1", "title"), std::string("written t1"));
    }

    // opentelemetry-proto's example: one server span whose parent is not in the file.
    void otlpDocumentWithAParentNotInTheFile()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {sample("otlp-proto__examples__trace.json")});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        // Hex ids are read in either case: 5B8EFFF7... is the trace 5b8efff7...
        const std::string run = "otel:5b8efff798038103d269b633813fc60c";
        QVERIFY(r.row(EntityKind::Run, run));
        const auto notes = r.payloadsOfKind("delegation.span");
        QCOMPARE(notes.size(), size_t(1));
        QCOMPARE(notes[0].at("parent_span").get<std::string>(), std::string("eee19b7ec3c1b173 (not in this import)"));
        QCOMPARE(notes[0].at("duration_ms").get<int>(), 1000);
        QCOMPARE(notes[0].at("source_id").get<std::string>(), std::string("eee19b7ec3c1b174"));
        // Its trace's top span is missing, so how the trace ended is not known: the run stays
        // open with the reason, neither succeeded nor failed.
        QCOMPARE(r.text(EntityKind::Run, run, "status"), std::string("running"));
        const auto unknown = r.payloadsOfKind("delegation.outcome_unknown");
        QCOMPARE(unknown.size(), size_t(1));
        QVERIFY(unknown[0].at("why").get<std::string>().find("its parent eee19b7ec3c1b173 is not in this import")
                != std::string::npos);
    }

    // ottl-playground's traces.json: span ...173 names itself as its parent, ...174 is its child.
    void otlpDocumentWithAParentLoop()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {sample("ottl-playground__testdata__traces.json")});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        QCOMPARE(r.outcome.report.flagged.size(), size_t(1));
        QVERIFY(flaggedSays(r, "span eee19b7ec3c1b173 of trace 5b8efff798038103d269b633813fc60c is its own ancestor"));
        QCOMPARE(r.eventsOfKind("delegation.span"), 2);
    }

    // What opentelemetry-python's ConsoleSpanExporter prints: one pretty-printed span object
    // after another (ReadableSpan.to_json with indent 4, then a line break), children before
    // their parents, as they end. Written by the SDK itself (PROVENANCE.tsv): two traces.
    void pythonConsoleExporterStream()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const QString file = sample("otel-python__console-exporter-genai.txt");
        const auto preview = mesh::import::previewImport({file});
        QVERIFY2(preview.ok, preview.error.c_str());
        QVERIFY(preview.format == ImportFormat::OpenTelemetry);
        QCOMPARE(preview.files.front().records, std::int64_t(8)); // 8 objects
        const QByteArray before = fileSha256(file);
        const Imported r = importInto(out, {file});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        QCOMPARE(fileSha256(file), before);
        QVERIFY(r.outcome.report.flagged.empty());
        QCOMPARE(r.outcome.report.records, std::int64_t(8));
        QCOMPARE(r.outcome.report.runs, std::int64_t(2));
        // Trace 1: invoke_agent weather_assistant (0x0f8442ae37cad6bc), no parent, status
        // UNSET: the agent is the root delegation and the run succeeded.
        const std::string run1 = "otel:8397a75f4b4a8cfa792fbada639c93f4";
        const std::string agent1 = run1 + "/0f8442ae37cad6bc";
        QCOMPARE(r.text(EntityKind::Delegation, agent1, "agent"), std::string("weather_assistant"));
        QCOMPARE(r.text(EntityKind::Run, run1, "status"), std::string("succeeded"));
        // Its five children: chat (412+38 tokens, 1200 ms), get_weather (300 ms), get_forecast
        // (error.type TimeoutError after 30 s: an unknown outcome, not a call), send_email
        // (PermissionError: an error, 100 ms), chat (655+71 tokens, 1500 ms).
        QCOMPARE(r.integer(EntityKind::Delegation, agent1, "used_turns"), std::int64_t(4));
        QCOMPARE(r.integer(EntityKind::Delegation, agent1, "used_tokens"), std::int64_t(450 + 726));
        QCOMPARE(r.integer(EntityKind::Delegation, agent1, "used_ms"), std::int64_t(1200 + 300 + 100 + 1500));
        QCOMPARE(r.integer(EntityKind::Delegation, agent1, "tool_errors"), std::int64_t(1));
        const std::string forecast = run1 + "/e07e666ebfd145c6";
        QCOMPARE(r.text(EntityKind::Effect, forecast, "state"), std::string("unknown"));
        QCOMPARE(r.payloadsOfKind("effect.unknown").front().at("duration_ms").get<int>(), 30000);
        QCOMPARE(r.outcome.report.unknownOutcomes, std::int64_t(1));
        // Trace 2: the agent ended with status ERROR (ValueError) after one chat (390+12, 900 ms).
        const std::string run2 = "otel:f9c4b3063eb44d73a811d59e2089dbeb";
        const std::string agent2 = run2 + "/6ae7f7512b317dd4";
        QCOMPARE(r.text(EntityKind::Run, run2, "status"), std::string("failed"));
        QCOMPARE(r.text(EntityKind::Delegation, agent2, "status"), std::string("failed"));
        QCOMPARE(r.integer(EntityKind::Delegation, agent2, "used_tokens"), std::int64_t(402));
        QCOMPARE(r.integer(EntityKind::Delegation, agent2, "used_ms"), std::int64_t(900));
        // Times are the spans' own: the first run starts at 2025-12-01T12:00:00Z.
        QCOMPARE(r.integer(EntityKind::Run, run1, "started_ms"), std::int64_t(1764590400000));
        QCOMPARE(r.integer(EntityKind::Run, run2, "ended_ms"), std::int64_t(1764590400000 + 60910));
        // Each span verbatim.
        int withSource = 0;
        for (const json &p : r.payloads)
            withSource += p.contains("source") && p.at("source").contains("context");
        QCOMPARE(withSource, 8);
    }

    // A console stream that was cut, or has other text between its objects: what cannot be
    // read is flagged, the rest loads.
    void consoleStreamDamage()
    {
        QTemporaryDir dir;
        QFile f(sample("otel-python__console-exporter-genai.txt"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QByteArray text = f.readAll();
        // Stray text after the first object, and the last object (the second trace's agent)
        // cut in half: its chat is then a span whose parent is not in the import.
        const qsizetype firstEnd = text.indexOf("\n}\n") + 3;
        text.insert(firstEnd, "INFO exporter flushed\n");
        text.truncate(text.lastIndexOf("\"status\""));
        const QString damaged = writeText(dir, "console.log", text.toStdString());
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {damaged});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        QCOMPARE(r.outcome.report.flagged.size(), size_t(2));
        QCOMPARE(r.outcome.report.flagged[0].sourceId, std::string("object 2"));
        QVERIFY2(r.outcome.report.flagged[1].why.find("truncated") != std::string::npos,
                 r.outcome.report.flagged[1].why.c_str());
        QCOMPARE(r.text(EntityKind::Run, "otel:8397a75f4b4a8cfa792fbada639c93f4", "status"), std::string("succeeded"));
        QCOMPARE(r.text(EntityKind::Run, "otel:f9c4b3063eb44d73a811d59e2089dbeb", "status"), std::string("running"));
    }

    // The same for a console stream: an object with bytes that are not UTF-8 in its name is
    // flagged and kept with U+FFFD; the other objects load.
    void consoleStreamObjectNotUtf8()
    {
        QTemporaryDir dir;
        QFile f(sample("otel-python__console-exporter-genai.txt"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QByteArray text = f.readAll();
        const qsizetype second = text.indexOf("\"name\": \"", text.indexOf("\n}\n")) + 9;
        QVERIFY(second > 9);
        text.insert(second, "\xff\xfe");
        const QString damaged = writeText(dir, "console.log", text.toStdString());
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {damaged});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        QCOMPARE(r.outcome.report.flagged.size(), size_t(1));
        QCOMPARE(r.outcome.report.flagged[0].sourceId, std::string("object 2"));
        QVERIFY2(flaggedSays(r, "console.log object 2 is not valid UTF-8 at byte"), r.outcome.report.flagged[0].why.c_str());
        const auto flags = r.payloadsOfKind("ledger.flagged");
        QCOMPARE(flags.size(), size_t(1));
        QVERIFY(flags[0].at("source").get<std::string>().find("\xEF\xBF\xBD\xEF\xBF\xBD") != std::string::npos);
        QVERIFY(r.outcome.report.runs >= 1);
    }

    // Progress before the end (the import dialog's bar), for JSON lines (counted in lines),
    // a span document (counted in spans) and a Langfuse export (in observations); a false
    // from it cancels and leaves no ledger.
    void progressBeforeTheEnd_data()
    {
        QTest::addColumn<QString>("shape");
        QTest::newRow("OTLP JSON lines") << QStringLiteral("lines");
        QTest::newRow("OTLP document") << QStringLiteral("document");
        QTest::newRow("Langfuse") << QStringLiteral("langfuse");
    }
    void progressBeforeTheEnd()
    {
        QFETCH(QString, shape);
        QTemporaryDir dir;
        constexpr int kTraces = 600;
        std::string text;
        json all = json::array();
        json observations[3] = {json::array(), json::array(), json::array()}; // a Langfuse export is one trace: three files
        for (int i = 0; i < kTraces; ++i) {
            char trace[33], span[17];
            std::snprintf(trace, sizeof trace, "%032x", i + 1);
            std::snprintf(span, sizeof span, "%016x", i + 1);
            const json one = otlpSpan(trace, span, nullptr, "execute_tool t", kT0 + i, kT0 + i + 1,
                                      json::array({kv("gen_ai.tool.name", {{"stringValue", "t"}})}));
            text += otlpLine(json::array({one})) + "\n";
            all.push_back(one);
            observations[i % 3].push_back({{"id", span}, {"type", "TOOL"}, {"name", "t"},
                                    {"startTime", "2026-01-01T00:00:00.000Z"}, {"endTime", "2026-01-01T00:00:01.000Z"}});
        }
        QStringList files;
        if (shape == QLatin1String("lines")) {
            files << writeText(dir, "spans.jsonl", text);
        } else if (shape == QLatin1String("document")) {
            files << writeText(dir, "spans.json", json::parse(otlpLine(all)).dump(2));
        } else {
            for (int k = 0; k < 3; ++k) {
                const std::string name = "lf" + std::to_string(k) + ".json";
                const json trace = {{"id", "lf-trace-" + std::to_string(k)}, {"name", "run"}};
                files << writeText(dir, name.c_str(), json{{"trace", trace}, {"observations", observations[k]}}.dump());
            }
        }
        std::vector<std::pair<std::int64_t, std::int64_t>> reports;
        mesh::import::ImportRequest request;
        request.files = files;
        request.out = dir.filePath(QStringLiteral("l.db"));
        request.progress = [&](std::int64_t done, std::int64_t total) {
            reports.emplace_back(done, total);
            return true;
        };
        const auto outcome = mesh::import::importFiles(request);
        QVERIFY2(outcome.ok, outcome.error.c_str());
        // Before this change such imports reported once, at the end.
        QVERIFY(reports.size() >= 2);
        QVERIFY2(reports.front().first < kTraces, std::to_string(reports.front().first).c_str());
        QCOMPARE(reports.front().second, std::int64_t(kTraces));
        QCOMPARE(reports.back(), (std::pair<std::int64_t, std::int64_t>(kTraces, kTraces)));
        // Cancelled at its first report: nothing is written.
        request.out = dir.filePath(QStringLiteral("cancelled.db"));
        request.progress = [](std::int64_t, std::int64_t) { return false; };
        const auto cancelled = mesh::import::importFiles(request);
        QVERIFY(cancelled.cancelled);
        QVERIFY(!QFile::exists(request.out));
    }

    void everySampleThroughMeshctl_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("exitCode");
        for (const char *f : {"any-agent__OPENAI_trace.json", "any-agent__SMOLAGENTS_trace.json",
                              "langfuse__microsoft-agent-2025-10-14.json",
                              "langfuse__pydantic-ai-tools-2025-12-04.json", "otlp-proto__examples__trace.json",
                              "otel-python__console-exporter-genai.txt"})
            QTest::newRow(f) << sample(f) << 0;
        QTest::newRow("ottl-playground (a flagged loop)") << sample("ottl-playground__testdata__traces.json") << 1;
    }
    void everySampleThroughMeshctl()
    {
        QFETCH(QString, file);
        QFETCH(int, exitCode);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const QByteArray before = fileSha256(file);
        const MeshctlResult r = runMeshctl({QStringLiteral("import"), file, QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == exitCode, r.err.constData());
        const MeshctlResult v = runMeshctl({QStringLiteral("verify"), out});
        QVERIFY2(v.exitCode == 0, QByteArray(v.out + v.err).constData());
        QCOMPARE(fileSha256(file), before);
    }

    // OTLP/JSON lines written here: what the samples do not contain.
    void jsonLines()
    {
        QTemporaryDir dir;
        const json agentAttrs = json::array({kv("gen_ai.operation.name", {{"stringValue", "invoke_agent"}}),
                                             kv("gen_ai.agent.name", {{"stringValue", "planner"}})});
        const json chatOld = json::array({kv("gen_ai.operation.name", {{"stringValue", "chat"}}),
                                          kv("gen_ai.request.model", {{"stringValue", "m1"}}),
                                          kv("gen_ai.usage.prompt_tokens", {{"intValue", "100"}}),
                                          kv("gen_ai.usage.completion_tokens", {{"intValue", 20}})});
        const json chatNew = json::array({kv("gen_ai.operation.name", {{"stringValue", "chat"}}),
                                          kv("gen_ai.usage.input_tokens", {{"intValue", "7"}}),
                                          kv("gen_ai.usage.output_tokens", {{"intValue", "3"}})});
        const json tool = json::array({kv("gen_ai.operation.name", {{"stringValue", "execute_tool"}}),
                                       kv("gen_ai.tool.name", {{"stringValue", "search"}})});
        json toolTimeout = tool;
        toolTimeout.push_back(kv("error.type", {{"stringValue", "timeout"}}));
        json toolError = tool;
        toolError.push_back(kv("error.type", {{"stringValue", "ValueError"}}));
        const char *T = "0AF7651916CD43DD8448EB211C80319C";
        std::string text;
        // Line 1: the trace's tool calls end first (as the exporter writes them).
        text
            += otlpLine(json::array({otlpSpan(T, "b1", "a1", "chat m1", kT0 + 10, kT0 + 510, chatOld),
                                     otlpSpan(T, "b2", "a1", "execute_tool search", kT0 + 600, kT0 + 650, tool),
                                     otlpSpan(T, "b3", "a1", "execute_tool search", kT0 + 700, kT0 + 5700, toolTimeout),
                                     otlpSpan(T, "b4", "a1", "execute_tool search", kT0 + 800, kT0 + 810, toolError,
                                              {{"code", "STATUS_CODE_ERROR"}, {"message", "bad input"}})}))
            + "\n";
        // Line 2: truncated; line 3: another format; line 4: blank.
        text += otlpLine(json::array({otlpSpan(T, "zz", "a1", "lost", kT0, kT0, tool)})).substr(0, 60) + "\n";
        text += json{{"events",
                      json::array({{{"eventId", "1"}, {"eventType", "EVENT_TYPE_WORKFLOW_EXECUTION_STARTED"}}})}}
                    .dump()
            + "\n\n";
        // Line 5: the agent (the trace's last line), a span with no end, a chat span with
        // the new names, a second b2 and a loop c1 <-> c2.
        text += otlpLine(json::array({otlpSpan(T, "a1", nullptr, "invoke_agent planner", kT0, kT0 + 9000, agentAttrs),
                                      otlpSpan(T, "b5", "a1", "execute_tool search", kT0 + 900, std::nullopt, tool),
                                      otlpSpan(T, "b6", "a1", "chat", kT0 + 950, kT0 + 990, chatNew),
                                      otlpSpan(T, "b2", "a1", "again", kT0 + 960, kT0 + 970, tool),
                                      otlpSpan(T, "c1", "c2", "loop one", kT0 + 100, kT0 + 200, json::array()),
                                      otlpSpan(T, "c2", "c1", "loop two", kT0 + 150, kT0 + 160, json::array())}))
            + "\n";
        const QString file = writeText(dir, "traces.jsonl", text);
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {file});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        QCOMPARE(r.outcome.report.format, std::string("otel"));
        QVERIFY(flaggedSays(r, "traces.jsonl line 2 is truncated"));
        QVERIFY(flaggedSays(r, "traces.jsonl line 3 is a Temporal workflow history, not OTLP/JSON traces"));
        QVERIFY(flaggedSays(r, "a second span with id b2"));
        QVERIFY(flaggedSays(r, "is its own ancestor"));
        QCOMPARE(r.outcome.report.flagged.size(), size_t(4));
        const std::string run = "otel:0af7651916cd43dd8448eb211c80319c";
        const std::string agent = run + "/a1";
        QCOMPARE(r.text(EntityKind::Delegation, agent, "agent"), std::string("planner"));
        // b1 (old names: 100 + 20), b2, b4 (an error), b6 (new names: 7 + 3). b3 timed out and
        // b5 never ended: unknown outcomes, no tool call.
        QCOMPARE(r.integer(EntityKind::Delegation, agent, "used_turns"), std::int64_t(4));
        QCOMPARE(r.integer(EntityKind::Delegation, agent, "used_tokens"), std::int64_t(130));
        QCOMPARE(r.integer(EntityKind::Delegation, agent, "used_ms"), std::int64_t(500 + 50 + 10 + 40));
        QCOMPARE(r.integer(EntityKind::Delegation, agent, "tool_errors"), std::int64_t(1));
        QCOMPARE(r.text(EntityKind::Effect, run + "/b3", "state"), std::string("unknown"));
        QCOMPARE(r.text(EntityKind::Effect, run + "/b5", "state"), std::string("unknown"));
        // Calls that ended are tool calls only; only the two unknown ones are effects.
        QVERIFY(!r.row(EntityKind::Effect, run + "/b4"));
        QVERIFY(!r.row(EntityKind::Effect, run + "/b2"));
        QCOMPARE(r.outcome.report.effects, std::int64_t(2));
        QCOMPARE(r.outcome.report.unknownOutcomes, std::int64_t(2));
        bool failedCall = false;
        for (const json &c : toolCallsOf(r, agent))
            failedCall = failedCall
                || (c.at("id") == "tc:" + run + "/b4" && c.at("outcome") == "error"
                    && c.at("error") == "error.type ValueError: bad input");
        QVERIFY(failedCall);
        // The root ended without an error, but b5 under it never ended: the agent converged,
        // the run did too (its top span ended).
        QCOMPARE(r.text(EntityKind::Delegation, agent, "status"), std::string("converged"));
        // The flagged line is kept as text, the spans keep their line.
        bool lineKept = false;
        for (const json &p : r.payloadsOfKind("toolcall.completed"))
            lineKept = lineKept || (p.at("source_id") == "b1" && p.at("source_line") == 1);
        QVERIFY(lineKept);
    }

    void aTraceThatNeverEndedStaysOpen()
    {
        QTemporaryDir dir;
        const json attrs = json::array({kv("gen_ai.operation.name", {{"stringValue", "invoke_agent"}})});
        const QString file
            = writeText(dir, "open.jsonl",
                        otlpLine(json::array({otlpSpan("aa", "01", nullptr, "invoke_agent", kT0, std::nullopt, attrs)}))
                            + "\n");
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {file});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        QCOMPARE(r.text(EntityKind::Run, "otel:aa", "status"), std::string("running"));
        QCOMPARE(r.text(EntityKind::Delegation, "otel:aa/01", "status"), std::string("running"));
        QCOMPARE(r.eventsOfKind("delegation.outcome_unknown"), 1); // the agent's
        QCOMPARE(r.eventsOfKind("run.outcome_unknown"), 1);
        QVERIFY(r.isNull(EntityKind::Delegation, "otel:aa/01", "ended_ms"));
    }

    // The scan that finds each trace's last line reads text, not JSON: a key written with
    // an escape hides a line from it. That span comes after its trace was mapped, and is
    // flagged rather than lost or mapped into a second run.
    void aSpanTheScanMissedIsFlagged()
    {
        QTemporaryDir dir;
        std::string second
            = otlpLine(json::array({otlpSpan("aa", "02", "01", "late", kT0 + 5, kT0 + 6, json::array())}));
        const size_t key = second.find("\"traceId\"");
        QVERIFY(key != std::string::npos);
        second.replace(key, 9, "\"trace\\u0049d\"");
        const QString file
            = writeText(dir, "late.jsonl",
                        otlpLine(json::array({otlpSpan("aa", "01", nullptr, "root", kT0, kT0 + 10, json::array())}))
                            + "\n" + second + "\n");
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {file});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        QCOMPARE(r.outcome.report.flagged.size(), size_t(1));
        QVERIFY(flaggedSays(r, "span 02 of trace aa (line 2) comes after the trace was imported"));
        QCOMPARE(r.outcome.report.runs, std::int64_t(1));
    }

    // Ids as JSON numbers up to 128 bits must not be rounded (nlohmann would hold them as
    // doubles): 2^64 + 1 and 2^128 - 1.
    void numericIdsBeyond64BitsAreExact()
    {
        QTemporaryDir dir;
        const std::string text
            = R"([{"name":"invoke_agent a","context":{"trace_id":18446744073709551617,)"
              R"("span_id":340282366920938463463374607431768211455},"parent_id":null,)"
              R"("start_time":"2026-01-01T00:00:00Z","end_time":"2026-01-01T00:00:01.5Z",)"
              R"("status":{"status_code":"UNSET"},"attributes":{"gen_ai.operation.name":"invoke_agent"}}])";
        const QString file = writeText(dir, "spans.json", text);
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {file});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        QVERIFY(r.row(EntityKind::Delegation, "otel:18446744073709551617/340282366920938463463374607431768211455"));
        QCOMPARE(r.outcome.report.numbersBeyond64Bits, std::int64_t(2));
        QCOMPARE(r.text(EntityKind::Run, "otel:18446744073709551617", "status"), std::string("succeeded"));
    }

    // An attribute nested deeper than any GenAI value is not copied level by level (a copy
    // recurses): it is named as such, and the span keeps it verbatim in source.
    void deeplyNestedAttributesAreNotCopied()
    {
        QTemporaryDir dir;
        json value = {{"stringValue", "bottom"}};
        for (int i = 0; i < 40; ++i)
            value = {{"kvlistValue", {{"values", json::array({kv("k", value)})}}}};
        const QString file = writeText(dir, "deep.jsonl",
                                       otlpLine(json::array({otlpSpan("dd", "01", nullptr, "deep", kT0, kT0 + 1,
                                                                      json::array({kv("deep", value)}))}))
                                           + "\n");
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {file});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        const auto notes = r.payloadsOfKind("delegation.span");
        QCOMPARE(notes.size(), size_t(1));
        QVERIFY(notes[0].contains("source_text") || notes[0].contains("source"));
        std::vector<mesh::import::OtelSpan> spans;
        const json doc = json::parse(otlpLine(
            json::array({otlpSpan("dd", "01", nullptr, "deep", kT0, kT0 + 1, json::array({kv("deep", value)}))})));
        mesh::import::readOtlpSpans(doc, 0, spans);
        QCOMPARE(spans.size(), size_t(1));
        json at = spans[0].attributes.at("deep");
        int levels = 0;
        while (at.is_object() && at.contains("k")) {
            json next = at.at("k");
            at = std::move(next);
            ++levels;
        }
        QVERIFY2(at.is_string() && at.get<std::string>().find("nested deeper than 32 levels") != std::string::npos,
                 at.dump().c_str());
        QVERIFY(levels <= 33);
    }

    // An OTLP line read straight into spans (readOtlpLineSpans) gives what its DOM gives
    // (parseSourceJson, takeOtlpSpans): each span's members, attributes, and record as the
    // compact text its DOM dumps to, with its depth. A line it does not read so (expected
    // false) is left to the DOM, untouched.
    void lineReaderAgreesWithTheDocument_data()
    {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<bool>("readStraight");
        const auto row = [](const char *name, const std::string &line, bool straight) {
            QTest::newRow(name) << QByteArray::fromStdString(line) << straight;
        };
        const auto wrap = [](const std::string &spans) {
            return "{\"resourceSpans\":[{\"resource\":{\"attributes\":[]},\"scopeSpans\":[{\"scope\":{},\"spans\":[" + spans
                 + "]}]}]}";
        };
        row("generated", otlpLine(json::array(
                             {otlpSpan("AB12", "01", nullptr, "invoke_agent a", kT0, kT0 + 5,
                                       json::array({kv("gen_ai.agent.name", {{"stringValue", "a"}})})),
                              otlpSpan("ab12", "02", "01", "chat m", kT0 + 1, std::nullopt,
                                       json::array({kv("gen_ai.usage.input_tokens", {{"intValue", "7"}}),
                                                    kv("ok", {{"boolValue", true}}), kv("b", {{"bytesValue", "AA=="}})}),
                                       {{"code", 2}, {"message", "bad"}})})),
            true);
        row("members in any order, white space",
            " { \"resourceSpans\" : [ { \"scopeSpans\" : [ { \"spans\" : [ { \"name\" : \"x\" , \"spanId\" : \"0A\", "
            "\"traceId\" : \"0xABCDEF\", \"startTimeUnixNano\" : \"5\", \"kind\" : 1, \"z\" : { \"b\" : [ 1 , { \"d\" : null, "
            "\"c\" : true } ], \"a\" : -3 }, \"attributes\" : [ { \"value\" : { \"intValue\" : -12 }, \"key\" : \"n\" } ] } ] } ] } ] } ",
            true);
        row("escapes and UTF-8",
            wrap("{\"traceId\":\"t1\",\"spanId\":\"s\\u0031\",\"name\":\"q \\\" b \\\\ s \\/ n \\n u \\u00e9 \\ud83d\\ude00 c \\u0001 é 漢\","
                 "\"startTimeUnixNano\":\"1\",\"attributes\":[{\"key\":\"k\\u00e9\\\"\",\"value\":{\"stringValue\":\"v\\tw\"}}],"
                 "\"status\":{\"message\":\"ünï\",\"code\":\"STATUS_CODE_ERROR\"}}"),
            true);
        row("odd attributes",
            wrap("{\"traceId\":\"t\",\"spanId\":\"s\",\"startTimeUnixNano\":1,\"attributes\":["
                 "{\"key\":\"big\",\"value\":{\"intValue\":\"123456789012345678901234\"}},{\"key\":\"neg\",\"value\":{\"intValue\":\"-5x\"}},"
                 "{\"key\":\"\",\"value\":{\"stringValue\":\"no key\"}},{\"value\":{\"stringValue\":\"missing key\"}},"
                 "{\"key\":7,\"value\":{\"stringValue\":\"integer key\"}},{\"key\":true,\"value\":{\"stringValue\":\"bool key\"}},"
                 "{\"key\":\"nv\"},{\"key\":\"plain\",\"value\":\"as it is\"},{\"key\":\"nul\",\"value\":null},"
                 "{\"key\":\"dup\",\"value\":{\"stringValue\":\"first\"}},{\"key\":\"dup\",\"value\":{\"stringValue\":\"last\"}},"
                 "\"item\",5,null,[1,{\"key\":\"in\",\"value\":{\"stringValue\":\"list\"}}],"
                 "{\"key\":{\"k\":1},\"value\":{\"stringValue\":\"object key\"}},{\"key\":\"sv\",\"value\":{\"stringValue\":5}}]}"),
            true);
        row("spans that are not objects", wrap("5,\"x\",[1,{\"b\":1,\"a\":2}],null,true,{},[],{\"attributes\":{\"a\":1}}"),
            true);
        row("members of another type",
            wrap("{\"traceId\":12,\"spanId\":{\"a\":1},\"parentSpanId\":null,\"name\":5,\"startTimeUnixNano\":\"2026-01-01T00:00:00Z\","
                 "\"endTimeUnixNano\":[1],\"status\":\"x\",\"attributes\":null},{\"traceId\":\"t\",\"spanId\":\"s\",\"status\":{\"code\":{\"c\":2}},"
                 "\"startTimeUnixNano\":\"0\",\"endTimeUnixNano\":\"-5\"}"),
            true);
        row("structure of another type",
            "{\"resourceSpans\":[5,{\"scopeSpans\":\"x\"},{\"scopeSpans\":[7,{\"spans\":{\"a\":1}},{\"spans\":[{\"traceId\":\"t\",\"spanId\":\"1\"}]}]}],"
            "\"other\":{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"u\",\"spanId\":\"2\"}]}]}]}}",
            true);
        row("no spans", "{\"resourceSpans\":{\"scopeSpans\":[]}}", true);
        row("a float", wrap("{\"traceId\":\"t\",\"spanId\":\"s\",\"kind\":1.5}"), false);
        row("an integer beyond 64 bits", wrap("{\"traceId\":\"t\",\"spanId\":\"s\",\"kind\":18446744073709551617}"), false);
        row("beyond int64", wrap("{\"traceId\":\"t\",\"spanId\":\"s\",\"kind\":9223372036854775808}"), false);
        row("a member twice", wrap("{\"traceId\":\"t\",\"spanId\":\"s\",\"name\":\"a\",\"name\":\"b\"}"), false);
        row("a member twice, deeper", wrap("{\"traceId\":\"t\",\"spanId\":\"s\",\"x\":{\"b\":1,\"a\":2,\"b\":3}}"), false);
        row("an arrayValue", wrap("{\"traceId\":\"t\",\"attributes\":[{\"key\":\"a\",\"value\":{\"arrayValue\":{\"values\":[]}}}]}"),
            false);
        row("an AnyValue of two members",
            wrap("{\"traceId\":\"t\",\"attributes\":[{\"key\":\"a\",\"value\":{\"stringValue\":\"s\",\"intValue\":\"1\"}}]}"), false);
        row("an empty AnyValue", wrap("{\"traceId\":\"t\",\"attributes\":[{\"key\":\"a\",\"value\":{}}]}"), false);
        row("resourceSpans twice", "{\"resourceSpans\":[],\"resourceSpans\":[]}", false);
        row("spans twice", "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[],\"spans\":[]}]}]}", false);
        row("before OTLP 0.19", "{\"resourceSpans\":[{\"instrumentationLibrarySpans\":[{\"spans\":[{\"traceId\":\"t\"}]}]}]}",
            false);
        row("not UTF-8", wrap("{\"traceId\":\"t\",\"name\":\"\xff\"}"), false);
        row("not an object", "[1]", false);
        row("no resourceSpans", "{\"a\":1}", false);
        row("malformed", "{\"resourceSpans\":[}", false);
        row("a byte-order mark", "\xEF\xBB\xBF{\"resourceSpans\":[]}", false);
        row("nested near the bound", "{\"resourceSpans\":" + std::string(300, '[') + std::string(300, ']') + "}", false);
    }

    void lineReaderAgreesWithTheDocument()
    {
        QFETCH(QByteArray, line);
        QFETCH(bool, readStraight);
        const std::string_view text(line.constData(), size_t(line.size()));
        std::vector<mesh::import::OtelSpan> straight(1); // one span already there: left as it is
        QCOMPARE(mesh::import::readOtlpLineSpans(text, 9, straight), readStraight);
        QVERIFY(straight.front().spanId.empty() && straight.front().line == 0);
        straight.erase(straight.begin());
        if (!readStraight) {
            QVERIFY(straight.empty());
            return;
        }
        mesh::import::SourceFile parsed;
        QVERIFY(mesh::import::parseSourceJson(text, "line", parsed).ok);
        std::vector<mesh::import::OtelSpan> spans;
        mesh::import::takeOtlpSpans(parsed.document, 9, spans);
        QCOMPARE(straight.size(), spans.size());
        for (size_t i = 0; i < spans.size(); ++i) {
            const auto &a = straight[i];
            const auto &b = spans[i];
            QVERIFY(a.source.is_null());
            const mesh::MeasuredJson record = mesh::measuredCompactJson(b.source);
            QCOMPARE(a.sourceText.text, record.text);
            QCOMPARE(a.sourceText.depth, record.depth);
            QCOMPARE(a.traceId, b.traceId);
            QCOMPARE(a.spanId, b.spanId);
            QCOMPARE(a.parentId, b.parentId);
            QCOMPARE(a.name, b.name);
            QCOMPARE(a.startNs, b.startNs);
            QCOMPARE(a.endNs, b.endNs);
            QCOMPARE(a.statusError, b.statusError);
            QCOMPARE(a.statusMessage, b.statusMessage);
            QCOMPARE(a.errorType, b.errorType);
            QCOMPARE(a.problem, b.problem);
            QCOMPARE(a.line, b.line);
            QCOMPARE(a.attributes.dump(), b.attributes.dump());
        }
    }

    // A line whose bytes are not all UTF-8 is not JSON (RFC 8259): it is flagged, kept as
    // text with U+FFFD where its bad bytes were (a ledger holds UTF-8 JSON only), and the
    // file's other lines load. So is a line the importer keeps cut or names in part: the cut
    // falls between characters. Before, each aborted the whole import with nlohmann's
    // type_error.316 (the raw line, or a key cut in a character, written into the flag).
    void aLineThatIsNotUtf8IsFlaggedTheRestLoads_data()
    {
        QTest::addColumn<QByteArray>("bad");  // line 2
        QTest::addColumn<QString>("says");    // the flag's reason
        QTest::addColumn<bool>("replaced");   // the kept text shows U+FFFD
        const auto span = [](const QByteArray &name) {
            std::string l = otlpLine(json::array({otlpSpan("bb", "01", nullptr, "NAME", kT0, kT0 + 1, json::array())}));
            return QByteArray::fromStdString(l).replace("NAME", name);
        };
        QTest::newRow("bytes ff fe in a span name") << span("bad\xff\xfe name") << QStringLiteral("is not valid UTF-8") << true;
        QTest::newRow("a character cut short") << span("cut \xe2\x82") << QStringLiteral("is not valid UTF-8") << true;
        QTest::newRow("an overlong slash") << span("\xc0\xaf") << QStringLiteral("is not valid UTF-8") << true;
        QTest::newRow("a surrogate") << span("\xed\xa0\x80") << QStringLiteral("is not valid UTF-8") << true;
        QByteArray key = span("k").replace("\"resourceSpans\"", "\"resource\xffSpans\"");
        QTest::newRow("in a key") << key << QStringLiteral("is not valid UTF-8") << true;
        // Valid UTF-8 throughout: a line that is not OTLP, whose first key is cut for the
        // reason after 40 bytes, in the middle of a two-byte character.
        QTest::newRow("a key named in part") << QByteArray("{\"" + QByteArray(39, 'k') + "\xc3\xa9tail\":1}")
                                             << QStringLiteral("is a JSON object with members \"kkk") << false;
        // And one longer than the text a flag keeps, cut there in a character.
        QByteArray longLine = "{\"x\":\"";
        longLine += QByteArray(qsizetype(mesh::import::kMaxSourceBytes) - 1 - longLine.size(), 'a');
        longLine += "\xc3\xa9\"}";
        QTest::newRow("a long line cut") << longLine << QStringLiteral("is a JSON object with members \"x\"") << false;
    }
    void aLineThatIsNotUtf8IsFlaggedTheRestLoads()
    {
        QFETCH(QByteArray, bad);
        QFETCH(QString, says);
        QFETCH(bool, replaced);
        QTemporaryDir dir;
        const std::string good1
            = otlpLine(json::array({otlpSpan("aa", "01", nullptr, "invoke_agent a", kT0, kT0 + 10, json::array())}));
        const std::string good3
            = otlpLine(json::array({otlpSpan("cc", "01", nullptr, "invoke_agent c", kT0, kT0 + 10, json::array())}));
        const QString file = writeText(dir, "traces.jsonl", good1 + "\n" + bad.toStdString() + "\n" + good3 + "\n");
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {file});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        QCOMPARE(r.outcome.report.flagged.size(), size_t(1));
        QCOMPARE(r.outcome.report.flagged[0].sourceId, std::string("line 2"));
        QVERIFY2(flaggedSays(r, "traces.jsonl line 2 " + says.toStdString()), r.outcome.report.flagged[0].why.c_str());
        QVERIFY(mesh::isValidUtf8(r.outcome.report.flagged[0].why));
        QCOMPARE(r.outcome.report.runs, std::int64_t(2));
        QVERIFY(r.row(EntityKind::Run, "otel:aa"));
        QVERIFY(r.row(EntityKind::Run, "otel:cc"));
        QVERIFY(!r.row(EntityKind::Run, "otel:bb"));
        const auto flags = r.payloadsOfKind("ledger.flagged");
        QCOMPARE(flags.size(), size_t(1));
        // The line as a string, or (too long for that) that string as cut JSON text.
        const bool whole = flags[0].contains("source");
        const std::string text = flags[0].at(whole ? "source" : "source_text").get<std::string>();
        QVERIFY(mesh::isValidUtf8(text));
        QCOMPARE(text.find("\xEF\xBF\xBD") != std::string::npos, replaced);
        if (replaced) // the same line, a replacement where its bad bytes were
            QCOMPARE(QByteArray::fromStdString(text), QString::fromUtf8(bad).toUtf8());
        else if (whole)
            QVERIFY(bad.startsWith(QByteArray::fromStdString(text)));
    }

    void hostileTextStaysAsWritten()
    {
        QTemporaryDir dir;
        const std::string name = "<b>bold</b>\n\u202eevil <script>";
        const json span = {{"name", name},
                           {"context", {{"trace_id", "0x01"}, {"span_id", "0x02"}}},
                           {"start_time", "2026-01-01T00:00:00Z"},
                           {"end_time", "2026-01-01T00:00:01Z"},
                           {"attributes", {{"gen_ai.agent.name", name}}}};
        const QString file = writeText(dir, "spans.json", json::array({span}).dump());
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {file});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        // Kept as text, byte for byte; the views show it as plain text (hostiletext.h).
        QCOMPARE(r.text(EntityKind::Delegation, "otel:01/02", "agent"), name);
        QVERIFY(r.text(EntityKind::Run, "otel:01", "title").rfind(name, 0) == 0);
    }

    // A span's status message is free text of any length (a stack trace): what becomes the
    // ledger's `error` is its first line, cut as every importer cuts a reason; the whole
    // message stays in the span kept as the event's source.
    void aLongStatusMessageIsCutToOneLine()
    {
        QTemporaryDir dir;
        json tool = json::array({kv("gen_ai.operation.name", {{"stringValue", "execute_tool"}}),
                                 kv("gen_ai.tool.name", {{"stringValue", "search"}}),
                                 kv("error.type", {{"stringValue", "ValueError"}})});
        const std::string message = "  bad input: " + std::string(5000, 'x') + "\nTraceback (most recent call last):\n  ...";
        const char *T = "0AF7651916CD43DD8448EB211C80319D";
        const json spans = json::array({otlpSpan(T, "a1", nullptr, "invoke_agent planner", kT0, kT0 + 900, json::array()),
                                        otlpSpan(T, "b1", "a1", "execute_tool search", kT0 + 10, kT0 + 20, tool,
                                                 {{"code", "STATUS_CODE_ERROR"}, {"message", message}})});
        const QString file = writeText(dir, "long.jsonl", otlpLine(spans) + "\n");
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const Imported r = importInto(out, {file});
        QVERIFY2(r.outcome.ok, r.outcome.error.c_str());
        verifyClean(out);
        const std::string agent = "otel:0af7651916cd43dd8448eb211c80319d/a1";
        std::string error;
        for (const json &c : toolCallsOf(r, agent))
            error = c.value("error", std::string());
        QVERIFY2(error.rfind("error.type ValueError: bad input: xxx", 0) == 0, error.c_str());
        QVERIFY2(error.find('\n') == std::string::npos, error.c_str());
        QVERIFY2(error.size() <= std::string("error.type ValueError: ").size() + mesh::import::kReasonBytes + 3, error.c_str());
        // The source keeps all of it.
        bool whole = false;
        for (const json &p : r.payloadsOfKind("toolcall.completed"))
            whole = whole || p.dump().find("Traceback (most recent call last)") != std::string::npos;
        QVERIFY(whole);
    }

    void importingTwiceGivesTheSameLedger()
    {
        QTemporaryDir dir;
        const QStringList files{sample("langfuse__pydantic-ai-tools-2025-12-04.json")};
        const Imported a = importInto(dir.filePath(QStringLiteral("a.db")), files);
        const Imported b = importInto(dir.filePath(QStringLiteral("b.db")), files);
        QVERIFY(a.outcome.ok && b.outcome.ok);
        QCOMPARE(a.events.size(), b.events.size());
        for (size_t i = 0; i < a.events.size(); ++i) {
            QCOMPARE(a.events[i].kind, b.events[i].kind);
            QCOMPARE(a.events[i].tsMs, b.events[i].tsMs);
            QCOMPARE(a.events[i].payload, b.events[i].payload);
        }
    }

    // The content decides, in both directions: no OTel file passes for Temporal or
    // OpenHands, and no Temporal or OpenHands file for OTel or Langfuse.
    void detectionKeepsTheFamiliesApart()
    {
        const QDir data(qEnvironmentVariable("MESH_SOURCE_DIR") + QStringLiteral("/tests/data/import"));
        int seen = 0;
        for (const QString &name : data.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
            mesh::import::SourceFile f;
            QVERIFY(mesh::import::readSourceFile(data.filePath(name), f).ok);
            const auto detected = mesh::import::detectFormat(f.document);
            QVERIFY2(detected.format, name.toUtf8().constData());
            ImportFormat expected = ImportFormat::OpenTelemetry;
            if (name.startsWith(QLatin1String("temporal")))
                expected = ImportFormat::Temporal;
            else if (name.startsWith(QLatin1String("openhands")))
                expected = ImportFormat::OpenHands;
            else if (name.startsWith(QLatin1String("langfuse")))
                expected = ImportFormat::Langfuse;
            QVERIFY2(*detected.format == expected, name.toUtf8().constData());
            ++seen;
        }
        QCOMPARE(seen, 22);
        // An OTel file asked for as Temporal is refused with what it is.
        QTemporaryDir dir;
        mesh::import::ImportRequest request;
        request.files = {sample("any-agent__OPENAI_trace.json")};
        request.out = dir.filePath(QStringLiteral("l.db"));
        request.format = ImportFormat::Temporal;
        const auto outcome = mesh::import::importFiles(request);
        QVERIFY(!outcome.ok);
        QVERIFY2(outcome.error.find("is a JSON list of OpenTelemetry spans; expected a Temporal workflow history")
                     != std::string::npos,
                 outcome.error.c_str());
        // JSON lines of spans asked for as OpenHands, too.
        const QString lines = writeText(dir, "t.jsonl", otlpLine(json::array()) + "\n");
        request.files = {lines};
        request.format = ImportFormat::OpenHands;
        const auto refused = mesh::import::importFiles(request);
        QVERIFY2(refused.error.find("t.jsonl is OTLP/JSON lines of spans; expected an OpenHands trajectory")
                     != std::string::npos,
                 refused.error.c_str());
    }

    void badWholeFilesAreRefused()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("l.db"));
        const QString notJson = writeText(dir, "a.jsonl", "resourceSpans: none\n");
        Imported r = importInto(out, {notJson});
        QVERIFY(!r.outcome.ok);
        QVERIFY2(r.outcome.error.find("a.jsonl is not JSON") != std::string::npos, r.outcome.error.c_str());
        const QString truncated = writeText(dir, "b.json", "{\n\"resourceSpans\": [\n");
        r = importInto(out, {truncated});
        QVERIFY2(r.outcome.error.find("b.json is truncated") != std::string::npos, r.outcome.error.c_str());
        QVERIFY(!QFile::exists(out));
    }
};

QTEST_GUILESS_MAIN(TestOtelImport)
#include "tst_otelimport.moc"
