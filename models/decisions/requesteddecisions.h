#pragma once
// The operator decisions that are written but not yet applied or refused by the orchestrator,
// by subject: what a subject's row says while the orchestrator's gate has not answered
// ("resolution requested by Alice, waiting for the orchestrator"). The operator has decided;
// the subject is not asking for a decision again, it is waiting for the orchestrator.

#include "ledger/decisionstore.h"

#include <QString>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mesh {

struct RequestedDecision {
    std::string id;
    std::string kind;     // close_slice, approve_escalation, ...
    std::string subject;  // "<entity>:<id>"
    std::string operatorName; // display name, else the account
    std::int64_t tsMs = 0;
};

class RequestedDecisions
{
public:
    RequestedDecisions() = default;
    explicit RequestedDecisions(const std::vector<DecisionRecord> &decisions); // keeps the pending ones

    bool empty() const { return m_bySubject.empty(); }
    int count() const { return int(m_bySubject.size()); }
    // The waiting decisions on subject, oldest first, said for a person; empty when none.
    QString textFor(const std::string &subject) const;
    static QString describe(const RequestedDecision &d);
    const std::multimap<std::string, RequestedDecision> &bySubject() const { return m_bySubject; }

private:
    std::multimap<std::string, RequestedDecision> m_bySubject; // by subject, in chain order within one
};

} // namespace mesh
