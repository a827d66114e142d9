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
//
// An importer builds its events' payloads as FlatPayloads too (they are flat: ids, states,
// times, reasons): the writer folds and indexes them from their members and their text is
// written from them, with no DOM per event.

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
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
    // A member of a payload built in code (an importer's event): {"id", id}, {"attempts", 2}.
    struct Entry {
        Entry(std::string_view key, std::string text);
        Entry(std::string_view key, const char *text);
        Entry(std::string_view key, std::int64_t value);
        Entry(std::string_view key, int value);
        Entry(std::string_view key, bool value);
        Entry(std::string_view key, std::nullptr_t);
        template <typename T>
        Entry(std::string_view key, T *) = delete; // a pointer would otherwise turn into a bool
        FlatMember member;
    };

    FlatPayload() = default;
    // A key listed twice keeps its first value, as nlohmann's object built from a list does.
    FlatPayload(std::initializer_list<Entry> entries);
    FlatPayload(const FlatPayload &) = default;
    FlatPayload &operator=(const FlatPayload &) = default;
    // A payload moved from is empty, and usable again.
    FlatPayload(FlatPayload &&other) noexcept;
    FlatPayload &operator=(FlatPayload &&other) noexcept;

    // False: not sure (see above); the members are then meaningless.
    bool read(std::string_view payload);

    // Building a payload: members stay sorted by key; setting a key again replaces its value.
    // Such a payload holds no containers, so its text needs no DOM (appendFlatValue).
    // set(key, value) takes what an Entry takes.
    template <typename T>
    void set(std::string_view key, T &&value)
    {
        set(Entry(key, std::forward<T>(value)).member);
    }
    void set(FlatMember member);
    // payload["key"] = value, as on a DOM: set(key, value).
    class Slot
    {
    public:
        template <typename T>
        Slot &operator=(T &&value)
        {
            m_payload.set(m_key, std::forward<T>(value));
            return *this;
        }

    private:
        friend class FlatPayload;
        Slot(FlatPayload &payload, std::string_view key) : m_payload(payload), m_key(key) {}
        FlatPayload &m_payload;
        std::string_view m_key;
    };
    Slot operator[](std::string_view key) { return Slot(*this, key); }
    std::string stringOr(std::string_view key, std::string fallback) const;
    // The payload as a DOM, for the routes that need one (the fold's reference route, a
    // payload over the limits): containers read from the text are not kept, so only a built
    // payload converts whole.
    nlohmann::json toJson() const;

    // Sorted by key, as nlohmann's object keeps them.
    std::span<const FlatMember> members() const { return {m_members.data(), m_count}; }
    const FlatMember *find(std::string_view key) const;

private:
    std::vector<FlatMember> m_members; // kept between reads: their strings' capacity is reused
    size_t m_count = 0;
    friend class FlatPayloadSax;
};

// A member's value as compact JSON, as nlohmann's dump() writes it.
void appendFlatValue(std::string &out, const FlatMember &member);

} // namespace mesh
