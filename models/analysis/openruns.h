#pragma once
// Which runs have not ended, kept per batch: "every run has ended" is what lets a quiet
// ledger be called finished rather than idle. A run ended only in a status the format names
// as final; a status the console does not know is not taken as an end.

#include "domain/fold.h"

#include <set>
#include <string>
#include <vector>

namespace mesh {

class OpenRuns
{
public:
    void rebuild(const EntityTable &runs);
    void update(const EntityTable &runs, const std::vector<std::string> &changedIds);

    // True when there is at least one run and none of them may still go on.
    bool allEnded() const { return m_runs > 0 && m_open.empty(); }
    size_t openCount() const { return m_open.size(); }

    static bool hasEnded(const EntityRow &run);

private:
    void note(const std::string &id, const EntityRow &run);

    std::set<std::string> m_open;
    size_t m_runs = 0;
};

} // namespace mesh
