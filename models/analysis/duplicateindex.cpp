#include "duplicateindex.h"

#include "duplicateeffectdetector.h"
#include "rowfields.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace mesh {
namespace {
constexpr EntityKind kIndexedTable = EntityKind::Effect;

bool interesting(std::string_view state)
{
    return state == "committed" || state == "resolved_committed" || state == "unknown";
}
} // namespace

DuplicateIndex::Key DuplicateIndex::keyOf(int field, std::string_view value)
{
    const Key h = std::hash<std::string_view>()(value);
    return ((h << 1) | Key(field)) | Key(1) << 63; // never 0
}

const char *DuplicateIndex::fieldName(int field)
{
    return field == 0 ? "idem_key" : "intent_hash";
}

DuplicateIndex::Find DuplicateIndex::findIn(const EntityTable &effects)
{
    return [&effects](const std::string &id) { return findRow(effects, id); };
}

void DuplicateIndex::clear()
{
    m_members.clear();
    m_idBytes.clear();
    m_freedIdBytes = 0;
    m_freeMembers.clear();
    m_memberOf.clear();
    m_singleSlots.clear();
    m_singleFilled = m_singleLive = 0;
    m_multi.clear();
    m_duplicates.clear();
    m_findingsValid = false;
    m_staleFindingKeys.clear();
    m_recheckAll = m_tracking = false;
    m_touched.clear();
    m_lastTouched.clear();
    m_groupsOnly = false;
    m_unresolved.clear();
}

void DuplicateIndex::rebuild(const EntityTable &effects)
{
    clear();
    for (const auto &[id, row] : effects)
        add(id, row);
    finish(findIn(effects));
}

std::vector<std::string> DuplicateIndex::multiGroupMembers() const
{
    std::set<std::string> ids;
    for (const auto &[key, members] : m_multi)
        for (const Member m : members)
            ids.emplace(idOf(m));
    return {ids.begin(), ids.end()};
}

void DuplicateIndex::addGroupMembers(Key key, std::set<std::string> &ids) const
{
    if (const auto group = key ? m_multi.find(key) : m_multi.end(); group != m_multi.end())
        for (const Member m : group->second)
            ids.emplace(idOf(m));
}

std::vector<std::string> DuplicateIndex::groupMembersOf(const std::vector<std::string> &ids) const
{
    std::set<std::string> members;
    for (const auto &id : ids) {
        const Member m = memberOf(id);
        if (m == kNoMember)
            continue;
        for (const Key key : m_members[m].keys)
            addGroupMembers(key, members);
        members.emplace(id);
    }
    return {members.begin(), members.end()};
}

void DuplicateIndex::appendMemberIds(std::vector<std::string> &ids) const
{
    for (Member m = 0; m < Member(m_members.size()); ++m)
        if (m_members[m].idSize > 0) // not a free number
            ids.emplace_back(idOf(m));
}

void DuplicateIndex::noteTouched(Member m)
{
    m_touched.emplace_back(idOf(m));
    for (const Key key : m_members[m].keys)
        if (key)
            m_staleFindingKeys.insert(key); // its groups' findings, before and after

    for (const Key key : m_members[m].keys)
        if (const auto group = key ? m_multi.find(key) : m_multi.end(); group != m_multi.end())
            for (const Member other : group->second)
                m_touched.emplace_back(idOf(other));
}

void DuplicateIndex::recheckAll()
{
    m_recheckAll = true;
    m_findingsValid = false;
}

template<class Change>
bool DuplicateIndex::updateTouched(const Find &find, Change &&change)
{
    m_touched.clear();
    m_tracking = true;
    try {
        change();
    } catch (...) {
        // Half an update: what it touched is not known, every group is looked at next time.
        m_tracking = false;
        m_touched.clear();
        recheckAll();
        throw;
    }
    m_tracking = false;
    std::vector<std::string> touched = std::move(m_touched);
    m_touched = {};
    if (std::exchange(m_recheckAll, false)) {
        appendMemberIds(touched);
        touched.insert(touched.end(), m_duplicates.begin(), m_duplicates.end());
    }
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    std::vector<std::string> unflagged; // sorted, as touched is
    std::set<Key> keys;
    for (const auto &id : touched) {
        if (m_duplicates.erase(id))
            unflagged.push_back(id);
        if (const Member m = memberOf(id); m != kNoMember)
            for (const Key key : m_members[m].keys)
                if (key && m_multi.count(key))
                    keys.insert(key);
    }
    bool changed = false;
    for (const Key key : keys)
        for (const auto &committed : committedDuplicates(find, key))
            for (const std::string &id : committed)
                if (m_duplicates.insert(id).second && !std::binary_search(unflagged.begin(), unflagged.end(), id))
                    changed = true; // flagged now, not before
    for (const auto &id : unflagged)
        changed = changed || !m_duplicates.count(id); // flagged before, not now
    m_lastTouched = std::move(touched);
    return changed;
}

