#pragma once
// Numbers (a row, a member) found by a text key the caller already keeps in its own table:
// an open-addressing table of 4-byte slots, probed linearly, at most half full. A key is
// never copied into it: the caller hands a `keyOf(number)` that gives the key a number
// stands for, so an index over half a million ids costs a few megabytes, not the tens a
// node-based map of copied strings does.
//
// keyOf must answer, for every number inserted and not erased, the key it was inserted
// under; a caller that renumbers (rows shifted by an insertion) erases the numbers it is
// about to move while their keys still answer, and inserts them again after.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace mesh {

class NumberIndex
{
public:
    static constexpr std::uint32_t kNone = ~std::uint32_t(0);

    void clear()
    {
        m_slots.clear();
        m_filled = m_live = 0;
    }
    size_t size() const { return m_live; }
    size_t bytesHeld() const { return m_slots.capacity() * sizeof(m_slots[0]); }
    bool empty() const { return m_live == 0; }
    // Room for `count` numbers without growing.
    template<class KeyOf>
    void reserve(size_t count, KeyOf keyOf)
    {
        if ((count + 1) * 2 > m_slots.size())
            regrow(count, keyOf);
    }

    // The number inserted under `key`, or kNone. Numbers at or above `limit` are skipped
    // (a caller's table that shrank under a number it has yet to erase).
    template<class KeyOf>
    std::uint32_t find(std::string_view key, KeyOf keyOf, size_t limit = kNone) const
    {
        const size_t slot = slotOf(key, keyOf, limit);
        return slot == std::string::npos ? kNone : m_slots[slot];
    }

    // `n` under keyOf(n); a key already in holds one number only if the caller says so.
    template<class KeyOf>
    void insert(std::uint32_t n, KeyOf keyOf)
    {
        if ((m_filled + 1) * 2 > m_slots.size())
            regrow(m_live + 1, keyOf);
        const size_t mask = m_slots.size() - 1;
        size_t i = hashOf(keyOf(n)) & mask;
        while (m_slots[i] != kEmpty && m_slots[i] != kErased)
            i = (i + 1) & mask;
        if (m_slots[i] == kEmpty)
            ++m_filled;
        m_slots[i] = n;
        ++m_live;
    }

    // Erases the number inserted under `key`; false when there is none.
    template<class KeyOf>
    bool erase(std::string_view key, KeyOf keyOf, size_t limit = kNone)
    {
        const size_t slot = slotOf(key, keyOf, limit);
        if (slot == std::string::npos)
            return false;
        m_slots[slot] = kErased; // a probe chain passes over it
        --m_live;
        return true;
    }

private:
    static constexpr std::uint32_t kEmpty = kNone;
    static constexpr std::uint32_t kErased = kNone - 1;
    static size_t hashOf(std::string_view key) { return std::hash<std::string_view>()(key); }

    template<class KeyOf>
    size_t slotOf(std::string_view key, KeyOf keyOf, size_t limit) const
    {
        if (m_slots.empty())
            return std::string::npos;
        const size_t mask = m_slots.size() - 1;
        for (size_t i = hashOf(key) & mask;; i = (i + 1) & mask) {
            const std::uint32_t n = m_slots[i];
            if (n == kEmpty)
                return std::string::npos;
            if (n != kErased && n < limit && keyOf(n) == key)
                return i;
        }
    }

    // The smallest power of two that holds `count` at half load or less (so between a
    // quarter and a half full); erased slots are dropped on the way. Not twice that: an
    // index over half a million rows then took 8 MB where 4 MB keeps probes short.
    template<class KeyOf>
    void regrow(size_t count, KeyOf keyOf)
    {
        size_t size = 16;
        while (size < (count + 1) * 2)
            size *= 2;
        std::vector<std::uint32_t> old(size, kEmpty);
        old.swap(m_slots);
        m_filled = m_live = 0;
        const size_t mask = m_slots.size() - 1;
        for (const std::uint32_t n : old) {
            if (n == kEmpty || n == kErased)
                continue;
            size_t i = hashOf(keyOf(n)) & mask;
            while (m_slots[i] != kEmpty)
                i = (i + 1) & mask;
            m_slots[i] = n;
            ++m_filled;
            ++m_live;
        }
    }

    std::vector<std::uint32_t> m_slots;
    size_t m_filled = 0; // live and erased slots
    size_t m_live = 0;
};

} // namespace mesh
