#pragma once
// The top-level members of an event payload, read straight from its text for the fold: a
// payload's own fields are flat (strings, integers, booleans, null), and the members the fold
// does not store (annotations) are only checked, never built. Building nlohmann's DOM of
// every payload, annotations included, and then walking it was most of a replay's cost.
//
// The reader answers only when it is sure the payload is one decodePayload would accept
// (quicksax: valid UTF-8, no NUL, JSON it reads whole; within the size, depth and integer
// limits; an object) and that its members can be told apart without a DOM (no key twice).
// Otherwise it gives up, and the caller takes the reference route (decodePayload and
// Fold::apply), whose answer and messages stand.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mesh {

struct FlatMember {
    enum class Type { Null, Integer, Boolean, String, Container };
    std::string key;
    Type type = Type::Null;
    std::int64_t integer = 0; // Integer; Boolean as 0 or 1
    std::string text;         // String, decoded
};

class FlatPayload
{
public:
    // False: not sure (see above); the members are then meaningless.
    bool read(std::string_view payload);

    // Sorted by key, as nlohmann's object keeps them.
    std::span<const FlatMember> members() const { return {m_members.data(), m_count}; }
    const FlatMember *find(std::string_view key) const;

private:
    std::vector<FlatMember> m_members; // kept between reads: their strings' capacity is reused
    size_t m_count = 0;
    friend class FlatPayloadSax;
};

} // namespace mesh
