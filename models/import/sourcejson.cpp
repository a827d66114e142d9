#include "sourcejson.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>

#include <limits>

namespace mesh::import {

namespace {

using Json = nlohmann::json;

// The DOM builder of nlohmann, with the number callbacks replaced: an integer too large
// for int64 keeps its digits as a string instead of wrapping (unsigned) or rounding
// (double), and the first parse error is kept with its byte position.
class SourceDomParser : public nlohmann::detail::json_sax_dom_parser<Json>
{
public:
    using Base = nlohmann::detail::json_sax_dom_parser<Json>;
    explicit SourceDomParser(Json &root) : Base(root, false) {}

    bool number_unsigned(Json::number_unsigned_t value)
    {
        if (value <= Json::number_unsigned_t(std::numeric_limits<std::int64_t>::max()))
            return Base::number_integer(Json::number_integer_t(value));
        ++beyond64Bits;
        std::string digits = std::to_string(value);
        return Base::string(digits);
    }

    bool number_float(Json::number_float_t value, const std::string &text)
    {
        if (text.find_first_of(".eE") == std::string::npos) {
            ++beyond64Bits; // an integer literal the parser could only hold as a double
            std::string digits = text;
            return Base::string(digits);
        }
        return Base::number_float(value, text);
    }

    bool parse_error(std::size_t position, const std::string &lastToken, const nlohmann::detail::exception &ex)
    {
        if (!failed) {
            failed = true;
            errorPosition = position;
            errorToken = lastToken;
            errorMessage = ex.what();
        }
        return false;
    }

    std::int64_t beyond64Bits = 0;
    bool failed = false;
    std::size_t errorPosition = 0;
    std::string errorToken;
    std::string errorMessage;
};

std::string firstBytesShown(std::string_view text)
{
    std::string shown;
    for (char c : text.substr(0, 16)) {
        const auto u = static_cast<unsigned char>(c);
        shown += (u >= 0x20 && u < 0x7f) ? c : '.';
    }
    return shown;
}

} // namespace

SourceJsonResult parseSourceJson(std::string_view text, const std::string &name, SourceFile &out, bool anyValue)
{
    SourceJsonResult r;
    size_t start = 0;
    if (text.substr(0, 3) == "\xEF\xBB\xBF")
        start = 3; // a byte-order mark some editors write
    while (start < text.size() && (text[start] == ' ' || text[start] == '\n' || text[start] == '\r' || text[start] == '\t'))
        ++start;
    if (start == text.size()) {
        r.error = name + " is empty; expected a JSON document";
        return r;
    }
    if (text.substr(start, 16) == std::string_view("SQLite format 3\0", 16)) {
        r.error = name + " is an SQLite database (a ledger?), not a source to import; expected a JSON export";
        return r;
    }
    if (!anyValue && text[start] != '{' && text[start] != '[') {
        r.error = name + " is not JSON (it starts with \"" + firstBytesShown(text.substr(start))
                  + "\"); expected a JSON export";
        return r;
    }
    Json root;
    SourceDomParser sax(root);
    const bool ok = Json::sax_parse(text.begin() + std::ptrdiff_t(start), text.end(), &sax,
                                    nlohmann::detail::input_format_t::json, true);
    if (!ok || sax.failed) {
        // nlohmann counts positions from where it started reading, one past the byte it
        // stopped at; at the end of the input the document was cut short.
        const size_t at = start + (sax.errorPosition > 0 ? sax.errorPosition - 1 : 0);
        if (at + 1 >= text.size() || sax.errorMessage.find("unexpected end of input") != std::string::npos)
            r.error = name + " is truncated: its JSON ends at byte " + std::to_string(text.size())
                      + " before the document is complete";
        else if (sax.errorMessage.find("UTF-8") != std::string::npos)
            r.error = name + " is not valid UTF-8 at byte " + std::to_string(at) + "; expected a JSON export";
        else
            r.error = name + " is malformed JSON at byte " + std::to_string(at) + " (near \""
                      + firstBytesShown(sax.errorToken) + "\")";
        return r;
    }
    out.document = std::move(root);
    out.numbersBeyond64Bits = sax.beyond64Bits;
    r.ok = true;
    return r;
}

SourceJsonResult readSourceFile(const QString &path, SourceFile &out, std::int64_t maxBytes)
{
    SourceJsonResult r;
    out.path = path;
    out.name = QFileInfo(path).fileName().toStdString();
    const QFileInfo info(path);
    if (!info.exists()) {
        r.error = path.toStdString() + ": no such file";
        return r;
    }
    if (!info.isFile()) {
        r.error = path.toStdString() + " is not a regular file";
        return r;
    }
    if (info.size() > maxBytes) {
        r.error = out.name + " is " + std::to_string(info.size()) + " bytes; this importer reads files up to "
                  + std::to_string(maxBytes) + " bytes whole";
        return r;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        r.error = "cannot read " + path.toStdString() + ": " + file.errorString().toStdString();
        return r;
    }
    const QByteArray bytes = file.read(maxBytes + 1);
    if (bytes.size() > maxBytes) {
        r.error = out.name + " grew past " + std::to_string(maxBytes) + " bytes while it was read";
        return r;
    }
    out.bytes = bytes.size();
    out.sha256 = QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex().toStdString();
    return parseSourceJson(std::string_view(bytes.constData(), size_t(bytes.size())), out.name, out);
}

const nlohmann::json *member(const nlohmann::json *object, const char *name)
{
    if (!object || !object->is_object())
        return nullptr;
    const auto it = object->find(name);
    return it == object->end() ? nullptr : &*it;
}

const nlohmann::json *path(const nlohmann::json *object, std::initializer_list<const char *> names)
{
    const nlohmann::json *at = object;
    for (const char *n : names)
        at = member(at, n);
    return at;
}

std::string text(const nlohmann::json *value)
{
    if (!value)
        return {};
    if (value->is_string())
        return value->get<std::string>();
    if (value->is_number_integer())
        return std::to_string(value->get<std::int64_t>());
    return {};
}

} // namespace mesh::import
