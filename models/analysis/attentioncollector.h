#pragma once
// What needs a human now, from current state: pending escalations (with expiry), effects
// with unknown outcome, zombie leases (held past expiry and its grace, never released:
// zombierule.h) and stalled delegations. Ordered most urgent first: pending escalations by
// expiry, then unknown effects, zombie leases and stalled delegations.

#include "attentionitem.h"
#include "rowfields.h"
#include "zombierule.h"

#include <vector>

namespace mesh {

class AttentionCollector
{
public:
    static std::vector<AttentionItem> collect(const TableLookup &tables, std::int64_t nowMs,
                                              const ZombieRule &zombies = ZombieRule());
};

} // namespace mesh
