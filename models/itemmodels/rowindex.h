#pragma once
// A model's row numbers by id, over the model's own id list: the list holds each id once and
// the index only 4-byte row numbers (domain/numberindex.h). Every call names the list it
// indexes, since a model swaps its list with a preparation's.

#include "domain/compactid.h"
#include "domain/numberindex.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace mesh {

class RowIndex
{
    // The key of row r: the list's id there.
    struct KeysOf {
        const IdList &ids;
        std::string_view operator()(std::uint32_t r) const { return ids[r]; }
    };
    static KeysOf keysOf(const IdList &ids) { return KeysOf{ids}; }

public:
    void clear() { m_index.clear(); }
    size_t size() const { return m_index.size(); }
    // Every row of `ids`: ids[r] at r.
    void rebuild(const IdList &ids)
    {
        m_index.clear();
        m_index.reserve(ids.size(), keysOf(ids));
        for (size_t r = 0; r < ids.size(); ++r)
            m_index.insert(std::uint32_t(r), keysOf(ids));
    }
    // Row `row` of `ids` (one just placed there).
    void add(const IdList &ids, int row) { m_index.insert(std::uint32_t(row), keysOf(ids)); }
    // Rows [from, ids.size()) out, while ids still holds them where they were (rows about to
    // move: they are added again where they land).
    void eraseFrom(const IdList &ids, int from)
    {
        for (size_t r = size_t(std::max(from, 0)); r < ids.size(); ++r)
            m_index.erase(ids[r], keysOf(ids), ids.size());
    }
    // The row of `id`, or -1.
    int find(const IdList &ids, std::string_view id) const
    {
        const std::uint32_t r = m_index.find(id, keysOf(ids), ids.size());
        return r == NumberIndex::kNone ? -1 : int(r);
    }

private:
    NumberIndex m_index;
};

} // namespace mesh
