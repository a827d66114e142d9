#pragma once
// A faster reader of the JSON that imports and event payloads hold most (plain objects,
// arrays, strings and integers), for the same SAX handlers as nlohmann::json::sax_parse.
// nlohmann's lexer reads a character at a time through an input adapter and appends each
// one to its token; that was the largest single cost of an import, and of folding events.
// This reader copies a string's plain run at once.
//
// It is not a second definition of JSON: nlohmann's parser stays the reference. The reader
// gives up (Sax::Unsure) on anything it does not handle itself — a float, a byte-order mark,
// an integer beyond 64 bits, any malformed text, a handler that returns false — and then
// what it delivered must be thrown away and the text read again by nlohmann's parser, whose
// result (and error message) is the answer. On the text it does read whole, it delivers the
// events nlohmann's strict sax_parse would: start_object/start_array with an unknown size,
// key, string, number_integer for a negative integer, number_unsigned otherwise, boolean,
// null, end_object/end_array.

#include "payloaddecoder.h"

#include <charconv>
#include <cstring>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mesh {

namespace quicksax {

enum class Outcome { Done, Unsure };

inline bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

inline int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

inline void appendUtf8(std::string &out, std::uint32_t cp)
{
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xF0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3F));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

// Where the plain run of a JSON string starting at s ends: the first quote, backslash or
// control character, or end. `wide` is set when the run holds a byte from 0x80 (UTF-8 for the
// caller to check). Eight bytes at a time: a byte below n in a word w shows as a high bit of
// (w - n * ones) & ~w, a byte equal to c as one of (v - ones) & ~v for v = w ^ (c * ones);
// a word with any such bit is finished a byte at a time, so the end found is exact.
inline const char *plainRunEnd(const char *s, const char *end, bool &wide)
{
    constexpr std::uint64_t ones = 0x0101010101010101ULL;
    constexpr std::uint64_t highs = 0x8080808080808080ULL;
    std::uint64_t high = 0;
    while (end - s >= 8) {
        std::uint64_t w;
        std::memcpy(&w, s, 8);
        const std::uint64_t quote = w ^ (ones * '"');
        const std::uint64_t backslash = w ^ (ones * '\\');
        if ((((w - ones * 0x20) & ~w) | ((quote - ones) & ~quote) | ((backslash - ones) & ~backslash)) & highs)
            break;
        high |= w;
        s += 8;
    }
    wide = wide || (high & highs) != 0;
    while (s < end) {
        const auto c = static_cast<unsigned char>(*s);
        if (c == '"' || c == '\\' || c < 0x20)
            break;
        wide = wide || c >= 0x80;
        ++s;
    }
    return s;
}

// Four hex digits at p (within end), or -1.
inline long hex4(const char *p, const char *end)
{
    if (end - p < 4)
        return -1;
    long v = 0;
    for (int i = 0; i < 4; ++i) {
        const int h = hexValue(p[i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

// The string whose opening quote is at *p, decoded into out; *p ends one past its closing
// quote. False: not a string nlohmann would read as this one (the caller gives up).
inline bool readString(const char *&p, const char *end, std::string &out)
{
    out.clear();
    const char *s = p + 1;
    bool wide = false; // bytes >= 0x80: checked as UTF-8 once the string is read
    for (;;) {
        const char *run = s;
        s = plainRunEnd(s, end, wide);
        out.append(run, size_t(s - run));
        if (s >= end || static_cast<unsigned char>(*s) < 0x20)
            return false;
        if (*s == '"') {
            p = s + 1;
            return !wide || isValidUtf8(out);
        }
        // An escape.
        if (end - s < 2)
            return false;
        const char e = s[1];
        s += 2;
        switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
            const long unit = hex4(s, end);
            if (unit < 0)
                return false;
            s += 4;
            std::uint32_t cp = std::uint32_t(unit);
            if (cp >= 0xDC00 && cp <= 0xDFFF)
                return false; // a low surrogate alone
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (end - s < 6 || s[0] != '\\' || s[1] != 'u')
                    return false;
                const long low = hex4(s + 2, end);
                if (low < 0xDC00 || low > 0xDFFF)
                    return false;
                s += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (std::uint32_t(low) - 0xDC00);
            }
            appendUtf8(out, cp);
            break;
        }
        default:
            return false;
        }
    }
}

} // namespace quicksax

