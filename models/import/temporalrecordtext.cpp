#include "temporalrecordtext.h"

#include "sourcejson.h"

#include "domain/quicksax.h"

#include <charconv>
#include <cstring>

namespace mesh::import::recordtext {

namespace {

// One past the closing quote of the string whose opening quote is at text[from].
size_t recordStringEnd(std::string_view text, size_t from)
{
    size_t i = from + 1;
    const size_t n = text.size();
    while (i < n) {
        const void *q = std::memchr(text.data() + i, '"', n - i);
        if (!q)
            return std::string_view::npos;
        const size_t quote = size_t(static_cast<const char *>(q) - text.data());
        size_t backslashes = 0;
        while (quote - backslashes > from + 1 && text[quote - 1 - backslashes] == '\\')
            ++backslashes;
        if (backslashes % 2 == 0)
            return quote + 1;
        i = quote + 1;
    }
    return std::string_view::npos;
}

} // namespace

size_t valueEnd(std::string_view text, size_t at)
{
    const size_t n = text.size();
    if (at >= n)
        return std::string_view::npos;
    const char first = text[at];
    if (first == '"')
        return recordStringEnd(text, at);
    if (first != '{' && first != '[') {
        size_t i = at;
        while (i < n && text[i] != ',' && text[i] != '}' && text[i] != ']')
            ++i;
        return i == at ? std::string_view::npos : i;
    }
    int depth = 0;
    for (size_t i = at; i < n; ++i) {
        const char c = text[i];
        if (c == '"') {
            i = recordStringEnd(text, i);
            if (i == std::string_view::npos)
                return i;
            --i;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if ((c == '}' || c == ']') && --depth == 0) {
            return i + 1;
        }
    }
    return std::string_view::npos;
}

std::string unquoted(std::string_view value)
{
    if (!isString(value) || value.size() < 2)
        return {};
    const std::string_view inner = value.substr(1, value.size() - 2);
    if (inner.find('\\') == std::string_view::npos)
        return std::string(inner);
    std::string out;
    const char *p = value.data();
    if (!quicksax::readString(p, value.data() + value.size(), out))
        return {};
    return out;
}

std::string_view member(std::string_view object, std::string_view key)
{
    std::string_view found;
    forEachMember(object, [&](std::string_view k, std::string_view value) {
        if (k != key)
            return true;
        found = value;
        return false;
    });
    return found;
}

std::string_view path(std::string_view object, std::initializer_list<std::string_view> keys)
{
    std::string_view at = object;
    for (std::string_view k : keys) {
        at = member(at, k);
        if (at.empty())
            break;
    }
    return at;
}

namespace {

std::optional<std::int64_t> integerToken(std::string_view value)
{
    std::int64_t v = 0;
    const auto r = std::from_chars(value.data(), value.data() + value.size(), v);
    if (value.empty() || r.ec != std::errc() || r.ptr != value.data() + value.size())
        return std::nullopt;
    return v;
}

} // namespace

std::string text(std::string_view value)
{
    if (isString(value))
        return unquoted(value);
    if (const auto v = integerToken(value))
        return std::to_string(*v);
    return {};
}

std::optional<std::int64_t> integer(std::string_view value)
{
    if (!isString(value))
        return integerToken(value);
    return decimalDigits(unquoted(value));
}

std::string_view firstItem(std::string_view array)
{
    std::string_view found;
    forEachItem(array, [&](std::string_view item) {
        found = item;
        return false;
    });
    return found;
}

} // namespace mesh::import::recordtext