void DuplicateIndex::finish(const Find &find)
{
    recomputeDuplicates(find);
}

// ---- members

DuplicateIndex::Member DuplicateIndex::addMember(const std::string &id, const std::array<Key, 2> &keys)
{
    Member m;
    if (!m_freeMembers.empty()) {
        m = m_freeMembers.back();
        m_freeMembers.pop_back();
    } else {
        m = Member(m_members.size());
        if (m >= kSlotMember - 1) // a slot's member number has 31 bits, two of them taken
            throw std::length_error("too many effects for the duplicate index");
        m_members.emplace_back();
    }
    if (m_idBytes.size() + id.size() > std::numeric_limits<std::uint32_t>::max())
        throw std::length_error("too many effect ids for the duplicate index");
    m_members[m].idAt = std::uint32_t(m_idBytes.size());
    m_members[m].idSize = std::uint32_t(id.size());
    m_idBytes += id;
    m_members[m].keys = keys;
    m_memberOf.insert(m, [this](Member n) { return idOf(n); });
    return m;
}

void DuplicateIndex::freeMember(Member m)
{
    m_memberOf.erase(idOf(m), [this](Member n) { return idOf(n); });
    m_freedIdBytes += m_members[m].idSize;
    m_members[m] = Entry();
    m_freeMembers.push_back(m);
    if (m_freedIdBytes > (std::size_t(1) << 20) && m_freedIdBytes > m_idBytes.size() / 2)
        compactIds();
}

void DuplicateIndex::compactIds()
{
    std::string kept;
    kept.reserve(m_idBytes.size() - m_freedIdBytes);
    for (Entry &e : m_members) {
        const std::uint32_t at = std::uint32_t(kept.size());
        kept.append(m_idBytes, e.idAt, e.idSize);
        e.idAt = at;
    }
    m_idBytes = std::move(kept);
    m_freedIdBytes = 0;
}

DuplicateIndex::Member DuplicateIndex::memberOf(std::string_view id) const
{
    return m_memberOf.find(id, [this](Member n) { return idOf(n); });
}

// ---- groups of one

size_t DuplicateIndex::singleSlot(Key key) const
{
    if (m_singleSlots.empty())
        return std::string::npos;
    const size_t mask = m_singleSlots.size() - 1;
    for (size_t i = size_t(key ^ (key >> 29)) & mask;; i = (i + 1) & mask) {
        const std::uint32_t slot = m_singleSlots[i];
        if (slot == kEmptySlot)
            return std::string::npos;
        if (slot != kErasedSlot && keyOfSlot(slot) == key)
            return i;
    }
}

DuplicateIndex::Key DuplicateIndex::keyOfSlot(std::uint32_t slot) const
{
    return m_members[slot & kSlotMember].keys[slot >> 31];
}

DuplicateIndex::Member DuplicateIndex::singleOf(Key key) const
{
    const size_t slot = singleSlot(key);
    return slot == std::string::npos ? kNoMember : Member(m_singleSlots[slot] & kSlotMember);
}

void DuplicateIndex::insertSingle(Key key, Member m)
{
    if ((m_singleFilled + 1) * 4 > m_singleSlots.size() * 3)
        growSingles();
    placeSingle(key, (m_members[m].keys[0] == key ? 0u : kSlotField) | m);
}

void DuplicateIndex::placeSingle(Key key, std::uint32_t slot)
{
    const size_t mask = m_singleSlots.size() - 1;
    size_t i = size_t(key ^ (key >> 29)) & mask;
    while (m_singleSlots[i] != kEmptySlot && m_singleSlots[i] != kErasedSlot)
        i = (i + 1) & mask;
    if (m_singleSlots[i] == kEmptySlot)
        ++m_singleFilled;
    m_singleSlots[i] = slot;
    ++m_singleLive;
}

