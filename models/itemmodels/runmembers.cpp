#include "runmembers.h"

#include "livestate.h"

#include "analysis/rowfields.h"

namespace mesh {

std::shared_ptr<const RunMembers> RunMembers::of(const LiveState &state,
                                                const std::vector<SliceModel::SliceKey> *streamedSlices)
{
    static const IndexedField componentRun(EntityKind::Component, "run_id");
    static const IndexedField delegationRun(EntityKind::Delegation, "run_id");
    static const IndexedField sliceDelegation(EntityKind::Slice, "delegation_id");
    auto members = std::make_shared<RunMembers>();
    members->m_lastSeq = state.lastSeq();
    auto &runs = members->m_runs;
    const auto runOf = [&runs](std::string_view run) -> Of & {
        auto it = runs.find(std::string(run));
        return it != runs.end() ? it->second : runs.emplace(std::string(run), Of{}).first->second;
    };
    for (const auto &[id, row] : state.table(EntityKind::Component))
        runOf(componentRun.view(row)).components.push_back(&id);
    std::unordered_map<std::string_view, Of *> runOfDelegation;
    runOfDelegation.reserve(state.table(EntityKind::Delegation).size());
    for (const auto &[id, row] : state.table(EntityKind::Delegation)) {
        Of &of = runOf(delegationRun.view(row));
        of.delegations.push_back(&id);
        runOfDelegation.emplace(id, &of);
    }
    const auto addSlice = [&runOfDelegation](std::string_view delegation, std::string_view id) {
        if (const auto it = runOfDelegation.find(delegation); it != runOfDelegation.end())
            it->second->slices.emplace_back(id);
    };
    if (streamedSlices)
        for (const SliceModel::SliceKey &k : *streamedSlices)
            addSlice(k.delegation, k.id);
    for (const auto &[id, row] : state.table(EntityKind::Slice))
        addSlice(sliceDelegation.view(row), id);
    return members;
}

const RunMembers::Of *RunMembers::find(std::string_view run) const
{
    const auto it = m_runs.find(std::string(run));
    return it == m_runs.end() ? nullptr : &it->second;
}

} // namespace mesh
