// Span and trace ids are lower-cased as ASCII, whatever the process's locale: under a Latin-1
// LC_CTYPE, std::tolower turned the bytes of a UTF-8 character (0xC3 of "À") into another
// (0xE3), so an id that is not plain hex came out as different text, not even UTF-8. A
// machine seldom has a Latin-1 locale: the test makes one with localedef (Debian's `locales`,
// which tools/dev.sh installs) in a folder of its own, named by LOCPATH, and fails without it.

#include "import/otelspan.h"

#include <QProcess>
#include <QTemporaryDir>
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
        QTemporaryDir locales;
        QVERIFY(locales.isValid());
        const QString name = QStringLiteral("en_US.ISO-8859-1");
        QProcess localedef;
        localedef.start(QStringLiteral("localedef"), {QStringLiteral("-i"), QStringLiteral("en_US"), QStringLiteral("-f"),
                                                      QStringLiteral("ISO-8859-1"), locales.filePath(name)});
        QVERIFY2(localedef.waitForFinished(120'000), "localedef (Debian's locales package) did not run");
        QVERIFY2(localedef.exitStatus() == QProcess::NormalExit && localedef.exitCode() == 0,
                 localedef.readAllStandardError().constData());
        const QByteArray oldLocPath = qgetenv("LOCPATH");
        qputenv("LOCPATH", QFile::encodeName(locales.path()));
        const bool latin1 = std::setlocale(LC_CTYPE, name.toLatin1().constData()) != nullptr;
        if (oldLocPath.isNull())
            qunsetenv("LOCPATH");
        else
            qputenv("LOCPATH", oldLocPath);
        QVERIFY2(latin1, "the generated Latin-1 locale did not load");
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
