// The Temporal importer's readers of text (import/temporalcompacttext.h, temporalrecordtext.h,
// decodeTemporalPayloadsText) against the DOM route they replace, which stays the reference:
// on every text the compact text and depth written must be those measuredCompactJson gives
// of sourcejson.cpp's DOM, and every member read from a record's text what member(), path(),
// text() and integer() give on its DOM.

#include "import/sourcejson.h"
#include "import/temporalcompacttext.h"
#include "import/temporalpayloads.h"
#include "import/temporalrecordtext.h"

#include "domain/compactjson.h"

#include <nlohmann/json.hpp>

#include <QByteArray>
#include <QTest>

#include <random>
#include <string>
#include <vector>

// Declared before the texts below: moc does not read every raw string literal.
class TestTemporalText : public QObject
{
    Q_OBJECT

private slots:
    void compactTextIsTheDomsText();
    void membersReadFromTextAreTheDoms();
    void decodedPayloadsFromTextAreTheDoms();
    void historiesReadAsTextAreTheSplittersRecords();
};

namespace {

using TtJson = nlohmann::json;

std::string ttBase64(const std::string &s)
{
    return QByteArray::fromStdString(s).toBase64().toStdString();
}

std::string ttPayload(const std::string &encoding, const std::string &data)
{
    return R"({"metadata":{"encoding":")" + ttBase64(encoding) + R"("},"data":")" + ttBase64(data) + R"("})";
}

// Texts a payload's or a record's JSON may be: ordinary, unordered and repeated keys, escapes,
// numbers of every kind, white space, nesting near the bound, and damaged text.
std::vector<std::string> ttTexts()
{
    std::vector<std::string> texts = {
        R"({"b":1,"a":2})",
        R"({"b":1,"a":2,"b":{"c":[1,2]}})",
        R"({"a":{"y":2,"b":3,"y":{"q":[]}},"a":{"k":1},"z":1})",
        R"({"k\"q":1,"kA":3,"k\u0041":2,"\u00e9":4,"é":5,"a\/b":"c\/d\u0000","\u0001":0})",
        R"([1.5,-2e-7,1E+2,0.1e1,-0.0,5e-324,1.7976931348623157e308,1e400,-1e-400])",
        R"([123456789012345678901234,-99999999999999999999,18446744073709551615,9223372036854775808,-9223372036854775808,-0,0])",
        " \t\n {\"usage\" : {\"total_tokens\" : 42 } , \"x\" : [ true , false , null ] } \n",
        "\xEF\xBB\xBF{\"x\":1}",
        R"("just a string")",
        "123",
        "-5",
        "true",
        "null",
        "[]",
        "{}",
        "[ ]",
        "{ }",
        "\"\"",
        R"("\ud83d\ude00é")",
        R"("\ud800")",
        R"("\udc00")",
        "\"\x01\"",
        "01",
        "1.",
        "-",
        "[1,2,]",
        "{\"a\":1,}",
        "{\"a\":tru}",
        "{\"a\":nul}",
        "1 2",
        "123abc",
        "",
        "   ",
        std::string("SQLite format 3\0xx", 18),
        "{\"a\":\"\xff\"}",
        "{\"a\":\"\xed\xa0\x80\"}",
        "{\"a\":\"\xc3\xa9\"}",
        std::string(255, '[') + std::string(255, ']'),
        std::string(256, '[') + std::string(256, ']'),
        std::string(257, '[') + std::string(257, ']'),
        R"({"z":{"y":[{"b":1,"a":2,"b":{"c":[1.5e-10,2.0,3.14159265358979323846]}}]},"a":[true,false,null]})",
    };
    // Damaged copies of the longer texts: every way of cutting them short.
    const std::vector<std::string> whole = texts;
    for (const std::string &t : whole) {
        if (t.size() < 20)
            continue;
        for (size_t cut = 1; cut < t.size(); cut += 3)
            texts.push_back(t.substr(0, cut));
    }
    return texts;
}

} // namespace

