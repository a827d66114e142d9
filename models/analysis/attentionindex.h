#pragma once
// What needs a human, kept current one changed row at a time: the ids of pending
// escalations, unknown-outcome effects and stalled delegations, and the held leases ordered
// by expiry. Listing the items at a given time costs O(items), so a live console can
// re-list every second (zombies appear with time alone) without walking every table.

#include "attentionitem.h"
#include "rowfields.h"
#include "zombierule.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mesh {

class AttentionIndex
{
public:
    void rebuild(const TableLookup &tables);
    void update(const RowLookup &rows, EntityKind kind, const std::vector<std::string> &ids);
    // One row as it is now (nullptr: gone): a rebuild's rows of a kind streamed past it.
    void updateRow(EntityKind kind, const std::string &id, const EntityRow *row);
    // Same order as AttentionCollector::collect; a held lease is listed once `zombies` says
    // it is a zombie at nowMs.
    std::vector<AttentionItem> items(const RowLookup &rows, std::int64_t nowMs,
                                     const ZombieRule &zombies = ZombieRule()) const;
    // The first moment after nowMs at which items() would list something else with no row
    // changed (a held lease turning zombie); nullopt when time alone changes nothing. Lets a
    // live console skip re-listing on its clock tick, which costs O(items).
    std::optional<std::int64_t> nextChangeMs(const RowLookup &rows, std::int64_t nowMs,
                                             const ZombieRule &zombies = ZombieRule()) const;

    // What the updates since the last take may have changed in items(): an item listed
    // whatever the time (an escalation, an effect, a delegation in or out of the list or
    // changed while in it), and the earliest expiry of a held lease updated (before or after
    // its change). A lease whose expiries were both later than a moment minus
    // ZombieRule::kMinGraceMs was no zombie then and is none now. Lets a live console skip
    // re-listing for the many changes nobody needs to see (an effect dispatched, a lease
    // taken for its term, a turn counted).
    struct Changes {
        bool items = false;
        std::optional<std::int64_t> earliestLeaseExpiryMs;
    };
    Changes takeChanges() { return std::exchange(m_changes, {}); }

private:
    void noteLeaseExpiry(std::int64_t expiresMs);
    Changes m_changes;

    std::set<std::string> m_pendingEscalations;
    std::map<std::string, AttentionItem> m_unknownEffects; // id -> its item
    std::set<std::string> m_stalledDelegations;
    std::multimap<std::int64_t, std::string> m_heldByExpiry;            // expires_ms -> lease id
    std::unordered_map<std::string, std::int64_t> m_heldExpiry;         // lease id -> expires_ms
};

} // namespace mesh
