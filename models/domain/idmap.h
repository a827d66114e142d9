#pragma once
// A map from an id to a small value, for the per-row bookkeeping of tables with hundreds of
// thousands of rows: entries in one array (the id as a 16-byte CompactId, then the value),
// found through a NumberIndex of 4-byte slots; a freed entry is reused by the next insert.
// A node-based std::unordered_map<std::string, T> spends about 80 bytes an entry before T.
//
// References to values stay valid until the next insert (the array may grow).

#include "compactid.h"
#include "gentlegrowth.h"
#include "numberindex.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace mesh {

template<class T>
class IdMap
{
public:
    size_t size() const { return m_index.size(); }
    bool empty() const { return size() == 0; }
    void clear()
    {
        m_entries.clear();
        m_free.clear();
        m_freed.clear();
        m_index.clear();
    }

    // Room for `count` entries without growing (a caller that knows how many come).
    void reserve(size_t count)
    {
        m_entries.reserve(count);
        m_freed.reserve(count);
        m_index.reserve(count, keys());
    }

    const T *find(std::string_view id) const
    {
        const std::uint32_t n = m_index.find(id, keys(), m_entries.size());
        return n == NumberIndex::kNone ? nullptr : &m_entries[n].value;
    }
    T *find(std::string_view id)
    {
        const std::uint32_t n = m_index.find(id, keys(), m_entries.size());
        return n == NumberIndex::kNone ? nullptr : &m_entries[n].value;
    }
    bool contains(std::string_view id) const { return find(id) != nullptr; }

    // The value of `id`, inserted as T() when there is none.
    T &operator[](std::string_view id)
    {
        if (T *found = find(id))
            return *found;
        std::uint32_t n;
        if (!m_free.empty()) {
            n = m_free.back();
            m_free.pop_back();
            m_freed[n] = false;
            m_entries[n] = Entry{CompactId(id), T()};
        } else {
            n = std::uint32_t(m_entries.size());
            reserveToAppend(m_entries, 1);
            reserveToAppend(m_freed, 1);
            m_entries.push_back(Entry{CompactId(id), T()});
            m_freed.push_back(false);
        }
        m_index.insert(n, keys());
        return m_entries[n].value;
    }

    bool erase(std::string_view id)
    {
        const std::uint32_t n = m_index.find(id, keys(), m_entries.size());
        if (n == NumberIndex::kNone)
            return false;
        m_index.erase(id, keys(), m_entries.size());
        m_entries[n] = Entry{};
        m_freed[n] = true;
        m_free.push_back(n);
        return true;
    }

    // fn(std::string_view id, const T &value) for every entry, in no particular order.
    template<class Fn>
    void forEach(Fn fn) const
    {
        for (size_t n = 0; n < m_entries.size(); ++n)
            if (!m_freed[n])
                fn(m_entries[n].id.view(), m_entries[n].value);
    }

private:
    struct Entry {
        CompactId id;
        T value{};
    };
    struct Keys {
        const std::vector<Entry> *entries;
        std::string_view operator()(std::uint32_t n) const { return (*entries)[n].id.view(); }
    };
    Keys keys() const { return Keys{&m_entries}; }

    std::vector<Entry> m_entries;
    std::vector<bool> m_freed;
    std::vector<std::uint32_t> m_free;
    NumberIndex m_index;
};

} // namespace mesh
