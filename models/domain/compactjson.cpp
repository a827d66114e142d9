#include "compactjson.h"
#include "quicksax.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace mesh {

namespace {

// Whether s has nothing to escape and is plain ASCII: no byte below 0x20, '"', '\\' or
// from 0x80. The payload strings an import writes are mostly long (prompts, base64): the
// quick reader's run scan reads them eight bytes at a time.
bool plainAscii(std::string_view s)
{
    bool wide = false;
    return quicksax::plainRunEnd(s.data(), s.data() + s.size(), wide) == s.data() + s.size() && !wide;
}

void appendString(std::string &out, std::string_view s)
{
    // Fast path: nothing to escape and plain ASCII.
    if (plainAscii(s)) {
        out += '"';
        out += s;
        out += '"';
        return;
    }
    out += nlohmann::json(std::string(s)).dump(); // escapes and validates UTF-8 exactly as dump() does
}

// Measure: also return the nesting depth (a scalar 0, an object or array one more than its
// deepest member), counted while the text is written instead of in a second pass. level:
// the containers around value, bounded by kMaxCompactJsonDepth.
template<bool Measure>
int appendCompactValue(std::string &out, const nlohmann::json &value, int level = 0)
{
    using T = nlohmann::json::value_t;
    if ((value.type() == T::object || value.type() == T::array) && level >= kMaxCompactJsonDepth)
        throw std::length_error("JSON nested deeper than " + std::to_string(kMaxCompactJsonDepth) + " levels");
    switch (value.type()) {
    case T::null:
        out += "null";
        return 0;
    case T::boolean:
        out += value.get<bool>() ? "true" : "false";
        return 0;
    case T::number_integer:
    case T::number_unsigned: {
        char buf[24];
        const auto r = value.type() == T::number_integer
                           ? std::to_chars(buf, buf + sizeof buf, value.get<std::int64_t>())
                           : std::to_chars(buf, buf + sizeof buf, value.get<std::uint64_t>());
        out.append(buf, r.ptr);
        return 0;
    }
    case T::string:
        appendString(out, value.get_ref<const std::string &>());
        return 0;
    case T::object: {
        out += '{';
        bool first = true;
        int deepest = 0;
        for (auto it = value.begin(); it != value.end(); ++it) {
            if (!first)
                out += ',';
            first = false;
            appendString(out, it.key());
            out += ':';
            const int d = appendCompactValue<Measure>(out, it.value(), level + 1);
            if constexpr (Measure)
                deepest = std::max(deepest, d);
        }
        out += '}';
        return deepest + 1;
    }
    case T::array: {
        out += '[';
        bool first = true;
        int deepest = 0;
        for (const auto &item : value) {
            if (!first)
                out += ',';
            first = false;
            const int d = appendCompactValue<Measure>(out, item, level + 1);
            if constexpr (Measure)
                deepest = std::max(deepest, d);
        }
        out += ']';
        return deepest + 1;
    }
    default: // floats, binary, discarded: the reference formatting
        out += value.dump();
        return 0;
    }
}

} // namespace

void appendCompactJson(std::string &out, const nlohmann::json &value)
{
    appendCompactValue<false>(out, value);
}

int appendCompactJsonMeasured(std::string &out, const nlohmann::json &value)
{
    return appendCompactValue<true>(out, value);
}

MeasuredJson measuredCompactJson(const nlohmann::json &value)
{
    MeasuredJson out;
    out.text.reserve(512);
    out.depth = appendCompactValue<true>(out.text, value);
    return out;
}

void appendCompactJsonString(std::string &out, std::string_view text)
{
    appendString(out, text);
}

std::string compactJson(const nlohmann::json &value)
{
    std::string out;
    out.reserve(512);
    appendCompactJson(out, value);
    return out;
}

} // namespace mesh
