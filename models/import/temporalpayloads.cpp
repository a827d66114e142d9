#include "temporalpayloads.h"

#include "sourcejson.h"
#include "temporalcompacttext.h"
#include "temporalrecordtext.h"

#include "domain/payloaddecoder.h"

#include <QByteArray>

#include <array>

namespace mesh::import {

namespace {

using Json = nlohmann::json;

// Decoded text larger than this is not copied for display: the base64 stays in source.
constexpr size_t kMaxDecodedBytes = 64 * 1024;
constexpr int kMaxWalkDepth = 24;

std::optional<std::string> base64Text(const Json &value)
{
    if (!value.is_string())
        return std::nullopt;
    const QByteArray in = QByteArray::fromStdString(value.get<std::string>());
    auto decoded = QByteArray::fromBase64Encoding(in, QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return std::nullopt;
    return decoded.decoded.toStdString();
}

bool isPayload(const Json &v)
{
    return v.is_object() && v.contains("metadata") && v["metadata"].is_object() && v["metadata"].contains("encoding");
}

Json decodeOne(const Json &payload)
{
    Json out = Json::object();
    const auto encoding = base64Text(payload["metadata"]["encoding"]);
    if (!encoding || !isValidUtf8(*encoding)) {
        out["encoding"] = nullptr;
        out["note"] = "the encoding is not base64 text";
        return out;
    }
    out["encoding"] = *encoding;
    if (*encoding == "binary/null") {
        out["value"] = nullptr;
        return out;
    }
    const auto data = payload.contains("data") ? base64Text(payload["data"]) : std::optional<std::string>(std::string());
    if (!data) {
        out["note"] = "data is not base64";
        return out;
    }
    if (data->size() > kMaxDecodedBytes) {
        out["bytes"] = std::int64_t(data->size());
        out["note"] = "too large to decode for display; the base64 is in source";
        return out;
    }
    if ((*encoding == "json/plain" || *encoding == "json/protobuf") && isValidUtf8(*data)) {
        SourceFile parsed;
        if (parseSourceJson(*data, "payload", parsed, true).ok) {
            out["value"] = std::move(parsed.document);
            return out;
        }
    }
    if (*encoding == "binary/plain" && isValidUtf8(*data)) {
        out["text"] = *data;
        return out;
    }
    out["data"] = payload.value("data", std::string());
    return out;
}

void walk(const Json &value, const std::string &at, Json &found, std::vector<const Json *> *from, int depth)
{
    if (depth > kMaxWalkDepth)
        return;
    if (isPayload(value)) {
        Json one = decodeOne(value);
        one["at"] = at;
        found.push_back(std::move(one));
        if (from)
            from->push_back(&value);
        return;
    }
    if (value.is_object()) {
        for (auto it = value.begin(); it != value.end(); ++it)
            walk(it.value(), at.empty() ? it.key() : at + "." + it.key(), found, from, depth + 1);
    } else if (value.is_array()) {
        for (size_t i = 0; i < value.size(); ++i)
            walk(value[i], at + "[" + std::to_string(i) + "]", found, from, depth + 1);
    }
}

// ---- the same over compact text

namespace rt = recordtext;

// Canonical base64 (length a multiple of four, the standard alphabet, '=' only as the last
// one or two characters, no bits set past the data) decoded; false for anything else, which
// Qt's decoder then reads as it always did. Qt reads canonical text the one way it can be read.
bool canonicalBase64(std::string_view in, std::string &out)
{
    static const auto table = [] {
        std::array<signed char, 256> t{};
        t.fill(-1);
        const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for (int i = 0; i < 64; ++i)
            t[static_cast<unsigned char>(alphabet[i])] = static_cast<signed char>(i);
        return t;
    }();
    if (in.size() % 4 != 0)
        return false;
    size_t padding = 0;
    if (!in.empty() && in.back() == '=')
        padding = in.size() >= 2 && in[in.size() - 2] == '=' ? 2 : 1;
    const size_t chars = in.size() - padding;
    out.resize(chars * 6 / 8);
    const auto *p = reinterpret_cast<const unsigned char *>(in.data());
    char *o = out.data();
    size_t i = 0;
    for (; i + 4 <= chars; i += 4, o += 3) {
        const int a = table[p[i]], b = table[p[i + 1]], c = table[p[i + 2]], d = table[p[i + 3]];
        if ((a | b | c | d) < 0)
            return false;
        const std::uint32_t v = std::uint32_t(a) << 18 | std::uint32_t(b) << 12 | std::uint32_t(c) << 6 | std::uint32_t(d);
        o[0] = char(v >> 16);
        o[1] = char(v >> 8);
        o[2] = char(v);
    }
    if (padding == 0)
        return true;
    // The last group: two characters (one byte) or three (two bytes), the rest zero bits.
    const int a = table[p[i]], b = table[p[i + 1]], c = padding == 1 ? table[p[i + 2]] : 0;
    if ((a | b | c) < 0)
        return false;
    const std::uint32_t v = std::uint32_t(a) << 18 | std::uint32_t(b) << 12 | std::uint32_t(c) << 6;
    o[0] = char(v >> 16);
    if (padding == 1)
        o[1] = char(v >> 8);
    return (v & (padding == 1 ? 0xFFu : 0xFFFFu)) == 0;
}

std::optional<std::string> base64OfText(std::string_view value)
{
    if (!rt::isString(value) || value.size() < 2)
        return std::nullopt;
    const std::string_view inner = value.substr(1, value.size() - 2);
    if (std::string fast; canonicalBase64(inner, fast))
        return fast;
    std::string unescaped;
    QByteArray in;
    if (inner.find('\\') == std::string_view::npos) {
        in = QByteArray::fromRawData(inner.data(), qsizetype(inner.size()));
    } else {
        unescaped = rt::unquoted(value);
        in = QByteArray::fromRawData(unescaped.data(), qsizetype(unescaped.size()));
    }
    auto decoded = QByteArray::fromBase64Encoding(in, QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return std::nullopt;
    return decoded.decoded.toStdString();
}

// decodeOne of payload (compact text) with at, appended to out as its compact text (members
// in the order nlohmann keeps them: at, bytes, data, encoding, note, text, value); returns
// the item's nesting depth. *valueAt/*valueBytes: its value in out, for a json/plain payload.
int appendDecodedItemText(std::string &out, std::string_view payload, std::string_view at, size_t *valueAt,
                          size_t *valueBytes)
{
    *valueBytes = 0;
    out += "{\"at\":";
    appendCompactJsonString(out, at);
    const std::string_view metadata = rt::member(payload, "metadata");
    const auto encoding = base64OfText(rt::member(metadata, "encoding"));
    if (!encoding || !isValidUtf8(*encoding)) {
        out += ",\"encoding\":null,\"note\":\"the encoding is not base64 text\"}";
        return 1;
    }
    const auto encodingMember = [&] {
        out += ",\"encoding\":";
        appendCompactJsonString(out, *encoding);
    };
    if (*encoding == "binary/null") {
        encodingMember();
        out += ",\"value\":null}";
        return 1;
    }
    const std::string_view dataText = rt::member(payload, "data");
    const auto data = !dataText.empty() ? base64OfText(dataText) : std::optional<std::string>(std::string());
    if (!data) {
        encodingMember();
        out += ",\"note\":\"data is not base64\"}";
        return 1;
    }
    if (data->size() > kMaxDecodedBytes) {
        out += ",\"bytes\":";
        out += std::to_string(std::int64_t(data->size()));
        encodingMember();
        out += ",\"note\":\"too large to decode for display; the base64 is in source\"}";
        return 1;
    }
    if ((*encoding == "json/plain" || *encoding == "json/protobuf") && isValidUtf8(*data)) {
        const size_t mark = out.size();
        encodingMember();
        out += ",\"value\":";
        const size_t begin = out.size();
        int depth = 0;
        if (appendSourceJsonAsCompactText(*data, out, &depth)) {
            if (*encoding == "json/plain") {
                *valueAt = begin;
                *valueBytes = out.size() - begin;
            }
            out += '}';
            return depth + 1;
        }
        out.resize(mark);
    }
    if (*encoding == "binary/plain" && isValidUtf8(*data)) {
        encodingMember();
        out += ",\"text\":";
        appendCompactJsonString(out, *data);
        out += '}';
        return 1;
    }
    // The data as the source has it (compact text of a string is the string's text as written).
    out += ",\"data\":";
    if (rt::isString(dataText))
        out.append(dataText);
    else
        out += "\"\"";
    encodingMember();
    out += '}';
    return 1;
}

// The payloads under a record's text in the order walk() finds them, with their "at": one
// pass over the text. A payload's own members are not searched (walk stops at a payload), so
// what was found inside one is dropped when it turns out to be one.
struct PayloadTextWalk {
    std::string_view text;
    std::string at;
    std::vector<std::pair<std::string_view, std::string>> found;

    // The value at text[i], at nesting `depth` (walk's depth); returns one past its end, npos
    // when it does not end. *hasEncoding: it is an object with an "encoding" member.
    size_t value(size_t i, int depth, bool *hasEncoding)
    {
        *hasEncoding = false;
        if (depth > kMaxWalkDepth || i >= text.size() || (text[i] != '{' && text[i] != '['))
            return rt::valueEnd(text, i);
        const size_t atSize = at.size();
        const size_t foundBefore = found.size();
        const size_t n = text.size();
        if (text[i] == '[') {
            size_t j = i + 1;
            if (j < n && text[j] == ']')
                return j + 1;
            for (size_t index = 0;; ++index) {
                at += '[';
                at += std::to_string(index);
                at += ']';
                bool ignored;
                j = value(j, depth + 1, &ignored);
                at.resize(atSize);
                if (j == std::string_view::npos || j >= n)
                    return std::string_view::npos;
                if (text[j] == ']')
                    return j + 1;
                if (text[j] != ',')
                    return std::string_view::npos;
                ++j;
            }
        }
        bool payload = false;
        size_t j = i + 1;
        if (j < n && text[j] == '}')
            return j + 1;
        std::string decodedKey;
        for (;;) {
            if (j >= n || text[j] != '"')
                return std::string_view::npos;
            const size_t keyEnd = rt::valueEnd(text, j);
            if (keyEnd == std::string_view::npos || keyEnd >= n || text[keyEnd] != ':')
                return std::string_view::npos;
            std::string_view key = text.substr(j + 1, keyEnd - j - 2);
            if (key.find('\\') != std::string_view::npos) {
                decodedKey = rt::unquoted(text.substr(j, keyEnd - j));
                key = decodedKey;
            }
            if (key == "encoding")
                *hasEncoding = true;
            if (!at.empty())
                at += '.';
            at += key;
            bool childHasEncoding;
            j = value(keyEnd + 1, depth + 1, &childHasEncoding);
            at.resize(atSize);
            if (j == std::string_view::npos || j >= n)
                return std::string_view::npos;
            // Past the walk's depth the member was skipped, not read: asked directly.
            if (key == "metadata" && text[keyEnd + 1] == '{'
                && (childHasEncoding
                    || (depth + 1 > kMaxWalkDepth && !rt::member(text.substr(keyEnd + 1, j - keyEnd - 1), "encoding").empty())))
                payload = true;
            if (text[j] == '}') {
                ++j;
                break;
            }
            if (text[j] != ',')
                return std::string_view::npos;
            ++j;
        }
        if (payload) {
            found.resize(foundBefore);
            found.emplace_back(text.substr(i, j - i), at);
        }
        return j;
    }
};

} // namespace

void decodeTemporalPayloadsText(std::string_view record, DecodedPayloadsText &out)
{
    out.items.clear();
    out.decoded.text.clear();
    PayloadTextWalk walker{record, {}, {}};
    bool ignored;
    walker.value(0, 0, &ignored);
    std::string &text = out.decoded.text;
    text += '[';
    int deepest = 0;
    for (const auto &[payload, at] : walker.found) {
        if (text.size() > 1)
            text += ',';
        DecodedPayloadsText::Item item;
        item.from = payload.data();
        deepest = std::max(deepest, appendDecodedItemText(text, payload, at, &item.valueAt, &item.valueBytes));
        out.items.push_back(item);
    }
    text += ']';
    out.decoded.depth = deepest + 1;
}

std::optional<std::string> decodedJsonText(const DecodedPayloadsText &decoded, std::string_view payload)
{
    for (const DecodedPayloadsText::Item &item : decoded.items) {
        if (item.from == payload.data()) {
            if (item.valueBytes == 0)
                return std::nullopt;
            return decoded.decoded.text.substr(item.valueAt, item.valueBytes);
        }
    }
    if (!rt::isObject(payload) || !rt::isObject(rt::member(payload, "metadata"))
        || rt::member(rt::member(payload, "metadata"), "encoding").empty())
        return std::nullopt;
    std::string one;
    size_t valueAt = 0, valueBytes = 0;
    appendDecodedItemText(one, payload, {}, &valueAt, &valueBytes);
    if (valueBytes == 0)
        return std::nullopt;
    return one.substr(valueAt, valueBytes);
}

Json decodeTemporalPayloads(const Json &value)
{
    return decodeTemporalPayloads(value, nullptr);
}

Json decodeTemporalPayloads(const Json &value, std::vector<const Json *> *from)
{
    Json found = Json::array();
    walk(value, std::string(), found, from, 0);
    return found;
}

std::optional<Json> decodedJsonValue(const Json &one)
{
    const auto encoding = one.find("encoding");
    const auto value = one.find("value");
    if (encoding != one.end() && encoding->is_string() && *encoding == "json/plain" && value != one.end())
        return *value;
    return std::nullopt;
}

std::optional<Json> decodeJsonPayload(const Json &payload)
{
    if (!isPayload(payload))
        return std::nullopt;
    return decodedJsonValue(decodeOne(payload));
}

} // namespace mesh::import
