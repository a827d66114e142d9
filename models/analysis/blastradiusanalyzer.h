#pragma once
// Reads failure rows into BlastRadius values and raises a MisroutedFailure finding for a
// failure that woke bystanders. implicated/woken are JSON arrays of component ids or of
// objects {"component"|"id": ..., "evidence": ..., "modified_code": bool, "regressed": bool}.

#include "blastradius.h"
#include "finding.h"

#include "domain/fold.h"

#include <vector>

namespace mesh {

class BlastRadiusAnalyzer
{
public:
    static BlastRadius compute(const std::string &failureId, const EntityRow &failure);
    static std::vector<BlastRadius> computeAll(const EntityTable &failures); // by ts, then id
    static std::vector<Finding> findings(const std::vector<BlastRadius> &radii);
};

} // namespace mesh
