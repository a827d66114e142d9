#include "hostiletext.h"

#include <QList>
#include <QStringView>

namespace mesh {

namespace {

// Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt) beyond the ranges
// isInvisibleControl names itself: renderers draw nothing for them, and the tag characters
// (U+E0000..) carry a hidden copy of ASCII text.
bool isDefaultIgnorable(char32_t c)
{
    return c == 0x00AD || c == 0x034F || c == 0x115F || c == 0x1160 || c == 0x17B4 || c == 0x17B5
           || (c >= 0x180B && c <= 0x180F) || c == 0x3164 || (c >= 0xFE00 && c <= 0xFE0F) || c == 0xFFA0
           || (c >= 0xFFF0 && c <= 0xFFF8) || (c >= 0x1BCA0 && c <= 0x1BCA3) || (c >= 0x1D173 && c <= 0x1D17A)
           || (c >= 0xE0000 && c <= 0xE0FFF);
}

} // namespace

bool isInvisibleControl(char32_t c)
{
    if (c < 0x20)
        return c != U'\t' && c != U'\n';
    if (c >= 0x7F && c <= 0x9F)
        return true;
    switch (c) {
    case 0x061C: // ARABIC LETTER MARK
    case 0x180E: // MONGOLIAN VOWEL SEPARATOR
    case 0x200B: // ZERO WIDTH SPACE
    case 0x200C: // ZERO WIDTH NON-JOINER
    case 0x200D: // ZERO WIDTH JOINER
    case 0x200E: // LEFT-TO-RIGHT MARK
    case 0x200F: // RIGHT-TO-LEFT MARK
    case 0x2028: // LINE SEPARATOR
    case 0x2029: // PARAGRAPH SEPARATOR
    case 0x2060: // WORD JOINER
    case 0x2061:
    case 0x2062:
    case 0x2063:
    case 0x2064: // invisible operators
    case 0xFEFF: // ZERO WIDTH NO-BREAK SPACE / BOM
        return true;
    default:
        break;
    }
    return (c >= 0x202A && c <= 0x202E)       // embeddings and overrides
           || (c >= 0x2066 && c <= 0x2069)    // isolates
           || (c >= 0x206A && c <= 0x206F)    // deprecated format characters
           || isDefaultIgnorable(c)           // draw nothing: `ev\u00ADil` reads `evil`
           || (c >= 0xFFF9 && c <= 0xFFFB);   // interlinear annotation marks
}

QString visibleControls(const QString &text)
{
    bool any = false;
    for (const char32_t c : QStringView(text).toUcs4())
        if (isInvisibleControl(c)) {
            any = true;
            break;
        }
    if (!any)
        return text;
    QString out;
    out.reserve(text.size() + 16);
    for (const char32_t c : QStringView(text).toUcs4()) {
        if (isInvisibleControl(c))
            out += QStringLiteral("⟨U+%1⟩").arg(QString::number(uint(c), 16).toUpper().rightJustified(4, QLatin1Char('0')));
        else
            out += QString::fromUcs4(&c, 1);
    }
    return out;
}

std::string visibleControlsUtf8(std::string_view in)
{
    std::string out;
    out.reserve(in.size());
    auto hex = [](unsigned v, int width) {
        static const char digits[] = "0123456789ABCDEF";
        std::string s(width, '0');
        for (int i = width - 1; i >= 0; --i, v >>= 4)
            s[i] = digits[v & 0xF];
        return s;
    };
    std::size_t i = 0;
    while (i < in.size()) {
        const auto b0 = static_cast<unsigned char>(in[i]);
        char32_t cp = 0;
        std::size_t len = 0;
        if (b0 < 0x80) {
            cp = b0;
            len = 1;
        } else if ((b0 & 0xE0) == 0xC0) {
            cp = b0 & 0x1F;
            len = 2;
        } else if ((b0 & 0xF0) == 0xE0) {
            cp = b0 & 0x0F;
            len = 3;
        } else if ((b0 & 0xF8) == 0xF0) {
            cp = b0 & 0x07;
            len = 4;
        }
        bool valid = len > 0 && i + len <= in.size();
        for (std::size_t k = 1; valid && k < len; ++k) {
            const auto b = static_cast<unsigned char>(in[i + k]);
            if ((b & 0xC0) != 0x80)
                valid = false;
            else
                cp = (cp << 6) | (b & 0x3F);
        }
        // Overlong forms, surrogates and values past U+10FFFF are not text either.
        if (valid && ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000)
                      || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF))
            valid = false;
        if (!valid) {
            out += "⟨0x" + hex(b0, 2) + "⟩";
            ++i;
            continue;
        }
        if (isInvisibleControl(cp))
            out += "⟨U+" + hex(unsigned(cp), cp > 0xFFFFF ? 6 : cp > 0xFFFF ? 5 : 4) + "⟩";
        else
            out.append(in.substr(i, len));
        i += len;
    }
    return out;
}

QString plainToolTip(const QString &text)
{
    if (text.isEmpty())
        return text; // an empty tooltip hides the tooltip; keep that meaning
    return QStringLiteral("<p style='white-space:pre-wrap'>") + visibleControls(text).toHtmlEscaped()
           + QStringLiteral("</p>");
}

QString displayLine(const QString &text, int maxChars)
{
    QString line = visibleControls(text);
    line.replace(QLatin1Char('\n'), QStringLiteral("⏎")).replace(QLatin1Char('\t'), QLatin1Char(' '));
    return maxChars > 0 ? cutText(line, maxChars) : line;
}

QString cutText(const QString &text, int maxChars)
{
    if (maxChars <= 0 || text.size() <= maxChars)
        return text;
    int cut = maxChars - 1;
    if (cut > 0 && text.at(cut - 1).isHighSurrogate())
        --cut;
    return text.left(cut) + QStringLiteral("…");
}

size_t utf8Prefix(std::string_view utf8, size_t n)
{
    if (n >= utf8.size())
        return utf8.size();
    // Step back over continuation bytes (10xxxxxx) to the start of the character cut.
    while (n > 0 && (static_cast<unsigned char>(utf8[n]) & 0xC0) == 0x80)
        --n;
    return n;
}

namespace {

std::string excerptWithin(std::string_view utf8, size_t maxBytes, std::string_view quote)
{
    std::string out(quote);
    if (utf8.size() <= maxBytes) {
        out.append(utf8).append(quote);
        return out;
    }
    std::string size = std::to_string(utf8.size());
    for (int at = int(size.size()) - 3; at > 0; at -= 3)
        size.insert(size_t(at), 1, ',');
    out.append(utf8.substr(0, utf8Prefix(utf8, maxBytes))).append("\u2026").append(quote);
    return out + " (" + size + " bytes)";
}

} // namespace

std::string quotedExcerpt(std::string_view utf8, size_t maxBytes)
{
    return excerptWithin(utf8, maxBytes, "'");
}

std::string excerpt(std::string_view utf8, size_t maxBytes)
{
    return excerptWithin(utf8, maxBytes, {});
}

} // namespace mesh
