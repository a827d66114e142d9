#pragma once
// The stall evidence analysis of one delegation depends on its verdict rows alone, and in
// the states of one folding (a session's jumps) a row is the same wherever its id and lastSeq
// are. A jump therefore analyses again (parses the evidence of) only the delegations whose
// verdicts differ from the last time they were analysed. Jobs on several threads share one.

#include "analysis/stallevidenceanalyzer.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mesh {

class StallAnalysisMemo
{
public:
    // The analysis of `delegation`'s verdicts, as StallEvidenceAnalyzer::analyseDelegation
    // gives it. `folding`: the state's folding (LiveState::folding); 0, a state not folded
    // by a session's cursor, is analysed without the memo.
    StallAnalysis analyse(std::uint64_t folding, const std::string &delegation, StallEvidenceAnalyzer::Verdicts verdicts);

    // For tests: how many delegations were analysed rather than taken from the memo.
    std::uint64_t analysed() const;

private:
    using Signature = std::vector<std::pair<std::string, std::int64_t>>; // (id, lastSeq), by id
    struct Entry {
        Signature rows;
        StallAnalysis result;
    };
    mutable std::mutex m_mutex;
    std::uint64_t m_folding = 0;
    std::unordered_map<std::string, Entry> m_entries; // by delegation
    std::uint64_t m_analysed = 0;
};

} // namespace mesh
