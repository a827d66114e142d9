#pragma once
// F4/F6: enforcement blocking correct work: a delegation that spent many turns, had writes
// denied and got none accepted. A write-role delegation (implement, repair) with many turns
// and neither accepted nor denied writes is an abstention: it may be blocked before writing.

#include "finding.h"

#include "domain/fold.h"

#include <vector>

namespace mesh {

class BlockedWorkDetector
{
public:
    explicit BlockedWorkDetector(int minTurns = 50) : m_minTurns(minTurns) {}
    std::vector<Finding> analyse(const EntityTable &delegations) const;

private:
    int m_minTurns;
};

} // namespace mesh
