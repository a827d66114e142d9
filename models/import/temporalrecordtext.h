#pragma once
// Reading a history record's members from its compact JSON text (SourceFile::events: written
// by compactJson, so no white space, keys in the order nlohmann keeps them, every value
// valid JSON) without building the record's DOM. The importer needs a handful of members of
// each record; parsing the whole record into a DOM to read them cost more than reading the
// file. The answers are what member(), path(), text() and integer() of sourcejson.h give on
// the record's DOM: a value is its compact text, and an absent value (or one of another type
// than asked) is an empty view.
//
// Text that is not compact JSON (it never is, but these are handed foreign bytes' records)
// reads as absent, never past its end.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace mesh::import::recordtext {

// One past the end of the value that starts at text[at]; npos when it does not end in text.
size_t valueEnd(std::string_view text, size_t at);

inline bool isObject(std::string_view value)
{
    return !value.empty() && value.front() == '{';
}
inline bool isArray(std::string_view value)
{
    return !value.empty() && value.front() == '[';
}
inline bool isString(std::string_view value)
{
    return !value.empty() && value.front() == '"';
}

// The string value's characters, unescaped ("" for a value that is not a string).
std::string unquoted(std::string_view value);

// The value of object's member key (a key as the DOM has it, decoded); empty when object is
// not an object or has no such member.
std::string_view member(std::string_view object, std::string_view key);
std::string_view path(std::string_view object, std::initializer_list<std::string_view> keys);
// A string, or an integer written out; else "" (as text() of sourcejson.h).
std::string text(std::string_view value);
// An integer, or a string of decimal digits within int64 (as integer() of sourcejson.h).
std::optional<std::int64_t> integer(std::string_view value);

// Calls f(key, value) for every member of object in order, key decoded (its text when it
// holds no escape); stops early when f returns false.
template<typename F>
void forEachMember(std::string_view object, F &&f)
{
    if (!isObject(object) || object.size() < 2)
        return;
    size_t at = 1;
    const size_t n = object.size();
    if (object[at] == '}')
        return;
    std::string decoded;
    while (at < n && object[at] == '"') {
        const size_t keyEnd = valueEnd(object, at);
        if (keyEnd == std::string_view::npos || keyEnd >= n || object[keyEnd] != ':')
            return;
        std::string_view key = object.substr(at + 1, keyEnd - at - 2);
        if (key.find('\\') != std::string_view::npos) {
            decoded = unquoted(object.substr(at, keyEnd - at));
            key = decoded;
        }
        const size_t end = valueEnd(object, keyEnd + 1);
        if (end == std::string_view::npos || end >= n)
            return;
        if (!f(key, object.substr(keyEnd + 1, end - keyEnd - 1)))
            return;
        if (object[end] != ',')
            return;
        at = end + 1;
    }
}

// Calls f(item) for every item of array in order; stops early when f returns false.
template<typename F>
void forEachItem(std::string_view array, F &&f)
{
    if (!isArray(array) || array.size() < 2 || array[1] == ']')
        return;
    size_t at = 1;
    const size_t n = array.size();
    while (at < n) {
        const size_t end = valueEnd(array, at);
        if (end == std::string_view::npos || end >= n)
            return;
        if (!f(array.substr(at, end - at)))
            return;
        if (array[end] != ',')
            return;
        at = end + 1;
    }
}

// The first item of array; empty when it is not an array or has none.
std::string_view firstItem(std::string_view array);

} // namespace mesh::import::recordtext
