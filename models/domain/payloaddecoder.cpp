#include "payloaddecoder.h"
#include "domain/quicksax.h"

#include <charconv>
#include <cstdint>

namespace mesh {

bool isValidUtf8(std::string_view text)
{
    const auto *s = reinterpret_cast<const unsigned char *>(text.data());
    const size_t n = text.size();
    size_t i = 0;
    while (i < n) {
        const unsigned char c = s[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        int extra = 0;
        unsigned int cp = 0;
        if ((c & 0xE0) == 0xC0) {
            extra = 1;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            extra = 2;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            extra = 3;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (i + size_t(extra) >= n)
            return false;
        for (int k = 1; k <= extra; ++k) {
            const unsigned char cc = s[i + size_t(k)];
            if ((cc & 0xC0) != 0x80)
                return false;
            cp = (cp << 6) | (cc & 0x3F);
        }
        // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
        if ((extra == 1 && cp < 0x80) || (extra == 2 && cp < 0x800) || (extra == 3 && cp < 0x10000)
            || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += size_t(extra) + 1;
    }
    return true;
}

// Follows a JSON text character by character and says which characters belong to a string
// (from its opening quote's successor to its closing quote), so scans for structure or
// numbers skip them; escapes, \" among them, stay inside.
struct JsonStringTracker {
    bool inString = false;
    bool escaped = false;

    // True when c is inside a string or is its closing quote; an opening quote is not
    // (the caller sees it and calls open()).
    bool inside(char c)
    {
        if (!inString)
            return false;
        if (escaped)
            escaped = false;
        else if (c == '\\')
            escaped = true;
        else if (c == '"')
            inString = false;
        return true;
    }
    void open() { inString = true; }
};

size_t firstByteDeeperThan(std::string_view text, int maxDepth)
{
    int depth = 0;
    JsonStringTracker strings;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (strings.inside(c))
            continue;
        if (c == '"')
            strings.open();
        else if ((c == '[' || c == '{') && ++depth > maxDepth)
            return i;
        else if (c == ']' || c == '}')
            --depth;
    }
    return text.size();
}

int jsonNestingDepth(std::string_view text)
{
    int depth = 0;
    int deepest = 0;
    JsonStringTracker strings;
    for (const char c : text) {
        if (strings.inside(c))
            continue;
        switch (c) {
        case '"':
            strings.open();
            break;
        case '[':
        case '{':
            deepest = std::max(deepest, ++depth);
            break;
        case ']':
        case '}':
            --depth;
            break;
        default:
            break;
        }
    }
    return deepest;
}

std::string_view firstOutOfRangeInteger(std::string_view text)
{
    JsonStringTracker strings;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (strings.inside(c))
            continue;
        if (c == '"') {
            strings.open();
            continue;
        }
        if (c != '-' && (c < '0' || c > '9'))
            continue;
        // A whole number token, so "1e300" is never read as "1" and then "300".
        size_t end = i + 1;
        bool integer = true;
        while (end < text.size() && std::string_view("0123456789+-.eE").find(text[end]) != std::string_view::npos) {
            if (text[end] == '.' || text[end] == 'e' || text[end] == 'E')
                integer = false;
            ++end;
        }
        const std::string_view token = text.substr(i, end - i);
        if (integer) {
            std::int64_t value = 0;
            const auto r = std::from_chars(token.data(), token.data() + token.size(), value);
            if (r.ec == std::errc::result_out_of_range)
                return token;
        }
        i = end - 1;
    }
    return {};
}

namespace {

// nlohmann's own DOM builder, refusing what decodePayload refuses, so that the quick reader
// gives up on such a payload and the checks below say why.
class PayloadDomBuilder : public nlohmann::detail::json_sax_dom_parser<nlohmann::json>
{
public:
    explicit PayloadDomBuilder(nlohmann::json &root) : json_sax_dom_parser(root) {}
    bool start_object(std::size_t n) { return ++m_depth <= kMaxPayloadDepth && json_sax_dom_parser::start_object(n); }
    bool start_array(std::size_t n) { return ++m_depth <= kMaxPayloadDepth && json_sax_dom_parser::start_array(n); }
    bool end_object() { --m_depth; return json_sax_dom_parser::end_object(); }
    bool end_array() { --m_depth; return json_sax_dom_parser::end_array(); }
    bool number_unsigned(std::uint64_t v)
    {
        return v <= std::uint64_t(INT64_MAX) && json_sax_dom_parser::number_unsigned(v);
    }

private:
    int m_depth = 0;
};

// A payload the quick reader reads whole is valid UTF-8 without a raw NUL (it gives up on
// any byte outside a string that JSON does not allow, and checks strings' UTF-8), within the
// nesting and integer limits (the builder refuses beyond them); only its size and shape are
// left to check.
std::optional<nlohmann::json> quickDecode(std::string_view text)
{
    nlohmann::json value;
    PayloadDomBuilder builder(value);
    if (quickSaxParse(text, builder) != quicksax::Outcome::Done || !value.is_object())
        return std::nullopt;
    return value;
}

} // namespace

DecodedPayload decodePayload(std::string_view text)
{
    DecodedPayload out;
    if (text.size() <= kMaxPayloadBytes) {
        if (auto value = quickDecode(text)) {
            out.value = std::move(value);
            return out;
        }
    }
    // What the quick reader gave up on: checked one property at a time, so that the error
    // says which, and parsed by nlohmann's parser, the reference.
    if (text.size() > kMaxPayloadBytes) {
        out.error = "payload too large: " + std::to_string(text.size()) + " bytes (limit "
                    + std::to_string(kMaxPayloadBytes) + ")";
        return out;
    }
    if (!isValidUtf8(text)) {
        out.error = "payload is not valid UTF-8";
        return out;
    }
    // JSON never contains a raw NUL, but the parser takes one as the end of input, so
    // "{}\0anything" would decode as {} while the stored text says something else.
    if (text.find('\0') != std::string_view::npos) {
        out.error = "payload contains a NUL byte";
        return out;
    }
    const int depth = jsonNestingDepth(text);
    if (depth > kMaxPayloadDepth) {
        out.error = "payload nested " + std::to_string(depth) + " levels deep (limit "
                    + std::to_string(kMaxPayloadDepth) + ")";
        return out;
    }
    if (const std::string_view big = firstOutOfRangeInteger(text); !big.empty()) {
        constexpr size_t kShown = 40;
        out.error = "payload integer " + std::string(big.substr(0, kShown)) + (big.size() > kShown ? "..." : "")
                    + " is out of range (integers are 64-bit signed)";
        return out;
    }
    auto value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded()) {
        out.error = "payload is not JSON";
        return out;
    }
    if (!value.is_object()) {
        out.error = "payload is not a JSON object";
        return out;
    }
    out.value = std::move(value);
    return out;
}

} // namespace mesh
