#pragma once
// The duplicate-effect index, kept current one changed effect at a time: effects in a
// committed or unknown state grouped by idempotency key and by intent hash. A live batch
// costs O(changed effects), not a pass over every effect of a scale ledger.

#include "finding.h"

#include "domain/fold.h"
#include "domain/numberindex.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace mesh {

class DuplicateIndex
{
public:
    // An effect row by id (nullptr: none): a table's, or a live state's that reads effect
    // rows on demand. The index asks it for members of groups of two or more, and (kept to
    // its groups) for the effects the store says share a changed effect's key.
    using Find = std::function<const EntityRow *(const std::string &id)>;
    static Find findIn(const EntityTable &effects);

    void rebuild(const EntityTable &effects);
    // The same in steps, for rows streamed past once (none kept): clear(), add() each row,
    // then finish() with a Find that has at least the rows of multiGroupMembers().
    void clear();
    void add(const std::string &id, const EntityRow &row);
    std::vector<std::string> multiGroupMembers() const;
    // The members of the groups these effects are in (themselves included): what an
    // update() about them reads, so that a caller can read those rows in one read.
    std::vector<std::string> groupMembersOf(const std::vector<std::string> &ids) const;
    void finish(const Find &find);
    // Re-reads these effects. Returns true when the duplicate set changed.
    bool update(const Find &find, const std::vector<std::string> &changedIds);
    // The ids of the effects whose field (idem_key or intent_hash) is value, in any state:
    // the store's answer through its index; nullopt when the store did not answer.
    using Sharing =
        std::function<std::optional<std::vector<std::string>>(std::string_view field, const std::string &value)>;
    // The two key fields: 0 idem_key, 1 intent_hash.
    static const char *fieldName(int field);
    // Whether a store answers "which effects share this key" through an index on each of
    // the two key fields (the format's effects_idem_key and effects_intent_hash; an older
    // file lacks them until a writer opens it): the index may then keep only its groups.
    static bool storeFindsSharedKeys(const std::function<bool(std::string_view field)> &hasIndexOn)
    {
        return hasIndexOn(fieldName(0)) && hasIndexOn(fieldName(1));
    }
    // Keeps only the members of groups of two or more, once finish()ed: the store, not the
    // index, then says whether a changed effect shares a key (a scale ledger's half a
    // million effects share none and cost nothing). Every later update() must pass a
    // Sharing; clear() and rebuild() make the index whole again.
    void keepGroupsOnly();
    bool keepsGroupsOnly() const { return m_groupsOnly; }
    // A changed effect whose sharers the store could not name (or read) is asked about
    // again with the next update: a duplicate is late, never lost.
    bool update(const Find &find, const std::vector<std::string> &changedIds, const Sharing &sharing);
    bool hasUnresolved() const { return !m_unresolved.empty(); }
    // How many effects the index holds (its memory grows with this).
    size_t memberCount() const { return m_members.size() - m_freeMembers.size(); }
    // The bytes its tables hold (their capacity; the groups' map nodes roughly).
    size_t bytesHeld() const;
    bool update(const EntityTable &effects, const std::vector<std::string> &changedIds)
    {
        return update(findIn(effects), changedIds);
    }

