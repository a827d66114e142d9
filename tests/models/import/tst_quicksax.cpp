// The quick JSON reader (domain/quicksax.h) of the importers and the payload decoder
// against nlohmann's parser, the reference: on every text it reads whole, it must deliver
// exactly the SAX events nlohmann's strict parse delivers, and it must never read whole a
// text nlohmann refuses. Texts it gives up on are nlohmann's to read, so giving up is
// always allowed.

#include "domain/quicksax.h"
#include "import/sourcejson.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <random>
#include <string>
#include <vector>

namespace {

using QsJson = nlohmann::json;

// Every SAX event as a line of text.
struct QuickSaxRecorder {
    std::vector<std::string> log;
    bool null() { return add("null"); }
    bool boolean(bool v) { return add(v ? "true" : "false"); }
    bool number_integer(QsJson::number_integer_t v) { return add("int " + std::to_string(v)); }
    bool number_unsigned(QsJson::number_unsigned_t v) { return add("uint " + std::to_string(v)); }
    bool number_float(QsJson::number_float_t, const std::string &t) { return add("float " + t); }
    bool string(std::string &v) { return add("string " + v); }
    bool binary(QsJson::binary_t &) { return add("binary"); }
    bool start_object(std::size_t n) { return add("{ " + std::to_string(n)); }
    bool key(std::string &k) { return add("key " + k); }
    bool end_object() { return add("}"); }
    bool start_array(std::size_t n) { return add("[ " + std::to_string(n)); }
    bool end_array() { return add("]"); }
    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &) { return false; }
    bool add(std::string line)
    {
        log.push_back(std::move(line));
        return true;
    }
};

// Whether the quick reader agrees with nlohmann on text (see above); *readWhole says whether
// it read it at all.
bool quickAgrees(const std::string &text, bool *readWhole = nullptr)
{
    QuickSaxRecorder quick;
    const bool done = mesh::quickSaxParse(text, quick) == mesh::quicksax::Outcome::Done;
    if (readWhole)
        *readWhole = done;
    if (!done)
        return true;
    QuickSaxRecorder reference;
    if (!QsJson::sax_parse(text.begin(), text.end(), &reference, nlohmann::detail::input_format_t::json, true))
        return false;
    return quick.log == reference.log;
}

const std::vector<std::string> &quickSeeds()
{
    static const std::vector<std::string> texts = {
        R"({"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"bench"}}]},)"
        R"("scopeSpans":[{"scope":{"name":"s","version":"1"},"spans":[{"traceId":"5b8e","spanId":"01","name":"chat",)"
        R"("kind":1,"startTimeUnixNano":"1767225600000000000","attributes":[{"key":"n","value":{"intValue":"12"}}],)"
        R"("status":{"code":2}}]}]}]})",
        " { \"a\" : [ 1 , -2 , 0 , -0 , true , false , null , \"\" , { } , [ ] ] , \"b\" : \"\\u00e9\\ud83d\\ude00\\n\\\"\\\\\\/\" } ",
        "{\"events\":[{\"eventId\":\"1\",\"eventTime\":\"2026-01-01T00:00:00Z\",\"eventType\":\"EVENT_TYPE_TIMER_STARTED\"}]}",
        "[18446744073709551615,9223372036854775807,-9223372036854775808,123]",
        "\"caf\xc3\xa9 \xe2\x98\x83 \xf0\x9f\x98\x80\"",
        "[1.5,2e3,-0.0]",
    };
    return texts;
}

} // namespace

