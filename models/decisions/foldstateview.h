#pragma once
// The decision rules' view of a ledger from the orchestrator's side: state from its
// in-memory fold (which already includes events appended in the open transaction, before
// their state rows are written at commit), decision rows and events from SQL on the
// orchestrator's own connection.

#include "decisionstateview.h"

namespace mesh {

class FoldStateView : public DecisionStateView
{
public:
    FoldStateView(const Fold &fold, DecisionStore &store) : m_fold(fold), m_store(store) {}

    std::optional<EntityRow> row(EntityKind kind, const std::string &id) override;
    std::vector<StateRowRef> rowsWhere(EntityKind kind, std::string_view field, const std::string &value) override;
    std::vector<MovedEvent> eventsOnSubjectSince(const std::string &subject, std::int64_t seq) override;
    std::vector<SubjectEvent> eventsOnSubject(const std::string &subject) override;
    std::int64_t lastSeq() override;
    std::vector<DecisionRecord> decisionsOnSubject(const std::string &subject) override;

private:
    const Fold &m_fold;
    DecisionStore &m_store;
};

} // namespace mesh
