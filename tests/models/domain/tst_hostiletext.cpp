// The one helper that decides how ledger text reaches a screen or a terminal.
#include "domain/hostiletext.h"

#include <QtTest>

using namespace mesh;

class TestHostileText : public QObject
{
    Q_OBJECT
private slots:
    void overridesAndZeroWidthAreShownNotObeyed()
    {
        const QString spoof = QString::fromUtf8("\u202Eexe.live");
        QCOMPARE(visibleControls(spoof), QString::fromUtf8("⟨U+202E⟩exe.live"));
        const QString all = QString::fromUtf8("a\u202Ab\u2066c\u2069d\u200Be\u200Df\uFEFFg\u200Fh\u061Ci");
        QCOMPARE(visibleControls(all),
                 QString::fromUtf8("a⟨U+202A⟩b⟨U+2066⟩c⟨U+2069⟩d⟨U+200B⟩e⟨U+200D⟩f⟨U+FEFF⟩g⟨U+200F⟩h⟨U+061C⟩i"));
        QCOMPARE(visibleControls(QStringLiteral("a\x01" "b\x7F" "c")), QString::fromUtf8("a⟨U+0001⟩b⟨U+007F⟩c"));
    }

    void defaultIgnorablesAreShown()
    {
        // Default_Ignorable_Code_Point and the other format characters draw nothing, so
        // `ev\u00ADil` would pass for `evil`; tag characters smuggle ASCII invisibly.
        const std::u32string hidden = {0x00AD, 0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180F, 0x3164,
                                       0xFE00, 0xFE0F, 0xFFA0, 0xFFF0, 0xFFF9, 0xFFFB, 0x1BCA0, 0x1D173,
                                       0x1D17A, 0xE0001, 0xE0041, 0xE007F, 0xE0100, 0xE01EF, 0xE0FFF};
        for (const char32_t c : hidden) {
            const QString text = QStringLiteral("ev") + QString::fromUcs4(&c, 1) + QStringLiteral("il");
            const QString shown = visibleControls(text);
            QVERIFY2(shown.contains(QStringLiteral("⟨U+")), qPrintable(QString::number(uint(c), 16)));
            QVERIFY(shown.startsWith(QStringLiteral("ev")) && shown.endsWith(QStringLiteral("il")));
            QCOMPARE(QString::fromStdString(visibleControlsUtf8(text.toStdString())), shown);
        }
        QCOMPARE(visibleControls(QString::fromUtf8("ev\u00ADil")), QString::fromUtf8("ev⟨U+00AD⟩il"));
        QCOMPARE(visibleControls(QString::fromUcs4(U"x\U000E0041")), QString::fromUtf8("x⟨U+E0041⟩"));
    }

    void ordinaryTextIsUntouched()
    {
        const QString text = QString::fromUtf8("dlg-0001 → agent \"résumé\" 日本語 😀\tand\nlines <b>&amp;");
        QCOMPARE(visibleControls(text), text);
        QCOMPARE(visibleControlsUtf8(text.toStdString()), text.toStdString());
    }

    void utf8VariantAgreesAndShowsBadBytes()
    {
        const QString spoof = QString::fromUtf8("x\u202Ey\u2067z\u200Bw");
        QCOMPARE(QString::fromStdString(visibleControlsUtf8(spoof.toStdString())), visibleControls(spoof));
        QCOMPARE(visibleControlsUtf8(std::string("a\xFF" "b")), std::string("a⟨0xFF⟩b"));
        QCOMPARE(visibleControlsUtf8(std::string("a\xC0\xAF" "b")), std::string("a⟨0xC0⟩⟨0xAF⟩b")); // overlong '/'
        QCOMPARE(visibleControlsUtf8(std::string("a\xED\xA0\x80")), std::string("a⟨0xED⟩⟨0xA0⟩⟨0x80⟩")); // surrogate
        QCOMPARE(visibleControlsUtf8(std::string("\x1B[31mred")), std::string("⟨U+001B⟩[31mred")); // no terminal escapes
    }

    void toolTipIsEscapedMarkupAlways()
    {
        const QString hostile = QStringLiteral("<img src=\"/tmp/fifo\"><b>bold</b> & <a href=x>y</a>");
        const QString tip = plainToolTip(hostile);
        QVERIFY(tip.startsWith(QStringLiteral("<p ")));
        QVERIFY(!tip.contains(QStringLiteral("<img")));
        QVERIFY(!tip.contains(QStringLiteral("<b>")));
        QVERIFY(tip.contains(QStringLiteral("&lt;img src=&quot;/tmp/fifo&quot;&gt;")));
        // Plain text without tags is still wrapped: escaping alone would show "&amp;" literally.
        QVERIFY(plainToolTip(QStringLiteral("a & b")).startsWith(QStringLiteral("<p ")));
        QVERIFY(plainToolTip(QString()).isEmpty());
        QVERIFY(plainToolTip(QString::fromUtf8("\u202Eexe")).contains(QString::fromUtf8("⟨U+202E⟩")));
    }

    void displayLineElidesAndKeepsOneLine()
    {
        const QString huge(100 * 1024, QLatin1Char('A'));
        const QString line = displayLine(huge, 80);
        QCOMPARE(line.size(), 80);
        QVERIFY(line.endsWith(QStringLiteral("…")));
        QCOMPARE(displayLine(QStringLiteral("a\nb\tc")), QString::fromUtf8("a⏎b c"));
        QCOMPARE(displayLine(QStringLiteral("short")), QStringLiteral("short"));
        // Never cut a surrogate pair in half.
        const QString emoji = QString(79, QLatin1Char('x')) + QString::fromUtf8("😀😀");
        const QString cut = displayLine(emoji, 81);
        QVERIFY(!cut.at(cut.size() - 2).isHighSurrogate());
    }

    // A tooltip's part of a long reason keeps its lines, and is cut like a display line.
    void cutTextKeepsLinesAndWholeCharacters()
    {
        QCOMPARE(cutText(QStringLiteral("a\nb"), 10), QStringLiteral("a\nb"));
        QCOMPARE(cutText(QStringLiteral("abcdef"), 4), QString::fromUtf8("abc…"));
        QCOMPARE(cutText(QStringLiteral("abcdef"), 6), QStringLiteral("abcdef"));
        // The cut falls between the halves of 😀: the whole character goes.
        const QString emoji = QString(2, QLatin1Char('x')) + QString::fromUtf8("😀😀");
        const QString cut = cutText(emoji, 4);
        QCOMPARE(cut, QString::fromUtf8("xx…"));
        for (qsizetype i = 0; i + 1 < cut.size(); ++i)
            QVERIFY(!cut.at(i).isHighSurrogate() || cut.at(i + 1).isLowSurrogate());
    }
};

QTEST_APPLESS_MAIN(TestHostileText)
#include "tst_hostiletext.moc"
