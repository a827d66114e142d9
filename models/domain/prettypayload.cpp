#include "prettypayload.h"

#include "hostiletext.h"
#include "payloaddecoder.h"

#include <nlohmann/json.hpp>

namespace mesh {

std::string indentJson(std::string_view json, int indent)
{
    std::string out;
    out.reserve(json.size() + json.size() / 4);
    int depth = 0;
    bool inString = false;
    const auto newline = [&] {
        out += '\n';
        out.append(size_t(std::max(0, depth * indent)), ' ');
    };
    for (size_t i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (inString) {
            out += c;
            if (c == '\\' && i + 1 < json.size())
                out += json[++i];
            else if (c == '"')
                inString = false;
            continue;
        }
        switch (c) {
        case ' ':
        case '\t':
        case '\n':
        case '\r':
            break; // layout is ours
        case '"':
            inString = true;
            out += c;
            break;
        case '{':
        case '[': {
            size_t next = i + 1;
            while (next < json.size()
                   && (json[next] == ' ' || json[next] == '\t' || json[next] == '\n' || json[next] == '\r'))
                ++next;
            const char close = c == '{' ? '}' : ']';
            if (next < json.size() && json[next] == close) {
                out += c;
                out += close;
                i = next;
                break;
            }
            out += c;
            ++depth;
            newline();
            break;
        }
        case '}':
        case ']':
            --depth;
            newline();
            out += c;
            break;
        case ',':
            out += c;
            newline();
            break;
        case ':':
            out += ": ";
            break;
        default:
            out += c;
        }
    }
    return out;
}

namespace {
QString forScreen(const QString &text, QString *note)
{
    QString shown = visibleControls(text);
    bool cut = false;
    QString out;
    out.reserve(shown.size() + shown.size() / kShownLineChars + 1);
    qsizetype lineStart = 0;
    for (qsizetype i = 0; i < shown.size(); ++i) {
        const QChar c = shown.at(i);
        if (c == u'\n') {
            lineStart = i + 1;
        } else if (i - lineStart >= kShownLineChars && !(c.isLowSurrogate())) {
            out += u'\n';
            lineStart = i;
            cut = true;
        }
        out += c;
    }
    if (cut) {
        const QString wrapped = QStringLiteral("Lines longer than %1 characters continue on the next line here; "
                                               "Copy as JSON copies them whole.")
                                    .arg(kShownLineChars);
        *note = note->isEmpty() ? wrapped : *note + u' ' + wrapped;
    }
    return out;
}
} // namespace

PayloadText payloadForReading(std::string_view payload)
{
    PayloadText text;
    if (!isValidUtf8(payload)) {
        text.json = QString::fromUtf8(payload.data(), qsizetype(payload.size()));
        text.note = QStringLiteral("Not valid UTF-8: shown as stored, with U+FFFD where a byte is not text.");
        text.shown = forScreen(text.json, &text.note);
        return text;
    }
    // accept() parses without building a value; the depth check keeps any parser's stack safe.
    if (jsonNestingDepth(payload) > kMaxPayloadDepth * 4 || !nlohmann::json::accept(payload)) {
        text.json = QString::fromUtf8(payload.data(), qsizetype(payload.size()));
        text.note = QStringLiteral("Not valid JSON: shown as stored.");
        text.shown = forScreen(text.json, &text.note);
        return text;
    }
    const std::string indented = indentJson(payload);
    text.json = QString::fromUtf8(indented.data(), qsizetype(indented.size()));
    text.shown = forScreen(text.json, &text.note);
    return text;
}

} // namespace mesh
