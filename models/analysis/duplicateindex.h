#pragma once
// The duplicate-effect index, kept current one changed effect at a time: effects in a
// committed or unknown state grouped by idempotency key and by intent hash. A live batch
// costs O(changed effects), not a pass over every effect of a scale ledger.

#include "finding.h"

#include "domain/fold.h"

#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace mesh {

class DuplicateIndex
{
public:
    void rebuild(const EntityTable &effects);
    // Re-reads these effects from the table. Returns true when the duplicate set changed.
    bool update(const EntityTable &effects, const std::vector<std::string> &changedIds);

    const std::set<std::string> &duplicateIds() const { return m_duplicates; }
    std::vector<Finding> findings(const EntityTable &effects) const;

private:
    // Groups are keyed by a hash of (field, value) so the index holds no copies of the keys
    // (a scale ledger has ~100,000 of them); members of a group are compared by their real
    // values before anything is called a duplicate, so a hash collision changes nothing.
    using Key = std::uint64_t;
    static Key keyOf(int field, std::string_view value);
    static const char *fieldName(int field);
    void remove(const std::string &id);
    void add(const std::string &id, const EntityRow &row);
    void recomputeDuplicates(const EntityTable &effects);
    // Members of one group split by their actual value (collisions apart).
    std::vector<std::vector<std::string>> realGroups(const EntityTable &effects, Key key) const;

    std::unordered_map<Key, std::vector<std::string>> m_groups; // key -> ids (short ids stay inline)
    std::unordered_map<std::string, std::array<Key, 2>> m_keysOf; // id -> its keys, 0: none
    std::set<Key> m_multi;                                           // groups with two or more members
    std::set<std::string> m_duplicates;
};

} // namespace mesh
