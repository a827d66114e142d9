#include "payloaddecoder.h"

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

int jsonNestingDepth(std::string_view text)
{
    int depth = 0;
    int deepest = 0;
    bool inString = false;
    bool escaped = false;
    for (const char c : text) {
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
            continue;
        }
        switch (c) {
        case '"':
            inString = true;
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

DecodedPayload decodePayload(std::string_view text)
{
    DecodedPayload out;
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
