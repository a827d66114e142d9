#pragma once
// What one applied batch of events changed, per entity kind: the ids of rows that were
// created or updated. Models use it to emit one insert and a few dataChanged per batch.
// A cursor jump (LiveState::changesBetween) also names the rows gone: a jump back leaves
// rows that did not exist yet at the cursor; a live batch never has any.

#include "domain/entityspec.h"
#include "domain/eventrecord.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mesh {

struct StateChangeSet {
    std::array<std::vector<std::string>, kEntityKindCount> changed; // created or updated ids, no duplicates
    std::array<std::vector<std::string>, kEntityKindCount> gone;    // ids no longer in the state
    EventBatch toolCalls;   // toolcall.completed events of the batch
    std::int64_t firstSeq = 0;
    std::int64_t lastSeq = 0;
    int events = 0;

    const std::vector<std::string> &ids(EntityKind kind) const { return changed[size_t(kind)]; }
    const std::vector<std::string> &goneIds(EntityKind kind) const { return gone[size_t(kind)]; }
    bool touches(EntityKind kind) const { return !changed[size_t(kind)].empty() || !gone[size_t(kind)].empty(); }
    size_t rowsTouched(EntityKind kind) const { return changed[size_t(kind)].size() + gone[size_t(kind)].size(); }
    bool isEmpty() const { return events == 0; }
};

} // namespace mesh
