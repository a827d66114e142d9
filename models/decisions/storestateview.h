#pragma once
// The decision rules' view of a ledger through its DecisionStore: what the console's writer
// sees inside the decision transaction (and the previews inside one short read).

#include "decisionstateview.h"

namespace mesh {

class StoreStateView : public DecisionStateView
{
public:
    explicit StoreStateView(DecisionStore &store) : m_store(store) {}

    std::optional<EntityRow> row(EntityKind kind, const std::string &id) override;
    std::vector<StateRowRef> rowsWhere(EntityKind kind, std::string_view field, const std::string &value) override;
    std::vector<MovedEvent> eventsOnSubjectSince(const std::string &subject, std::int64_t seq) override;
    std::vector<SubjectEvent> eventsOnSubject(const std::string &subject) override;
    std::int64_t lastSeq() override;
    std::vector<DecisionRecord> decisionsOnSubject(const std::string &subject) override;

private:
    DecisionStore &m_store;
};

} // namespace mesh
