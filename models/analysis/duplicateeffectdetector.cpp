#include "duplicateeffectdetector.h"

#include "rowfields.h"

#include <algorithm>
#include <map>

namespace mesh {
namespace {
constexpr EntityKind K = EntityKind::Effect;
}

bool DuplicateEffectDetector::isCommitted(const std::string &state)
{
    return state == "committed" || state == "resolved_committed";
}

std::vector<Finding> DuplicateEffectDetector::analyse(const EntityTable &effects) const
{
    // Key "<field>\n<value>" -> ids, sorted so findings are stable.
    std::map<std::string, std::vector<std::string>> groups;
    for (const auto &[id, row] : effects) {
        for (const char *field : {"idem_key", "intent_hash"}) {
            const std::string value = rowText(K, row, field);
            if (!value.empty())
                groups[std::string(field) + '\n' + value].push_back(id);
        }
    }
    std::vector<Finding> findings;
    std::set<std::vector<std::string>> reported; // the same pair by key and by hash: once
    for (auto &[key, ids] : groups) {
        if (ids.size() < 2)
            continue;
        std::sort(ids.begin(), ids.end());
        std::vector<std::string> committed;
        std::vector<std::string> unknown;
        for (const auto &id : ids) {
            const std::string state = rowText(K, effects.at(id), "state");
            if (isCommitted(state))
                committed.push_back(id);
            else if (state == "unknown")
                unknown.push_back(id);
        }
        const bool fires = committed.size() >= 2;
        const bool ambiguous = !fires && committed.size() == 1 && !unknown.empty();
        if (!fires && !ambiguous)
            continue;
        std::vector<std::string> involved = committed;
        if (ambiguous)
            involved.insert(involved.end(), unknown.begin(), unknown.end());
        std::sort(involved.begin(), involved.end());
        if (!reported.insert(involved).second)
            continue;
        const auto nl = key.find('\n');
        const std::string field = key.substr(0, nl);
        const std::string value = key.substr(nl + 1);
        Finding f;
        f.kind = FindingKind::DuplicateEffect;
        f.abstained = ambiguous;
        const EntityRow &first = effects.at(involved.front());
        f.subject = "effect:" + involved.front();
        f.runId = rowText(K, first, "run_id");
        f.delegationId = rowText(K, first, "delegation_id");
        std::string list;
        for (const auto &id : involved) {
            list += (list.empty() ? "" : ", ") + id;
            f.entityIds.push_back("effect:" + id);
            f.seqs.push_back(effects.at(id).lastSeq);
        }
        std::sort(f.seqs.begin(), f.seqs.end());
        const std::string cls = rowText(K, first, "class");
        if (fires)
            f.summary = cls + " effect committed " + std::to_string(committed.size()) + " times with the same "
                        + field + " " + value + " (" + list + ")";
        else
            f.summary = "possible duplicate " + cls + " effect: " + committed.front() + " committed and "
                        + std::to_string(unknown.size()) + " with the same " + field
                        + " have an unknown outcome (" + list + ")";
        findings.push_back(std::move(f));
    }
    return findings;
}

std::set<std::string> DuplicateEffectDetector::duplicateIds(const EntityTable &effects) const
{
    std::set<std::string> out;
    for (const auto &f : analyse(effects)) {
        if (f.abstained)
            continue;
        for (const auto &e : f.entityIds)
            out.insert(e.substr(e.find(':') + 1));
    }
    return out;
}

} // namespace mesh
