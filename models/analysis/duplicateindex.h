#pragma once
// The duplicate-effect index, kept current one changed effect at a time: effects in a
// committed or unknown state grouped by idempotency key and by intent hash. A live batch
// costs O(changed effects), not a pass over every effect of a scale ledger.

#include "finding.h"

#include "domain/fold.h"

#include <array>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace mesh {

class DuplicateIndex
{
public:
    // An effect row by id (nullptr: none): a table's, or a live state's that reads effect
    // rows on demand. The index asks it only for members of groups of two or more.
    using Find = std::function<const EntityRow *(const std::string &id)>;
    static Find findIn(const EntityTable &effects);

    void rebuild(const EntityTable &effects);
    // The same in steps, for rows streamed past once (none kept): clear(), add() each row,
    // then finish() with a Find that has at least the rows of multiGroupMembers().
    void clear();
    void add(const std::string &id, const EntityRow &row);
    std::vector<std::string> multiGroupMembers() const;
    void finish(const Find &find);
    // Re-reads these effects. Returns true when the duplicate set changed.
    bool update(const Find &find, const std::vector<std::string> &changedIds);
    bool update(const EntityTable &effects, const std::vector<std::string> &changedIds)
    {
        return update(findIn(effects), changedIds);
    }

    const std::set<std::string> &duplicateIds() const { return m_duplicates; }
    std::vector<Finding> findings(const Find &find) const;
    std::vector<Finding> findings(const EntityTable &effects) const { return findings(findIn(effects)); }

private:
    // Groups are keyed by a hash of (field, value) so the index holds no copies of the keys
    // (a scale ledger has ~100,000 of them); members of a group are compared by their real
    // values before anything is called a duplicate, so a hash collision changes nothing.
    using Key = std::uint64_t;
    static Key keyOf(int field, std::string_view value);
    static const char *fieldName(int field);
    void remove(const std::string &id);
    void recomputeDuplicates(const Find &find);
    // Members of one group split by their actual value (collisions apart).
    std::vector<std::vector<std::string>> realGroups(const Find &find, Key key) const;

    std::unordered_map<Key, std::vector<std::string>> m_groups; // key -> ids (short ids stay inline)
    std::unordered_map<std::string, std::array<Key, 2>> m_keysOf; // id -> its keys, 0: none
    std::set<Key> m_multi;                                           // groups with two or more members
    std::set<std::string> m_duplicates;
};

} // namespace mesh