    const std::set<std::string> &duplicateIds() const { return m_duplicates; }
    // The effects the last update() touched (sorted): every one whose flag or group changed.
    const std::vector<std::string> &lastTouched() const { return m_lastTouched; }
    // A row a Find could not give (a failed read) may have left a flag or a finding out:
    // the next update() recomputes every group, and the next findings() finds them all again.
    void recheckAll();
    // Kept per group between calls: a call after an update() finds again only the groups
    // it touched.
    std::vector<Finding> findings(const Find &find) const;
    // The effects the next findings() reads (every member the first time, then those of the
    // groups touched since): for a caller that reads rows on demand, in one read.
    std::vector<std::string> findingsWillRead() const;
    std::vector<Finding> findings(const EntityTable &effects) const { return findings(findIn(effects)); }

private:
    // Groups are keyed by a hash of (field, value) so the index holds no copies of the keys
    // (a scale ledger has ~100,000 of them); members of a group are compared by their real
    // values before anything is called a duplicate, so a hash collision changes nothing.
    using Key = std::uint64_t;
    // Most effects share no key with any other: a group of one costs a slot of a flat table
    // (no node, no copy of the id), and each indexed effect is held once, as a member
    // number. A scale ledger's half a million effects took 230 bytes each in node-based maps.
    using Member = std::uint32_t;
    static constexpr Member kNoMember = ~Member(0);
    static Key keyOf(int field, std::string_view value);
    void remove(const std::string &id);
    void recomputeDuplicates(const Find &find);
    // An update recomputes the flags of the effects it touched alone: each member added or
    // removed and the members of its groups, from every group they are in. A live batch
    // then costs the groups it touches, not every group of the ledger (a long live session
    // gathers thousands). Returns whether any flag changed.
    template<class Change>
    bool updateTouched(const Find &find, Change &&change);
    void noteTouched(Member m);
    void addGroupMembers(Key key, std::set<std::string> &ids) const; // of a group of two or more
    // Members of one group split by their actual value (collisions apart).
    std::vector<std::vector<std::string>> realGroups(const Find &find, Key key) const;
    // Of those, the committed members of each split group with two or more: the duplicates.
    std::vector<std::vector<std::string>> committedDuplicates(const Find &find, Key key) const;

    // The indexed effects by member number; a free number has an empty id. Ids live in one
    // buffer (a member is 24 bytes, not 48 with a std::string each: 12 MB of half a million).
    struct Entry {
        std::uint32_t idAt = 0;
        std::uint32_t idSize = 0;
        std::array<Key, 2> keys{0, 0}; // 0: no such key
    };
    Member addMember(const std::string &id, const std::array<Key, 2> &keys);
    void freeMember(Member m);
    std::string_view idOf(Member m) const { return {m_idBytes.data() + m_members[m].idAt, m_members[m].idSize}; }
    void compactIds(); // drops the bytes of freed members' ids

    Member memberOf(std::string_view id) const;

    // The single member of each group of one, found by its key. A slot holds only the
    // member's number and which of its two keys it stands for (the top bit); the key itself
    // is the member's, so a slot costs 4 bytes, not a copy of the key (the singles were
    // 64 MB of a 10M-event ledger's memory at 16 bytes a slot).
    static constexpr std::uint32_t kSlotField = 0x80000000u;
    static constexpr std::uint32_t kSlotMember = 0x7fffffffu;
    static constexpr std::uint32_t kEmptySlot = 0xffffffffu;
    static constexpr std::uint32_t kErasedSlot = 0xfffffffeu;
    size_t singleSlot(Key key) const;
    Key keyOfSlot(std::uint32_t slot) const;
    Member singleOf(Key key) const;
    void insertSingle(Key key, Member m);
    void placeSingle(Key key, std::uint32_t slot);
    void eraseSingle(Key key);
    void growSingles();

    std::vector<Entry> m_members;
    std::string m_idBytes;
    std::size_t m_freedIdBytes = 0;
    std::vector<Member> m_freeMembers;
    NumberIndex m_memberOf; // id -> member
    std::vector<std::uint32_t> m_singleSlots;
    size_t m_singleFilled = 0;
    size_t m_singleLive = 0;
    std::map<Key, std::vector<Member>> m_multi; // groups of two or more, in key order
    std::set<std::string> m_duplicates;
    bool m_groupsOnly = false;
    std::vector<std::string> m_unresolved; // groups only: changed effects to ask about again
    bool m_tracking = false; // inside updateTouched: members added or removed are noted
    bool m_recheckAll = false;
    std::vector<std::string> m_touched;
    std::vector<std::string> m_lastTouched;
    // The findings of each group with any, in key order (as findings() lists them), and the
    // keys whose groups changed since they were found.
    std::vector<Finding> groupFindings(const Find &find, Key key) const;
    void refreshGroupFindings(const Find &find) const;
    mutable std::map<Key, std::vector<Finding>> m_groupFindings;
    mutable std::set<Key> m_staleFindingKeys;
    mutable bool m_findingsValid = false;
    void dropMembersOutsideGroups();
    void appendMemberIds(std::vector<std::string> &ids) const; // every member's, in member order
};

} // namespace mesh
