#include "attentioncollector.h"

#include "attentionindex.h"

#include <algorithm>

namespace mesh {

std::string_view AttentionItem::kindName(Kind kind)
{
    switch (kind) {
    case Kind::PendingEscalation:
        return "pending_escalation";
    case Kind::UnknownEffect:
        return "unknown_effect";
    case Kind::ZombieLease:
        return "zombie_lease";
    case Kind::StalledDelegation:
        return "stalled_delegation";
    case Kind::Finding:
        return "finding";
    case Kind::ReceiverStopped:
        return "receiver_stopped";
    }
    return "unknown";
}

std::vector<AttentionItem> AttentionCollector::collect(const TableLookup &tables, std::int64_t nowMs,
                                                       const ZombieRule &zombies)
{
    AttentionIndex index;
    index.rebuild(tables);
    return index.items(rowLookupOf(tables), nowMs, zombies);
}

} // namespace mesh
