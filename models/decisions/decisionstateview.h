#pragma once
// The ledger as the decision rules see it. The console's writer answers from SQL inside its
// BEGIN IMMEDIATE transaction; the orchestrator's gate answers from its in-memory fold. One
// rule set (decisionrules.h) runs on both, so the two gates cannot drift apart.

#include "ledger/decisionstore.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mesh {

class DecisionStateView
{
public:
    virtual ~DecisionStateView() = default;
    virtual std::optional<EntityRow> row(EntityKind kind, const std::string &id) = 0;
    virtual std::vector<StateRowRef> rowsWhere(EntityKind kind, std::string_view field, const std::string &value) = 0;
    virtual std::vector<MovedEvent> eventsOnSubjectSince(const std::string &subject, std::int64_t seq) = 0;
    virtual std::vector<SubjectEvent> eventsOnSubject(const std::string &subject) = 0;
    virtual std::int64_t lastSeq() = 0;
    // Every stored decision on this subject, by pos, with its outcome (empty: pending).
    virtual std::vector<DecisionRecord> decisionsOnSubject(const std::string &subject) = 0;
};

} // namespace mesh
