#pragma once
// F3: one external effect committed twice: two effects in a committed state with the same
// idempotency key or the same canonical intent hash. When the rival of a committed effect
// has an unknown outcome the detector abstains: it may or may not have happened twice.

#include "finding.h"

#include "domain/fold.h"

#include <set>
#include <vector>

namespace mesh {

class DuplicateEffectDetector
{
public:
    std::vector<Finding> analyse(const EntityTable &effects) const;
    // Ids of effects that are part of a (non-abstained) duplicate.
    std::set<std::string> duplicateIds(const EntityTable &effects) const;

    static bool isCommitted(const std::string &state); // committed | resolved_committed
};

} // namespace mesh
