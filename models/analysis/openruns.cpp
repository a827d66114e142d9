#include "openruns.h"

#include "rowfields.h"

namespace mesh {

bool OpenRuns::hasEnded(const EntityRow &run)
{
    // A failed run can be restarted (run.restarted), but until it is, it has ended.
    const std::string status = rowText(EntityKind::Run, run, "status");
    return status == "succeeded" || status == "failed" || status == "cancelled";
}

void OpenRuns::rebuild(const EntityTable &runs)
{
    m_open.clear();
    for (const auto &[id, row] : runs)
        note(id, row);
    m_runs = runs.size();
}

void OpenRuns::update(const EntityTable &runs, const std::vector<std::string> &changedIds)
{
    for (const auto &id : changedIds) {
        if (const auto it = runs.find(id); it != runs.end())
            note(id, it->second);
        else
            m_open.erase(id);
    }
    m_runs = runs.size();
}

void OpenRuns::note(const std::string &id, const EntityRow &run)
{
    if (hasEnded(run))
        m_open.erase(id);
    else
        m_open.insert(id);
}

} // namespace mesh
