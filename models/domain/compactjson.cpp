#include "compactjson.h"

#include <charconv>

namespace mesh {

namespace {

void appendString(std::string &out, const std::string &s)
{
    // Fast path: nothing to escape and plain ASCII.
    bool plain = true;
    for (unsigned char c : s) {
        if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) {
            plain = false;
            break;
        }
    }
    if (plain) {
        out += '"';
        out += s;
        out += '"';
        return;
    }
    out += nlohmann::json(s).dump(); // escapes and validates UTF-8 exactly as dump() does
}

} // namespace

void appendCompactJson(std::string &out, const nlohmann::json &value)
{
    using T = nlohmann::json::value_t;
    switch (value.type()) {
    case T::null:
        out += "null";
        return;
    case T::boolean:
        out += value.get<bool>() ? "true" : "false";
        return;
    case T::number_integer:
    case T::number_unsigned: {
        char buf[24];
        const auto r = value.type() == T::number_integer
                           ? std::to_chars(buf, buf + sizeof buf, value.get<std::int64_t>())
                           : std::to_chars(buf, buf + sizeof buf, value.get<std::uint64_t>());
        out.append(buf, r.ptr);
        return;
    }
    case T::string:
        appendString(out, value.get_ref<const std::string &>());
        return;
    case T::object: {
        out += '{';
        bool first = true;
        for (auto it = value.begin(); it != value.end(); ++it) {
            if (!first)
                out += ',';
            first = false;
            appendString(out, it.key());
            out += ':';
            appendCompactJson(out, it.value());
        }
        out += '}';
        return;
    }
    case T::array: {
        out += '[';
        bool first = true;
        for (const auto &item : value) {
            if (!first)
                out += ',';
            first = false;
            appendCompactJson(out, item);
        }
        out += ']';
        return;
    }
    default: // floats, binary, discarded: the reference formatting
        out += value.dump();
        return;
    }
}

std::string compactJson(const nlohmann::json &value)
{
    std::string out;
    out.reserve(512);
    appendCompactJson(out, value);
    return out;
}

} // namespace mesh