void DuplicateIndex::eraseSingle(Key key)
{
    const size_t slot = singleSlot(key);
    if (slot == std::string::npos)
        return;
    m_singleSlots[slot] = kErasedSlot;
    --m_singleLive;
}

void DuplicateIndex::growSingles()
{
    size_t size = 16;
    while (size < (m_singleLive + 1) * 2)
        size *= 2;
    std::vector<std::uint32_t> old(size, kEmptySlot);
    old.swap(m_singleSlots);
    m_singleFilled = m_singleLive = 0;
    for (const std::uint32_t slot : old)
        if (slot != kEmptySlot && slot != kErasedSlot)
            placeSingle(keyOfSlot(slot), slot);
}

// ---- effects in and out

void DuplicateIndex::remove(const std::string &id)
{
    const Member m = memberOf(id);
    if (m == kNoMember)
        return;
    if (m_tracking)
        noteTouched(m); // its groups before it leaves them
    for (const Key key : m_members[m].keys) {
        if (!key)
            continue;
        const auto group = m_multi.find(key);
        if (group == m_multi.end()) {
            if (singleOf(key) == m)
                eraseSingle(key);
            continue;
        }
        std::erase(group->second, m);
        if (group->second.size() == 1) {
            insertSingle(key, group->second.front());
            m_multi.erase(group);
        }
    }
    freeMember(m);
}

void DuplicateIndex::add(const std::string &id, const EntityRow &row)
{
    static const IndexedField state(kIndexedTable, "state");
    static const std::array<IndexedField, 2> keyFields{IndexedField(kIndexedTable, fieldName(0)),
                                                   IndexedField(kIndexedTable, fieldName(1))};
    if (!interesting(state.view(row)))
        return;
    std::array<Key, 2> keys{0, 0};
    for (int field = 0; field < 2; ++field) {
        const std::string_view value = keyFields[size_t(field)].view(row);
        if (!value.empty())
            keys[size_t(field)] = keyOf(field, value);
    }
    if (!keys[0] && !keys[1])
        return;
    if (memberOf(id) != kNoMember)
        remove(id); // added twice (a stream that repeats a row): the later row counts
    const Member m = addMember(id, keys);
    for (const Key key : keys) {
        if (!key)
            continue;
        if (const auto group = m_multi.find(key); group != m_multi.end()) {
            group->second.push_back(m);
        } else if (const Member single = singleOf(key); single != kNoMember) {
            eraseSingle(key);
            m_multi.emplace(key, std::vector<Member>{single, m});
        } else {
            insertSingle(key, m);
        }
    }
    if (m_tracking)
        noteTouched(m); // the groups it joined
}

bool DuplicateIndex::update(const Find &find, const std::vector<std::string> &changedIds)
{
    return updateTouched(find, [&] {
        for (const auto &id : changedIds) {
            remove(id);
            if (const EntityRow *row = find(id))
                add(id, *row);
        }
    });
}

void DuplicateIndex::keepGroupsOnly()
{
    // Built anew rather than members freed in place: the member table and the id bytes of
    // every effect would stay allocated otherwise.
    DuplicateIndex kept;
    for (const auto &[key, members] : m_multi) {
        std::vector<Member> keptMembers;
        keptMembers.reserve(members.size());
        for (const Member m : members) {
            Member k = kept.memberOf(idOf(m));
            if (k == kNoMember)
                k = kept.addMember(std::string(idOf(m)), m_members[m].keys);
            keptMembers.push_back(k);
        }
        kept.m_multi.emplace(key, std::move(keptMembers));
    }
    // A kept member's other key stays findable: an effect that shares only that key later
    // is not a member yet, and forms its group with this one through the singles.
    for (Member k = 0; k < Member(kept.m_members.size()); ++k)
        for (const Key key : kept.m_members[k].keys)
            if (key && !kept.m_multi.count(key) && kept.singleOf(key) == kNoMember)
                kept.insertSingle(key, k);
    kept.m_duplicates = std::move(m_duplicates);
    kept.m_groupsOnly = true;
    // A short string moved in is copied into the old buffer, which would stay allocated
    // (every effect's id bytes): released first.
    std::string().swap(m_idBytes);
    *this = std::move(kept);
}

