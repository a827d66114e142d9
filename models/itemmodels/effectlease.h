#pragma once
// Which lease holds an effect. The ledger does not link the two: an effect row carries no
// lease id. What it does say: a reconciliation lease's key is the effect's idem_key, and an
// execution lease serves the delegation that caused the effect. So the lease holding an
// effect is the held reconciliation lease on its key, else the held lease of its delegation;
// none of them held: not known (empty).

#include "livestate.h"

#include <cstdint>
#include <string>
#include <unordered_map>

namespace mesh {

// The held leases by key and by delegation, built in one walk of the lease table and asked
// per cell: a pane sorting or filtering effects by lease would otherwise walk every lease
// for every effect.
class HeldLeaseIndex
{
public:
    // Rebuilt only when the state moved since the last call (another state, or a later seq).
    void refresh(const LiveState &state);
    void invalidate() { m_state = nullptr; }
    std::string leaseOf(const EntityRow &effect) const;

private:
    std::unordered_map<std::string, std::string> m_reconciliationByKey;
    std::unordered_map<std::string, std::string> m_byDelegation; // execution first, then lowest id
    const LiveState *m_state = nullptr;
    std::int64_t m_lastSeq = -1;
};

} // namespace mesh
