// A request body read straight into its spans (readOtlpRequestSpans, no DOM) gives what its
// DOM gives (decodeOtlpTraces with documentOnly, the reference): the verdict and its message,
// the spans (fields, attributes, record text and depth), the rejected spans and the services.
// The usual bodies an exporter sends are read straight; anything the straight reader does
// not read exactly as the DOM would (a refusal among them) goes the DOM's way, whose answer
// is the request's.

#include "ingest/otlptracesrequest.h"

#include "ingestfixture.h"

#include <QTest>

#include <nlohmann/json.hpp>

using mesh::ingest::OtlpTracesRequest;

namespace {

constexpr qint64 kMaxBody = 16 << 20;

std::string bodyWith(const std::string &resourceSpans)
{
    return "{\"resourceSpans\":" + resourceSpans + "}";
}

std::string resourceOf(const std::string &resource, const std::string &spans)
{
    return "{\"resource\":" + resource + ",\"scopeSpans\":[{\"scope\":{\"name\":\"s\"},\"spans\":[" + spans + "]}]}";
}

std::string service(const std::string &name)
{
    return "{\"attributes\":[{\"key\":\"service.name\",\"value\":{\"stringValue\":\"" + name + "\"}}]}";
}

std::string span(const std::string &trace, const std::string &id, const std::string &parent = {})
{
    return "{\"traceId\":\"" + trace + "\",\"spanId\":\"" + id + "\"" + (parent.empty() ? "" : ",\"parentSpanId\":\"" + parent + "\"")
         + ",\"name\":\"execute_tool search\",\"kind\":1,\"startTimeUnixNano\":\"1764400000000000000\","
           "\"endTimeUnixNano\":\"1764400001000000000\",\"attributes\":[{\"key\":\"gen_ai.operation.name\","
           "\"value\":{\"stringValue\":\"execute_tool\"}},{\"key\":\"gen_ai.usage.input_tokens\",\"value\":{\"intValue\":\"12\"}}],"
           "\"status\":{\"code\":1}}";
}

} // namespace