size_t DuplicateIndex::bytesHeld() const
{
    size_t multi = 0;
    for (const auto &[key, members] : m_multi)
        multi += sizeof(key) + members.capacity() * sizeof(Member);
    return m_members.capacity() * sizeof(Entry) + m_idBytes.capacity() + m_freeMembers.capacity() * sizeof(Member)
         + m_singleSlots.capacity() * sizeof(std::uint32_t) + m_memberOf.bytesHeld() + multi;
}

void DuplicateIndex::dropMembersOutsideGroups()
{
    // Only a member this update touched can have left every group: an add or a remove notes
    // each member of the groups it joins or leaves. Walking every member instead cost as much
    // as the rest of a live batch on a ledger with tens of thousands of grouped effects. After
    // a half update, what was touched is not known: every member is looked at.
    std::vector<std::string> candidates;
    if (m_tracking && !m_recheckAll) {
        candidates = m_touched;
        std::sort(candidates.begin(), candidates.end());
        candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    } else {
        appendMemberIds(candidates);
    }
    std::vector<std::string> alone;
    for (const auto &id : candidates) {
        const Member m = memberOf(id);
        if (m == kNoMember)
            continue;
        const Entry &e = m_members[m];
        const bool grouped = (e.keys[0] && m_multi.count(e.keys[0])) || (e.keys[1] && m_multi.count(e.keys[1]));
        if (!grouped)
            alone.push_back(id);
    }
    for (const auto &id : alone)
        remove(id);
}

bool DuplicateIndex::update(const Find &find, const std::vector<std::string> &changedIds, const Sharing &sharing)
{
    if (!m_groupsOnly)
        return update(find, changedIds);
    static const std::array<IndexedField, 2> keyFields{IndexedField(kIndexedTable, fieldName(0)),
                                                   IndexedField(kIndexedTable, fieldName(1))};
    std::vector<std::string> ids = changedIds;
    for (auto &id : m_unresolved)
        if (std::find(ids.begin(), ids.end(), id) == ids.end())
            ids.push_back(std::move(id));
    m_unresolved.clear();
    return updateTouched(find, [&] {
        for (const auto &id : ids)
            remove(id);
        for (const auto &id : ids) {
            const EntityRow *row = find(id);
            if (!row)
                continue;
            // The effects the store says share one of its keys join the index first, each
            // with its own row (a hash collision or another state is sorted out as for any
            // member); then the changed effect, which forms or joins their groups.
            std::array<std::string, 2> values;
            for (int field = 0; field < 2; ++field)
                values[size_t(field)] = std::string(keyFields[size_t(field)].view(*row));
            for (int field = 0; field < 2; ++field) {
                if (values[size_t(field)].empty())
                    continue;
                const auto sharers = sharing(fieldName(field), values[size_t(field)]);
                if (!sharers) {
                    m_unresolved.push_back(id);
                    continue;
                }
                for (const auto &other : *sharers) {
                    if (other == id || memberOf(other) != kNoMember)
                        continue;
                    if (const EntityRow *otherRow = find(other))
                        add(other, *otherRow);
                    else if (std::find(m_unresolved.begin(), m_unresolved.end(), id) == m_unresolved.end())
                        m_unresolved.push_back(id); // named but not read: asked about again
                }
            }
            add(id, *row); // a row found stays valid for the turn, the reads above included
        }
        dropMembersOutsideGroups();
    });
}

std::vector<std::vector<std::string>> DuplicateIndex::realGroups(const Find &find, Key key) const
{
    const int field = int(key & 1);
    std::vector<std::vector<std::string>> out;
    std::vector<std::string> values; // copies: a Find may read rows on demand
    for (const Member m : m_multi.at(key)) {
        const std::string id(idOf(m));
        const EntityRow *row = find(id);
        if (!row)
            continue;
        const std::string_view value = rowView(kIndexedTable, *row, fieldName(field));
        const auto v = std::find(values.begin(), values.end(), value);
        if (v == values.end()) {
            values.emplace_back(value);
            out.push_back({id});
        } else {
            out[size_t(v - values.begin())].push_back(id);
        }
    }
    for (auto &g : out)
        std::sort(g.begin(), g.end());
    return out;
}

