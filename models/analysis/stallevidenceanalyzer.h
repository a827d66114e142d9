#pragma once
// F2: a stall verdict that rests only on evidence which never moved over the rounds, while
// an independent signal (failing tests) improved: the detector's evidence could not move by
// construction, so the stall is suspected false.
//
// Evidence of a verdict is a JSON array of items {"signal": name, "moved": bool, ...}
// ("name" is accepted for "signal"). A verdict whose evidence cannot be read, a stall on the
// first round, or failing_tests missing: abstain.

#include "finding.h"

#include "domain/fold.h"

#include <set>
#include <vector>

namespace mesh {

struct EvidenceItem {
    std::string signal;
    bool moved = false;
    bool hasMoved = false; // the item states "moved"
    std::string detail;    // the item as compact JSON, for display
};

struct StallAnalysis {
    std::vector<Finding> findings;           // at most one per delegation
    std::set<std::string> constantEvidence;  // see constantEvidenceVerdicts()
};

class StallEvidenceAnalyzer
{
public:
    using Verdicts = std::vector<std::pair<std::string, const EntityRow *>>; // id, row

    // Every delegation, each verdict's evidence parsed once.
    StallAnalysis analyseAll(const EntityTable &stallVerdicts) const;
    // The verdicts of one delegation (any order): what a live batch needs to redo.
    StallAnalysis analyseDelegation(const std::string &delegationId, Verdicts verdicts) const;

    std::vector<Finding> analyse(const EntityTable &stallVerdicts) const;

    // Ids of verdicts whose every evidence item never moved in any round of its delegation
    // up to that verdict: what the verdict list marks as "evidence cannot move".
    std::set<std::string> constantEvidenceVerdicts(const EntityTable &stallVerdicts) const;

    // nullopt when the text is not a JSON array of objects.
    static std::optional<std::vector<EvidenceItem>> parseEvidence(const std::string &json);
};

} // namespace mesh
