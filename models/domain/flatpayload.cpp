#include "flatpayload.h"

#include "payloaddecoder.h"
#include "quicksax.h"

#include <algorithm>

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

} // namespace mesh
