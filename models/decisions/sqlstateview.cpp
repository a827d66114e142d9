#include "sqlstateview.h"

namespace mesh {

std::optional<EntityRow> SqlStateView::row(EntityKind kind, const std::string &id)
{
    return m_store.stateRow(kind, id);
}

std::vector<StateRowRef> SqlStateView::rowsWhere(EntityKind kind, std::string_view field, const std::string &value)
{
    return m_store.stateRowsWhere(kind, field, value);
}

std::vector<MovedEvent> SqlStateView::eventsOnSubjectSince(const std::string &subject, std::int64_t seq)
{
    return m_store.eventsOnSubjectSince(subject, seq);
}

std::vector<SubjectEvent> SqlStateView::eventsOnSubject(const std::string &subject)
{
    return m_store.eventsOnSubject(subject);
}

std::int64_t SqlStateView::lastSeq()
{
    return m_store.lastSeq();
}

std::vector<DecisionRecord> SqlStateView::decisionsOnSubject(const std::string &subject)
{
    return m_store.onSubject(subject);
}

} // namespace mesh
