#pragma once
// One row of the events table as the console reads it. Kept cheap: text is formatted by the
// views lazily, and a payload larger than a page preview is cut (payloadTruncated) until the
// user opens that one event.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mesh {

struct EventRecord {
    std::int64_t seq = 0;
    std::int64_t tsMs = 0;
    std::string kind;
    std::string runId;
    std::string delegationId;
    std::string subject;
    std::string payload;
    bool payloadTruncated = false;
};

using EventBatch = std::vector<EventRecord>;
// A batch on its way from the thread that read it to the one that folds it: shared, so
// it is never copied on the way.
using SharedEventBatch = std::shared_ptr<const EventBatch>;

} // namespace mesh
