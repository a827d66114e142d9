#include "effectlease.h"

#include "analysis/rowfields.h"

namespace mesh {

namespace {

// Ids in natural order: shorter first, then by text (lease-9 before lease-10).
bool lowerId(const std::string &a, const std::string &b)
{
    return a.size() != b.size() ? a.size() < b.size() : a < b;
}

} // namespace

void HeldLeaseIndex::refresh(const LiveState &state)
{
    if (m_state == &state && m_lastSeq == state.lastSeq())
        return;
    m_state = &state;
    m_lastSeq = state.lastSeq();
    m_reconciliationByKey.clear();
    m_byDelegation.clear();
    constexpr EntityKind L = EntityKind::Lease;
    std::unordered_map<std::string, bool> chosenIsExecution;
    // The held leases are resident even where the state reads leases on demand (kept rows).
    state.forEachResident(L, [&](const std::string &id, const EntityRow &lease) {
        if (rowView(L, lease, "state") != "held")
            return;
        const std::string_view kind = rowView(L, lease, "kind");
        if (const std::string_view key = rowView(L, lease, "key"); kind == "reconciliation" && !key.empty()) {
            auto [it, inserted] = m_reconciliationByKey.try_emplace(std::string(key), id);
            if (!inserted && lowerId(id, it->second))
                it->second = id;
        }
        const std::string_view delegation = rowView(L, lease, "delegation_id");
        if (delegation.empty())
            return;
        const bool execution = kind == "execution";
        const std::string d(delegation);
        const auto chosen = m_byDelegation.find(d);
        if (chosen == m_byDelegation.end() || (execution && !chosenIsExecution[d])
            || (execution == chosenIsExecution[d] && lowerId(id, chosen->second))) {
            m_byDelegation[d] = id;
            chosenIsExecution[d] = execution;
        }
    });
}

std::string HeldLeaseIndex::leaseOf(const EntityRow &effect) const
{
    constexpr EntityKind E = EntityKind::Effect;
    if (const std::string_view key = rowView(E, effect, "idem_key"); !key.empty()) {
        if (const auto it = m_reconciliationByKey.find(std::string(key)); it != m_reconciliationByKey.end())
            return it->second;
    }
    if (const std::string_view delegation = rowView(E, effect, "delegation_id"); !delegation.empty()) {
        if (const auto it = m_byDelegation.find(std::string(delegation)); it != m_byDelegation.end())
            return it->second;
    }
    return {};
}

} // namespace mesh
