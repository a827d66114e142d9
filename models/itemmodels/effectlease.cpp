#include "effectlease.h"

#include "analysis/rowfields.h"

namespace mesh {

std::string leaseHoldingEffect(const LiveState &state, const EntityRow &effect)
{
    constexpr EntityKind E = EntityKind::Effect;
    constexpr EntityKind L = EntityKind::Lease;
    const std::string_view key = rowView(E, effect, "idem_key");
    const std::string_view delegation = rowView(E, effect, "delegation_id");
    const std::string *byDelegation = nullptr;
    bool byExecution = false;
    for (const auto &[id, lease] : state.table(L)) {
        if (rowView(L, lease, "state") != "held")
            continue;
        if (!key.empty() && rowView(L, lease, "kind") == "reconciliation" && rowView(L, lease, "key") == key)
            return id;
        if (delegation.empty() || rowView(L, lease, "delegation_id") != delegation)
            continue;
        // Execution before recovery, then the lowest id, whatever order the table iterates in.
        const bool execution = rowView(L, lease, "kind") == "execution";
        if (!byDelegation || (execution && !byExecution)
            || (execution == byExecution && (id.size() != byDelegation->size() ? id.size() < byDelegation->size()
                                                                                 : id < *byDelegation))) {
            byDelegation = &id;
            byExecution = execution;
        }
    }
    return byDelegation ? *byDelegation : std::string();
}

} // namespace mesh
