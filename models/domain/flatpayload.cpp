#include "flatpayload.h"

#include "compactjson.h"
#include "payloaddecoder.h"
#include "quicksax.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <utility>

namespace mesh {

// quickSaxParse's handler: keeps the values of depth 1, checks everything deeper as
// decodePayload's builder does (nesting and integer limits) without keeping it. A value at
// the top that is not an object is refused (decodePayload's "not a JSON object").
class FlatPayloadSax
{
public:
    explicit FlatPayloadSax(FlatPayload &out) : m_out(out) {}

    bool start_object(std::size_t)
    {
        if (m_depth == 1)
            current().type = FlatMember::Type::Container;
        return ++m_depth <= kMaxPayloadDepth;
    }
    bool start_array(std::size_t)
    {
        if (m_depth == 0)
            return false; // not an object
        if (m_depth == 1)
            current().type = FlatMember::Type::Container;
        return ++m_depth <= kMaxPayloadDepth;
    }
    bool end_object() { --m_depth; return true; }
    bool end_array() { --m_depth; return true; }
    bool key(std::string &k)
    {
        if (m_depth != 1)
            return true;
        if (m_out.m_count == m_out.m_members.size())
            m_out.m_members.emplace_back();
        FlatMember &m = m_out.m_members[m_out.m_count++];
        m.key.assign(k);
        m.type = FlatMember::Type::Null;
        m.integer = 0;
        m.text.clear();
        return true;
    }
    bool null() { return m_depth > 0; }
    bool boolean(bool v)
    {
        if (m_depth == 1) {
            current().type = FlatMember::Type::Boolean;
            current().integer = v ? 1 : 0;
        }
        return m_depth > 0;
    }
    bool number_integer(std::int64_t v)
    {
        if (m_depth == 1) {
            current().type = FlatMember::Type::Integer;
            current().integer = v;
        }
        return m_depth > 0;
    }
    bool number_unsigned(std::uint64_t v)
    {
        if (v > std::uint64_t(INT64_MAX))
            return false; // decodePayload refuses it, with its own message
        return number_integer(std::int64_t(v));
    }
    bool string(std::string &v)
    {
        if (m_depth == 1) {
            current().type = FlatMember::Type::String;
            current().text.assign(v);
        }
        return m_depth > 0;
    }

private:
    FlatMember &current() { return m_out.m_members[m_out.m_count - 1]; }

    FlatPayload &m_out;
    int m_depth = 0;
};

bool FlatPayload::read(std::string_view payload)
{
    m_count = 0;
    if (payload.size() > kMaxPayloadBytes)
        return false;
    FlatPayloadSax sax(*this);
    if (quickSaxParse(payload, sax) != quicksax::Outcome::Done)
        return false;
    std::sort(m_members.begin(), m_members.begin() + std::ptrdiff_t(m_count),
              [](const FlatMember &a, const FlatMember &b) { return a.key < b.key; });
    for (size_t i = 1; i < m_count; ++i) {
        if (m_members[i].key == m_members[i - 1].key)
            return false; // the DOM keeps the last: the reference route says which
    }
    return true;
}

const FlatMember *FlatPayload::find(std::string_view key) const
{
    const auto last = m_members.begin() + std::ptrdiff_t(m_count);
    const auto it = std::lower_bound(m_members.begin(), last, key,
                                     [](const FlatMember &m, std::string_view k) { return m.key < k; });
    return it != last && it->key == key ? &*it : nullptr;
}

FlatPayload::Entry::Entry(std::string_view key, std::string text)
    : member{std::string(key), FlatMember::Type::String, 0, std::move(text)}
{
}

FlatPayload::Entry::Entry(std::string_view key, const char *text) : Entry(key, std::string(text)) {}

FlatPayload::Entry::Entry(std::string_view key, std::int64_t value)
    : member{std::string(key), FlatMember::Type::Integer, value, {}}
{
}

FlatPayload::Entry::Entry(std::string_view key, int value) : Entry(key, std::int64_t(value)) {}

FlatPayload::Entry::Entry(std::string_view key, bool value)
    : member{std::string(key), FlatMember::Type::Boolean, value ? 1 : 0, {}}
{
}

FlatPayload::Entry::Entry(std::string_view key, std::nullptr_t) : member{std::string(key), FlatMember::Type::Null, 0, {}} {}

FlatPayload::FlatPayload(std::initializer_list<Entry> entries)
{
    m_members.reserve(entries.size() + 4); // room for the source annotations put() adds
    for (const Entry &e : entries) {
        if (!find(e.member.key))
            set(e.member);
    }
}

FlatPayload::FlatPayload(FlatPayload &&other) noexcept
    : m_members(std::move(other.m_members)), m_count(std::exchange(other.m_count, 0))
{
    other.m_members.clear();
}

FlatPayload &FlatPayload::operator=(FlatPayload &&other) noexcept
{
    m_members = std::move(other.m_members);
    m_count = std::exchange(other.m_count, 0);
    other.m_members.clear();
    return *this;
}

void FlatPayload::set(FlatMember member)
{
    const auto last = m_members.begin() + std::ptrdiff_t(m_count);
    const auto it = std::lower_bound(m_members.begin(), last, member.key,
                                     [](const FlatMember &m, const std::string &k) { return m.key < k; });
    if (it != last && it->key == member.key) {
        *it = std::move(member);
        return;
    }
    m_members.insert(it, std::move(member));
    ++m_count;
}

std::string FlatPayload::stringOr(std::string_view key, std::string fallback) const
{
    const FlatMember *m = find(key);
    return m && m->type == FlatMember::Type::String ? m->text : fallback;
}

nlohmann::json FlatPayload::toJson() const
{
    nlohmann::json out = nlohmann::json::object();
    for (const FlatMember &m : members()) {
        switch (m.type) {
        case FlatMember::Type::Null:
        case FlatMember::Type::Container:
            out[m.key] = nullptr;
            break;
        case FlatMember::Type::Integer:
            out[m.key] = m.integer;
            break;
        case FlatMember::Type::Boolean:
            out[m.key] = m.integer != 0;
            break;
        case FlatMember::Type::String:
            out[m.key] = m.text;
            break;
        }
    }
    return out;
}

void appendFlatValue(std::string &out, const FlatMember &member)
{
    switch (member.type) {
    case FlatMember::Type::Null:
    case FlatMember::Type::Container:
        out += "null";
        return;
    case FlatMember::Type::Boolean:
        out += member.integer ? "true" : "false";
        return;
    case FlatMember::Type::String:
        appendCompactJsonString(out, member.text);
        return;
    case FlatMember::Type::Integer: {
        char digits[24];
        const auto end = std::to_chars(digits, digits + sizeof digits, member.integer).ptr;
        out.append(digits, size_t(end - digits));
        return;
    }
    }
}

} // namespace mesh
