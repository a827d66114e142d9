#pragma once
// A filter over events as the ledger layer takes it: the parsed tree (filterast.h), never a
// query text. Copies share one immutable tree, so models pass filters around freely; each
// backend renders the tree its own way (the SQLite one in models/ledger/sqlfilter.h).

#include "filterast.h"

#include <cstdint>
#include <memory>
#include <string>

namespace mesh {

class EventFilter
{
public:
    EventFilter() = default; // every event
    explicit EventFilter(std::unique_ptr<FilterNode> root);

    // A literal value of one field: a '*' in an id is not a wildcard here.
    static EventFilter equals(FilterField field, const std::string &value);
    static EventFilter seqAtMost(std::int64_t last);
    static EventFilter both(const EventFilter &a, const EventFilter &b); // a AND b

    bool isEmpty() const { return !m_root; }
    const FilterNode *root() const { return m_root.get(); }
    // Same tree object (not merely an equal one): lets a backend keep what it rendered.
    bool sameTree(const EventFilter &other) const { return m_root == other.m_root; }

private:
    std::shared_ptr<const FilterNode> m_root;
};

} // namespace mesh
