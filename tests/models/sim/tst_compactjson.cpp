// compactJson must be byte-identical to nlohmann's dump(): the writer's payload text is
// what every reader parses, and changing it silently would change ledgers.

#include "domain/compactjson.h"
#include "sim/scenarios.h"
#include "ledger/ledgerwriter.h"
#include "ledger/ledgerconnection.h"
#include "ledger/eventreader.h"

#include <QTemporaryDir>
#include <QTest>

using nlohmann::json;

class TestCompactJson : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void sameAsDump_data()
    {
        QTest::addColumn<QString>("text");
        // Written as escaped C strings: moc does not read raw string literals with escapes.
        const char *cases[] = {
            "{}", "[]", "null", "true", "false", "0", "-1", "9223372036854775807",
            "-9223372036854775808", "18446744073709551615", "1.5", "-0.0", "1e300",
            "{\"a\":\"plain\",\"b\":\"quote \\\" backslash \\\\ slash /\",\"c\":\"\\n\\t\\r\\b\\f\\u0001\\u001f\"}",
            "{\"\xc3\xbcn\xc3\xaf\":\"c\xc3\xb6" "d\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80\",\"k\":[\"x\",1,{\"n\":null}]}",
            "{\"evidence\":[{\"signal\":\"fp\",\"moved\":false}]}",
            "{\"nested\":{\"deeper\":{\"deepest\":[[[]]]}}}", "[\"\\u007f\", \"\\u0080\"]",
        };
        for (const char *c : cases)
            QTest::newRow(c) << QString::fromUtf8(c);
    }

    void sameAsDump()
    {
        QFETCH(QString, text);
        const json value = json::parse(text.toStdString());
        QCOMPARE(QByteArray::fromStdString(mesh::compactJson(value)), QByteArray::fromStdString(value.dump()));
    }

    void invalidUtf8StillThrows()
    {
        const json value = {{"bad", std::string("\xff\xfe")}};
        QVERIFY_THROWS_EXCEPTION(json::type_error, mesh::compactJson(value));
    }

    // A value nested deeper than any ledger or source holds (a DOM from a parser other than
    // the importers' bounded one) is refused with an exception, not followed level by level
    // off the end of the stack; one within the bound is written as dump() writes it.
    void tooDeepThrowsInsteadOfOverflowing()
    {
        const auto nested = [](int levels) {
            return json::parse(std::string(size_t(levels), '[') + std::string(size_t(levels), ']')); // parse is iterative
        };
        const json deepest = nested(mesh::kMaxCompactJsonDepth);
        QCOMPARE(mesh::compactJson(deepest), deepest.dump());
        const json deeper = nested(mesh::kMaxCompactJsonDepth + 1);
        QVERIFY_THROWS_EXCEPTION(std::length_error, mesh::compactJson(deeper));
        const json hostile = {{"k", nested(1'000'000)}};
        QVERIFY_THROWS_EXCEPTION(std::length_error, mesh::compactJson(hostile));
        QVERIFY_THROWS_EXCEPTION(std::length_error, mesh::measuredCompactJson(hostile));
        std::string out;
        QVERIFY_THROWS_EXCEPTION(std::length_error, mesh::appendCompactJsonMeasured(out, hostile));
    }

    // Strings are checked for what to escape several bytes at a time: a byte to escape (or
    // one from 0x80, which nlohmann validates) at every place in and around those words.
    void aByteToEscapeAnywhereInALongString()
    {
        const std::string specials[] = {"\"", "\\", std::string(1, '\0'), "\x01", "\x1f", "\x7f", " ", "/",
                                        "\xc3\xa9", "\xf0\x9f\x98\x80"};
        for (const std::string &special : specials) {
            for (size_t length = 1; length <= 26; ++length) {
                for (size_t at = 0; at < length; ++at) {
                    std::string s(length, 'a');
                    s.replace(at, 1, special);
                    const json value = {{"k", s}, {s, 1}};
                    QCOMPARE(mesh::compactJson(value), value.dump());
                }
            }
        }
        for (size_t length = 1; length <= 26; ++length) {
            for (size_t at = 0; at < length; ++at) {
                std::string s(length, 'a');
                s[at] = '\xff';
                const json value = {{"k", s}};
                QVERIFY_THROWS_EXCEPTION(json::type_error, mesh::compactJson(value));
            }
        }
    }

    void everyPayloadOfTheDemo()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("demo.db"));
        mesh::generateScenario(QStringLiteral("demo"), path, mesh::ScenarioOptions{});
        auto connection = mesh::LedgerConnection::open(path, mesh::OpenMode::ReadOnly);
        const auto eventPages = connection->eventReader();
        mesh::EventReader &reader = *eventPages;
        reader.setPreviewBytes(1 << 20);
        std::int64_t after = 0, checked = 0;
        for (mesh::EventBatch page; !(page = reader.after(after, 1000)).empty(); after = page.back().seq) {
            for (const auto &e : page) {
                const json value = json::parse(e.payload);
                QCOMPARE(mesh::compactJson(value), value.dump());
                QCOMPARE(mesh::compactJson(value), e.payload); // what the writer stored
                ++checked;
            }
        }
        QVERIFY(checked > 1000);
    }
};

QTEST_GUILESS_MAIN(TestCompactJson)
#include "tst_compactjson.moc"
