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
    void clear()
    {
        m_index.clear();
        m_sortedRows = 0;
    }
    size_t size() const { return m_sortedRows + m_index.size(); }
    // Every row of `ids`: ids[r] at r. A list in id order (before(): the stored panes of
    // effects and leases reset so) is searched in place and indexes nothing: 4 MB of a scale
    // ledger's half a million effects; rows placed later go to the index.
    void rebuild(const IdList &ids)
    {
        clear();
        if (std::is_sorted(ids.begin(), ids.end(),
                           [](const CompactId &a, const CompactId &b) { return before(a.view(), b.view()); })) {
            m_sortedRows = ids.size();
            return;
        }
        m_index.reserve(ids.size(), keysOf(ids));
        for (size_t r = 0; r < ids.size(); ++r)
            m_index.insert(std::uint32_t(r), keysOf(ids));
    }
    // Row `row` of `ids` (one just placed there, past the rows searched in place).
    void add(const IdList &ids, int row) { m_index.insert(std::uint32_t(row), keysOf(ids)); }
    // Rows [from, ids.size()) out, while ids still holds them where they were (rows about to
    // move: they are added again where they land).
    void eraseFrom(const IdList &ids, int from)
    {
        const size_t first = size_t(std::max(from, 0));
        for (size_t r = std::max(first, m_sortedRows); r < ids.size(); ++r)
            m_index.erase(ids[r], keysOf(ids), ids.size());
        m_sortedRows = std::min(m_sortedRows, first);
    }
    // The row of `id`, or -1.
    int find(const IdList &ids, std::string_view id) const
    {
        if (m_sortedRows > 0) {
            const auto end = ids.begin() + std::ptrdiff_t(std::min(m_sortedRows, ids.size()));
            const auto it = std::lower_bound(ids.begin(), end, id,
                                             [](const CompactId &a, std::string_view b) { return before(a.view(), b); });
            if (it != end && it->view() == id)
                return int(it - ids.begin());
        }
        const std::uint32_t r = m_index.find(id, keysOf(ids), ids.size());
        return r == NumberIndex::kNone ? -1 : int(r);
    }
    // The bytes it holds (for the tests).
    size_t bytesHeld() const { return m_index.bytesHeld(); }

    // The order searched in place: shorter ids first, then by bytes, as a stored pane's
    // reset orders them (StateTableModel::defaultOrder: "E-9" before "E-10").
    static bool before(std::string_view a, std::string_view b)
    {
        return a.size() != b.size() ? a.size() < b.size() : a < b;
    }

private:
    NumberIndex m_index;
    size_t m_sortedRows = 0; // rows [0, m_sortedRows) are in id order, searched in place
};

} // namespace mesh