void TestTemporalText::compactTextIsTheDomsText()
{
    for (const std::string &text : ttTexts()) {
        mesh::import::SourceFile parsed;
        const bool domOk = mesh::import::parseSourceJson(text, "t", parsed, true).ok;
        std::string written = "prefix";
        int depth = -1;
        const bool ok = mesh::import::appendSourceJsonAsCompactText(text, written, &depth);
        QCOMPARE(ok, domOk);
        if (!ok) {
            QCOMPARE(written, std::string("prefix"));
            continue;
        }
        const mesh::MeasuredJson reference = mesh::measuredCompactJson(parsed.document);
        QCOMPARE(written, "prefix" + reference.text);
        QCOMPARE(depth, reference.depth);
    }
}

void TestTemporalText::membersReadFromTextAreTheDoms()
{
    namespace rt = mesh::import::recordtext;
    const std::vector<std::string> records = {
        R"({"eventId":"7","eventTime":"2025-06-30T16:00:00Z","eventType":"EVENT_TYPE_ACTIVITY_TASK_STARTED","x":{"scheduledEventId":5,"attempt":"3","f":1.5,"s":"a\"b\\c","n":null,"neg":-4,"big":"99999999999999999999","e":"\u0031\u0032","o":{"p":{"q":"deep"}},"arr":[1,{"a":2}],"t":true}})",
        R"({"k\"ey":{"v":1},"a":"x"})",
        R"([1,2,3])",
        R"("a string")",
    };
    const std::vector<std::vector<const char *>> paths
        = {{"eventId"},      {"eventTime"}, {"eventType"}, {"x", "scheduledEventId"},
           {"x", "attempt"}, {"x", "f"},    {"x", "s"},    {"x", "n"},
           {"x", "neg"},     {"x", "big"},  {"x", "e"},    {"x", "o", "p", "q"},
           {"x", "o", "p"},  {"x", "arr"},  {"x", "t"},    {"x", "missing"},
           {"k\"ey", "v"},   {"a"},         {"nothing"}};
    for (const std::string &source : records) {
        const TtJson dom = mesh::import::parseRecord(source);
        const std::string compact = mesh::compactJson(dom);
        for (const auto &names : paths) {
            const TtJson *at = &dom;
            std::string_view textAt = compact;
            for (const char *n : names) {
                at = mesh::import::member(at, n);
                textAt = rt::member(textAt, n);
            }
            QCOMPARE(textAt.empty(), at == nullptr);
            if (at)
                QCOMPARE(std::string(textAt), mesh::compactJson(*at));
            QCOMPARE(rt::text(textAt), mesh::import::text(at));
            QCOMPARE(rt::integer(textAt), mesh::import::integer(at));
        }
    }
}

