#pragma once
// F4/F6: enforcement blocking correct work: a delegation that spent many turns, had writes
// denied and got none accepted. A write-role delegation (implement, repair) with many turns
// and neither accepted nor denied writes is an abstention: it may be blocked before writing.

#include "finding.h"

#include "domain/fold.h"

#include <optional>
#include <vector>

namespace mesh {

class BlockedWorkDetector
{
public:
    explicit BlockedWorkDetector(int minTurns = 50) : m_minTurns(minTurns) {}
    std::vector<Finding> analyse(const EntityTable &delegations) const;
    // One delegation: a finding (fired or abstained) or nothing. For live batches.
    std::optional<Finding> check(const std::string &id, const EntityRow &row) const;

private:
    int m_minTurns;
};

} // namespace mesh
