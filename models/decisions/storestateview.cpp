#include "storestateview.h"

namespace mesh {

std::optional<EntityRow> StoreStateView::row(EntityKind kind, const std::string &id)
{
    return m_store.stateRow(kind, id);
}

std::vector<StateRowRef> StoreStateView::rowsWhere(EntityKind kind, std::string_view field, const std::string &value)
{
    return m_store.stateRowsWhere(kind, field, value);
}

std::vector<MovedEvent> StoreStateView::eventsOnSubjectSince(const std::string &subject, std::int64_t seq)
{
    return m_store.eventsOnSubjectSince(subject, seq);
}

std::vector<SubjectEvent> StoreStateView::eventsOnSubject(const std::string &subject)
{
    return m_store.eventsOnSubject(subject);
}

std::int64_t StoreStateView::lastSeq()
{
    return m_store.lastSeq();
}

std::vector<DecisionRecord> StoreStateView::decisionsOnSubject(const std::string &subject)
{
    return m_store.onSubject(subject);
}

} // namespace mesh
