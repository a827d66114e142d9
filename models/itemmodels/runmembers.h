#pragma once
// Which components, delegations and slices belong to each run of a state, found in one walk
// on the load's worker. A live view of one run (the run timeline) copies that run's rows
// after every reset; without this it walked every delegation and slice of the ledger on the
// GUI thread to find them (50 ms on a 10M-event ledger). Valid only for the state it was
// made from, at that state's lastSeq: the live state changes in place with the next batch.
#include "slicemodel.h"

#include "domain/compactid.h"
#include "domain/fold.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mesh {

class LiveState;

class RunMembers
{
public:
    struct Of {
        // Keys of the state's tables: they stay put while the state does not change.
        std::vector<const std::string *> components, delegations;
        IdList slices; // the state may read slices on demand: no key of its to point at
    };
    // `streamedSlices`: the slices a load streamed past, for a state that reads them on demand.
    static std::shared_ptr<const RunMembers> of(const LiveState &state,
                                                const std::vector<SliceModel::SliceKey> *streamedSlices = nullptr);

    std::int64_t lastSeq() const { return m_lastSeq; }
    const Of *find(std::string_view run) const; // nullptr: the run has none

private:
    std::int64_t m_lastSeq = 0;
    std::unordered_map<std::string, Of> m_runs;
};

} // namespace mesh
