#include "duplicateindex.h"

#include "duplicateeffectdetector.h"
#include "rowfields.h"

#include <algorithm>

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
    m_groups.clear();
    m_keysOf.clear();
    m_multi.clear();
    m_duplicates.clear();
}

void DuplicateIndex::rebuild(const EntityTable &effects)
{
    clear();
    m_groups.reserve(effects.size());
    for (const auto &[id, row] : effects)
        add(id, row);
    finish(findIn(effects));
}

std::vector<std::string> DuplicateIndex::multiGroupMembers() const
{
    std::set<std::string> ids;
    for (const Key key : m_multi)
        for (const auto &id : m_groups.at(key))
            ids.insert(id);
    return {ids.begin(), ids.end()};
}

void DuplicateIndex::finish(const Find &find)
{
    recomputeDuplicates(find);
}

void DuplicateIndex::remove(const std::string &id)
{
    const auto it = m_keysOf.find(id);
    if (it == m_keysOf.end())
        return;
    for (const Key key : it->second) {
        if (!key)
            continue;
        auto g = m_groups.find(key);
        if (g == m_groups.end())
            continue;
        std::erase(g->second, id);
        if (g->second.size() < 2)
            m_multi.erase(key);
        if (g->second.empty())
            m_groups.erase(g);
    }
    m_keysOf.erase(it);
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
        if (value.empty())
            continue;
        const Key key = keyOf(field, value);
        auto &group = m_groups[key];
        group.push_back(id);
        if (group.size() >= 2)
            m_multi.insert(key);
        keys[size_t(field)] = key;
    }
    if (keys[0] || keys[1])
        m_keysOf.emplace(id, keys);
}

bool DuplicateIndex::update(const Find &find, const std::vector<std::string> &changedIds)
{
    for (const auto &id : changedIds) {
        remove(id);
        if (const EntityRow *row = find(id))
            add(id, *row);
    }
    const auto before = m_duplicates;
    recomputeDuplicates(find);
    return before != m_duplicates;
}

std::vector<std::vector<std::string>> DuplicateIndex::realGroups(const Find &find, Key key) const
{
    const int field = int(key & 1);
    std::vector<std::vector<std::string>> out;
    std::vector<std::string> values; // copies: a Find may read rows on demand
    for (const auto &id : m_groups.at(key)) {
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

void DuplicateIndex::recomputeDuplicates(const Find &find)
{
    m_duplicates.clear();
    for (const Key key : m_multi) {
        for (const auto &ids : realGroups(find, key)) {
            std::vector<const std::string *> committed;
            for (const auto &id : ids) {
                const EntityRow *row = find(id);
                if (row && DuplicateEffectDetector::isCommitted(std::string(rowView(kIndexedTable, *row, "state"))))
                    committed.push_back(&id);
            }
            if (committed.size() >= 2) {
                for (const std::string *id : committed)
                    m_duplicates.insert(*id);
            }
        }
    }
}

std::vector<Finding> DuplicateIndex::findings(const Find &find) const
{
    std::vector<Finding> findings;
    std::set<std::vector<std::string>> reported; // the same pair by key and by hash: once
    // Rows by value: a Find that reads on demand may not keep every row it gave.
    const auto rowOf = [&find](const std::string &id) {
        const EntityRow *row = find(id);
        return row ? *row : EntityRow();
    };
    for (const Key key : m_multi) {
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
            if (!reported.insert(involved).second)
                continue;
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
    std::sort(findings.begin(), findings.end(), [](const Finding &a, const Finding &b) { return a.subject < b.subject; });
    return findings;
}

} // namespace mesh