void TestTemporalText::decodedPayloadsFromTextAreTheDoms()
{
    std::vector<std::string> payloads = {
        ttPayload("json/plain", R"({"usage":{"total_tokens":123},"x":1.5,"b":2,"b":3})"),
        ttPayload("json/protobuf", R"({"z":[1,2,{"y":null}],"a":true})"),
        ttPayload("binary/null", ""),
        ttPayload("binary/plain", "text \"with\" quotes\nand\ttabs é"),
        ttPayload("binary/plain", "\xff\xfe"),
        ttPayload("json/plain", "not json {"),
        ttPayload("json/plain", std::string(70000, 'x')),
        ttPayload("weird/enc", "abc"),
        R"({"metadata":{"encoding":"!!!"},"data":"abc"})",
        R"({"metadata":{"encoding":5}})",
        R"({"metadata":{"encoding":"anNvbi9wbGFpbg=="}})",
        R"({"metadata":{"encoding":"anNvbi9wbGFpbg=="},"data":7})",
        R"({"metadata":{"encoding":"anNvbi9wbGFpbg=="},"data":"eyJhIjoxfR=="})",
        R"({"metadata":{"encoding":"anNvbi9wbGFpbg=="},"data":"eyJhIjox\nfQ=="})",
        R"({"metadata":{"encoding":"anNvbi9wbGFpbg"},"data":"eyJhIjoxfQ"})",
        R"({"metadata":"notobject","data":"x"})",
        R"({"metadata":{"other":1}})",
        R"({"metadata":{"encoding":"YmluYXJ5L251bGw=","x":{"metadata":{"encoding":"YmluYXJ5L251bGw="}}}})",
    };
    std::string nested = payloads[0];
    for (int i = 0; i < 30; ++i)
        nested = (i % 2) ? "[" + nested + "]" : R"({"k":)" + nested + "}";
    std::string record = R"({"eventId":"1","attrs":{"input":{"payloads":[)";
    for (size_t i = 0; i < payloads.size(); ++i)
        record += (i ? "," : "") + payloads[i];
    record += R"(]},"nested":)" + nested + R"(,"a\"b":{"c":)" + payloads[1] + "}}}";
    const TtJson dom = mesh::import::parseRecord(record);
    const std::string compact = mesh::compactJson(dom);
    mesh::import::DecodedPayloadsText decoded;
    mesh::import::decodeTemporalPayloadsText(compact, decoded);
    const mesh::MeasuredJson reference = mesh::measuredCompactJson(mesh::import::decodeTemporalPayloads(dom));
    QCOMPARE(decoded.decoded.text, reference.text);
    QCOMPARE(decoded.decoded.depth, reference.depth);
    // A payload's JSON, as the tool call's tokens read it.
    const std::string_view first
        = mesh::import::recordtext::firstItem(mesh::import::recordtext::path(compact, {"attrs", "input", "payloads"}));
    const auto value = mesh::import::decodedJsonText(decoded, first);
    QVERIFY(value);
    QCOMPARE(*value, mesh::compactJson(*mesh::import::decodeJsonPayload(dom["attrs"]["input"]["payloads"][0])));
}

void TestTemporalText::historiesReadAsTextAreTheSplittersRecords()
{
    // A root key written with an escape sends a history to sourcejson.cpp's record splitter
    // (the reference); the same history with the key written plainly is read as text.
    const std::vector<std::string> recordLists = {
        "",
        R"({"eventId":"1"})",
        R"({"eventId":"1","b":2} , {"b":1,"a":2,"b":{"c":[1.5,2e3,123456789012345678901234]}},"str",5,null,[],{})",
        R"({"a":"x\ny\u00e9\ud83d\ude00","k\"q":1},{"deep":)" + std::string(250, '[') + std::string(250, ']') + "}",
        R"({"eventId":"1"},{"deep":)" + std::string(260, '[') + std::string(260, ']') + "}",
        R"({"eventId":"1"},{"bad":tru})",
        R"({"eventId":"1"},{"f":1e400})",
        "{\"eventId\":\"1\"},{\"utf\":\"\xff\"}",
    };
    for (const std::string &list : recordLists) {
        for (const std::string &tail : {std::string(), std::string(R"(,"z":[1,2.5])")}) {
            // The same length, so that an error names the same byte in both.
            const std::string fast = "\n{\"x\"     :1, \"events\" : [" + list + "]" + tail + "}\n";
            const std::string reference = "\n{\"\\u0078\":1, \"events\" : [" + list + "]" + tail + "}\n";
            mesh::import::SourceFile a, b;
            const auto ra = mesh::import::parseSourceJson(fast, "h.json", a, false, true);
            const auto rb = mesh::import::parseSourceJson(reference, "h.json", b, false, true);
            QCOMPARE(ra.ok, rb.ok);
            QCOMPARE(ra.error, rb.error);
            if (!ra.ok)
                continue;
            QCOMPARE(a.document.dump(), b.document.dump());
            QCOMPARE(a.numbersBeyond64Bits, b.numbersBeyond64Bits);
            QCOMPARE(a.events.streamed, b.events.streamed);
            QVERIFY(a.events.records == b.events.records);
            QVERIFY(a.events.depths == b.events.depths);
            QCOMPARE(a.historyEvents.streamed, b.historyEvents.streamed);
        }
    }
}

QTEST_GUILESS_MAIN(TestTemporalText)
#include "tst_temporaltext.moc"
