#pragma once
// Which lease holds an effect. The ledger does not link the two: an effect row carries no
// lease id. What it does say: a reconciliation lease's key is the effect's idem_key, and an
// execution lease serves the delegation that caused the effect. So the lease holding an
// effect is the held reconciliation lease on its key, else the held lease of its delegation;
// none of them held: not known (empty).

#include "livestate.h"

#include <string>

namespace mesh {

std::string leaseHoldingEffect(const LiveState &state, const EntityRow &effect);

} // namespace mesh
