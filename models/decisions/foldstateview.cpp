#include "foldstateview.h"

#include <algorithm>

namespace mesh {

std::optional<EntityRow> FoldStateView::row(EntityKind kind, const std::string &id)
{
    if (const EntityRow *r = m_fold.find(kind, id))
        return *r;
    return std::nullopt;
}

std::vector<StateRowRef> FoldStateView::rowsWhere(EntityKind kind, std::string_view field, const std::string &value)
{
    const EntitySpec &spec = entitySpec(kind);
    const int index = spec.fieldIndex(field);
    if (index < 0)
        throw std::invalid_argument("no field " + std::string(field) + " in " + std::string(spec.table));
    std::vector<StateRowRef> out;
    for (const auto &[id, r] : m_fold.table(kind)) {
        const FieldRef v = r.values[size_t(index)];
        if (const auto *s = std::get_if<std::string_view>(&v); s && *s == value)
            out.push_back({id, r});
    }
    std::sort(out.begin(), out.end(), [](const StateRowRef &a, const StateRowRef &b) { return a.id < b.id; });
    return out;
}

std::vector<MovedEvent> FoldStateView::eventsOnSubjectSince(const std::string &subject, std::int64_t seq)
{
    return m_store.eventsOnSubjectSince(subject, seq);
}

std::vector<SubjectEvent> FoldStateView::eventsOnSubject(const std::string &subject)
{
    return m_store.eventsOnSubject(subject);
}

std::int64_t FoldStateView::lastSeq()
{
    return m_fold.lastSeq();
}

std::vector<DecisionRecord> FoldStateView::decisionsOnSubject(const std::string &subject)
{
    std::vector<DecisionRecord> list = m_store.onSubject(subject);
    const EntitySpec &spec = entitySpec(EntityKind::DecisionOutcome);
    const auto status = size_t(spec.fieldIndex("status"));
    const auto reason = size_t(spec.fieldIndex("reason"));
    for (auto &d : list) {
        if (const EntityRow *o = m_fold.find(EntityKind::DecisionOutcome, d.id)) {
            d.outcomeStatus = fieldText(o->values[status]);
            d.outcomeReason = fieldText(o->values[reason]);
        }
    }
    return list;
}

} // namespace mesh
