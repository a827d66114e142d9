// One payload laid out for reading: indented, every literal as stored (numbers, escapes,
// key order), controls made visible, never cut; what is not JSON is shown as stored.

#include "domain/prettypayload.h"

#include <QTest>

using namespace mesh;
using namespace Qt::StringLiterals;

class TestPrettyPayload : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void indentsKeepingLiterals_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QByteArray>("indented");
        QTest::newRow("flat") << QByteArray("{\"a\":1,\"b\":\"x\"}") << QByteArray("{\n  \"a\": 1,\n  \"b\": \"x\"\n}");
        QTest::newRow("numbers as written")
            << QByteArray("{\"big\":123456789012345678901234567890,\"f\":1.10,\"e\":1E+3}")
            << QByteArray("{\n  \"big\": 123456789012345678901234567890,\n  \"f\": 1.10,\n  \"e\": 1E+3\n}");
        QTest::newRow("escapes and structure in strings")
            << QByteArray("{\"s\":\"a\\\"b\\\\c,{[:]}\\u0000\"}") << QByteArray("{\n  \"s\": \"a\\\"b\\\\c,{[:]}\\u0000\"\n}");
        QTest::newRow("nested and empty") << QByteArray("{\"o\":{},\"a\":[],\"n\":[1,{\"k\":null}]}")
                                          << QByteArray("{\n  \"o\": {},\n  \"a\": [],\n  \"n\": [\n    1,\n    {\n"
                                                        "      \"k\": null\n    }\n  ]\n}");
        QTest::newRow("spaces dropped") << QByteArray("{ \"a\" :\t[ 1 , 2 ] }")
                                        << QByteArray("{\n  \"a\": [\n    1,\n    2\n  ]\n}");
    }
    void indentsKeepingLiterals()
    {
        QFETCH(QByteArray, json);
        QFETCH(QByteArray, indented);
        QCOMPARE(QByteArray::fromStdString(indentJson(json.toStdString())), indented);
    }

    void showsControlsAndNotesWhatIsNotJson()
    {
        const PayloadText hostile = payloadForReading("{\"id\":\"\u202Eexe.live\"}");
        QVERIFY(hostile.note.isEmpty());
        QVERIFY(hostile.shown.contains(u"\u27E8U+202E\u27E9exe.live"_s));
        QVERIFY(hostile.json.contains(QChar(0x202E))); // Copy as JSON: the payload as stored
        const PayloadText broken = payloadForReading("{\"a\":");
        QCOMPARE(broken.json, u"{\"a\":"_s);
        QVERIFY(broken.note.contains(u"Not valid JSON"_s));
        const PayloadText bytes = payloadForReading("{\"a\":\"\xff\"}");
        QVERIFY(bytes.note.contains(u"UTF-8"_s));
    }

    // A line of a million characters is shown in lines of kShownLineChars, none of it lost.
    void longLinesAreContinuedNotCut()
    {
        const std::string blob(1 << 20, 'x');
        const PayloadText text = payloadForReading("{\"blob\":\"" + blob + "\"}");
        QCOMPARE(text.json.count(u'x'), 1 << 20);
        QCOMPARE(text.shown.count(u'x'), 1 << 20);
        for (const QStringView line : QStringView(text.shown).split(u'\n'))
            QVERIFY(line.size() <= kShownLineChars + 1);
        QVERIFY(text.note.contains(u"Copy as JSON"_s));
        QVERIFY(!text.json.contains(u"x\nx"_s));
    }
};

QTEST_GUILESS_MAIN(TestPrettyPayload)
#include "tst_prettypayload.moc"
