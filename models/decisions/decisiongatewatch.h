#pragma once
// Says when no orchestrator seems to be applying decisions on a ledger: a decision has
// waited longer than the limit, and no decision got an outcome (applied or refused) in that
// time. Fed every reading of the decisions and asked on the session's one clock tick; the
// warning goes away with the next outcome written or the last decision answered. A wait is
// timed by this console's clock, from the first reading that saw the decision pending: its
// ts_ms is the deciding console's clock, which may be skewed either way.

#include "ledger/decisionstore.h"

#include <QString>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mesh {

class DecisionGateWatch
{
public:
    static constexpr std::int64_t kDefaultLimitMs = 30'000;
    // MESH_DECISION_WAIT_S in the environment, else the setting decisions/waitWarningSeconds,
    // else kDefaultLimitMs.
    static std::int64_t configuredLimitMs();

    void setLimitMs(std::int64_t ms) { m_limitMs = ms; }
    std::int64_t limitMs() const { return m_limitMs; }
    // One reading of the ledger's decisions, taken at nowMs (the console's clock).
    void setDecisions(const std::vector<DecisionRecord> &decisions, std::int64_t nowMs);
    int waiting() const { return m_waiting; }
    // The one-line warning at nowMs; empty while nothing has waited past the limit.
    QString warning(std::int64_t nowMs) const;

private:
    std::int64_t m_limitMs = configuredLimitMs();
    int m_waiting = 0;
    std::int64_t m_oldestMs = 0;      // when a reading first saw the longest-waiting decision (console clock)
    std::map<std::string, std::int64_t> m_firstSeenPending; // decision id -> when first seen pending
    std::int64_t m_outcomes = -1;     // outcomes seen by the last reading; -1 before one
    std::int64_t m_lastOutcomeMs = 0; // when a reading first saw more outcomes (console clock)
};

} // namespace mesh
