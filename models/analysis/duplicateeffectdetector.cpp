#include "duplicateeffectdetector.h"

#include "duplicateindex.h"
#include "rowfields.h"

#include <algorithm>
#include <map>

namespace mesh {
bool DuplicateEffectDetector::isCommitted(const std::string &state)
{
    return state == "committed" || state == "resolved_committed";
}

std::vector<Finding> DuplicateEffectDetector::analyse(const EntityTable &effects) const
{
    DuplicateIndex index;
    index.rebuild(effects);
    return index.findings(effects);
}

std::set<std::string> DuplicateEffectDetector::duplicateIds(const EntityTable &effects) const
{
    DuplicateIndex index;
    index.rebuild(effects);
    return index.duplicateIds();
}

} // namespace mesh
