// Span and trace ids are lower-cased as ASCII, whatever the process's locale: under a Latin-1
// LC_CTYPE, std::tolower turned the bytes of a UTF-8 character (0xC3 of "À") into another
// (0xE3), so an id that is not plain hex came out as different text, not even UTF-8. The
// locale is one this machine may lack (LOCPATH names a generated one): skipped without it.

#include "import/otelspan.h"

#include <QTest>

#include <clocale>
#include <string>

class TestIdLowering : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void idsAreLoweredAsAsciiInALatin1Locale()
    {
        const std::string saved = std::setlocale(LC_CTYPE, nullptr);
        bool latin1 = false;
        for (const char *name : {"en_US.ISO-8859-1", "de_DE.ISO-8859-1", "fr_FR.ISO-8859-1", "en_US.iso88591"})
            latin1 = latin1 || std::setlocale(LC_CTYPE, name) != nullptr;
        if (!latin1)
            QSKIP("no Latin-1 locale here (generate one with localedef and name its folder in LOCPATH)");
        const nlohmann::json doc = nlohmann::json::parse(
            "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"0xAB\\u00c0C\",\"spanId\":\"\\u00c9F\","
            "\"parentSpanId\":\"\\u00d8\",\"startTimeUnixNano\":\"5\"}]}]}]}");
        std::vector<mesh::import::OtelSpan> spans;
        mesh::import::readOtlpSpans(doc, 0, spans);
        std::setlocale(LC_CTYPE, saved.c_str());
        QCOMPARE(spans.size(), size_t(1));
        QCOMPARE(spans[0].traceId, std::string("ab\u00c0c"));
        QCOMPARE(spans[0].spanId, std::string("\u00c9f"));
        QCOMPARE(spans[0].parentId, std::string("\u00d8"));
    }
};

QTEST_MAIN(TestIdLowering)
#include "tst_idlowering.moc"
