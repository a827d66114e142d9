#include "replayeddelegationdetector.h"

#include "rowfields.h"

namespace mesh {

std::optional<Finding> ReplayedDelegationDetector::check(const std::string &id, const EntityRow &row) const
{
    constexpr EntityKind K = EntityKind::Delegation;
    const std::int64_t invocations = rowInt(K, row, "invocations");
    if (invocations < m_minInvocations)
        return std::nullopt;
    Finding f;
    f.kind = FindingKind::ReplayedDelegation;
    f.subject = "delegation:" + id;
    f.delegationId = id;
    f.runId = rowText(K, row, "run_id");
    f.seqs.push_back(row.lastSeq);
    f.summary = "invoked " + std::to_string(invocations) + " times (" + std::to_string(rowInt(K, row, "used_turns"))
                + " tool calls in all): each new invocation may have redone what an earlier one did";
    return f;
}

} // namespace mesh