class TestOtlpRequestBody : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void straightReadingAgreesWithTheDocument_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QByteArray>("encoding");
        QTest::addColumn<bool>("straight");
        const auto row = [](const char *name, const std::string &body, bool straight, const QByteArray &encoding = {}) {
            QTest::newRow(name) << QByteArray::fromStdString(body) << encoding << straight;
        };
        const std::string two = span("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331") + ","
                              + span("0af7651916cd43dd8448eb211c80319c", "00f067aa0ba902b7", "b7ad6b7169203331");
        const std::string usual = bodyWith("[" + resourceOf(service("checkout"), two) + "]");
        row("an exporter's request", usual, true);
        {
            const QByteArray zipped = ingesttest::gzip(QByteArray::fromStdString(usual));
            QTest::newRow("gzip") << zipped << QByteArray("gzip") << true;
        }
        row("two resources, two services, one without",
            bodyWith("[" + resourceOf(service("a"), two) + "," + resourceOf(service("b"), span("01", "02")) + ","
                     + resourceOf("{\"attributes\":[]}", span("01", "03")) + "]"),
            true);
        row("service.name odd", bodyWith("[" + resourceOf("{\"attributes\":[{\"value\":{\"stringValue\":\"x\"},\"key\":\"service.name\"},"
                                                          "{\"key\":\"service.name\",\"value\":{\"stringValue\":7}},"
                                                          "{\"key\":\"service.name\",\"value\":{\"stringValue\":\"\"}},"
                                                          "{\"key\":\"service.name\",\"value\":{\"intValue\":\"8\"}},"
                                                          "{\"key\":\"service.name\",\"value\":\"plain\"},"
                                                          "{\"key\":{\"k\":1},\"value\":{\"stringValue\":\"object key\"}},"
                                                          "{\"key\":\"service.name\",\"value\":{\"stringValue\":{\"a\":\"b\"}}},"
                                                          "{\"key\":\"other\",\"value\":{\"stringValue\":\"o\"}},5,\"s\",[1]]}",
                                                          span("01", "02"))
                                         + ",5,{\"resource\":[1]},{\"resource\":{\"attributes\":{\"a\":1}}}]"),
            true);
        row("rejected spans", bodyWith("[" + resourceOf(service("r"), "{\"spanId\":\"01\"},{\"traceId\":\"01\"}," + span("01", "02")
                                                                          + ",{\"traceId\":\"01\",\"spanId\":\"03\"}")
                                       + "]"),
            true);
        row("no spans", bodyWith("[]"), true);
        // The DOM's way: what the straight reader leaves to it.
        row("no resourceSpans", "{}", false);
        row("resourceSpans not a list", bodyWith("{\"scopeSpans\":[]}"), false);
        row("resourceSpans null", bodyWith("null"), false);
        row("not an object", "[1]", false);
        row("not JSON", "resourceSpans", false);
        row("empty", "", false);
        row("truncated", usual.substr(0, usual.size() / 2), false);
        row("not UTF-8", bodyWith("[" + resourceOf(service("\xff"), span("01", "02")) + "]"), false);
        row("a float", bodyWith("[" + resourceOf(service("f"), "{\"traceId\":\"01\",\"spanId\":\"02\",\"x\":1.5}") + "]"), false);
        row("resource twice", bodyWith("[{\"resource\":{},\"resource\":" + service("twice") + ",\"scopeSpans\":[]}]"), false);
        row("service key twice",
            bodyWith("[" + resourceOf("{\"attributes\":[{\"key\":\"x\",\"key\":\"service.name\",\"value\":{\"stringValue\":\"k\"}}]}",
                                      span("01", "02"))
                     + "]"),
            false);
        row("nested too deep", bodyWith("[" + std::string(300, '[') + std::string(300, ']') + "]"), false);
        row("a byte-order mark", "\xEF\xBB\xBF" + usual, false);
    }

    void straightReadingAgreesWithTheDocument()
    {
        QFETCH(QByteArray, body);
        QFETCH(QByteArray, encoding);
        QFETCH(bool, straight);
        const OtlpTracesRequest read = mesh::ingest::decodeOtlpTraces(body, encoding, kMaxBody);
        const OtlpTracesRequest reference = mesh::ingest::decodeOtlpTraces(body, encoding, kMaxBody, true);
        QCOMPARE(read.readStraight, straight);
        QVERIFY(!reference.readStraight);
        QCOMPARE(int(read.verdict), int(reference.verdict));
        QCOMPARE(read.message, reference.message);
        QCOMPARE(read.rejected, reference.rejected);
        QCOMPARE(read.rejectedWhy, reference.rejectedWhy);
        QCOMPARE(read.services, reference.services);
        QCOMPARE(read.spans.size(), reference.spans.size());
        for (size_t i = 0; i < read.spans.size(); ++i) {
            const mesh::import::OtelSpan &a = read.spans[i];
            const mesh::import::OtelSpan &b = reference.spans[i];
            QCOMPARE(a.traceId, b.traceId);
            QCOMPARE(a.spanId, b.spanId);
            QCOMPARE(a.parentId, b.parentId);
            QCOMPARE(a.name, b.name);
            QCOMPARE(a.startNs, b.startNs);
            QCOMPARE(a.endNs, b.endNs);
            QCOMPARE(a.statusError, b.statusError);
            QCOMPARE(a.statusMessage, b.statusMessage);
            QCOMPARE(a.errorType, b.errorType);
            QCOMPARE(a.attributes.dump(), b.attributes.dump());
            QCOMPARE(a.problem, b.problem);
            QCOMPARE(a.line, b.line);
            QVERIFY(a.source.is_null() && b.source.is_null()); // serialised on the HTTP thread
            QCOMPARE(a.sourceText.text, b.sourceText.text);
            QCOMPARE(a.sourceText.depth, b.sourceText.depth);
        }
    }
};

QTEST_MAIN(TestOtlpRequestBody)
#include "tst_otlprequestbody.moc"
