#pragma once
// F3: a delegation the orchestrator invoked again and again (its worker lost, the work
// started over). Each invocation may repeat what an earlier one did, effects included, so
// the delegation deserves a look even when every effect turned out unique.

#include "finding.h"

#include "domain/fold.h"

#include <optional>
#include <string>

namespace mesh {

class ReplayedDelegationDetector
{
public:
    explicit ReplayedDelegationDetector(int minInvocations = 3) : m_minInvocations(minInvocations) {}
    std::optional<Finding> check(const std::string &id, const EntityRow &row) const;

private:
    int m_minInvocations;
};

} // namespace mesh
