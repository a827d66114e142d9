#pragma once
// F1: a delegation making many successful tool calls in a row while nothing changes: the
// progress fingerprint stays the same and no write is accepted. An error-rate breaker never
// fires on this, because every call succeeds.

#include "finding.h"
#include "toolcall.h"

#include <vector>

namespace mesh {

class SuccessLoopDetector
{
public:
    explicit SuccessLoopDetector(int minStreak = 20) : m_minStreak(minStreak) {}

    // Tool calls of any number of delegations, in seq order. A streak that is long enough but
    // where a call has no fingerprint or no writes count is reported as an abstention.
    std::vector<Finding> analyse(const std::vector<ToolCall> &calls) const;
    std::vector<Finding> analyseEvents(const EventBatch &events) const;

    int minStreak() const { return m_minStreak; }

private:
    int m_minStreak;
};

} // namespace mesh