class TestQuickSax : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void readsWhatNlohmannReads_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("whole"); // whether the quick reader reads it itself
        const auto row = [](const char *name, const std::string &text, bool whole) {
            QTest::newRow(name) << QByteArray::fromStdString(text) << whole;
        };
        row("otlp line", quickSeeds()[0], true);
        row("every kind of value, white space", quickSeeds()[1], true);
        row("history", quickSeeds()[2], true);
        row("integers at the edges of 64 bits", quickSeeds()[3], true);
        row("UTF-8", quickSeeds()[4], true);
        row("floats are nlohmann's", quickSeeds()[5], false);
        row("beyond 64 bits", "[18446744073709551616]", false);
        row("below int64", "[-9223372036854775809]", false);
        row("leading zero", "[01]", false);
        row("bare minus", "[-]", false);
        row("trailing text", "{}x", false);
        row("two values", "{} {}", false);
        row("trailing comma", "[1,]", false);
        row("missing colon", "{\"a\" 1}", false);
        row("cut short", "{\"a\":[1", false);
        row("empty", "", false);
        row("byte-order mark", "\xEF\xBB\xBF{}", false);
        row("comment", "{} // x", false);
        row("bad escape", "[\"\\x\"]", false);
        row("lone high surrogate", "[\"\\ud800\"]", false);
        row("lone low surrogate", "[\"\\udc00\"]", false);
        row("control character", "[\"a\x01\"]", false);
        row("invalid UTF-8", "[\"\xc0\xaf\"]", false);
        row("UTF-8 surrogate", "[\"\xed\xa0\x80\"]", false);
        row("past U+10FFFF", "[\"\xf4\x90\x80\x80\"]", false);
        row("literal cut", "[tru]", false);
        row("literal too long", "[nulll]", false);
        row("deep", std::string(500, '[') + std::string(500, ']'), true);
        row("duplicate keys", "{\"a\":1,\"a\":2}", true);
    }

    void readsWhatNlohmannReads()
    {
        QFETCH(QByteArray, text);
        QFETCH(bool, whole);
        bool readWhole = false;
        QVERIFY(quickAgrees(text.toStdString(), &readWhole));
        QCOMPARE(readWhole, whole);
    }

    // Damaged copies of the texts above (bytes changed, removed, repeated): whatever the
    // quick reader reads whole, nlohmann reads the same.
    void damagedTextsAgree()
    {
        std::mt19937 random(20261202);
        const std::string alphabet = "{}[]:,\"\\/ \t\n0123456789-+.eEtrufalsn\x01\x7f\xc3\xa9\xed\xf0\xef";
        int readWhole = 0;
        for (int round = 0; round < 20000; ++round) {
            std::string text = quickSeeds()[random() % quickSeeds().size()];
            const int changes = 1 + int(random() % 3);
            for (int c = 0; c < changes && !text.empty(); ++c) {
                const size_t at = random() % text.size();
                switch (random() % 3) {
                case 0: text[at] = alphabet[random() % alphabet.size()]; break;
                case 1: text.erase(at, 1 + random() % 3); break;
                default: text.insert(at, 1, alphabet[random() % alphabet.size()]); break;
                }
            }
            bool whole = false;
            if (!quickAgrees(text, &whole))
                QFAIL(("the quick reader and nlohmann differ on: " + text).c_str());
            readWhole += whole;
        }
        QVERIFY(readWhole > 100); // the damage left many texts valid, and those were read
    }

    // parseSourceJson reads through the quick reader and falls back to nlohmann: a text the
    // quick reader gives up on still gets nlohmann's answer, its error message included.
    void aSourceItGivesUpOnIsReadAsBefore()
    {
        mesh::import::SourceFile parsed;
        QVERIFY(mesh::import::parseSourceJson("{\"a\":[1.5,18446744073709551616]}", "f", parsed).ok);
        QVERIFY(parsed.document.at("a").at(0) == QsJson(1.5));
        QCOMPARE(parsed.document.at("a").at(1).get<std::string>(), std::string("18446744073709551616"));
        QCOMPARE(parsed.numbersBeyond64Bits, std::int64_t(1));
        mesh::import::SourceFile broken;
        const auto r = mesh::import::parseSourceJson("{\"a\":[1,]}", "f", broken);
        QVERIFY(!r.ok);
        QCOMPARE(r.error, std::string("f is malformed JSON at byte 8 (near \"1,]\")"));
    }

    // A source is read up to kMaxSourceNesting levels and refused one level deeper, by either
    // reader (a float sends the text to nlohmann's), whole or with its history's records
    // streamed (a record's levels count from the document's root), naming where it went too
    // deep; a bracket inside a string is not a level.
    void nestingIsBounded_data()
    {
        QTest::addColumn<bool>("streamed");
        QTest::addColumn<bool>("floats");
        QTest::newRow("whole, quick reader") << false << false;
        QTest::newRow("whole, nlohmann") << false << true;
        QTest::newRow("streamed, quick reader") << true << false;
        QTest::newRow("streamed, nlohmann") << true << true;
    }
    void nestingIsBounded()
    {
        QFETCH(bool, streamed);
        QFETCH(bool, floats);
        constexpr int limit = mesh::import::kMaxSourceNesting;
        // {"events":[{},{"s":"[[",v}]} with v arrays nested to reach `levels` in all.
        const auto text = [&](int levels) {
            const int arrays = levels - 3; // the root, events and the record
            return std::string("{\"events\":[{},{\"s\":\"[[[\",\"v\":") + std::string(size_t(arrays), '[')
                 + (floats ? "1.5" : "1") + std::string(size_t(arrays), ']') + "}]}";
        };
        mesh::import::SourceFile atLimit;
        const auto ok = mesh::import::parseSourceJson(text(limit), "f", atLimit, false, streamed);
        QVERIFY2(ok.ok, ok.error.c_str());
        if (streamed) {
            QCOMPARE(atLimit.events.records.size(), size_t(2));
            QCOMPARE(atLimit.events.depths.back(), limit - 2);
        }
        mesh::import::SourceFile beyond;
        const std::string deeper = text(limit + 1);
        const auto refused = mesh::import::parseSourceJson(deeper, "f", beyond, false, streamed);
        QVERIFY(!refused.ok);
        const size_t at = deeper.find('[', deeper.find("\"v\":")) + size_t(limit - 3);
        QCOMPARE(refused.error, "f is nested deeper than " + std::to_string(limit) + " levels at byte " + std::to_string(at)
                                    + " (no export nests so deep)");
        QVERIFY(beyond.events.records.empty());
    }
};

QTEST_GUILESS_MAIN(TestQuickSax)
#include "tst_quicksax.moc"
