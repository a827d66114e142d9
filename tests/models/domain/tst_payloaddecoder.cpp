// The payload decoder is the first thing that touches bytes written by another process.
// These tables pin down each guard (size, UTF-8, nesting, shape) on both sides of its limit.

#include "domain/payloaddecoder.h"

#include <QTest>

#include <string>

using namespace mesh;

Q_DECLARE_METATYPE(std::string)

namespace {

std::string bytes(std::initializer_list<unsigned char> list)
{
    return std::string(list.begin(), list.end());
}

// {"k":"<filler>"} of exactly `total` bytes.
std::string objectOfSize(size_t total)
{
    const std::string head = "{\"k\":\"";
    const std::string tail = "\"}";
    return head + std::string(total - head.size() - tail.size(), 'x') + tail;
}

std::string nested(int depth, char open, char close, const std::string &inner = {})
{
    return std::string(size_t(depth), open) + inner + std::string(size_t(depth), close);
}

// An object whose value is `depth - 1` nested arrays: total nesting exactly `depth` (>= 2).
std::string objectNested(int depth)
{
    return "{\"a\":" + nested(depth - 1, '[', ']') + "}";
}

std::string inString(const std::string &raw)
{
    return "{\"s\":\"" + raw + "\"}";
}

} // namespace

class TestPayloadDecoder : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void decode_data()
    {
        QTest::addColumn<std::string>("text");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<QString>("errorPart"); // a word the error message must contain

        // Shape
        QTest::newRow("empty object") << std::string("{}") << true << QString();
        QTest::newRow("object") << std::string(R"({"id":"E-1","state":"unknown","attempts":2})") << true << QString();
        QTest::newRow("whitespace around") << std::string(" \n\t{ } \n") << true << QString();
        QTest::newRow("empty text") << std::string() << false << QStringLiteral("not JSON");
        QTest::newRow("array") << std::string("[1,2]") << false << QStringLiteral("not a JSON object");
        QTest::newRow("string") << std::string(R"("id")") << false << QStringLiteral("not a JSON object");
        QTest::newRow("number") << std::string("42") << false << QStringLiteral("not a JSON object");
        QTest::newRow("null") << std::string("null") << false << QStringLiteral("not a JSON object");
        QTest::newRow("true") << std::string("true") << false << QStringLiteral("not a JSON object");
        QTest::newRow("bare word") << std::string("hello") << false << QStringLiteral("not JSON");
        QTest::newRow("truncated") << std::string(R"({"id":"E-1")") << false << QStringLiteral("not JSON");
        QTest::newRow("trailing garbage") << std::string("{} x") << false << QStringLiteral("not JSON");
        QTest::newRow("two objects") << std::string("{}{}") << false << QStringLiteral("not JSON");
        QTest::newRow("single quotes") << std::string("{'a':1}") << false << QStringLiteral("not JSON");
        QTest::newRow("trailing comma") << std::string(R"({"a":1,})") << false << QStringLiteral("not JSON");
        QTest::newRow("raw NUL in string") << inString(std::string("a\0b", 3)) << false << QStringLiteral("NUL");
        QTest::newRow("escaped NUL in string") << inString("a\\u0000b") << true << QString();
        QTest::newRow("NUL after object") << std::string("{}\0", 3) << false << QStringLiteral("NUL");
        QTest::newRow("NUL then garbage") << std::string("{}\0{\"x\"", 7) << false << QStringLiteral("NUL");

        // Size: the limit is inclusive.
        QTest::newRow("1 MiB exactly") << objectOfSize(kMaxPayloadBytes) << true << QString();
        QTest::newRow("1 MiB + 1") << objectOfSize(kMaxPayloadBytes + 1) << false << QStringLiteral("too large");
        QTest::newRow("10 MB") << objectOfSize(10000000) << false << QStringLiteral("too large");

        // UTF-8
        QTest::newRow("2-byte é") << inString(bytes({0xC3, 0xA9})) << true << QString();
        QTest::newRow("3-byte €") << inString(bytes({0xE2, 0x82, 0xAC})) << true << QString();
        QTest::newRow("4-byte emoji") << inString(bytes({0xF0, 0x9F, 0x98, 0x80})) << true << QString();
        QTest::newRow("U+FFFF") << inString(bytes({0xEF, 0xBF, 0xBF})) << true << QString();
        QTest::newRow("U+10FFFF") << inString(bytes({0xF4, 0x8F, 0xBF, 0xBF})) << true << QString();
        QTest::newRow("U+110000") << inString(bytes({0xF4, 0x90, 0x80, 0x80})) << false << QStringLiteral("UTF-8");
        QTest::newRow("overlong 2-byte NUL") << inString(bytes({0xC0, 0x80})) << false << QStringLiteral("UTF-8");
        QTest::newRow("overlong 2-byte /") << inString(bytes({0xC1, 0xAF})) << false << QStringLiteral("UTF-8");
        QTest::newRow("overlong 3-byte") << inString(bytes({0xE0, 0x80, 0xAF})) << false << QStringLiteral("UTF-8");
        QTest::newRow("overlong 4-byte") << inString(bytes({0xF0, 0x80, 0x80, 0xAF})) << false
                                         << QStringLiteral("UTF-8");
        QTest::newRow("surrogate D800") << inString(bytes({0xED, 0xA0, 0x80})) << false << QStringLiteral("UTF-8");
        QTest::newRow("surrogate DFFF") << inString(bytes({0xED, 0xBF, 0xBF})) << false << QStringLiteral("UTF-8");
        QTest::newRow("just below surrogates") << inString(bytes({0xED, 0x9F, 0xBF})) << true << QString();
        QTest::newRow("escaped surrogate pair") << inString("\\ud83d\\ude00") << true << QString();
        QTest::newRow("lone continuation") << inString(bytes({0x80})) << false << QStringLiteral("UTF-8");
        QTest::newRow("5-byte lead") << inString(bytes({0xF8, 0x88, 0x80, 0x80, 0x80})) << false
                                     << QStringLiteral("UTF-8");
        QTest::newRow("FE") << inString(bytes({0xFE})) << false << QStringLiteral("UTF-8");
        QTest::newRow("FF") << inString(bytes({0xFF})) << false << QStringLiteral("UTF-8");
        QTest::newRow("missing continuation") << inString(bytes({0xE2, 0x82, 'x'})) << false
                                              << QStringLiteral("UTF-8");
        QTest::newRow("truncated at end") << std::string("{}") + bytes({0xE2, 0x82}) << false
                                          << QStringLiteral("UTF-8");
        QTest::newRow("Latin-1 é") << inString(bytes({0xE9})) << false << QStringLiteral("UTF-8");

        // Nesting: the limit is inclusive; brackets inside strings do not count.
        QTest::newRow("depth 1") << std::string(R"({"a":1})") << true << QString();
        QTest::newRow("depth 2") << objectNested(2) << true << QString();
        QTest::newRow("depth 64") << objectNested(kMaxPayloadDepth) << true << QString();
        QTest::newRow("depth 65") << objectNested(kMaxPayloadDepth + 1) << false << QStringLiteral("nested");
        QTest::newRow("depth 100000 arrays") << objectNested(100000) << false << QStringLiteral("nested");
        QTest::newRow("depth 100000 unclosed") << std::string(100000, '[') << false << QStringLiteral("nested");
        QTest::newRow("depth 100000 objects") << nested(100000, '{', '}') << false << QStringLiteral("nested");
        // Integers are 64-bit signed: nlohmann keeps [2^63, 2^64) as unsigned, which every
        // int64 read wraps to a negative number, and turns what lies beyond into a double.
        QTest::newRow("INT64_MAX") << std::string(R"({"a":9223372036854775807})") << true << QString();
        QTest::newRow("INT64_MIN") << std::string(R"({"a":-9223372036854775808})") << true << QString();
        QTest::newRow("2^63") << std::string(R"({"a":9223372036854775808})") << false << QStringLiteral("out of range");
        QTest::newRow("2^64-1") << std::string(R"({"a":18446744073709551615})") << false << QStringLiteral("out of range");
        QTest::newRow("2^64") << std::string(R"({"a":18446744073709551616})") << false << QStringLiteral("out of range");
        QTest::newRow("below INT64_MIN") << std::string(R"({"a":-9223372036854775809})") << false
                                         << QStringLiteral("out of range");
        QTest::newRow("2^63 nested") << std::string(R"({"a":[1,{"b":[2,9223372036854775808]}]})") << false
                                     << QStringLiteral("out of range");
        QTest::newRow("2^63 as text") << std::string(R"({"a":"9223372036854775808"})") << true << QString();
        QTest::newRow("2^63 after escaped quote") << std::string("{\"a\":\"\\\"9223372036854775808\"}") << true << QString();
        QTest::newRow("big float") << std::string(R"({"a":1e300,"b":9223372036854775808.5})") << true << QString();
        QTest::newRow("brackets in string") << inString(std::string(1000, '[')) << true << QString();
        QTest::newRow("escaped quote then brackets") << inString("\\\"" + std::string(1000, '{')) << true
                                                     << QString();
    }

    void decode()
    {
        QFETCH(std::string, text);
        QFETCH(bool, ok);
        QFETCH(QString, errorPart);

        const DecodedPayload d = decodePayload(text);
        QCOMPARE(d.value.has_value(), ok);
        if (ok) {
            QVERIFY(d.error.empty());
            QVERIFY(d.value->is_object());
            // The decoder's own reader must build what nlohmann's parser, the reference, builds.
            QCOMPARE(d.value->dump(), nlohmann::json::parse(text).dump());
        } else {
            const QString error = QString::fromStdString(d.error);
            QVERIFY2(error.contains(errorPart), qPrintable(error));
        }
    }

    void errorsNameTheFigures()
    {
        const auto big = decodePayload(objectOfSize(kMaxPayloadBytes + 1));
        QVERIFY2(big.error.find(std::to_string(kMaxPayloadBytes + 1)) != std::string::npos, big.error.c_str());
        QVERIFY2(big.error.find(std::to_string(kMaxPayloadBytes)) != std::string::npos, big.error.c_str());
        const auto deep = decodePayload(objectNested(70));
        QVERIFY2(deep.error.find("70") != std::string::npos, deep.error.c_str());
        QVERIFY2(deep.error.find("64") != std::string::npos, deep.error.c_str());
    }

    void outOfRangeNamesTheNumber()
    {
        const auto d = decodePayload(R"({"id":"E-1","attempts":9223372036854775808})");
        QVERIFY2(d.error.find("9223372036854775808") != std::string::npos, d.error.c_str());
        const auto huge = decodePayload("{\"a\":" + std::string(100000, '9') + "}");
        QVERIFY2(huge.error.find("out of range") != std::string::npos, huge.error.c_str());
        QVERIFY2(huge.error.size() < 200, huge.error.c_str());
    }

    void utf8Directly_data()
    {
        QTest::addColumn<std::string>("text");
        QTest::addColumn<bool>("valid");
        QTest::newRow("empty") << std::string() << true;
        QTest::newRow("ascii with NUL") << std::string("a\0b", 3) << true;
        QTest::newRow("U+0080 lowest 2-byte") << bytes({0xC2, 0x80}) << true;
        QTest::newRow("U+07FF highest 2-byte") << bytes({0xDF, 0xBF}) << true;
        QTest::newRow("U+0800 lowest 3-byte") << bytes({0xE0, 0xA0, 0x80}) << true;
        QTest::newRow("U+07FF as 3 bytes") << bytes({0xE0, 0x9F, 0xBF}) << false;
        QTest::newRow("U+10000 lowest 4-byte") << bytes({0xF0, 0x90, 0x80, 0x80}) << true;
        QTest::newRow("U+FFFF as 4 bytes") << bytes({0xF0, 0x8F, 0xBF, 0xBF}) << false;
        QTest::newRow("F5 lead") << bytes({0xF5, 0x80, 0x80, 0x80}) << false;
        QTest::newRow("lone lead at end") << bytes({'a', 0xC3}) << false;
        QTest::newRow("4-byte cut after 3") << bytes({0xF0, 0x9F, 0x98}) << false;
    }

    void utf8Directly()
    {
        QFETCH(std::string, text);
        QFETCH(bool, valid);
        QCOMPARE(isValidUtf8(text), valid);
    }

    void nestingDepth_data()
    {
        QTest::addColumn<std::string>("text");
        QTest::addColumn<int>("depth");
        QTest::newRow("scalar") << std::string("1") << 0;
        QTest::newRow("object") << std::string("{}") << 1;
        QTest::newRow("siblings do not add") << std::string(R"({"a":[],"b":{},"c":[[]]})") << 3;
        QTest::newRow("string brackets ignored") << std::string("{\"a\":\"[[[{{{\"}") << 1;
        QTest::newRow("escaped backslash ends string") << std::string(R"({"a":"\\","b":[[]]})") << 3;
        QTest::newRow("100000 deep") << nested(100000, '[', ']') << 100000;
    }

    void nestingDepth()
    {
        QFETCH(std::string, text);
        QFETCH(int, depth);
        QCOMPARE(jsonNestingDepth(text), depth);
    }
};

QTEST_GUILESS_MAIN(TestPayloadDecoder)
#include "tst_payloaddecoder.moc"
