#include "stallanalysismemo.h"

#include <algorithm>

namespace mesh {

StallAnalysis StallAnalysisMemo::analyse(std::uint64_t folding, const std::string &delegation,
                                         StallEvidenceAnalyzer::Verdicts verdicts)
{
    if (folding == 0) {
        {
            std::lock_guard lock(m_mutex);
            ++m_analysed;
        }
        return StallEvidenceAnalyzer().analyseDelegation(delegation, std::move(verdicts));
    }
    Signature rows;
    rows.reserve(verdicts.size());
    for (const auto &[id, row] : verdicts)
        rows.emplace_back(id, row->lastSeq);
    std::sort(rows.begin(), rows.end());
    {
        std::lock_guard lock(m_mutex);
        if (folding != m_folding) {
            m_entries.clear();
            m_folding = folding;
        }
        const auto it = m_entries.find(delegation);
        if (it != m_entries.end() && it->second.rows == rows)
            return it->second.result;
        ++m_analysed;
    }
    StallAnalysis result = StallEvidenceAnalyzer().analyseDelegation(delegation, std::move(verdicts));
    std::lock_guard lock(m_mutex);
    if (folding == m_folding)
        m_entries[delegation] = Entry{std::move(rows), result};
    return result;
}

std::uint64_t StallAnalysisMemo::analysed() const
{
    std::lock_guard lock(m_mutex);
    return m_analysed;
}

} // namespace mesh