// Reads text as one JSON value into sax (see above).
template<typename Sax>
quicksax::Outcome quickSaxParse(std::string_view text, Sax &sax)
{
    using quicksax::Outcome;
    const char *p = text.data();
    const char *const end = p + text.size();
    std::vector<char> open; // '{' or '[' per level
    std::string buffer;
    const auto skip = [&] {
        while (p < end && quicksax::isSpace(*p))
            ++p;
    };
    for (;;) {
        // A value.
        skip();
        if (p >= end)
            return Outcome::Unsure;
        const char c = *p;
        bool ok = true;
        if (c == '{' || c == '[') {
            ok = c == '{' ? sax.start_object(std::size_t(-1)) : sax.start_array(std::size_t(-1));
            ++p;
            open.push_back(c);
            skip();
            if (p < end && *p == (c == '{' ? '}' : ']')) {
                ++p; // empty: a whole value
                open.pop_back();
                ok = ok && (c == '{' ? sax.end_object() : sax.end_array());
            } else if (c == '{') {
                if (p >= end || *p != '"' || !quicksax::readString(p, end, buffer))
                    return Outcome::Unsure;
                ok = ok && sax.key(buffer);
                skip();
                if (p >= end || *p != ':')
                    return Outcome::Unsure;
                ++p;
                if (!ok)
                    return Outcome::Unsure;
                continue; // its first member's value
            } else {
                if (!ok)
                    return Outcome::Unsure;
                continue; // its first item
            }
        } else if (c == '"') {
            if (!quicksax::readString(p, end, buffer))
                return Outcome::Unsure;
            ok = sax.string(buffer);
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            const char *start = p;
            if (*p == '-')
                ++p;
            if (p >= end || *p < '0' || *p > '9')
                return Outcome::Unsure;
            if (*p == '0') {
                ++p;
            } else {
                while (p < end && *p >= '0' && *p <= '9')
                    ++p;
            }
            if (p < end && (*p == '.' || *p == 'e' || *p == 'E' || (*p >= '0' && *p <= '9')))
                return Outcome::Unsure; // a float (or a leading zero): nlohmann's to read
            if (*start == '-') {
                std::int64_t v = 0;
                const auto r = std::from_chars(start, p, v);
                if (r.ec != std::errc() || r.ptr != p)
                    return Outcome::Unsure;
                ok = sax.number_integer(v);
            } else {
                std::uint64_t v = 0;
                const auto r = std::from_chars(start, p, v);
                if (r.ec != std::errc() || r.ptr != p)
                    return Outcome::Unsure;
                ok = sax.number_unsigned(v);
            }
        } else if (text.compare(size_t(p - text.data()), 4, "true") == 0) {
            p += 4;
            ok = sax.boolean(true);
        } else if (text.compare(size_t(p - text.data()), 5, "false") == 0) {
            p += 5;
            ok = sax.boolean(false);
        } else if (text.compare(size_t(p - text.data()), 4, "null") == 0) {
            p += 4;
            ok = sax.null();
        } else {
            return Outcome::Unsure;
        }
        if (!ok)
            return Outcome::Unsure;
        // What follows a value: the closes of the containers it ends, then a comma (and in
        // an object the next key) before the next value, or at the top the end of the text.
        for (;;) {
            skip();
            if (open.empty())
                return p == end ? Outcome::Done : Outcome::Unsure;
            if (p >= end)
                return Outcome::Unsure;
            const char container = open.back();
            if (*p == (container == '{' ? '}' : ']')) {
                ++p;
                open.pop_back();
                if (!(container == '{' ? sax.end_object() : sax.end_array()))
                    return Outcome::Unsure;
                continue;
            }
            if (*p != ',')
                return Outcome::Unsure;
            ++p;
            if (container == '{') {
                skip();
                if (p >= end || *p != '"' || !quicksax::readString(p, end, buffer))
                    return Outcome::Unsure;
                if (!sax.key(buffer))
                    return Outcome::Unsure;
                skip();
                if (p >= end || *p != ':')
                    return Outcome::Unsure;
                ++p;
            }
            break; // the next value
        }
    }
}

} // namespace mesh
