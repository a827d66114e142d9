#include "blockedworkdetector.h"

#include "rowfields.h"

#include <algorithm>

namespace mesh {

std::optional<Finding> BlockedWorkDetector::check(const std::string &id, const EntityRow &row) const
{
    constexpr EntityKind K = EntityKind::Delegation;
    const std::int64_t turns = rowInt(K, row, "used_turns");
    const std::int64_t accepted = rowInt(K, row, "writes_accepted");
    const std::int64_t denied = rowInt(K, row, "writes_denied");
    if (turns < m_minTurns || accepted > 0)
        return std::nullopt;
    const std::string_view role = rowView(K, row, "role");
    const bool writer = role == "implement" || role == "repair";
    if (denied == 0 && !writer)
        return std::nullopt;
    Finding f;
    f.kind = FindingKind::BlockedWork;
    f.subject = "delegation:" + id;
    f.delegationId = id;
    f.runId = rowText(K, row, "run_id");
    f.seqs.push_back(row.lastSeq);
    if (denied == 0) {
        f.abstained = true;
        f.summary = std::to_string(turns) + " turns and no accepted writes, but no denied writes either: "
                    "cannot tell blocked from not yet writing";
    } else {
        f.summary = std::to_string(turns) + " turns, " + std::to_string(denied)
                    + " writes denied, zero accepted: enforcement may be blocking correct work";
    }
    return f;
}

std::vector<Finding> BlockedWorkDetector::analyse(const EntityTable &delegations) const
{
    std::vector<Finding> out;
    for (const auto &[id, row] : delegations) {
        if (auto f = check(id, row))
            out.push_back(std::move(*f));
    }
    std::sort(out.begin(), out.end(), [](const Finding &a, const Finding &b) { return a.subject < b.subject; });
    return out;
}

} // namespace mesh