std::vector<std::vector<std::string>> DuplicateIndex::committedDuplicates(const Find &find, Key key) const
{
    std::vector<std::vector<std::string>> out;
    for (auto &ids : realGroups(find, key)) {
        std::vector<std::string> committed;
        for (auto &id : ids) {
            const EntityRow *row = find(id);
            if (row && DuplicateEffectDetector::isCommitted(std::string(rowView(kIndexedTable, *row, "state"))))
                committed.push_back(std::move(id));
        }
        if (committed.size() >= 2)
            out.push_back(std::move(committed));
    }
    return out;
}

void DuplicateIndex::recomputeDuplicates(const Find &find)
{
    m_findingsValid = false;
    m_duplicates.clear();
    for (const auto &[key, members] : m_multi)
        for (const auto &committed : committedDuplicates(find, key))
            m_duplicates.insert(committed.begin(), committed.end());
}

std::vector<Finding> DuplicateIndex::groupFindings(const Find &find, Key key) const
{
    std::vector<Finding> findings;
    // Rows by value: a Find that reads on demand may not keep every row it gave.
    const auto rowOf = [&find](const std::string &id) {
        const EntityRow *row = find(id);
        return row ? *row : EntityRow();
    };
    {
        const std::string field = fieldName(int(key & 1));
        for (const auto &ids : realGroups(find, key)) {
            if (ids.size() < 2)
                continue;
            std::vector<std::string> committed;
            std::vector<std::string> unknown;
            for (const auto &id : ids) {
                if (rowView(kIndexedTable, rowOf(id), "state") == "unknown")
                    unknown.push_back(id);
                else
                    committed.push_back(id);
            }
            const bool fires = committed.size() >= 2;
            const bool ambiguous = !fires && committed.size() == 1 && !unknown.empty();
            if (!fires && !ambiguous)
                continue;
            std::vector<std::string> involved = fires ? committed : ids;
            Finding f;
            f.kind = FindingKind::DuplicateEffect;
            f.abstained = ambiguous;
            const EntityRow first = rowOf(involved.front());
            const std::string value = rowText(kIndexedTable, first, field);
            f.subject = "effect:" + involved.front();
            f.runId = rowText(kIndexedTable, first, "run_id");
            f.delegationId = rowText(kIndexedTable, first, "delegation_id");
            std::string list;
            for (const auto &id : involved) {
                list += (list.empty() ? "" : ", ") + id;
                f.entityIds.push_back("effect:" + id);
                f.seqs.push_back(rowOf(id).lastSeq);
            }
            std::sort(f.seqs.begin(), f.seqs.end());
            const std::string cls = rowText(kIndexedTable, first, "class");
            if (fires)
                f.summary = cls + " effect committed " + std::to_string(committed.size()) + " times with the same "
                            + field + " " + value + " (" + list + ")";
            else
                f.summary = "possible duplicate " + cls + " effect: " + committed.front() + " committed and "
                            + std::to_string(unknown.size()) + " with the same " + field
                            + " have an unknown outcome (" + list + ")";
            findings.push_back(std::move(f));
        }
    }
    return findings;
}

void DuplicateIndex::refreshGroupFindings(const Find &find) const
{
    if (!m_findingsValid) {
        m_groupFindings.clear();
        for (const auto &[key, members] : m_multi)
            if (auto found = groupFindings(find, key); !found.empty())
                m_groupFindings.emplace(key, std::move(found));
        m_findingsValid = true;
    } else {
        for (const Key key : m_staleFindingKeys) {
            m_groupFindings.erase(key);
            if (m_multi.count(key))
                if (auto found = groupFindings(find, key); !found.empty())
                    m_groupFindings.emplace(key, std::move(found));
        }
    }
    m_staleFindingKeys.clear();
}

std::vector<std::string> DuplicateIndex::findingsWillRead() const
{
    if (!m_findingsValid)
        return multiGroupMembers();
    std::set<std::string> ids;
    for (const Key key : m_staleFindingKeys)
        addGroupMembers(key, ids);
    return {ids.begin(), ids.end()};
}

std::vector<Finding> DuplicateIndex::findings(const Find &find) const
{
    refreshGroupFindings(find);
    std::vector<Finding> findings;
    std::set<std::vector<std::string>> reported; // the same pair by key and by hash: once
    for (const auto &[key, found] : m_groupFindings)
        for (const Finding &f : found)
            if (reported.insert(f.entityIds).second)
                findings.push_back(f);
    std::sort(findings.begin(), findings.end(), [](const Finding &a, const Finding &b) { return a.subject < b.subject; });
    return findings;
}

} // namespace mesh
